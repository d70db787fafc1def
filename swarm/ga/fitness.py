"""Fitness normalisation: any validation metric to [0, 1], higher is better, for both directions.

Raw metrics cannot be compared or averaged directly: RMSE is unbounded and lower is better, AUC lives in
[0.5, 1] and higher is better, a log-loss can explode on one overconfident solution. Fitness is therefore
computed *within a population* (the scored nodes of a run) and is invariant to the metric's scale:

- `rank`:   the mid-rank of each value, scaled so the best is 1 and the worst 0 (ties share a rank).
- `robust`: a logistic of the robust z-score (median and MAD, falling back to IQR / mean abs. deviation),
            so an outlier saturates near 0 or 1 instead of squashing everyone else together.
- `blend`:  the mean of both (default): ordering from ranks, some sense of distance from the robust score.

Missing, NaN or infinite values (buggy nodes, diverged runs) get fitness 0.0 and do not affect the others.
A population with one valid value gives it 1.0, and so do all-equal values (every one is the best).

API:
    normalise(values, *, lower_is_better, method="blend") -> list[float]
    score_against(value, others, *, lower_is_better, method="blend") -> float   # `others` EXCLUDES value
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

Method = Literal["rank", "robust", "blend"]
METHODS: tuple[str, ...] = ("rank", "robust", "blend")

_MAD_TO_SIGMA = 1.4826  # MAD * this estimates the standard deviation of a normal distribution.
_IQR_TO_SIGMA = 1.0 / 1.349
_Z_SCALE = 1.5  # logistic(z / 1.5): one sigma better than the median maps to ~0.66.


def _is_valid(value: float | None) -> bool:
    return value is not None and isinstance(value, int | float) and math.isfinite(value)


def _median(sorted_vals: Sequence[float]) -> float:
    n = len(sorted_vals)
    mid = n // 2
    return sorted_vals[mid] if n % 2 else 0.5 * (sorted_vals[mid - 1] + sorted_vals[mid])


def _quantile(sorted_vals: Sequence[float], q: float) -> float:
    pos = q * (len(sorted_vals) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def _rank_scores(vals: Sequence[float]) -> list[float]:
    """Mid-ranks scaled to [0, 1], higher value -> higher score."""
    n = len(vals)
    if n == 1:
        return [1.0]
    order = sorted(range(n), key=lambda i: vals[i])
    ranks = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and vals[order[j + 1]] == vals[order[i]]:
            j += 1
        mid_rank = (i + j) / 2.0
        for k in range(i, j + 1):
            ranks[order[k]] = mid_rank
        i = j + 1
    top = max(ranks)
    if top == 0.0:  # all tied
        return [1.0] * n
    return [r / (n - 1) for r in ranks]


def _robust_scores(vals: Sequence[float]) -> list[float]:
    """Logistic of robust z-scores, higher value -> higher score."""
    s = sorted(vals)
    med = _median(s)
    scale = _median(sorted(abs(v - med) for v in vals)) * _MAD_TO_SIGMA
    if scale <= 0.0:
        scale = (_quantile(s, 0.75) - _quantile(s, 0.25)) * _IQR_TO_SIGMA
    if scale <= 0.0:
        scale = sum(abs(v - med) for v in vals) / len(vals)
    if scale <= 0.0:
        return [0.5] * len(vals)
    out = []
    for v in vals:
        z = (v - med) / (scale * _Z_SCALE)
        z = max(-60.0, min(60.0, z))
        out.append(1.0 / (1.0 + math.exp(-z)))
    return out


def normalise(
    values: Sequence[float | None], *, lower_is_better: bool, method: Method = "blend"
) -> list[float]:
    """Fitness in [0, 1] for each value of one population (same metric); higher is better."""
    if method not in METHODS:
        raise ValueError(f"unknown fitness method {method!r}; expected one of {', '.join(METHODS)}")
    if not isinstance(lower_is_better, bool):
        raise TypeError(f"lower_is_better must be a bool, got {lower_is_better!r}")
    idx = [i for i, v in enumerate(values) if _is_valid(v)]
    out = [0.0] * len(values)
    if not idx:
        return out
    sign = -1.0 if lower_is_better else 1.0
    vals = [sign * float(values[i]) for i in idx]  # type: ignore[arg-type]
    if max(vals) == min(vals):  # one valid value, or all equal: all are the best
        scores = [1.0] * len(vals)
    elif method == "rank":
        scores = _rank_scores(vals)
    elif method == "robust":
        scores = _robust_scores(vals)
    else:
        scores = [0.5 * (a + b) for a, b in zip(_rank_scores(vals), _robust_scores(vals), strict=True)]
    for i, s in zip(idx, scores, strict=True):
        out[i] = min(1.0, max(0.0, s))
    return out


def score_against(
    value: float | None,
    population: Sequence[float | None],
    *,
    lower_is_better: bool,
    method: Method = "blend",
) -> float:
    """Fitness of `value` when it joins `population` (e.g. a new node among the scored nodes so far).

    `population` holds the OTHER values only: it must not already contain `value` itself. A node that has
    already been appended to the journal must be left out of it (filter by node id, not by value), or it is
    counted twice and scores lower than it should (the best of two distinct values would get 0.75 by rank
    instead of 1.0). Equal values of other nodes stay in: they are genuine ties."""
    return normalise([*population, value], lower_is_better=lower_is_better, method=method)[-1]
