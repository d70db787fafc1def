"""A long submission with a row per (example, class): rsna-2022-cervical-spine-fracture-detection's layout.

The labelled table is wide, an example per row with a column per class (`train.csv`: `StudyInstanceUID`,
`patient_overall`, `C1`..`C7`); the test table is long, a row per (example, class) (`test.csv`: `row_id`,
`StudyInstanceUID`, `prediction_type`); the submission's id is `<key>_<class>` and its one target column is the
wide table's value of that class for that example (`sample_submission.csv`: `row_id`, `fractured`).
`long_classes` recognises it from the tables alone: the public-file checks then accept the test table's extra
columns (the id and the class column are the long keys, not inputs the training rows lack), and the harness
splits it by whole examples (`swarm.layouts.long_classes.split`). Where the labelled table's one column lists each
example's classes instead, and the sample alone lists the test's rows (plant-pathology-2021-fgvc8's `labels` behind
`Id` = `<image>_<class>`), the reader finds it from the sample's ids (`find_long_classes`), with no class column in
any table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from swarm.layouts.long_classes.reader import long_tables_fields


@dataclass(frozen=True)
class LongClasses:
    """Where a submission has a row per (example, class): the tables and their columns, as `long_classes`
    found them."""

    train: Path  # the wide labelled table: an example per row, a column per class (or a column of lists)
    test: Path | None  # the long test table, a row per (example, class); None: the sample alone lists them
    id_column: str  # the submission's id, `<key>_<class>`, also a column of the test table
    target: str  # the submission's one target column: the wide table's value of that class for that example
    key: str  # the column of both tables naming an example
    class_column: str  # the test table's column naming each row's class: a column of the wide table (lists: a
    # name no table has, the class column of the rows the reader melts them into)
    classes: tuple[str, ...]  # the classes the test table names, in the order it first names them
    labels: str | None = None  # the labelled table's column listing each example's classes, if it has one


def long_classes(public: Path, id_column: str, targets: list[str]) -> LongClasses | None:
    """The long-by-class layout of a public dir (`swarm.layouts.long_classes.reader.long_tables_fields`), or
    None."""
    fields = long_tables_fields(str(public), id_column, targets)
    return None if fields is None else long_layout_of(public, id_column, targets[0], fields)


def long_layout_of(public: Path, id_column: str, target: str, fields: dict) -> LongClasses:
    """The layout the reader found, with its tables' paths."""
    key, class_column, classes = fields["key"], fields["class_column"], tuple(fields["classes"])
    test = public / fields["test"] if fields.get("test") else None
    train = public / fields["train"]
    return LongClasses(train, test, id_column, target, key, class_column, classes, fields.get("labels"))
