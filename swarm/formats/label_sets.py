"""Labels in one column whose values are the submission's class columns: a class per row (dog-breed-
identification's `breed`), or a set of them joined with "," (freesound-audio-tagging-2019's `labels`:
`Bark,Walk_and_footsteps`), which the submission has as a 0/1 column per class.

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
    (blanks around each ignored), and at least two classes occur; None otherwise."""
    sets = _sets(values, classes)
    seen = set().union(*sets) if sets else set()
    return sets if sets is not None and len(seen) >= MIN_CLASSES else None


def within_classes(values: pd.Series, classes: list) -> bool:
    """Whether every value is one of `classes` or several of them joined with "," (however few occur): what a
    table's first rows must show for a column to be read whole as labels."""
    return _sets(values, classes) is not None


def _sets(values: pd.Series, classes: list) -> list | None:
    """Each value's set of classes, or None where a value names something else."""
    wanted = {str(c) for c in classes}
    text = values.astype(str).str.strip()
    if set(text.unique()) <= wanted:  # a class per row (also a class whose name holds a ",")
        return [{value} for value in text]
    sets = [{part.strip() for part in value.split(LABEL_SET_SEPARATOR)} for value in text]
    return sets if set().union(*sets) <= wanted else None


def label_set_column(table: pd.DataFrame, classes: list) -> str | None:
    """The first column of `table` whose values are the submission's classes, one or a set a row (`class_sets`),
    or None."""
    for column in table.columns:
        if class_sets(table[column], classes) is not None:
            return column
    return None


def holds_several(values: pd.Series) -> bool:
    """Whether some value names several classes (a set, not one class per row)."""
    return bool(values.astype(str).str.contains(LABEL_SET_SEPARATOR, regex=False).any())


def spread_label_sets(table: pd.DataFrame, column: str, classes: list) -> pd.DataFrame:
    """`table` with a 0/1 column per class (1 where the row's set names it), named as `classes`, instead of
    `column`."""
    sets = class_sets(table[column], classes) or [set()] * len(table)
    spread = pd.DataFrame({c: [int(str(c) in s) for s in sets] for c in classes}, index=table.index)
    return pd.concat([table.drop(columns=[column]), spread], axis=1)
