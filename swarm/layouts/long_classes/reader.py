"""A submission with a row per (example, class) over a wide labelled table: rsna-2022-cervical-spine-fracture-
detection's `train.csv` has a study per row and a column per class (`patient_overall`, `C1`..`C7`), while
`test.csv` and the sample have a row per (study, class): `row_id` = `<StudyInstanceUID>_<prediction_type>`.
Or over a labelled table whose one column lists each example's classes (`image`, `labels` = `scab
frog_eye_leaf_spot`, as plant-pathology-2021-fgvc8's), while the sample alone lists the test's rows, `Id` =
`<image>_<class>` (`long_list_fields`): the classes are those the sample's ids name.

`long_class_fields(train_columns, test, id_column, targets)` recognises the layout from the tables;
`long_class_rows(train, fields, id_column, target)` melts the wide table into the test table's shape, a row per
(example, class) with the class as a column, which the offline coder then models like any table; a column of
lists is read into a 0/1 target per (example, class) alike (swarm/formats/label_sets.py's `long_label_sets`).

`find_long_classes(probe)` finds the layout in a public dir (`train.csv` beside `test.csv`) for the harness
(swarm/layouts/long_classes/split.py, and the public-file checks through detect.py) and the offline coder alike,
and `read_long_classes_examples` reads it as the coder's solutions do; they embed this module's source, so it uses
only the standard library and pandas.
"""

import os

import pandas as pd

from swarm.formats.csv_tables import csv_header, read_csv_as_meant
from swarm.formats.label_sets import class_sets, id_classes, key_and_class, long_label_sets

LONG_TABLES = ("train.csv", "test.csv")  # the wide labelled table and the long test table

MIN_LONG_CLASSES = 2  # a class column naming fewer of the labelled table's columns is no long layout
# The labelled CSVs, in the order looked at, one of whose columns may list each example's classes.
LIST_TABLES = ("train.csv", "train_labels.csv", "labels.csv", "training_labels.csv")
LIST_SCAN_ROWS = 10_000  # the labelled table's first rows, read to find its column of lists
LIST_CLASS_COLUMN = (
    "class"  # the class of a row melted from a column of lists (else "class_", ...: a free name)
)


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


def long_list_fields(table: pd.DataFrame, ids: list, id_column: str, targets: list) -> dict | None:
    """{"key", "labels", "classes", "class_column"} where the sample has one target column which the labelled
    table (`table`: its first rows, as text) lacks as it lacks the id column; one of its columns (`labels`) holds
    label sets whose classes the sample's `ids` name as `<key>_<class>`, each key with every class
    (`id_classes`); and another names its rows once each as the ids' keys name examples (`_key_column`). The
    class column is a name no column of `table` has. None otherwise."""
    if len(targets) != 1 or id_column in table.columns or targets[0] in table.columns or table.empty:
        return None
    for column in table.columns:
        found = id_classes(ids, table[column])
        if found is None or class_sets(table[column], found[1]) is None:
            continue
        key = _key_column(table.drop(columns=[column]), found[0])
        if key is not None:
            class_column = LIST_CLASS_COLUMN
            while class_column in table.columns:
                class_column += "_"
            return {"key": key, "labels": column, "classes": found[1], "class_column": class_column}
    return None


def _key_column(table: pd.DataFrame, keys: list) -> str | None:
    """The column naming `table`'s rows once each (no blank) as the sample's `keys` name the test's examples: of
    those, the first whose values share a length with the keys (file names, ids of one width), else the only
    one; None otherwise."""
    lengths = {len(k) for k in keys}
    unique = [c for c in table.columns if _names_once(table[c].astype(str).str.strip())]
    alike = [c for c in unique if set(table[c].astype(str).str.strip().str.len()) & lengths]
    return alike[0] if alike else unique[0] if len(unique) == 1 else None


def _names_once(values: pd.Series) -> bool:
    """Whether no value is blank or on two rows."""
    return bool(values.is_unique and (values != "").all())


def long_lists_fields(
    data_dir: str, names: list, sample: pd.DataFrame, id_column: str, targets: list
) -> dict | None:
    """`long_list_fields` of `data_dir`'s labelled CSV (the first of LIST_TABLES; its first rows, as text) and
    the sample (read as text), with the tables' names ("train"; "test": test.csv where it is there, which must
    then hold the key); refused on the header before the table is read; None where the layout is not there."""
    name = next((n for n in LIST_TABLES if n in names), None)
    if name is None or len(targets) != 1 or id_column not in sample.columns or sample.empty:
        return None
    path = os.path.join(data_dir, name)
    header = csv_header(path)
    ids = sample[id_column].astype(str).str.strip()
    if id_column in header or targets[0] in header or "_" not in ids.iloc[0]:
        return None
    try:
        head = pd.read_csv(path, dtype=str, keep_default_na=False, nrows=LIST_SCAN_ROWS)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return None
    fields = long_list_fields(head, ids.tolist(), id_column, targets)
    test = LONG_TABLES[1] if LONG_TABLES[1] in names else None
    if fields is None or (test is not None and fields["key"] not in csv_header(os.path.join(data_dir, test))):
        return None
    return {"train": name, "test": test, **fields}


def listed_rows(sample: pd.DataFrame, fields: dict) -> pd.DataFrame:
    """The rows a sample of `<key>_<class>` ids lists, with the key and the class as columns (`fields`' names):
    the test rows of a column of lists."""
    ids = sample[sample.columns[0]].astype(str).str.strip()
    classes = set(fields["classes"])
    pairs = [key_and_class(identifier, classes) or (identifier, "") for identifier in ids]
    return pd.DataFrame(
        {
            sample.columns[0]: ids.to_numpy(),
            fields["key"]: [key for key, _ in pairs],
            fields["class_column"]: [name for _, name in pairs],
        }
    )


def find_long_classes(probe) -> dict | None:
    """`long_tables_fields` of the probed dir, else `long_lists_fields`."""
    found = long_tables_fields(probe.data_dir, probe.id_column, probe.targets)
    if found:
        return found
    return long_lists_fields(probe.data_dir, probe.names, probe.sample, probe.id_column, probe.targets)


def read_long_classes_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the wide labelled table melted into a row per (example, class) (`long_class_rows`), the
    test table as it is; or the column of lists read as a 0/1 target per (example, class) (`long_label_sets`),
    the sample's rows with their keys and classes (`listed_rows`), test.csv's columns joined by the key."""
    train = read_csv_as_meant(os.path.join(data_dir, fields["train"]), nrows=max_rows)
    id_column, target = sample.columns[0], sample.columns[1]
    if not fields.get("labels"):
        test = read_csv_as_meant(os.path.join(data_dir, fields["test"]), nrows=max_rows)
        return long_class_rows(train, fields, id_column, target), test
    key, classes = fields["key"], list(fields["classes"])
    train[key] = train[key].astype(str).str.strip()
    rows = long_label_sets(train, fields["labels"], classes, (id_column, key, fields["class_column"], target))
    test = listed_rows(sample, fields)
    if fields["test"]:
        table = read_csv_as_meant(os.path.join(data_dir, fields["test"]))
        table[key] = table[key].astype(str).str.strip()
        table = table.drop(columns=[c for c in table.columns if c in test.columns and c != key])
        test = test.merge(table.drop_duplicates(key), on=key, how="left")
    return rows, test
