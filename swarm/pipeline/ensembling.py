"""The end-of-run blend: candidates from the journal, the choice between a blend and the best single node
(`swarm.evaluation.ensemble`), the members' test predictions (refit on every row when `evaluation.refit` and
`ensemble.refit_members` are on, else those of their scored runs), the blended submission checked against the
sample submission. Files: `<run>/harness/ensemble.json` (the choice), `harness/refit/<node>.csv` (members'
refits), `harness/ensemble_submission.csv` (the blend)."""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from swarm.atomic import write_json_atomic, write_text_atomic
from swarm.competitions.submission_check import check_submission
from swarm.evaluation.ensemble import ENSEMBLE, SINGLE, EnsembleChoice, blend_frames, build_library, choose
from swarm.evaluation.holdout_record import harness_root
from swarm.ga.population import rank_nodes
from swarm.journal import Journal, Node
from swarm.metric import ValidationSource
from swarm.pipeline.context import RunContext
from swarm.pipeline.parallel import run_parallel
from swarm.pipeline.refit import refit, scored_submission

ENSEMBLE_FILE = "ensemble.json"
ENSEMBLE_SUBMISSION = "ensemble_submission.csv"


@dataclass
class Delivery:
    """What the blend step decided and, when a blend is delivered, its submission."""

    choice: EnsembleChoice | None  # None: no blend was considered (`note` says why)
    note: str = ""
    submission: Path | None = None  # the checked blended submission, when it is delivered
    members: dict[str, str] = field(default_factory=dict)  # member -> where its test predictions came from
    member_submissions: dict[str, str] = field(default_factory=dict)  # member -> its test submission used

    @property
    def delivered(self) -> str:
        return ENSEMBLE if self.submission is not None else SINGLE

    def to_dict(self) -> dict[str, Any]:
        return {
            "delivered": self.delivered,
            "note": self.note,
            "choice": self.choice.to_dict() if self.choice else None,
            "members": dict(self.members),
        }


def candidates(rc: RunContext, journal: Journal) -> dict[str, pd.DataFrame]:
    """Good nodes (not flagged as unlike their held-out rows on test rows, `Journal.deliverable_nodes`), best
    harness score first, with the held-out predictions the harness kept for them."""
    frames = {}
    for node in rank_nodes(journal.deliverable_nodes()):
        path = rc.harness_heldout(node.id)
        if node.meta.validation_source == ValidationSource.HARNESS and path.is_file():
            frames[node.id] = pd.read_csv(path, dtype=str, keep_default_na=False)
    return frames


def consider_ensemble(rc: RunContext, journal: Journal) -> Delivery:
    """Choose between a blend and the best single node; when the blend wins, build and check its submission."""
    if rc.harness is None:
        return Delivery(None, "no blend: there is no harness split, so no held-out predictions to select on")
    settings = rc.cfg.ensemble
    if not settings.enabled:
        return Delivery(None, "no blend: ensemble.enabled=false")
    harness = rc.harness
    library = build_library(harness.spec, harness.labels, candidates(rc, journal), settings.max_members)
    choice = choose(
        harness.spec,
        library,
        bags=settings.bags,
        bag_fraction=settings.bag_fraction,
        seed=rc.cfg.project.seed,
    )
    delivery = Delivery(choice)
    if choice.chosen == ENSEMBLE:
        blend_members(rc, journal, delivery)
    write_json_atomic(harness_root(rc.paths.root) / ENSEMBLE_FILE, delivery.to_dict())
    return delivery


def member_submission(rc: RunContext, node: Node) -> tuple[Path | None, str]:
    """A member's test predictions: its refit on every row when asked for and valid, else its scored run's."""
    note = "its scored run's test predictions (ensemble.refit_members=false)"
    if rc.cfg.ensemble.refit_members:
        target = harness_root(rc.paths.root) / "refit" / f"{node.id}.csv"
        refitted, why = refit(rc, node, target)
        if refitted is not None:
            return refitted, "refit on every train row"
        note = f"its scored run's test predictions (refit {why})"
    source = scored_submission(node)
    return (source, note) if source is not None else (None, "no usable test submission")


def blend_members(rc: RunContext, journal: Journal, delivery: Delivery) -> None:
    """Blend the members' test predictions into `harness/ensemble_submission.csv` and check it; when a member
    has no usable predictions or the blend fails the check, the best single node is delivered instead.

    The members' refits run `search.parallel` at a time on the run's sandbox; their results are taken in the
    weights' order, so the first member without usable predictions (in that order) decides the fall-back."""
    choice = delivery.choice
    assert choice is not None
    frames: dict[str, pd.DataFrame] = {}
    members = list(choice.weights)
    submissions = run_parallel(
        members, lambda node_id: member_submission(rc, journal.get(node_id)), rc.cfg.search.parallel, "refit"
    )
    with closing(submissions):
        for node_id, (path, note) in zip(members, submissions, strict=True):
            delivery.members[node_id] = note
            if path is None:
                return _fall_back(choice, f"member {node_id} has {note}")
            delivery.member_submissions[node_id] = str(path)
            frames[node_id] = pd.read_csv(path, dtype=str, keep_default_na=False)
    spec = rc.harness.spec  # type: ignore[union-attr]
    target = harness_root(rc.paths.root) / ENSEMBLE_SUBMISSION
    try:
        blended = blend_frames(spec, frames, choice.weights)
    except ValueError as exc:
        return _fall_back(choice, f"the members' test predictions could not be blended ({exc})")
    write_text_atomic(target, blended.to_csv(index=False))
    problem = check_submission(target, rc.competition.sample_submission, spec.id_column, metric=spec)
    if problem:
        return _fall_back(choice, f"the blended submission failed the submission check ({problem})")
    delivery.submission = target


def _fall_back(choice: EnsembleChoice, why: str) -> None:
    choice.chosen = SINGLE
    choice.reason = f"{choice.reason}; but {why}, so the best single node is delivered"


def report_lines(delivery: Delivery, lower_is_better: bool) -> list[str]:
    """The report's section on the final submission: what was delivered and why, members and weights."""
    out = ["## Final submission", ""]
    choice = delivery.choice
    if choice is None:
        return [*out, f"The best single node: {delivery.note}.", ""]
    what = (
        f"a blend of {len(choice.weights)} nodes"
        if delivery.delivered == ENSEMBLE
        else "the best single node"
    )
    out += [f"Delivered: **{what}**. Why: {choice.reason}.", ""]
    direction = "lower" if lower_is_better else "higher"
    out += [
        f"| estimate ({direction} is better) | blend | best single node |",
        "| --- | --- | --- |",
        f"| honest (selected on one half of the {choice.rows} held-out rows, scored on the other, both ways) | "
        f"{_fmt(choice.honest_ensemble)} | {_fmt(choice.honest_single)} |",
        f"| on all held-out rows (the blend's own selection rows) | {_fmt(choice.in_sample_ensemble)} | "
        f"{_fmt(choice.in_sample_single)} |",
        "",
    ]
    if choice.weights:
        out += ["| member | weight | test predictions |", "| --- | --- | --- |"]
        out += [
            f"| `{node_id[:8]}` | {weight:.3f} | {delivery.members.get(node_id, '-')} |"
            for node_id, weight in choice.weights.items()
        ]
        out.append("")
    out += [f"Candidates: {len(choice.candidates)} good node(s) with held-out predictions."]
    out += [f"- `{node_id[:8]}` left out: {why}" for node_id, why in choice.left_out.items()]
    return [*out, ""]


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.6g}"
