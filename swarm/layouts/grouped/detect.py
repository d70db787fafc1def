"""Test rows grouped under one submission id: rsna-breast-cancer-detection's layout.

The labelled table has a row per input (`train.csv`: an image per row, `patient_id`, `laterality`, ..., the
target `cancer`) and no id column; the test table has a row per input too and the id column, which joins a few of
its key columns with `_` (`test.csv`: `prediction_id` = `<patient_id>_<laterality>`, on each of the breast's
images); the submission has a row per id (`sample_submission.csv`: `prediction_id`, `cancer`). `grouped_rows`
recognises it from the tables alone: the public-file checks then accept the test table's id column (a key of the
submission, not an input the training rows lack), and the harness holds out whole groups of the first key column
(`swarm.layouts.grouped.split`). A solution predicts per row and gives each id one value (the offline coder:
the mean of its rows' predictions).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from swarm.layouts.grouped.reader import grouped_fields


@dataclass(frozen=True)
class GroupedRows:
    """Where test rows are grouped under one submission id: the tables and columns, as `grouped_rows` found
    them."""

    train: Path  # the labelled table: a row per input, the targets, the key columns, no id column
    test: Path  # the test table: a row per input, the id column repeated over each group's rows
    id_column: str
    keys: tuple[str, ...]  # the test table's columns whose values joined with `_` are each row's id
    test_frame: pd.DataFrame  # the test table as text


def grouped_rows(public: Path, id_column: str, targets: list[str]) -> GroupedRows | None:
    """The grouped-rows layout of a public dir (`swarm.layouts.grouped.reader.grouped_fields`), or None."""
    fields = grouped_fields(str(public), id_column, targets)
    return None if fields is None else grouped_layout_of(public, id_column, fields)


def grouped_layout_of(public: Path, id_column: str, fields: dict) -> GroupedRows:
    """The layout the reader found, with its tables' paths and the test table read as text."""
    test = public / fields["test"]
    frame = pd.read_csv(test, dtype=str, keep_default_na=False)
    return GroupedRows(public / fields["train"], test, id_column, tuple(fields["keys"]), frame)
