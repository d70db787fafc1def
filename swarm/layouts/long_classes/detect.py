"""A long submission with a row per (example, class): rsna-2022-cervical-spine-fracture-detection's layout.

The labelled table is wide, an example per row with a column per class (`train.csv`: `StudyInstanceUID`,
`patient_overall`, `C1`..`C7`); the test table is long, a row per (example, class) (`test.csv`: `row_id`,
`StudyInstanceUID`, `prediction_type`); the submission's id is `<key>_<class>` and its one target column is the
wide table's value of that class for that example (`sample_submission.csv`: `row_id`, `fractured`).
`long_classes` recognises it from the tables alone: the public-file checks then accept the test table's extra
columns (the id and the class column are the long keys, not inputs the training rows lack), and the harness
splits it by whole examples (`swarm.layouts.long_classes.split`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from swarm.formats.csv_tables import csv_header
from swarm.layouts.long_classes.reader import long_tables_fields

TRAIN, TEST = "train.csv", "test.csv"


@dataclass(frozen=True)
class LongClasses:
    """Where a submission has a row per (example, class): the tables and their columns, as `long_classes`
    found them."""

    train: Path  # the wide labelled table: an example per row, a column per class
    test: Path  # the long test table: a row per (example, class)
    id_column: str  # the submission's id, `<key>_<class>`, also a column of the test table
    target: str  # the submission's one target column: the wide table's value of that class for that example
    key: str  # the column of both tables naming an example
    class_column: str  # the test table's column naming each row's class: a column of the wide table
    classes: tuple[str, ...]  # the classes the test table names, in the order it first names them


def long_classes(public: Path, id_column: str, targets: list[str]) -> LongClasses | None:
    """The long-by-class layout of a public dir (`swarm.layouts.long_classes.reader.long_tables_fields`), or
    None."""
    fields = long_tables_fields(str(public), id_column, targets)
    return None if fields is None else long_layout_of(public, id_column, targets[0], fields)


def long_layout_of(public: Path, id_column: str, target: str, fields: dict) -> LongClasses:
    """The layout the reader found, with its tables' paths."""
    key, class_column, classes = fields["key"], fields["class_column"], tuple(fields["classes"])
    return LongClasses(
        public / fields["train"], public / fields["test"], id_column, target, key, class_column, classes
    )


def id_only_in_test(public: Path, id_column: str) -> tuple[list[str], pd.DataFrame] | None:
    """(train.csv's columns, test.csv as text) where both exist, the submission's id column is test.csv's and not
    train.csv's (the id joins columns of the test rows: long and grouped layouts); None otherwise, refused on the
    headers before test.csv is read."""
    train, test = public / TRAIN, public / TEST
    if not (train.is_file() and test.is_file()):
        return None
    train_columns = csv_header(str(train))
    if id_column in train_columns or id_column not in csv_header(str(test)):
        return None
    try:
        table = pd.read_csv(test, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return None
    return train_columns, table
