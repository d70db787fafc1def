"""JSON records whose targets are arrays, a submission row per position: stanford-covid-vaccine's `train.json` has a
record per RNA molecule (`id`, `sequence`, `seq_length`, and the targets `reactivity`, `deg_Mg_pH10`, ... as
arrays), `test.json` the test molecules, and the sample a row per (molecule, position): `id_seqpos` =
`<id>_<position>`.

`find_positions(probe)` finds the layout in a public dir for the harness (swarm/layouts/positions/split.py, which
checks the records against the sample and refuses, saying why, where they disagree) and the offline coder alike,
and `read_positions_examples` reads it as the coder's solutions do, a row per position (`position_rows`); they
embed this module's source, so it uses only the standard library and pandas.
"""

import os
import re

import pandas as pd

from swarm.formats.records import RECORD_SUFFIXES, position_fields, position_rows, read_records

POSITION_ID = re.compile(r"^(.+)_(\d+)$")  # a sample id: `<record id>_<position>`
POSITION_PROBE_IDS = 1000  # the sample's first ids, all of which must name a position
POSITION_HEADER_RECORDS = 1000  # the labelled records whose fields are its header


def position_record_files(data_dir: str, names: list) -> tuple | None:
    """(train, test): records files of the same suffix at the top of the dir (`train.json`, `test.json`), or None."""
    for suffix in RECORD_SUFFIXES:
        train, test = f"train{suffix}", f"test{suffix}"
        if train in names and test in names and os.path.isfile(os.path.join(data_dir, train)):
            return train, test
    return None


def find_positions(probe) -> dict | None:
    """{"train", "test", "id_field", "length_field"} where the dir's labelled records hold the targets as arrays
    (none holds the id column) and the sample's ids are `<test record id>_<position>`; "id_field" and
    "length_field" (`position_fields`) only where the test records and the sample agree. None where the files do not
    look so."""
    found = position_record_files(probe.data_dir, probe.names)
    ids = probe.ids
    if found is None or not ids or not all(POSITION_ID.match(i) for i in ids[:POSITION_PROBE_IDS]):
        return None
    train, test = (os.path.join(probe.data_dir, name) for name in found)
    try:
        head = read_records(train, limit=POSITION_HEADER_RECORDS)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    header = list(dict.fromkeys(k for record in head for k in record))
    if probe.id_column in header or not all(t in header for t in probe.targets):
        return None
    if not head or not all(isinstance(head[0].get(t), list) for t in probe.targets):
        return None
    fields = {"train": found[0], "test": found[1]}
    try:
        agreed = position_fields(head[:1], read_records(test), ids, probe.targets)
    except (OSError, ValueError, UnicodeDecodeError):
        agreed = None
    return {**fields, **(agreed or {})}


def read_positions_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): a row per position of each record, named as the sample's rows (`position_rows`)."""
    if "id_field" not in fields:
        raise ValueError(
            f"no field of {fields['test']} names the sample's records and counts their positions"
        )
    id_col = sample.columns[0]
    train, test = (
        position_rows(read_records(os.path.join(data_dir, fields[key])), fields["id_field"], fields["length_field"],
                      id_col, labelled=key == "train").head(max_rows)
        for key in ("train", "test")
    )  # fmt: skip
    return train, test
