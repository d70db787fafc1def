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

import itertools
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from swarm.formats.probe import Probe
from swarm.layouts.long_classes.detect import TEST, TRAIN, id_only_in_test

MAX_KEY_COLUMNS = 3  # the id joins at most this many columns of the test table
KEY_SCAN_COLUMNS = 20  # ... among its first this many columns


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
    """The grouped-rows layout of a public dir (`train.csv` and `test.csv`), or None when it is not one (see
    `grouped_row_keys`)."""
    tables = id_only_in_test(public, id_column) if targets else None
    if tables is None:
        return None
    train_columns, table = tables
    keys = grouped_row_keys(train_columns, table, id_column, targets)
    return None if keys is None else GroupedRows(public / TRAIN, public / TEST, id_column, keys, table)


def grouped_row_keys(
    train_columns: list[str], test: pd.DataFrame, id_column: str, targets: list[str]
) -> tuple[str, ...] | None:
    """The key columns where every target is a column of the labelled table (`train_columns`), which lacks the
    id column; the test table (read as text) holds the id column with some id on several rows, and 1-3 of its
    first 20 columns that the labelled table has too give each row's id joined with `_` (fewer columns first).
    None otherwise."""
    if not targets or id_column in train_columns or not set(targets) <= set(train_columns):
        return None
    if id_column not in test.columns or test.empty:
        return None
    ids = test[id_column].astype(str).str.strip()
    if ids.is_unique:
        return None
    columns = [c for c in test.columns[:KEY_SCAN_COLUMNS] if c != id_column and c in train_columns]
    values = {c: test[c].astype(str).str.strip() for c in columns}
    first = ids.iloc[0]
    for size in range(1, MAX_KEY_COLUMNS + 1):
        for keys in itertools.permutations(columns, size):
            if "_".join(values[c].iloc[0] for c in keys) != first:
                continue
            joined = values[keys[0]]
            for column in keys[1:]:
                joined = joined + "_" + values[column]
            if joined.equals(ids):
                return tuple(keys)
    return None


def find_grouped(probe: Probe) -> GroupedRows | None:
    """`grouped_rows` of the probed dir."""
    return grouped_rows(Path(probe.data_dir), probe.id_column, probe.targets)
