"""Visits: a row per (key, step) in the labelled table, each test key's first visit in the test table, and the
sample a row per test key and step (osic-pulmonary-fibrosis-progression: `train.csv` a row per (`Patient`,
`Weeks`) with its `FVC`; `test.csv` each test patient's first visit; `Patient_Week` = `<Patient>_<Weeks>` over a
range of weeks, with `FVC` and `Confidence`, which no table holds).

`visit_fields(train_columns, test, id_column, targets, sample_ids)` recognises the layout; `visit_frames(train,
test, fields, id_column, sample_ids)` gives the rows a model learns from and predicts: every visit with its
key's first visit beside it (`first_<column>`), and every sample id's step with its key's first visit.

Shared by the harness (swarm/layouts/visits/split.py) and the offline coder; the solutions the offline coder
writes embed this module's source, so it uses only pandas.
"""

import pandas as pd

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
