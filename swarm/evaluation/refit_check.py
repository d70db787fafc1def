"""Whether a refit's test predictions agree with those of the run the harness scored.

A node is judged on its scored run; a refit reruns its code on every labelled row, and only the refit's test
predictions are delivered. A solution can tell the two runs apart (the training table is larger) and behave well
only when scored, so a refit is delivered only where its test predictions agree with the scored run's for the
same rows, by a measure that fits each target column:

- numbers (scores, probabilities, values): Spearman's rank correlation;
- one token a cell (class labels, a word): the share of rows given the same;
- several tokens a cell (lists of items, run-length encoded masks, sentences): the mean overlap (Jaccard) of each
  row's space-separated tokens.

The worst column decides. Each measure's floor is set from how far honest refits of the offline coder's nodes move
on the bundled competitions, with a margin (`benchmarks/refit_drift.py`, figures in benchmarks/README.md); where
the scored run predicted an earlier span than the test (`Holdout.shifted`), the floors are lower.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.competitions.metrics import get_metric

RANK = "rank correlation"
LABELS = "label agreement"
TOKENS = "token overlap"
# The lowest agreement a delivered refit may show, per measure: 1 - 2 x the largest drift of honest refits
# measured (rounded down to 0.05). Rank: food-reviews' lowest 0.824 -> 0.6; labels: titanic's 0.923 -> 0.8;
# tokens: no bundled competition has such targets, the layout miniatures' lowest 0.889 (ink-fragments) would
# give 0.75, kept wider at 0.5 for having three cases (benchmarks/README.md, "Refit drift").
FLOORS = {RANK: 0.6, LABELS: 0.8, TOKENS: 0.5}
# Where the scored run predicted a span earlier than the test (`Holdout.shifted`: h-and-m's last week held out),
# honest refits move more (last week's best sellers are not this week's): the floors times this.
SHIFTED_SHARE = 0.5


@dataclass(frozen=True)
class Agreement:
    """How well a refit agrees with the scored run on one target column, and the floor it must reach."""

    measure: str
    value: float
    column: str
    rows: int
    floor: float

    @property
    def accepted(self) -> bool:
        return bool(self.value >= self.floor)

    def describe(self) -> str:
        """`<measure> <value> >= <floor>` (or `<`), with the column and the rows compared."""
        sign = ">=" if self.accepted else "<"
        return (
            f"{self.measure} {self.value:.3f} {sign} {self.floor:.2f} ({self.column}, {self.rows} test rows)"
        )


def read_predictions(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def refit_agreement(
    scored: pd.DataFrame, refit: pd.DataFrame, spec: MetricSpec, shifted: bool = False
) -> Agreement | None:
    """The worst column's agreement between the scored run's and the refit's test predictions, matched by the id
    (and the key columns where the id repeats), with the floor it must reach (lower where the scored run predicted
    an earlier span, `shifted`); None where they share no row or no target column."""
    keys = [spec.id_column, *(c for c in spec.key_columns if c in scored.columns and c in refit.columns)]
    if not set(keys) <= set(scored.columns) or not set(keys) <= set(refit.columns):
        return None
    left, right = (_keyed(frame, keys) for frame in (scored, refit))
    shared = left.index.intersection(right.index)
    columns = [c for c in spec.target_columns if c in left.columns and c in right.columns]
    if not len(shared) or not columns:
        return None
    metric = get_metric(spec.name)
    share = SHIFTED_SHARE if shifted else 1.0
    found = [_column_agreement(left.loc[shared, c], right.loc[shared, c], c, metric.numeric) for c in columns]
    floored = [replace(a, floor=FLOORS[a.measure] * share) for a in found]
    return min(floored, key=lambda a: a.value - a.floor)


def _keyed(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The frame indexed by its key columns (stripped), each key's first row kept."""
    index = pd.MultiIndex.from_frame(frame[keys].apply(lambda column: column.astype(str).str.strip()))
    keyed = frame.set_axis(index, axis=0)
    return keyed[~keyed.index.duplicated()]


def _column_agreement(scored: pd.Series, refit: pd.Series, column: str, numeric: bool) -> Agreement:
    """The measure that fits the column's values (see the module docstring)."""
    rows = len(scored)
    left, right = scored.astype(str).str.strip(), refit.astype(str).str.strip()
    if numeric:
        a, b = pd.to_numeric(left, errors="coerce"), pd.to_numeric(right, errors="coerce")
        both = a.notna() & b.notna()
        if both.all() and a.nunique() > 1 and b.nunique() > 1:
            return Agreement(RANK, float(a.rank().corr(b.rank())), column, rows, FLOORS[RANK])
    several = bool(left.str.contains(" ").any() or right.str.contains(" ").any())
    if numeric or not several:  # classes, one token a cell (or numbers that do not rank: constant)
        return Agreement(LABELS, float((left == right).mean()), column, rows, FLOORS[LABELS])
    return Agreement(
        TOKENS,
        float(np.mean([_overlap(x, y) for x, y in zip(left, right, strict=True)])),
        column,
        rows,
        FLOORS[TOKENS],
    )


def _overlap(left: str, right: str) -> float:
    """|A & B| / |A | B| of two cells' space-separated tokens (1 where both are empty)."""
    a, b = set(left.split()), set(right.split())
    return len(a & b) / len(a | b) if a | b else 1.0
