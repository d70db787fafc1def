"""Whether a refit's test predictions agree with those of the run the harness scored.

A node is judged on its scored run; a refit reruns its code on every labelled row, and only the refit's test
predictions are delivered. A solution can tell the two runs apart (the training table is larger) and behave well
only when scored, so a refit is delivered only where its test predictions agree with the scored run's for the
same rows, by a measure that fits each target column:

- numbers (scores, probabilities, values): Spearman's rank correlation;
- one token a cell (class labels, a word): the share of rows given the same;
- several tokens a cell (lists of items, run-length encoded masks, sentences): the mean overlap (Jaccard) of each
  row's space-separated tokens.

The worst column decides. Ranks and labels are blind to scale and location (a refit that doubles every value, or
forgets an inverse transform, keeps its ranks), so beside them the competition's metric is computed between the
two runs' test predictions, the scored run's taken as the answers (`metric_distance`): the refit is not the same
model where that distance is larger than `DISTANCE_FACTOR` x the node's own harness error. The error is the
distance of the harness score from the metric's best value, which is known where the scored predictions scored
against themselves give 0 (lower is better) or 1 (higher is better); elsewhere, and where the metric cannot take
predictions as answers (AUC needs labels), that measure is skipped.

Each floor, and the factor, is set from how far honest refits of the offline coder's nodes move on the bundled
competitions, with a margin (`benchmarks/refit_drift.py`, figures in benchmarks/README.md); where the scored run
predicted an earlier span than the test (`Holdout.shifted`), the floors are lower and the factor larger.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.grading import score_frame
from swarm.competitions.metrics import get_metric
from swarm.competitions.validation import InvalidSubmission

RANK = "rank correlation"
LABELS = "label agreement"
TOKENS = "token overlap"
# The lowest agreement a delivered refit may show, per measure: 1 - 2 x the largest drift of honest refits
# measured, rounded down (to 0.05; labels to 0.01, tighter where the data allows: a refit with 12% of titanic's
# labels flipped agreed 0.829). Rank: food-reviews' lowest 0.824 -> 0.6; labels: titanic's 0.923 -> 0.84;
# tokens: no bundled competition has such targets, the layout miniatures' lowest 0.889 (ink-fragments) would
# give 0.75, kept wider at 0.5 for having three cases (benchmarks/README.md, "Refit drift").
FLOORS = {RANK: 0.6, LABELS: 0.84, TOKENS: 0.5}
# Where the scored run predicted a span earlier than the test (`Holdout.shifted`: h-and-m's last week held out),
# honest refits move more (last week's best sellers are not this week's): the floors times this.
SHIFTED_SHARE = 0.5
# The largest metric distance between a delivered refit's and the scored run's test predictions, as a multiple of
# the node's harness error: 2 x the largest ratio of honest refits, rounded down to 0.05 (chicago-ridership's
# 0.62 -> 1.2; a doubled house-prices refit lies 5.8 x its error away; benchmarks/README.md, "Refit drift");
# where the scored run predicted an earlier span, this divided by SHIFTED_SHARE.
DISTANCE_FACTOR = 1.2
# Added to the allowed distance, so that a perfect harness score (error 0) still admits a refit whose predictions
# differ from the scored run's by rounding alone.
DISTANCE_EPSILON = 1e-6


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
    left, right = (keyed_rows(frame, keys) for frame in (scored, refit))
    shared = left.index.intersection(right.index)
    columns = [c for c in spec.target_columns if c in left.columns and c in right.columns]
    if not len(shared) or not columns:
        return None
    metric = get_metric(spec.name)
    share = SHIFTED_SHARE if shifted else 1.0
    found = [column_agreement(left.loc[shared, c], right.loc[shared, c], c, metric.numeric) for c in columns]
    floored = [replace(a, floor=FLOORS[a.measure] * share) for a in found]
    return min(floored, key=lambda a: a.value - a.floor)


def keyed_rows(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The frame indexed by its key columns (stripped), each key's first row kept."""
    index = pd.MultiIndex.from_frame(frame[keys].apply(lambda column: column.astype(str).str.strip()))
    keyed = frame.set_axis(index, axis=0)
    return keyed[~keyed.index.duplicated()]


def column_agreement(scored: pd.Series, refit: pd.Series, column: str, numeric: bool) -> Agreement:
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


@dataclass(frozen=True)
class Distance:
    """The competition's metric between a refit's and the scored run's test predictions, as the distance from the
    metric's best value, beside the node's harness error (the harness score's distance from the same best)."""

    metric: str
    value: float
    error: float
    factor: float
    lower_is_better: bool

    @property
    def accepted(self) -> bool:
        return bool(self.value <= self.factor * self.error + DISTANCE_EPSILON)

    def describe(self) -> str:
        """`<metric> between the refit and the scored run <d> > <factor> x the node's harness error <e>`
        (`<=` where accepted; `1 - <metric>` where higher is better)."""
        name = self.metric if self.lower_is_better else f"1 - {self.metric}"
        sign = "<=" if self.accepted else ">"
        return (
            f"{name} between the refit and the scored run {self.value:.3g} {sign} {self.factor:g} x the node's "
            f"harness error {self.error:.3g}"
        )


def metric_distance(
    scored: pd.DataFrame,
    refit: pd.DataFrame,
    spec: MetricSpec,
    harness_score: float | None,
    shifted: bool = False,
) -> Distance | None:
    """The refit's predictions scored with the competition's metric against the scored run's as the answers,
    beside the node's harness error; None where the metric cannot take predictions as answers, its best value
    is unknown, the rows differ, or there is no finite harness score (see the module docstring)."""
    if harness_score is None or not np.isfinite(harness_score):
        return None
    metric = get_metric(spec.name)
    try:
        itself = score_frame(scored, scored, spec)  # the metric's best value: perfect predictions
        between = score_frame(refit, scored, spec)
    except (InvalidSubmission, CompetitionError, ValueError, TypeError):
        return None
    best = 0.0 if metric.lower_is_better else 1.0
    if abs(itself - best) > DISTANCE_EPSILON:
        return None
    sign = 1.0 if metric.lower_is_better else -1.0
    factor = DISTANCE_FACTOR / (SHIFTED_SHARE if shifted else 1.0)
    return Distance(
        metric.name,
        max(sign * (between - best), 0.0),
        max(sign * (float(harness_score) - best), 0.0),
        factor,
        metric.lower_is_better,
    )


@dataclass(frozen=True)
class RefitCheck:
    """Both measures of a refit against its scored run: the worst column's agreement, and the metric distance
    (None where it does not apply); the refit is delivered only where each that applies is accepted."""

    agreement: Agreement
    distance: Distance | None

    @property
    def accepted(self) -> bool:
        return self.agreement.accepted and (self.distance is None or self.distance.accepted)

    def describe(self) -> str:
        """Both figures in one line, the agreement first."""
        measures = [self.agreement.describe(), *([self.distance.describe()] if self.distance else [])]
        return "; ".join(measures)


def check_refit(
    scored: pd.DataFrame,
    refit: pd.DataFrame,
    spec: MetricSpec,
    harness_score: float | None,
    shifted: bool = False,
) -> RefitCheck | None:
    """`refit_agreement` and `metric_distance` of the refit's test predictions against the scored run's; None
    where they share no row or target column."""
    agreement = refit_agreement(scored, refit, spec, shifted)
    if agreement is None:
        return None
    return RefitCheck(agreement, metric_distance(scored, refit, spec, harness_score, shifted))
