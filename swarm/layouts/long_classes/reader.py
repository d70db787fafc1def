"""A submission with a row per (example, class) over a wide labelled table: rsna-2022-cervical-spine-fracture-
detection's `train.csv` has a study per row and a column per class (`patient_overall`, `C1`..`C7`), while
`test.csv` and the sample have a row per (study, class): `row_id` = `<StudyInstanceUID>_<prediction_type>`.

`long_class_fields(train_columns, test, id_column, targets)` recognises the layout from the tables;
`long_class_rows(train, fields, id_column, target)` melts the wide table into the test table's shape, a row per
(example, class) with the class as a column, which the offline coder then models like any table.

`find_long_classes(probe)` finds the layout in a public dir (`train.csv` beside `test.csv`) for the harness
(swarm/layouts/long_classes/split.py, and the public-file checks through detect.py) and the offline coder alike,
and `read_long_classes_examples` reads it as the coder's solutions do; they embed this module's source, so it uses
only the standard library and pandas.
"""

import os

import pandas as pd

from swarm.formats.csv_tables import csv_header, read_csv_as_meant

LONG_TABLES = ("train.csv", "test.csv")  # the wide labelled table and the long test table

MIN_LONG_CLASSES = 2  # a class column naming fewer of the labelled table's columns is no long layout


def long_class_fields(train_columns: list, test: pd.DataFrame, id_column: str, targets: list) -> dict | None:
    """{"key", "class_column", "classes"} where the sample has one target column which the labelled table
    (`train_columns`) lacks as it lacks the id column; the test table (read as text) holds the id column, a key
    column the labelled table has too, and a class column it lacks whose values (at least two) are all its
    columns; and every test row's id is its key and class joined with `_`. None otherwise."""
    if len(targets) != 1 or not train_columns or id_column in train_columns or targets[0] in train_columns:
        return None
    if id_column not in test.columns or test.empty:
        return None
    ids = test[id_column].astype(str).str.strip()
    keys = [c for c in test.columns if c != id_column and c in train_columns]
    for class_column in (c for c in test.columns if c != id_column and c not in train_columns):
        values = test[class_column].astype(str).str.strip()
        classes = [str(c) for c in pd.unique(values)]
        if len(classes) < MIN_LONG_CLASSES or not set(classes) <= set(train_columns):
            continue
        for key in keys:
            if (test[key].astype(str).str.strip() + "_" + values).equals(ids):
                return {"key": key, "class_column": class_column, "classes": classes}
    return None


def long_class_rows(train: pd.DataFrame, fields: dict, id_column: str, target: str) -> pd.DataFrame:
    """A row per (example, class) of the wide labelled table, as the test table has them: the id
    `<key>_<class>`, the key, the class column, and `target` (that class's value for that example); rows whose
    value is missing are left out."""
    key, class_column = fields["key"], fields["class_column"]
    parts = [
        pd.DataFrame({key: train[key].to_numpy(), class_column: name, target: train[name].to_numpy()})
        for name in fields["classes"]
    ]
    rows = pd.concat(parts, ignore_index=True)
    rows.insert(0, id_column, rows[key].astype(str).str.strip() + "_" + rows[class_column].astype(str))
    return rows[rows[target].notna()].reset_index(drop=True)


def long_tables_fields(data_dir: str, id_column: str, targets: list) -> dict | None:
    """`long_class_fields` of `data_dir`'s `train.csv` (its header) and `test.csv` (read as text), with the tables'
    names ("train", "test"); refused on the headers before test.csv is read (the id in train.csv, or not in
    test.csv); None where the layout is not there."""
    train, test = (os.path.join(data_dir, name) for name in LONG_TABLES)
    if len(targets) != 1 or not (os.path.isfile(train) and os.path.isfile(test)):
        return None
    train_columns = csv_header(train)
    if id_column in train_columns or id_column not in csv_header(test):
        return None
    try:
        rows = pd.read_csv(test, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return None
    fields = long_class_fields(train_columns, rows, id_column, targets)
    return None if fields is None else {"train": LONG_TABLES[0], "test": LONG_TABLES[1], **fields}


def find_long_classes(probe) -> dict | None:
    """`long_tables_fields` of the probed dir."""
    return long_tables_fields(probe.data_dir, probe.id_column, probe.targets)


def read_long_classes_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the wide labelled table melted into a row per (example, class) (`long_class_rows`); the
    test table as it is."""
    train = read_csv_as_meant(os.path.join(data_dir, fields["train"]), nrows=max_rows)
    test = read_csv_as_meant(os.path.join(data_dir, fields["test"]), nrows=max_rows)
    return long_class_rows(train, fields, sample.columns[0], sample.columns[1]), test
