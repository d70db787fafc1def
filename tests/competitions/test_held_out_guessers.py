"""A solution that could tell held-out rows from test rows could behave differently when scored (issue 30,
point 2). Guessers that read what the sandbox sees (id gaps in train.csv, id ranges, the distance to the
nearest training id, row order; the files' mtimes, inodes, link counts and sizes) must find the held-out rows
no better than chance, on titanic (ids numbered, train.csv's gaps are the held-out rows' own ids), the other bundled
tables (but chicago-ridership, whose ids follow its dates and are kept) and digit-images (ids name image files,
held-out images come from train/)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.layouts.holdout import Holdout, build_holdout
from tests.evaluation.chance import auc

CHANCE_MARGIN = 0.1  # |AUC - 0.5| allowed: four standard errors for about 200 held-out and 400 test rows

Guesser = Callable[[pd.DataFrame, Path], np.ndarray]  # (the view's test rows, the view) -> a score per row


def numbers(ids: pd.Series) -> np.ndarray:
    """The ids as numbers: themselves where numeric, else their rank in sorted order."""
    as_numbers = pd.to_numeric(ids, errors="coerce")
    return as_numbers.to_numpy() if as_numbers.notna().all() else ids.rank(method="dense").to_numpy()


def train_ids(view: Path) -> pd.Series:
    """train.csv's ids (its first column, as test.csv's), as numbers."""
    return pd.to_numeric(pd.read_csv(view / "train.csv", dtype=str).iloc[:, 0])


def in_train_gaps(rows: pd.DataFrame, view: Path) -> np.ndarray:
    """1 where an id is one that train.csv's numbering skips (a held-out row that kept its own id)."""
    train = train_ids(view).astype(int)
    gaps = set(range(int(train.min()), int(train.max()) + 1)) - set(train)
    return np.array([float(int(i) in gaps) for i in numbers(rows["id"])])


def id_value(rows: pd.DataFrame, view: Path) -> np.ndarray:
    return numbers(rows["id"])


def nearest_train_id(rows: pd.DataFrame, view: Path) -> np.ndarray:
    train = np.sort(train_ids(view).to_numpy())
    ids = numbers(rows["id"])
    at = np.clip(np.searchsorted(train, ids), 1, len(train) - 1)
    return np.minimum(np.abs(ids - train[at - 1]), np.abs(ids - train[at]))


def row_order(rows: pd.DataFrame, view: Path) -> np.ndarray:
    return np.arange(len(rows), dtype=float)


def file_stat(field: str) -> Guesser:
    def guess(rows: pd.DataFrame, view: Path) -> np.ndarray:
        return np.array([float(getattr(os.stat(view / "test" / i), field)) for i in rows["id"]])

    guess.__name__ = field
    return guess


def held_out_rows(holdout: Holdout) -> tuple[pd.DataFrame, np.ndarray]:
    """The view's test rows (test.csv's order) and which are held out."""
    rows = pd.read_csv(holdout.public_dir / "test.csv", dtype=str, keep_default_na=False)
    rows = rows.rename(columns={holdout.id_column: "id"})
    return rows, rows["id"].isin(set(holdout.ids)).to_numpy()


TABLE_GUESSERS = [in_train_gaps, id_value, nearest_train_id, row_order]
FILE_GUESSERS = [id_value, row_order, *map(file_stat, ("st_mtime_ns", "st_ino", "st_nlink", "st_size"))]


TABLES = (
    *("titanic", "house-prices", "telco-churn", "food-reviews", "flight-delays"),
    *("electricity-demand", "exam-schools"),
)  # chicago keeps its ids


@pytest.mark.parametrize(
    ("competition_id", "guessers"),
    [*((c, TABLE_GUESSERS) for c in TABLES), ("digit-images", FILE_GUESSERS)],
    ids=[*TABLES, "digit-images"],
)
def test_held_out_rows_cannot_be_told_from_test_rows(
    cache_dir: Path, tmp_path: Path, competition_id: str, guessers: list[Guesser]
) -> None:
    holdout = build_holdout(load_competition(competition_id, cache_dir), tmp_path / "h", fraction=0.2, seed=0)
    assert holdout.fresh_ids, holdout.describe_ids()
    rows, held = held_out_rows(holdout)
    assert held.sum() == len(holdout.ids) > 100 and (~held).sum() > 100
    found = {guess.__name__: auc(guess(rows, holdout.public_dir), held) for guess in guessers}
    print(competition_id, {name: round(value, 3) for name, value in found.items()})  # noqa: T201 (figures, -s)
    beyond = {name: round(value, 3) for name, value in found.items() if abs(value - 0.5) > CHANCE_MARGIN}
    assert not beyond, f"guessers beat chance on {competition_id}: {beyond} (all: {found})"
