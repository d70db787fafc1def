"""Whole groups whose inputs are twin tables: nfl-player-contact-detection's `train_labels.csv` has a row per contact
(`contact_id` = `<game_play>_<step>_<player>_<player>`, its `contact` label, its `game_play`), and each input table
comes as a pair, `train_player_tracking.csv` beside `test_player_tracking.csv`, both with a `game_play` column; the
test's contacts are listed by the sample alone.

`find_twins(probe)` finds the layout for the harness (swarm/layouts/twins/split.py) and the offline coder alike,
and `read_twins_examples` reads it as the coder's solutions do: the labels table, and the sample's ids split back
into the labelled columns they join (swarm/formats/id_parts.py). The solutions embed this module's source, so it
uses only the standard library and pandas.
"""

import csv
import os

import pandas as pd

from swarm.formats.csv_tables import read_csv_as_meant
from swarm.formats.id_parts import ID_PARTS_ROWS, id_part_columns, with_id_parts

TWIN_TRAIN_PREFIX, TWIN_TEST_PREFIX = "train_", "test_"
TWIN_ID_CHECK_ROWS = 100  # the labels table's first rows whose ids must start with their group


def group_of(example_id: str, groups) -> str | None:
    """The group an id starts with (`<group>_...`), the longest one of `groups`, or None."""
    found = None
    for at, character in enumerate(example_id):
        if character == "_" and example_id[:at] in groups:
            found = example_id[:at]
    return found


def _csv_columns(path: str) -> list:
    """A CSV's header as written (no parsing of its rows), less a byte-order mark, as pandas reads it; [] when it
    cannot be read."""
    try:
        with open(path, newline="", encoding="utf-8-sig", errors="replace") as handle:
            return next(csv.reader(handle), [])
    except OSError:
        return []


def twin_group_values(path: str, column: str) -> set:
    """The values of `column` in a CSV, as stripped text."""
    return set(pd.read_csv(path, usecols=[column], dtype=str, keep_default_na=False)[column].str.strip())


def _ids_start_with_groups(labels: str, id_column: str, group: str) -> bool:
    """Whether the labels table's first rows have ids that start with their row's group and `_`."""
    head = pd.read_csv(
        labels, usecols=[id_column, group], dtype=str, keep_default_na=False, nrows=TWIN_ID_CHECK_ROWS
    )
    if head.empty:
        return False
    pairs = zip(head[id_column].str.strip(), head[group].str.strip(), strict=True)
    return all(example.startswith(f"{value}_") for example, value in pairs)


def twin_fields(data_dir: str, names: list, id_column: str, targets: list, test_ids: list) -> dict | None:
    """{"labels", "group", "twins"} of the twin-tables layout of a dir, or None when it is not one: a top-level
    `train*.csv` holding the id column and the targets (its only such table), at least one `train_<x>.csv` beside a
    `test_<x>.csv`, and a column of the labels table that both tables of every twin hold, whose test values start
    every sample id (`<group>_...`) and whose values start the labels table's ids likewise."""
    if not targets or not test_ids:
        return None
    csvs = sorted(n for n in names if n.endswith(".csv") and os.path.isfile(os.path.join(data_dir, n)))
    headers = {name: _csv_columns(os.path.join(data_dir, name)) for name in csvs}
    labelled = [n for n, h in headers.items() if n.startswith("train") and {id_column, *targets} <= set(h)]
    if len(labelled) != 1:
        return None
    labels = labelled[0]
    twin_of = {
        n: TWIN_TEST_PREFIX + n[len(TWIN_TRAIN_PREFIX) :] for n in headers if n.startswith(TWIN_TRAIN_PREFIX)
    }
    twins = [[n, twin_of[n]] for n in headers if n != labels and n in twin_of and twin_of[n] in headers]
    if not twins:
        return None
    shared = set.intersection(*(set(headers[a]) & set(headers[b]) for a, b in twins))
    for column in headers[labels]:
        if column in shared and column != id_column and column not in targets:
            test_groups = twin_group_values(os.path.join(data_dir, twins[0][1]), column)
            labels_path = os.path.join(data_dir, labels)
            if all(group_of(i, test_groups) for i in test_ids) and _ids_start_with_groups(
                labels_path, id_column, column
            ):
                return {"labels": labels, "group": column, "twins": twins}
    return None


def find_twins(probe) -> dict | None:
    """`twin_fields` of the probed dir, with the labelled columns the sample's ids join ("id_parts", where they
    do)."""
    fields = twin_fields(probe.data_dir, probe.names, probe.id_column, probe.targets, probe.ids)
    if fields is None:
        return None
    try:
        head = pd.read_csv(
            os.path.join(probe.data_dir, fields["labels"]),
            nrows=ID_PARTS_ROWS,
            dtype=str,
            keep_default_na=False,
        )
    except (OSError, ValueError):
        return fields
    parts = id_part_columns(head, probe.id_column, probe.targets)
    return {**fields, "id_parts": parts} if parts else fields


def read_twins_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the labels table; the sample's ids, with the labelled columns they join given back."""
    id_col = sample.columns[0]
    train = read_csv_as_meant(os.path.join(data_dir, fields["labels"]), nrows=max_rows)
    test = sample[[id_col]].copy()
    return train, with_id_parts(test, train, fields["id_parts"], id_col) if fields.get("id_parts") else test
