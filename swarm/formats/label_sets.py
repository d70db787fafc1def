"""Labels in one column whose values are the submission's classes: a class per row (dog-breed-identification's
`breed`), or a set of them joined with "," (freesound-audio-tagging-2019's `labels`: `Bark,Walk_and_footsteps`) or
with blanks (plant-pathology-2021-fgvc8's `labels`: `scab frog_eye_leaf_spot`), which the submission has as a 0/1
column per class.

`class_sets(values, classes)` reads such a column; `label_set_column(table, classes)` finds it in a table;
`spread_label_sets(table, column, classes)` writes it as the submission's class columns; `within_classes` checks
a table's first rows before a column is read whole. Shared by the harness
(swarm/evaluation/labels.py) and the offline coder; the solutions the offline coder writes embed this module's
source, so it uses only pandas.
"""

import pandas as pd

LABEL_SET_SEPARATOR = ","
MIN_CLASSES = 2  # a column naming fewer of the submission's classes holds no labels


def class_sets(values: pd.Series, classes: list) -> list | None:
    """Each value's set of classes, where every value is one of `classes` or several of them joined with ","
    (blanks around each ignored) or with blanks, and at least two classes occur; None otherwise."""
    sets = _sets(values, classes)
    seen = set().union(*sets) if sets else set()
    return sets if sets is not None and len(seen) >= MIN_CLASSES else None


def within_classes(values: pd.Series, classes: list) -> bool:
    """Whether every value is one of `classes` or several of them joined with "," or blanks (however few occur):
    what a table's first rows must show for a column to be read whole as labels."""
    return _sets(values, classes) is not None


def _sets(values: pd.Series, classes: list) -> list | None:
    """Each value's set of classes, or None where a value names something else. A value is read whole (a class
    whose name holds a "," or a blank), else split at ",", else at blanks: the first reading that names only
    `classes` in every value. A blank value names no class, so it is none of these."""
    wanted = {str(c) for c in classes}
    text = values.astype(str).str.strip()
    if set(text.unique()) <= wanted:  # a class per row
        return [{value} for value in text]
    for parts in (_comma_parts, _blank_parts):
        sets = [parts(value) for value in text]
        if set().union(*sets) <= wanted:
            return sets
    return None


def _comma_parts(value: str) -> set:
    """The classes a value joins with "," (blanks around each ignored)."""
    return {part.strip() for part in value.split(LABEL_SET_SEPARATOR)}


def _blank_parts(value: str) -> set:
    """The classes a value joins with blanks; a blank value as itself (it names no class)."""
    return set(value.split()) or {value}


def label_set_column(table: pd.DataFrame, classes: list) -> str | None:
    """The first column of `table` whose values are the submission's classes, one or a set a row (`class_sets`),
    or None."""
    for column in table.columns:
        if class_sets(table[column], classes) is not None:
            return column
    return None


def holds_several(values: pd.Series, classes: list) -> bool:
    """Whether some value names several of `classes` (a set, not one class per row)."""
    return any(len(found) > 1 for found in _sets(values, classes) or [])


def spread_label_sets(table: pd.DataFrame, column: str, classes: list) -> pd.DataFrame:
    """`table` with a 0/1 column per class (1 where the row's set names it), named as `classes`, instead of
    `column`."""
    sets = class_sets(table[column], classes) or [set()] * len(table)
    spread = pd.DataFrame({c: [int(str(c) in s) for s in sets] for c in classes}, index=table.index)
    return pd.concat([table.drop(columns=[column]), spread], axis=1)
