"""How far a score on held-out rows could be from the score the same predictions would get on all such rows:
a seeded bootstrap, and a warning where the rows are too few for the metric.

`bootstrap_interval` resamples the scored units (rows, or whole groups where each row's group is given) with
replacement, rescores each resample with the competition's metric (`rescore`, over the same aligned predictions
and answers the score used) and gives the 95% percentile interval and the standard error. It stays cheap:

- at most `RESAMPLES` resamples (200), drawn by one seeded generator, so the same rows give the same interval;
- a held-out set of more than `MAX_UNITS` units is bootstrapped on a seeded subsample of that many, and the
  resamples' spread around the subsample's own score is scaled by sqrt(subsample / units) (a score's spread
  shrinks as 1/sqrt(rows)), then laid around the score of all rows;
- a metric so slow that the resamples would pass `BUDGET_S` seconds is bootstrapped on a smaller subsample,
  then with fewer resamples (at least `MIN_RESAMPLES`); only there does the interval depend on the machine's
  speed. Where even that would not fit, there is no interval, and `note` says why.

Resampling rows assumes the rows are independent. Where the split held out whole groups (`group:`, `day:`, `blocks:`),
the caller passes each row's group and whole groups are resampled; where it cannot, the interval is narrower
than the truth and its note says so. Rows of a time split (`time:`) are resampled as rows: neighbouring times
are alike, so the interval understates there too.

`few_rows_warning` says, in one sentence naming the counts, when the held-out rows are too few for the metric:
many classes with few rows each (a log loss over 99 classes with 2 held-out rows a class), a rare class of a
binary target with only a handful of rows, or an interval wide against the score.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from swarm.competitions.errors import CompetitionError
from swarm.competitions.grading import ScoredRows
from swarm.competitions.validation import InvalidSubmission

CONFIDENCE = 0.95
RESAMPLES = 200
MIN_RESAMPLES = 50  # fewer than this and the 2.5% and 97.5% quantiles are mostly noise
MAX_UNITS = 2000  # units (rows or groups) a bootstrap resamples at most; more are subsampled
MIN_UNITS = 200  # the smallest subsample a slow metric is shrunk to
BUDGET_S = 10.0  # seconds the resamples of one score may take, all together
# Resamples the metric may fail on (AUC of a resample with one class) before none is given.
MAX_FAILED_SHARE = 0.1
SEED = 20240917
# Fewer held-out rows a class than this (on average, or of a binary target's rarer class): warned.
MIN_ROWS_PER_CLASS = 5
WIDE_SHARE = 0.1  # an interval whose half-width passes this share of the score's size: warned


@dataclass(frozen=True)
class ScoreInterval:
    """A score's uncertainty: its 95% interval (`low`, `high`) and standard error, or none of them (`note` says
    why); `note` also says how it was drawn where that matters (a subsample, rows where groups were held out);
    `warning` says, in one sentence, that the held-out rows are too few for the metric."""

    low: float | None = None
    high: float | None = None
    se: float | None = None
    note: str | None = None
    warning: str | None = None

    @property
    def known(self) -> bool:
        return self.low is not None and self.high is not None

    def to_meta(self) -> dict[str, object]:
        """The fields a journal node keeps (`NodeMeta`): the bounds, the standard error, the note, the warning;
        those that are None left out."""
        values = {
            "score_interval": [self.low, self.high] if self.known else None,
            "score_se": self.se,
            "score_interval_note": self.note,
            "score_warning": self.warning,
        }
        return {key: value for key, value in values.items() if value is not None}


def no_interval(reason: str) -> ScoreInterval:
    return ScoreInterval(note=reason)


def bootstrap_interval(
    rescore: Callable[[np.ndarray], float],
    score: float,
    rows: int,
    groups: Sequence[object] | np.ndarray | None = None,
    *,
    seed: int = SEED,
    resamples: int = RESAMPLES,
    max_units: int = MAX_UNITS,
    budget_s: float = BUDGET_S,
    failures: tuple[type[BaseException], ...] = (ValueError,),
) -> ScoreInterval:
    """The 95% percentile interval and standard error of `score` (the metric over `rows` aligned rows), from
    resamples rescored by `rescore(row indices)`; `groups` (each row's group, or None: rows are independent)
    makes whole groups the units. A resample `rescore` fails on with one of `failures` is skipped, but more
    than `MAX_FAILED_SHARE` of them give no interval."""
    units = Units(rows, groups)
    kind = units.kind
    if len(units) < 2:
        return no_interval(f"only {len(units)} held-out {kind}: nothing to resample")
    rng = np.random.default_rng(seed)
    size = min(len(units), max_units)
    while True:  # the subsample's own score, timed: one pass for a metric that is quick enough
        pool = _subsample(rng, len(units), size)
        started = time.perf_counter()
        try:
            base = rescore(units.rows(pool))
        except failures as exc:
            return no_interval(f"the metric could not be computed on the held-out {kind}s ({_short(exc)})")
        seconds = time.perf_counter() - started
        smaller = max(MIN_UNITS, int(size * budget_s / max(seconds * resamples, 1e-9)))
        if seconds * resamples <= budget_s or smaller >= size:
            break
        size = smaller
    wanted = min(resamples, int(budget_s / seconds) if seconds > 0 else resamples)
    if wanted < MIN_RESAMPLES and seconds * MIN_RESAMPLES > 3 * budget_s:
        return no_interval(
            f"one rescoring of {size} {kind}s took {seconds:.1f} s, so {MIN_RESAMPLES} resamples would pass the "
            f"interval's budget of {budget_s:g} s"
        )
    wanted = max(wanted, MIN_RESAMPLES)
    values, failed, first = [], 0, None
    for _ in range(wanted):
        try:
            values.append(rescore(units.rows(pool[rng.integers(0, len(pool), len(pool))])))
        except failures as exc:
            failed, first = failed + 1, first or exc
    if failed > MAX_FAILED_SHARE * wanted:
        return no_interval(
            f"the metric could not be computed on {failed} of {wanted} resamples of the held-out {kind}s "
            f"({_short(first)})"
        )
    spread = (np.asarray(values, dtype=float) - base) * math.sqrt(len(pool) / len(units))
    tail = (1 - CONFIDENCE) / 2
    low, high = score + np.quantile(spread, [tail, 1 - tail])
    note = _how(kind, len(units), len(pool), wanted, failed)
    return ScoreInterval(float(low), float(high), float(np.std(spread, ddof=1)), note)


class Units:
    """What a bootstrap resamples: every row alone, or the rows of each group (groups in the order they first
    appear)."""

    def __init__(self, rows: int, groups: Sequence[object] | np.ndarray | None) -> None:
        self.kind = "row" if groups is None else "group"
        self.count = rows
        self.members: list[np.ndarray] | None = None
        if groups is None:
            return
        if len(groups) != rows:
            raise ValueError(f"{len(groups)} groups for {rows} rows")
        _, first, inverse = np.unique(np.asarray(groups, dtype=str), return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=int)
        rank[np.argsort(first)] = np.arange(len(first))
        labels = rank[inverse.reshape(-1)]
        bounds = np.cumsum(np.bincount(labels, minlength=len(first)))[:-1]
        self.members = np.split(np.argsort(labels, kind="stable"), bounds)
        self.count = len(self.members)

    def __len__(self) -> int:
        return self.count

    def rows(self, picked: np.ndarray) -> np.ndarray:
        """The row indices of the picked units, in the order picked."""
        if self.members is None:
            return picked
        return np.concatenate([self.members[i] for i in picked])


def _subsample(rng: np.random.Generator, units: int, size: int) -> np.ndarray:
    """`size` of the units at random (sorted), or all of them in order where that is as many."""
    return np.arange(units) if size >= units else np.sort(rng.choice(units, size, replace=False))


def _how(kind: str, units: int, pool: int, resamples: int, failed: int) -> str | None:
    """How the interval was drawn, where that is more than the plain bootstrap of every row."""
    parts = []
    if kind == "group":
        parts.append(f"whole groups resampled ({units} groups)")
    if pool < units:
        parts.append(
            f"bootstrapped on {pool} of the {units} {kind}s, its spread scaled by sqrt({pool}/{units})"
        )
    if resamples < RESAMPLES:
        parts.append(f"{resamples} resamples (the metric is slow)")
    if failed:
        parts.append(f"{failed} resamples the metric could not score left out")
    return "; ".join(parts) or None


def _short(exc: BaseException | None) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 160 else text[:157] + "..."


def held_out_interval(
    scored: ScoredRows,
    score: float,
    labels: Mapping[str, tuple[str, ...]] | None = None,
    groups: Mapping[str, object] | None = None,
    groups_note: str | None = None,
) -> ScoreInterval:
    """The interval of a held-out score (`scored`: the rows it came from) and the warning where they are too
    few: whole groups resampled where `groups` gives the group of each row's id (a row it lacks is a group of
    its own), else rows, with `groups_note` saying what that misses. No interval for a metric that reads each
    row's group (`group_column`): a resample's repeated rows would break its groups. `labels`: each target
    column's classes (the competition's, not only those held out), which the warning counts."""
    named = [str(scored.params.get(k) or "") for k in ("group_column", "identity_columns", "row_columns")]
    named = [n for n in named if n and n not in ("[]", "()")]
    if scored.params.get("groups") is not None or named:
        interval = no_interval(
            f"{scored.metric.name} reads each row's group ({', '.join(named) or 'its group column'}): a resample "
            "repeats rows within groups, which that metric cannot score as the held-out rows"
        )
    else:
        units = None if groups is None else [groups.get(i, i) for i in scored.ids]
        interval = bootstrap_interval(
            scored.rescore,
            score,
            len(scored.ids),
            units,
            failures=(CompetitionError, InvalidSubmission, ValueError, FloatingPointError),
        )
        if units is None and groups_note and interval.known:
            interval = replace(interval, note="; ".join(p for p in (interval.note, groups_note) if p))
    counts = class_counts(scored, labels or {})
    return replace(
        interval, warning=few_rows_warning(scored.metric.name, len(scored.ids), counts, score, interval)
    )


def class_counts(scored: ScoredRows, labels: Mapping[str, tuple[str, ...]]) -> np.ndarray | None:
    """The held-out rows of each class of the first scored column, absent classes as 0: one column a class
    (multi-class log loss), 0/1 answers, or the classes `labels` declares for a label metric; None where the
    answers are not classes (numbers, free text, ranked lists)."""
    metric, columns = scored.metric, scored.columns
    if metric.class_columns and len(columns) > 1:
        try:
            return np.array([np.asarray(c.y_true, dtype=float).sum() for c in columns])
        except (TypeError, ValueError):
            return None
    first = columns[0]
    present = np.unique(np.asarray(first.y_true).astype(str), return_counts=True)[1]
    if metric.binary_truth:
        return np.concatenate([present, np.zeros(max(0, 2 - len(present)))])
    declared = labels.get(first.column)
    if metric.labels and not metric.ranked and declared:
        return np.concatenate([present, np.zeros(max(0, len(declared) - len(present)))])
    return None


def few_rows_warning(
    metric: str, rows: int, counts: np.ndarray | None, score: float, interval: ScoreInterval
) -> str | None:
    """One sentence where the `rows` held-out rows are too few for `metric`: fewer than `MIN_ROWS_PER_CLASS` a
    class on average (`counts`, the rows of each class), or in the rarer class of two, or an interval whose
    half-width passes `WIDE_SHARE` of the score's size; None otherwise."""
    if counts is not None and len(counts) >= 2:
        classes = len(counts)
        if rows / classes < MIN_ROWS_PER_CLASS:
            return (
                f"only {rows} held-out rows for {classes} classes (about {rows / classes:.1f} a class): too few "
                f"to score {metric} reliably"
            )
        rarest = int(min(counts))
        if classes == 2 and rarest < MIN_ROWS_PER_CLASS:
            return (
                f"only {rarest} of the {rows} held-out rows are of the rarer class: too few to score {metric} "
                "reliably"
            )
    if interval.known and score != 0:
        half = (interval.high - interval.low) / 2  # type: ignore[operator]
        if half > WIDE_SHARE * abs(score):
            return (
                f"the 95% interval spans ±{half:.3g} around {score:.4g} ({half / abs(score):.0%} of it) on {rows} "
                f"held-out rows: too few for {metric} to rank close scores"
            )
    return None
