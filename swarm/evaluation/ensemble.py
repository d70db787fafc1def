"""Ensemble selection over the good nodes' held-out predictions (Caruana et al. 2004), estimated honestly.

Candidates (the library): good nodes, best harness score first, whose held-out predictions the harness kept
(`<run>/harness/heldout/<node>.csv`) and the metric can score.

Selection, one bag: start from the best single member, then add, with replacement, the member whose addition
scores best on the selection rows (with the competition's metric, mixed by `swarm.evaluation.blend`; among
equal scores the member used least, so a vote can reach a majority), for a fixed number of additions; keep the prefix that scored best (the shortest among equals). A member's weight is
its share of that prefix. Bagging: each bag draws `bag_fraction` of the library at random (the whole library,
once, when it holds 4 members or fewer); the weights are averaged over the bags.

Honest estimate (2-fold cross-fitting): the held-out rows are split into two halves (stratified by the answers
when they are classes); select on one half and score the mix on the other, both ways, and average the two
scores. The best single node is estimated the same way (the best node on one half, scored on the other), since
picking the best of many nodes on one set of rows flatters it too. The blend is delivered only when its honest
estimate beats the single node's (and, with its weights from a selection on all held-out rows, it scores better
than the best node there too: a vote its heaviest member always wins is no blend).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.competitions.validation import (
    InvalidSubmission,
    align,
    answer_groups,
    answer_table,
    as_text,
    keyed,
    scored_rows,
)
from swarm.evaluation.blend import Blender, Column

ENSEMBLE, SINGLE = "ensemble", "single"
MIN_ROWS = 20  # held-out rows below which no half is big enough to select on or to score
SMALL_LIBRARY = 4  # a library this small is used whole, in a single bag
MAX_ROUNDS = 25  # additions per bag at most
MAX_STRATA_SHARE = 0.25  # answers with more distinct values than this share of rows are not classes


@dataclass(frozen=True)
class Library:
    """The candidates' held-out predictions aligned with the answers, best node first."""

    node_ids: list[str]
    truth: list[Column]  # per target column, in the order of the answers' rows
    predictions: list[list[Column]]  # per candidate, per target column, same rows
    left_out: dict[str, str] = field(default_factory=dict)  # node id -> why it is no candidate
    groups: np.ndarray | None = None  # each row's group, for a grouped metric (log_mae's group_column)

    @property
    def rows(self) -> int:
        return len(self.truth[0]) if self.truth else 0

    def subset(self, rows: np.ndarray) -> Library:
        return Library(
            self.node_ids,
            [t[rows] for t in self.truth],
            [[c[rows] for c in member] for member in self.predictions],
            self.left_out,
            None if self.groups is None else self.groups[rows],
        )

    def score(self, blender: Blender, predicted: Sequence[Column]) -> float | None:
        """`predicted` (per target column, these rows) scored against the truth, with the rows' groups."""
        return blender.score(self.truth, predicted, self.groups)


def build_library(
    spec: MetricSpec, labels: pd.DataFrame, predictions: Mapping[str, pd.DataFrame], max_members: int
) -> Library:
    """The candidates among `predictions` (node id -> its held-out rows, best node first): those the metric
    can score, at most `max_members`."""
    blender = Blender(spec)
    answers = answer_table(labels, spec)
    groups = answer_groups(answers, spec)
    truth: list[Column] | None = None
    ids, columns, left_out = [], [], {}
    for node_id, frame in predictions.items():
        if len(ids) >= max_members:
            left_out[node_id] = f"beyond ensemble.max_members={max_members}"
            continue
        try:  # the rows the grader scores (osic's weeks with an FVC), as grading keeps them
            submitted, scoring = keyed(as_text(frame), spec)  # rows keyed by the id and a column (uw-madison)
            submitted, scored = scored_rows(submitted, answers, scoring)
            aligned = align(submitted, scored, scoring, blender.metric)
            groups = answer_groups(scored, scoring)
        except InvalidSubmission as exc:
            left_out[node_id] = f"invalid held-out predictions: {exc}"
            continue
        mine = [np.asarray(a.y_true) for a in aligned]
        if blender.score(mine, [a.y_pred for a in aligned], groups) is None:
            left_out[node_id] = "its held-out predictions cannot be scored"
            continue
        truth = truth or mine
        ids.append(node_id)
        columns.append([np.asarray(a.y_pred) for a in aligned])
    return Library(ids, truth or [], columns, left_out, groups)


def halves(truth: Sequence[Column], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two halves of the rows, shuffled with `seed`; stratified by the answers when they are classes."""
    n = len(truth[0])
    rng = np.random.default_rng(seed)
    strata = np.array(["|".join(str(v) for v in row) for row in zip(*truth, strict=True)])
    values = pd.unique(strata)
    if len(values) > MAX_STRATA_SHARE * n:
        order = rng.permutation(n)
    else:
        order = np.concatenate([rng.permutation(np.flatnonzero(strata == v)) for v in values])
    return np.sort(order[0::2]), np.sort(order[1::2])


def greedy(blender: Blender, library: Library, bag: Sequence[int], whole: Sequence[bool]) -> np.ndarray:
    """Counts per candidate of one bag's forward selection with replacement (see the module docstring)."""
    counts = np.zeros(len(library.node_ids))
    singles = [library.score(blender, library.predictions[j]) for j in bag]
    start = 0
    for k in range(1, len(bag)):
        if blender.better(singles[k], singles[start]):
            start = k
    counts[bag[start]] = 1
    best, best_score = counts.copy(), singles[start]
    for _ in range(min(MAX_ROUNDS, 2 * len(bag))):
        pick, pick_score = None, None
        for j in bag:
            trial = counts.copy()
            trial[j] += 1
            score = library.score(blender, blender.mix(library.predictions, trial, whole))
            tie = pick is not None and score == pick_score and counts[j] < counts[pick]  # the less used wins
            if pick is None or blender.better(score, pick_score) or tie:
                pick, pick_score = j, score
        if pick_score is None:
            break
        counts[pick] += 1
        if blender.better(pick_score, best_score):
            best, best_score = counts.copy(), pick_score
    return best


def select(blender: Blender, library: Library, *, bags: int, bag_fraction: float, seed: int) -> np.ndarray:
    """Weights per candidate (summing to 1): the bagged greedy selection on all rows of `library`."""
    size = len(library.node_ids)
    whole = blender.whole_columns(library.predictions)
    rng = np.random.default_rng(seed)
    if size <= SMALL_LIBRARY:
        draws = [list(range(size))]
    else:
        take = max(2, math.ceil(bag_fraction * size))
        draws = [sorted(rng.choice(size, size=take, replace=False).tolist()) for _ in range(bags)]
    total = np.zeros(size)
    for bag in draws:
        counts = greedy(blender, library, bag, whole)
        total += counts / counts.sum()
    return total / len(draws)


def mixed_score(blender: Blender, library: Library, weights: np.ndarray) -> float | None:
    whole = blender.whole_columns(library.predictions)
    return library.score(blender, blender.mix(library.predictions, weights, whole))


@dataclass
class EnsembleChoice:
    """What the end of a run delivers, a blend or the best single node, and why."""

    chosen: str  # ENSEMBLE or SINGLE
    reason: str
    single_node: str | None
    weights: dict[str, float] = field(default_factory=dict)  # the blend's members, heaviest first
    honest_ensemble: float | None = None  # the blend scored on rows it was not selected on
    honest_single: float | None = None  # the best node of one half scored on the other
    in_sample_ensemble: float | None = None  # the blend on the rows that selected it (flattering)
    in_sample_single: float | None = None  # the best node's score on all held-out rows
    candidates: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)
    folds: list[dict[str, Any]] = field(default_factory=list)
    rows: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _single(library: Library, reason: str, **scores: Any) -> EnsembleChoice:
    return EnsembleChoice(
        chosen=SINGLE,
        reason=reason,
        single_node=library.node_ids[0] if library.node_ids else None,
        candidates=list(library.node_ids),
        left_out=dict(library.left_out),
        rows=library.rows,
        **scores,
    )


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.6g}"


def _mean(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else float(np.mean(values))  # type: ignore[arg-type]


def choose(
    spec: MetricSpec, library: Library, *, bags: int = 10, bag_fraction: float = 0.5, seed: int = 0
) -> EnsembleChoice:
    """Select a blend on all held-out rows, estimate it and the best single node honestly, and choose."""
    blender = Blender(spec)
    if len(library.node_ids) < 2:
        return _single(
            library, f"{len(library.node_ids)} candidate(s) with valid held-out predictions: nothing to blend"
        )
    in_single = library.score(blender, library.predictions[0])
    if library.rows < MIN_ROWS:
        return _single(
            library,
            f"only {library.rows} held-out rows: too few to select a blend on half of them and score it on the "
            "other half",
            in_sample_single=in_single,
        )
    options = {"bags": bags, "bag_fraction": bag_fraction}
    weights = select(blender, library, seed=seed, **options)
    in_blend = mixed_score(blender, library, weights)
    folds = []
    first, second = halves(library.truth, seed)
    for number, (chosen_on, scored_on) in enumerate(((first, second), (second, first))):
        picked, scored = library.subset(chosen_on), library.subset(scored_on)
        fold_weights = select(blender, picked, seed=seed + 1 + number, **options)
        singles = [picked.score(blender, p) for p in picked.predictions]
        best = 0
        for k in range(1, len(singles)):
            if blender.better(singles[k], singles[best]):
                best = k
        folds.append(
            {
                "selected_on_rows": len(chosen_on),
                "scored_on_rows": len(scored_on),
                "ensemble": mixed_score(blender, scored, fold_weights),
                "single_node": library.node_ids[best],
                "single": scored.score(blender, scored.predictions[best]),
                "ensemble_members": int(np.count_nonzero(fold_weights)),
            }
        )
    members = {
        library.node_ids[j]: round(float(weights[j]), 6)
        for j in np.argsort(-weights, kind="stable")
        if weights[j] > 0
    }
    scores = {
        "honest_ensemble": _mean([f["ensemble"] for f in folds]),
        "honest_single": _mean([f["single"] for f in folds]),
        "in_sample_ensemble": in_blend,
        "in_sample_single": in_single,
        "folds": folds,
    }
    honest_blend, honest_single = scores["honest_ensemble"], scores["honest_single"]
    if len(members) < 2:
        return _single(library, "the selection on all held-out rows kept a single node", **scores)
    if not blender.better(in_blend, in_single):
        reason = (
            f"the blend selected on all held-out rows scores {_fmt(in_blend)} there, no better than the best "
            f"node's {_fmt(in_single)}"
        )
        return _single(library, reason, **scores)
    if honest_blend is None or honest_single is None:
        return _single(
            library, "the metric is undefined on a half of the held-out rows: no honest estimate", **scores
        )
    if not blender.better(honest_blend, honest_single):
        reason = (
            f"the blend's honest estimate {_fmt(honest_blend)} (selected on one half of the held-out rows, "
            f"scored on the other) is not better than the best single node's {_fmt(honest_single)}, although it "
            f"scored {_fmt(in_blend)} on the rows that selected it"
        )
        return _single(library, reason, **scores)
    reason = (
        f"the blend's honest estimate {_fmt(honest_blend)} (selected on one half of the held-out rows, scored on "
        f"the other) beats the best single node's {_fmt(honest_single)}"
    )
    choice = _single(library, reason, **scores)
    choice.chosen, choice.weights = ENSEMBLE, members
    return choice


def blend_frames(
    spec: MetricSpec, frames: Mapping[str, pd.DataFrame], weights: Mapping[str, float]
) -> pd.DataFrame:
    """The weighted mix of the members' test submissions (frames of strings, the submission's columns), in the
    heaviest member's row order; ValueError naming a member whose rows or values do not fit."""
    blender = Blender(spec)
    names = list(weights)
    columns = list(frames[names[0]].columns)  # the submission's own (not a joined key's)
    keyed_frames = {}
    for name in names:  # rows keyed by the id and a column (uw-madison): ordered by the joined key
        try:
            keyed_frames[name], scoring = keyed(as_text(frames[name]), spec)
        except InvalidSubmission as exc:
            raise ValueError(f"member {name}'s test submission: {exc}") from None
    id_col, targets = scoring.id_column, list(spec.target_columns)
    first = keyed_frames[names[0]]
    order = first[id_col].astype(str).str.strip()
    members: list[list[Column]] = []
    for name in names:
        frame = keyed_frames[name]
        ids = frame[id_col].str.strip()
        if not ids.is_unique or set(ids) != set(order) or any(c not in frame.columns for c in targets):
            raise ValueError(f"member {name}'s test submission does not have the same ids and columns")
        rows = frame.set_index(ids).loc[order.to_numpy()]
        members.append([_column(rows[c], blender.kind, name, c) for c in targets])
    mixed = blender.mix(members, [weights[n] for n in names], blender.whole_columns(members))
    out = pd.DataFrame({id_col: first[id_col].to_numpy()})
    for column, values in zip(targets, mixed, strict=True):
        out[column] = _formatted(values)
    copied = [c for c in first.columns if c in scoring.passthrough_columns]  # as the test rows have them
    return out.assign(**{c: first[c].to_numpy() for c in copied})[
        [c for c in columns if c in (id_col, *targets, *copied)]
    ]


def _column(raw: pd.Series, kind: str, member: str, column: str) -> Column:
    if kind != "numeric":
        return raw.str.strip().to_numpy(dtype=object)
    values = pd.to_numeric(raw.str.strip(), errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(values).all():
        raise ValueError(f"member {member}'s test predictions in {column!r} are not all finite numbers")
    return values


def _formatted(values: Column) -> Any:
    if values.dtype.kind == "f" and np.all(values == np.round(values)):
        return values.astype(np.int64)
    return values
