"""The group of each held-out row, where the harness held out whole groups: what a score's bootstrap resamples.

A split of kind `group:<column>` holds out whole groups of a column (a store, a user), one of kind `day:<column>`
(or `blocks:<column>`, blocks of them) whole calendar days of a date column; a bootstrap resamples those days. Rows of one group are alike, so a bootstrap that resamples rows treats
them as independent and gives too narrow an interval; it must resample whole groups. The groups are read once,
when the harness is built, from the view's test table (the held-out rows are there with their columns):
`<id>` and `<column>` only, and only where that table is at most `MAX_TABLE_MB`. Where they are not at hand (the
column is not in that table, the layout keeps its held-out rows elsewhere, the table is larger), rows are
resampled and the interval's note says that it understates the spread. A split by the id itself (rows that
share an id) groups rows keyed by the id and other columns by their id.
"""

from __future__ import annotations

import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.competitions.validation import InvalidSubmission, keyed
from swarm.evaluation.holdout_record import TEST, Holdout

GROUPED_SPLITS = ("group:", "day:", "blocks:")
DAY_SPLITS = ("day:", "blocks:")
MAX_TABLE_MB = 256.0


def held_out_groups(
    holdout: Holdout, spec: MetricSpec, labels: pd.DataFrame
) -> tuple[dict[str, str] | None, str | None]:
    """(each scored row's id -> its group, None) where the split held out whole groups and they are at hand;
    (None, why the interval resamples rows and what that misses) where they are not; (None, None) where the
    split held out rows."""
    kind = next((k for k in GROUPED_SPLITS if holdout.split.startswith(k)), None)
    if kind is None:
        return None, None
    column = holdout.split[len(kind) :]
    if column == holdout.id_column and not spec.key_columns:
        return None, None  # each scored row is its id's only row: a group of its own
    whole = "whole days" if kind in DAY_SPLITS else f"whole {column!r} groups"
    caveat = (
        f"rows resampled, though the split held out {whole}, because {{}}: the interval understates the "
        "spread (rows of one group are alike)"
    )
    try:
        by_id = _groups_by_id(holdout, column, kind in DAY_SPLITS)
    except (OSError, ValueError, KeyError, pd.errors.ParserError) as exc:
        return None, caveat.format(f"the groups could not be read ({' '.join(str(exc).split())[:120]})")
    if by_id is None:
        return None, caveat.format(f"the view's {TEST} does not hold {column!r} beside {holdout.id_column!r}")
    if not spec.key_columns:
        return by_id, None
    try:  # rows keyed by the id and other columns: the scored rows' joined keys, grouped by their id
        frame, keyed_spec = keyed(labels.astype(str), spec)
    except InvalidSubmission as exc:
        return None, caveat.format(str(exc))
    ids = frame[spec.id_column].str.strip()
    joined = frame[keyed_spec.id_column].str.strip()
    return {k: by_id.get(i, i) for k, i in zip(joined, ids, strict=True)}, None


def _groups_by_id(holdout: Holdout, column: str, by_day: bool) -> dict[str, str] | None:
    """Each held-out id's group: its value of `column` (its calendar day where `by_day`) in the view's test
    table, or the id itself where the split grouped by the id; None where that table lacks the column."""
    held = set(holdout.ids)
    if column == holdout.id_column:
        return {i: i for i in held}
    path = holdout.public_dir / TEST
    if not path.is_file() or path.stat().st_size > MAX_TABLE_MB * 2**20:
        return None
    header = pd.read_csv(path, nrows=0, dtype=str).columns
    if column not in header or holdout.id_column not in header:
        return None
    table = pd.read_csv(path, usecols=[holdout.id_column, column], dtype=str, keep_default_na=False)
    ids = table[holdout.id_column].str.strip()
    rows = table[ids.isin(held)]
    values = rows[column].str.strip()
    if by_day:
        days = pd.to_datetime(values, errors="coerce", format="mixed").dt.normalize()
        values = days.dt.strftime("%Y-%m-%d").where(days.notna(), values)
    return dict(zip(ids[rows.index], values, strict=True))
