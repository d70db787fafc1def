"""Rerunning a node's code with every train row and the original test set, for the final submission; the rerun is
delivered only where its test predictions agree with those of the run the harness scored, and lie no farther from
them, by the competition's metric, than the node's harness score lies from the best
(`swarm.evaluation.refit_check`)."""

from __future__ import annotations

from pathlib import Path

from swarm.competitions.submission_check import check_submission, deliver_as_sample
from swarm.evaluation.harness import keep_copy
from swarm.evaluation.holdout_record import harness_root
from swarm.evaluation.refit_check import check_refit, read_predictions
from swarm.journal import Node
from swarm.metric import ValidationSource
from swarm.pipeline.best_so_far import scored_submission
from swarm.pipeline.context import RunContext
from swarm.pipeline.steps import clear_outputs

REFIT_SUBMISSION = "refit_submission.csv"


def harness_score(node: Node) -> float | None:
    """The node's score as the harness computed it; None where the score is the solution's own claim (an untrusted
    number, never a yardstick) or missing."""
    if node.metric is None or node.meta.validation_source != ValidationSource.HARNESS:
        return None
    return node.metric.value


def refit(rc: RunContext, node: Node, target: Path | None = None) -> tuple[Path | None, str]:
    """Run the node's code once more with every train row and the original test set: (its submission, kept at
    `target` (default `<run>/harness/refit_submission.csv`), when valid, else None; what happened, in words for
    the report)."""
    if rc.harness is None:
        return None, "not needed: there was no harness split, so the best node trained on every row"
    if not rc.cfg.evaluation.refit:
        return None, "off (evaluation.refit=false): the submission of the run that was scored is used"
    dirs = rc.workspace.node_dirs(f"refit-{node.id}", input_dir=rc.competition.public_dir)
    clear_outputs(dirs)
    try:
        result = rc.sandbox.run(node.code, dirs, timeout_s=rc.cfg.execution.timeout_s)
    except Exception as exc:  # noqa: BLE001 - an engine fault keeps the scored submission
        return None, f"not used: the refit could not run ({type(exc).__name__}: {exc})"
    why = result.why_no_submission()
    if why is not None or result.submission_path is None:
        return None, f"not used: the refit {why}"
    kept, unreadable = keep_copy(
        Path(result.submission_path),
        target or harness_root(rc.paths.root) / REFIT_SUBMISSION,
        rc.harness.test_size_limit,
    )
    if kept is None:
        return None, f"not used: its submission is unreadable ({unreadable})"
    spec = rc.competition.metric
    problem = check_submission(
        kept, rc.competition.sample_submission, spec.id_column if spec else None, metric=spec
    )
    if problem:
        return None, f"not used: its submission is invalid ({problem})"
    # Delivered as the sample is, for the graders that read past less than ours (extra columns, id spellings).
    tolerated = deliver_as_sample(
        kept, rc.competition.sample_submission, spec.id_column if spec else None, metric=spec
    )
    scored = scored_submission(node)
    if scored is None:
        return None, "not used: the scored run's test predictions are missing, so the refit cannot be checked"
    shifted = rc.harness.holdout.shifted  # the scored run predicted an earlier span: honest refits move more
    check = (
        check_refit(read_predictions(scored), read_predictions(kept), spec, harness_score(node), shifted)
        if spec
        else None
    )
    if check is None:
        return None, "not used: its test predictions share no row or target column with the scored run's"
    if not check.accepted:
        return None, (
            f"rejected: {check.describe()}: its test predictions disagree with those of the run the harness "
            "scored, which are delivered instead"
        )
    rewritten = f"; rewritten in the sample's form: {tolerated}" if tolerated else ""
    return kept, (
        "used: the node's code was rerun with the held-out examples back among the training data "
        f"({check.describe()}, with the scored run's test predictions){rewritten}"
    )
