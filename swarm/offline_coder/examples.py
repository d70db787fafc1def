"""The labelled examples and the test rows of a competition's dir as frames, once its files are found
(`swarm.offline_coder.discovery`): a registered layout's reader, or the labelled table with what the coder found
beside it. Only the standard library, pandas and the readers: embedded in solutions that infer their task at run
time."""

import os

import pandas as pd

from swarm.formats.csv_tables import read_csv_as_meant
from swarm.formats.id_parts import with_id_parts
from swarm.formats.label_sets import spread_label_sets
from swarm.formats.parquet_tables import is_parquet_name, parquet_columns, parquet_table
from swarm.formats.records import is_records_file, records_table
from swarm.layouts.file_labels.reader import FILE_COLUMN, file_label_frame, test_file_paths


def read_table(path: str, max_rows: int | None = None) -> pd.DataFrame:
    """A CSV (its text keeping "NA" and "None": swarm/formats/csv_tables.py) or parquet table, or JSON records as one
    (swarm/formats/records.py)."""
    if is_parquet_name(path):
        return parquet_table(path, max_rows)
    return records_table(path, max_rows) if is_records_file(path) else read_csv_as_meant(path, nrows=max_rows)


def table_columns(path: str) -> list:
    """A CSV's or parquet table's column names (a parquet's named index among them), read without its rows."""
    return parquet_columns(path) if is_parquet_name(path) else list(pd.read_csv(path, nrows=0).columns)


def read_examples(
    input_dir: str, files: dict, sample: pd.DataFrame, layouts, max_rows: int | None = None
) -> tuple:
    """(train, test) frames: a registered layout's (`layouts`, the registry's (name, find, read) in order), else the
    labelled table and test.csv, or, for training files labelled by their names, their paths and labels, and the
    sample's ids with their test files' paths (FILE_COLUMN)."""
    for name, _, read in layouts:
        if files.get(name):
            return read(input_dir, files[name], sample, max_rows)
    if files.get("train_files"):
        layout = files["train_files"]
        train = file_label_frame(input_dir, layout)
        test = sample[[sample.columns[0]]].copy()
        test[FILE_COLUMN] = test_file_paths(input_dir, layout, test.iloc[:, 0])
        return train, test
    train = read_table(os.path.join(input_dir, files["train"]), max_rows)
    if files.get("label_sets"):  # a 0/1 column per class of the sample, from a column of label sets
        train = spread_label_sets(train, files["label_sets"], list(sample.columns[1:]))
    if files["test"]:
        test = read_table(os.path.join(input_dir, files["test"]), max_rows)
    else:
        test = sample[[sample.columns[0]]].copy()  # the test rows are the sample submission's ids
    if files.get("id_parts") and not files["test"]:  # the ids give back the labelled columns they join
        test = with_id_parts(test, train, files["id_parts"], sample.columns[0])
    return same_id_name(train, test, sample)


def same_id_name(train: pd.DataFrame, test: pd.DataFrame, sample: pd.DataFrame) -> tuple:
    """(train, test) with a column named as a sample column but for case renamed to it, where the test table
    lacks every sample column (iwildcam-2019's `id` for the sample's `Id`)."""
    if any(c in test.columns for c in sample.columns):
        return train, test
    lower = {str(c).lower(): c for c in sample.columns}
    renamed = {c: lower[str(c).lower()] for c in test.columns if str(c).lower() in lower}
    return train.rename(columns=renamed), test.rename(columns=renamed)
