"""Labels in one column whose values are the submission's classes: a class per row (dog-breed-identification's
`breed`), or a set of them joined with "," (freesound-audio-tagging-2019's `labels`: `Bark,Walk_and_footsteps`) or
with blanks (plant-pathology-2021-fgvc8's `labels`: `scab frog_eye_leaf_spot`), which the submission has as a 0/1
column per class (or a 0/1 row per (example, class): swarm/layouts/long_classes/reader.py).

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


def label_tokens(values: pd.Series, limit: int) -> set | None:
    """Every class name the values could hold, read as `_sets` reads them (each value whole, its parts between
    ","s and its parts between blanks), or None where they are over `limit` (free text or ids, not classes)."""
    tokens: set = set()
    for value in values.astype(str).str.strip().unique():
        tokens |= {value} | _comma_parts(value) | _blank_parts(value)
        if len(tokens) > limit:
            return None
    return tokens


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


MAX_CLASSES = 1000  # a column whose values could name more classes holds free text or ids, not label sets


def key_and_class(identifier: str, classes: set) -> tuple | None:
    """(key, class) of an id `<key>_<class>`: the longest of `classes` the id ends with after a "_" (a class may
    hold "_": `frog_eye_leaf_spot`), or None."""
    for cut, char in enumerate(identifier):
        if char == "_" and cut > 0 and identifier[cut + 1 :] in classes:
            return identifier[:cut], identifier[cut + 1 :]
    return None


def id_classes(ids: list, values: pd.Series) -> tuple | None:
    """(keys, classes), each in the order the ids first name them, where every id is `<key>_<class>` with a class
    that `values` (a column of label sets) could name (`label_tokens`), and the ids list every key once with each
    class, at least two: a long submission with a row per (example, class). None otherwise."""
    tokens = label_tokens(values, MAX_CLASSES)
    if not tokens or not ids:
        return None
    pairs = []
    for identifier in ids:
        pair = key_and_class(identifier, tokens)
        if pair is None:
            return None
        pairs.append(pair)
    keys, classes = list(dict.fromkeys(k for k, _ in pairs)), list(dict.fromkeys(c for _, c in pairs))
    if len(classes) < MIN_CLASSES or len(set(pairs)) != len(pairs) or len(pairs) != len(keys) * len(classes):
        return None
    return keys, classes


def long_label_sets(table: pd.DataFrame, column: str, classes: list, columns: tuple) -> pd.DataFrame:
    """A row per (row of `table`, class) as a long submission has them: `columns` = (id, key, class, target)
    names the id `<key>_<class>` (the row's key column joined with the class), the class and the target, 1 where
    the row's set in `column` names the class, else 0; `table`'s other columns are kept. ValueError where a value
    of `column` names something besides `classes`."""
    id_column, key, class_column, target = columns
    sets = class_sets(table[column], classes)
    if sets is None:
        named = ", ".join(classes[:5])
        raise ValueError(f"the labels column {column!r} names classes beside the sample's ({named})")
    rest = table.drop(columns=[column])
    parts = [rest.assign(**{class_column: name, target: [int(name in s) for s in sets]}) for name in classes]
    rows = pd.concat(parts, ignore_index=True)
    rows.insert(0, id_column, rows[key].astype(str).str.strip() + "_" + rows[class_column])
    return rows
