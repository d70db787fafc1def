"""A labelled table read for a split, within the size the harness reads whole (evaluation.max_train_mb)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.evaluation.holdout_record import NoHoldout
from swarm.evaluation.table_io import is_parquet, parquet_size_mb, read_csv_as_text

MIN_LABELLED_ROWS = 10  # fewer labelled rows than this leave nothing worth holding out


class TooLarge(NoHoldout):
    """The labelled table is over evaluation.max_train_mb: too large to read whole (`path`)."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


def read_labelled_table(path: Path, max_train_mb: float) -> pd.DataFrame:
    """A labelled CSV as text; TooLarge over evaluation.max_train_mb, NoHoldout with too few rows to split."""
    check_size(path, max_train_mb)
    train = read_csv_as_text(path)
    if len(train) < MIN_LABELLED_ROWS:
        raise NoHoldout(f"{path.name} has only {len(train)} rows")
    return train


def check_size(path: Path, max_train_mb: float) -> None:
    """TooLarge (a NoHoldout) when the labelled table is over evaluation.max_train_mb (reading it would cost too
    much)."""
    size_mb = parquet_size_mb(path) if is_parquet(path) else path.stat().st_size / 1e6
    if size_mb > max_train_mb:
        size = f"{size_mb:.0f}" if size_mb >= 10 else f"{size_mb:.2g}"
        raise TooLarge(f"{path.name} is {size} MB, over evaluation.max_train_mb={max_train_mb:g}", path)
