"""Visits: a row per (key, step) in the labelled table, each test key's first visit in the test table, and the
sample a row per test key and step (osic-pulmonary-fibrosis-progression: `train.csv` a row per (`Patient`,
`Weeks`) with its `FVC`; `test.csv` each test patient's first visit; `Patient_Week` = `<Patient>_<Weeks>` over a
range of weeks, with `FVC` and `Confidence`, which no table holds).

`visit_fields(train_columns, test, id_column, targets, sample_ids)` recognises the layout; `visit_frames(train,
test, fields, id_column, sample_ids)` gives the rows a model learns from and predicts: every visit with its
key's first visit beside it (`first_<column>`), and every sample id's step with its key's first visit.

`find_visits(probe)` finds the layout in a public dir (`train.csv` beside `test.csv`) for the harness
(swarm/layouts/visits/split.py) and the offline coder alike, and `read_visits_examples` reads it as the coder's
solutions do; they embed this module's source, so it uses only the standard library and pandas.
"""

import os

import pandas as pd

from swarm.formats.csv_tables import read_csv_as_meant

VISIT_TABLES = ("train.csv", "test.csv")  # the labelled table and the test table of visits

FIRST_PREFIX = "first_"  # the columns of a key's first visit, beside each of its rows


def visit_fields(
    train_columns: list, test: pd.DataFrame, id_column: str, targets: list, sample_ids: pd.Series
):
    """{"key", "step", "measured", "free", "steps"} where neither table has the id column; the sample's ids are
    `<key>_<step>`; the test table (read as text) names each of the sample's keys once, and its key and step
    columns (also the labelled table's) join into one of the sample's ids on every row; and the labelled table
    holds some of the targets ("measured"; the others are "free"). "steps": those the sample lists for its first
    key. None otherwise."""
    measured = [t for t in targets if t in train_columns]
    if not measured or id_column in train_columns or id_column in test.columns or test.empty:
        return None
    ids = sample_ids.astype(str).str.strip()
    parts = ids.str.rsplit("_", n=1)
    if parts.str.len().lt(2).any():
        return None
    keys, listed = parts.str[0], set(ids)
    shared = [c for c in test.columns if c in train_columns and c not in targets]
    for key in shared:
        values = test[key].astype(str).str.strip()
        if not values.is_unique or set(values) != set(keys):
            continue
        for step in (c for c in shared if c != key):
            if (values + "_" + test[step].astype(str).str.strip()).isin(listed).all():
                return {
                    "key": key,
                    "step": step,
                    "measured": measured,
                    "free": [t for t in targets if t not in measured],
                    "steps": list(parts.str[1][keys == keys.iloc[0]]),
                }
    return None


def visit_frames(
    train: pd.DataFrame, test: pd.DataFrame, fields: dict, id_column: str, sample_ids: pd.Series
):
    """(labelled rows, test rows): each visit, and each sample id, as its step and its key's first visit's
    columns (`first_<column>`; the first visit of a labelled key is its earliest), under its id `<key>_<step>`;
    the key itself is left out (no key is both labelled and tested)."""
    key, step = fields["key"], fields["step"]

    def firsts(table):
        ordered = table.assign(_step=pd.to_numeric(table[step], errors="coerce")).sort_values(
            "_step", kind="stable"
        )
        first = ordered.groupby(key, sort=False).head(1).drop(columns=["_step"])
        return first.rename(columns={c: FIRST_PREFIX + str(c) for c in first.columns if c != key})

    labelled = train[[key, step, *fields["measured"]]].merge(firsts(train), on=key, how="left")
    labelled.insert(
        0, id_column, labelled[key].astype(str).str.strip() + "_" + labelled[step].astype(str).str.strip()
    )
    ids = sample_ids.astype(str).str.strip()
    parts = ids.str.rsplit("_", n=1)
    asked = pd.DataFrame(
        {id_column: ids, key: parts.str[0], step: pd.to_numeric(parts.str[1], errors="coerce")}
    )
    tested = test.assign(**{key: test[key].astype(str).str.strip()})
    rows = asked.merge(firsts(tested), on=key, how="left")
    labelled = labelled.assign(**{key: labelled[key].astype(str).str.strip()})
    return labelled.drop(columns=[key]), rows.drop(columns=[key])


def find_visits(probe) -> dict | None:
    """`visit_fields` of the probed dir's `train.csv` (its header) and `test.csv` (read as text), with the tables'
    names ("train", "test"); None where either is missing or unreadable, or the layout is not there."""
    if not set(VISIT_TABLES) <= set(probe.names):
        return None
    train, test = (os.path.join(probe.data_dir, name) for name in VISIT_TABLES)
    try:
        columns = [str(c) for c in pd.read_csv(train, nrows=0).columns]
        if not any(t in columns for t in probe.targets):
            return None
        test_rows = pd.read_csv(test, dtype=str, keep_default_na=False)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    fields = visit_fields(columns, test_rows, probe.id_column, probe.targets, probe.sample[probe.id_column])
    return None if fields is None else {"train": VISIT_TABLES[0], "test": VISIT_TABLES[1], **fields}


def read_visits_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): every visit beside its key's first, every sample id's step beside its key's first visit
    (`visit_frames`); the targets no table holds take the sample's own values."""
    id_col = sample.columns[0]
    train = read_csv_as_meant(os.path.join(data_dir, fields["train"]), nrows=max_rows)
    test = read_csv_as_meant(os.path.join(data_dir, fields["test"]), nrows=max_rows)
    train, test = visit_frames(train, test, fields, id_col, sample.iloc[:, 0])
    return train.assign(**{c: sample[c].iloc[0] for c in fields["free"]}), test
