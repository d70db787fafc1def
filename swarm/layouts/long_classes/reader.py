"""A submission with a row per (example, class) over a wide labelled table: rsna-2022-cervical-spine-fracture-
detection's `train.csv` has a study per row and a column per class (`patient_overall`, `C1`..`C7`), while
`test.csv` and the sample have a row per (study, class): `row_id` = `<StudyInstanceUID>_<prediction_type>`.

`long_class_fields(train_columns, test, id_column, targets)` recognises the layout from the tables;
`long_class_rows(train, fields, id_column, target)` melts the wide table into the test table's shape, a row per
(example, class) with the class as a column, which the offline coder then models like any table.

Shared by the harness (swarm/layouts/long_classes/detect.py) and the offline coder; the solutions the offline coder
writes embed this module's source, so it uses only pandas.
"""

import pandas as pd

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
