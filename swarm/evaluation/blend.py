"""Combining several nodes' predictions in the competition's format, and scoring predictions as arrays.

What is averaged follows the metric library (`swarm.competitions.metrics.Metric`), not the metric's name:

- numeric predictions (probabilities, regression values, ratings): the weighted mean per target column, so
  wide multi-class probability columns and several targets are each averaged; a column in which every member
  predicts whole numbers (ratings, counts) is rounded back to whole numbers, unless it holds probabilities;
- class labels: a weighted vote per row (ties go to the heaviest member's label);
- ranked lists (MAP@k): a weighted reciprocal-rank vote per row, as long as the longest member's list.

A convex mix of valid predictions is valid for every metric of the library (a probability stays in [0, 1], a
value above a metric's lower bound stays above it, a vote is one of the members' labels).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from swarm.competitions.competition import MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics import get_metric
from swarm.competitions.metrics.base import label_codes
from swarm.competitions.validation import InvalidSubmission

TIE_BREAK = 1e-9  # the heaviest member's vote bonus (halved per place), far below any weight

Column = (
    np.ndarray
)  # one target column of one member: floats (numeric metrics) or text (labels, ranked lists)


@dataclass(frozen=True)
class Blender:
    """How one competition's predictions are mixed and scored."""

    spec: MetricSpec

    @property
    def metric(self):  # noqa: ANN201 - swarm.competitions.metrics.Metric
        return get_metric(self.spec.name)

    @property
    def kind(self) -> str:
        """`numeric`, `labels` or `ranked`: how predictions of this metric are mixed."""
        metric = self.metric
        return "ranked" if metric.ranked else "numeric" if metric.numeric else "labels"

    def better(self, a: float | None, b: float | None) -> bool:
        """Whether score `a` beats `b` (None, an unscorable mix, loses to any score)."""
        if a is None:
            return False
        if b is None:
            return True
        return a < b if self.spec.lower_is_better else a > b

    def whole_columns(self, members: Sequence[Sequence[Column]]) -> list[bool]:
        """Per target column: whether every member predicts whole numbers there (so the mix is rounded)."""
        if not members:
            return []
        if self.kind != "numeric" or self.metric.probability:
            return [False] * len(members[0])
        return [
            all(np.all(np.asarray(m[c]) == np.round(np.asarray(m[c]))) for m in members)
            for c in range(len(members[0]))
        ]

    def mix(
        self, members: Sequence[Sequence[Column]], weights: Sequence[float], whole: Sequence[bool] = ()
    ) -> list[Column]:
        """The weighted mix of `members` (each a list of target columns, same rows); weights need not sum to 1,
        members with weight 0 are left out; the order of `members` breaks ties of a vote."""
        used = [(m, float(w)) for m, w in zip(members, weights, strict=True) if w > 0]
        if not used:
            raise ValueError("a mix needs a member with a positive weight")
        columns = range(len(used[0][0]))
        if self.kind == "numeric":
            return [
                _mean([m[c] for m, _ in used], [w for _, w in used], c < len(whole) and whole[c])
                for c in columns
            ]
        if self.kind == "labels":
            return [_vote([m[c] for m, _ in used], [w for _, w in used]) for c in columns]
        return [_rank_vote([m[c] for m, _ in used], [w for _, w in used]) for c in columns]

    def score(
        self, truth: Sequence[Column], predicted: Sequence[Column], groups: np.ndarray | None = None
    ) -> float | None:
        """The metric on aligned arrays, aggregated as `score_frame` does (per column and averaged, or all
        columns at once for a table metric); None when the metric cannot score them. `groups`: each row's
        group for a grouped metric (`validation.answer_groups`), same rows."""
        metric = self.metric
        params = metric.resolve_params(self.spec.params)
        if metric.grouped:
            params["groups"] = groups
        try:
            if metric.scope == "table":
                value = metric.score(np.column_stack(truth), np.column_stack(predicted), **params)
            else:
                value = float(
                    np.mean([metric.score(t, p, **params) for t, p in zip(truth, predicted, strict=True)])
                )
        except (CompetitionError, InvalidSubmission, ValueError):
            return None
        return value if np.isfinite(value) else None


def _mean(values: list[Column], weights: list[float], whole: bool) -> Column:
    stacked = np.vstack([np.asarray(v, dtype=float) for v in values])
    mixed = np.average(stacked, axis=0, weights=np.asarray(weights))
    return np.round(mixed) if whole else mixed


def _vote(values: list[Column], weights: list[float]) -> Column:
    """Per row the label with the largest total weight (labels compared by `label_key`: 1 == 1.0); a winning
    label is written as the heaviest member that voted for it first wrote it."""
    n = len(values[0])
    order = np.argsort(-np.asarray(weights), kind="stable")  # heaviest first
    cells = np.concatenate([np.asarray(values[j], dtype=object).reshape(-1) for j in order])
    flat, keys = label_codes(cells)
    _, first = np.unique(flat, return_index=True)  # where each label first appears
    codes = flat.reshape(len(order), n)
    votes = np.zeros((n, len(keys)))
    for place, j in enumerate(order):
        votes[np.arange(n), codes[place]] += weights[j] + TIE_BREAK / 2**place  # heavier outweighs lighter
    text = np.array([str(cells[i]) for i in first], dtype=object)
    return text[votes.argmax(axis=1)]


def _rank_vote(values: list[Column], weights: list[float]) -> Column:
    """Per row the labels by total weight / (1 + rank), as many as the longest member's list."""
    out = []
    for row in zip(*values, strict=True):
        lists = [str(cell).split() for cell in row]
        points: dict[str, float] = {}
        for place, (ranked, weight) in enumerate(zip(lists, weights, strict=True)):
            for rank, label in enumerate(dict.fromkeys(ranked)):
                points[label] = points.get(label, 0.0) + weight / (1 + rank) + TIE_BREAK / 2**place
        length = max(len(x) for x in lists)
        out.append(" ".join(sorted(points, key=lambda label: -points[label])[:length]))
    return np.array(out, dtype=object)
