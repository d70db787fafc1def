"""Test rows grouped under one submission id: rsna-breast-cancer-detection's `test.csv` has a row per image, its
`prediction_id` (`<patient_id>_<laterality>`) repeated over the images of a breast, while `train.csv` has a row per
image with its `cancer` label and no id column; the submission has a row per `prediction_id`.

`find_grouped(probe)` finds the layout (`train.csv` beside `test.csv`) for the harness (swarm/layouts/grouped/
split.py; the public-file checks through detect.py) and the offline coder alike, and `read_grouped_examples` reads
it as the coder's solutions do: both tables as they are, a row per input. The solutions embed this module's source,
so it uses only the standard library and pandas.
"""

import itertools
import os

import pandas as pd

from swarm.formats.csv_tables import csv_header, read_csv_as_meant

GROUPED_TABLES = ("train.csv", "test.csv")  # the labelled table and the test table, a row per input each
MAX_GROUP_KEYS = 3  # the id joins at most this many columns of the test table
GROUP_KEY_SCAN_COLUMNS = 20  # ... among its first this many columns


def id_only_in_test(data_dir: str, id_column: str) -> tuple | None:
    """(train.csv's columns, test.csv as text) where both exist, the submission's id column is test.csv's and not
    train.csv's (the id joins columns of the test rows); None otherwise, refused on the headers before test.csv is
    read."""
    train, test = (os.path.join(data_dir, name) for name in GROUPED_TABLES)
    if not (os.path.isfile(train) and os.path.isfile(test)):
        return None
    train_columns = csv_header(train)
    if id_column in train_columns or id_column not in csv_header(test):
        return None
    try:
        table = pd.read_csv(test, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return None
    return train_columns, table


def grouped_row_keys(train_columns: list, test: pd.DataFrame, id_column: str, targets: list) -> tuple | None:
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
    columns = [c for c in test.columns[:GROUP_KEY_SCAN_COLUMNS] if c != id_column and c in train_columns]
    values = {c: test[c].astype(str).str.strip() for c in columns}
    first = ids.iloc[0]
    for size in range(1, MAX_GROUP_KEYS + 1):
        for keys in itertools.permutations(columns, size):
            if "_".join(values[c].iloc[0] for c in keys) != first:
                continue
            joined = values[keys[0]]
            for column in keys[1:]:
                joined = joined + "_" + values[column]
            if joined.equals(ids):
                return tuple(keys)
    return None


def grouped_fields(data_dir: str, id_column: str, targets: list) -> dict | None:
    """{"train", "test", "keys"} of the grouped-rows layout of a dir, or None (see `grouped_row_keys`)."""
    tables = id_only_in_test(data_dir, id_column) if targets else None
    if tables is None:
        return None
    keys = grouped_row_keys(*tables, id_column, targets)
    return (
        None if keys is None else {"train": GROUPED_TABLES[0], "test": GROUPED_TABLES[1], "keys": list(keys)}
    )


def find_grouped(probe) -> dict | None:
    """`grouped_fields` of the probed dir."""
    return grouped_fields(probe.data_dir, probe.id_column, probe.targets)


def read_grouped_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): both tables as they are, a row per input (the test rows name their group's id)."""
    train = read_csv_as_meant(os.path.join(data_dir, fields["train"]), nrows=max_rows)
    return train, read_csv_as_meant(os.path.join(data_dir, fields["test"]), nrows=max_rows)
