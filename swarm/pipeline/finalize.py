"""After the search: blend the good nodes when a blend estimates honestly better than the best node
(`swarm.pipeline.ensembling`), else pick the best node (by the harness's score; with
`evaluation.ties_within_noise`, the simplest of those within one standard error of it: `swarm.journal.ties`; with
`evaluation.folds`, the best candidate by its mean over further folds: `swarm.pipeline.folds`) and refit it on
every train row; copy what is delivered to best_solution/, grade it, write report.md, which shows
each score with its 95% interval.

The private answers are read here and only here, after the search, by the grader; they never reach a prompt
or a sandbox.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from swarm.atomic import write_json_atomic, write_text_atomic
from swarm.competitions import CompetitionError, GradeReport, grade_submission
from swarm.evaluation.harness import file_sha256
from swarm.journal import Journal, Node
from swarm.journal.ties import Tie, pick_within_noise
from swarm.metric import ValidationSource, with_interval
from swarm.pipeline.best_so_far import ABOUT, replace_best, write_best
from swarm.pipeline.context import RunContext
from swarm.pipeline.ensembling import ENSEMBLE, Delivery, consider_ensemble, report_lines
from swarm.pipeline.folds import FoldResult, confirm_on_folds
from swarm.pipeline.reference import consistency_lines
from swarm.pipeline.refit import refit
from swarm.pipeline.replies import reply_lines
from swarm.pipeline.state import RunState

SUBMISSION = "submission.csv"


def promote(rc: RunContext, node: Node, submission: Path | None = None) -> Path:
    """Replace the run's best_solution/ with the node's submission (or `submission`, its refit's), code and id."""
    source = submission or node.meta.submission_path
    if not source or not Path(source).is_file():
        raise FileNotFoundError(f"best node {node.id} has no submission file ({source})")
    expected = node.meta.submission_sha256
    if submission is None and expected and file_sha256(Path(source)) != expected:
        raise ValueError(f"best node {node.id}'s submission {source} changed after it was reviewed")
    what = (
        "the refit: its code rerun on every train row" if submission else "the scored run's test predictions"
    )
    return write_best(rc, node, Path(source), f"delivered: {what}")


def promote_ensemble(rc: RunContext, journal: Journal, delivery: Delivery) -> Path:
    """Replace best_solution/ with the blended submission, the blend's weights and every member's code."""
    assert delivery.submission is not None and delivery.choice is not None
    submission, choice = delivery.submission, delivery.choice

    def fill(dest: Path) -> None:
        shutil.copyfile(submission, dest / SUBMISSION)
        write_json_atomic(dest / "ensemble.json", delivery.to_dict())
        for node_id in choice.weights:
            write_text_atomic(dest / "members" / f"{node_id}.py", journal.get(node_id).code)
        write_text_atomic(dest / "solution.py", ensemble_code(journal, delivery))
        write_text_atomic(dest / "node_id.txt", ENSEMBLE + "\n")
        write_json_atomic(dest / ABOUT, {"node_id": ENSEMBLE, "submission": "delivered: the blend"})

    return replace_best(rc, fill)


def ensemble_code(journal: Journal, delivery: Delivery) -> str:
    """The members' code in one file, for people to read (each is a whole solution on its own)."""
    weights = delivery.choice.weights if delivery.choice else {}
    parts = [f"# A weighted blend of {len(weights)} solutions (weights in ensemble.json); members follow.\n"]
    for node_id, weight in weights.items():
        parts.append(f"\n# ===== member {node_id}, weight {weight:.4f} =====\n{journal.get(node_id).code}\n")
    return "".join(parts)


def grade_best(rc: RunContext, submission: Path) -> GradeReport | None:
    """Grade with the hidden answers; None (with a note in the report) when the competition can't be graded."""
    competition, harness = rc.competition, rc.harness
    if harness is not None and harness.spec.free_text and competition.metric is not None:
        # Free text, as the labelled table shows (text normalization's spoken forms): an answer the hidden rows
        # happen not to hold is a wrong prediction there too, not an invalid one.
        metric = replace(competition.metric, free_text=harness.spec.free_text)
        competition = replace(competition, metric=metric)
    try:
        return grade_submission(competition, submission)
    except CompetitionError as exc:
        rc.grade_error = str(exc)
        return None


def finalize(rc: RunContext, journal: Journal, state: RunState) -> dict[str, Any]:
    """Select, promote, grade and report; returns the summary the flow returns."""
    # the best node not flagged as unlike its held-out rows on test rows (or, with ties within noise, the simplest
    # of those within one standard error of its score)
    if rc.cfg.evaluation.ties_within_noise:
        best, tie = pick_within_noise(journal.deliverable_nodes())
    else:
        best, tie = journal.best_deliverable(), None
    folds = confirm_on_folds(rc, journal, best, state.stopped_reason) if best is not None else None
    if folds is not None and folds.picked is not None:
        best = journal.get(folds.picked)
    if rc.competition.public_only:
        rc.grade_error = "the data dir holds only the public files (no hidden answers), so nothing is graded"
    report: GradeReport | None = None
    submission: Path | None = None
    single_submission: Path | None = None
    refit_note: str | None = None
    delivery: Delivery | None = None
    if best is not None and best.meta.submission_path:
        delivery = consider_ensemble(rc, journal)
        if delivery.submission is not None:
            submission = promote_ensemble(rc, journal, delivery)
            refit_note = f"members: {'; '.join(f'{k[:8]} {v}' for k, v in delivery.members.items())}"
            single_submission = Path(delivery.member_submissions.get(best.id) or best.meta.submission_path)
        else:
            refitted, refit_note = refit(rc, best)
            submission = single_submission = promote(rc, best, refitted)
        report = None if rc.competition.public_only else grade_best(rc, submission)
    elif best is None:
        rc.grade_error = getattr(rc, "grade_error", None) or "no node produced a valid solution"
    if report is not None:
        write_json_atomic(rc.paths.grade, report.model_dump(mode="json"))
    evaluation = rc.evaluation
    summary = {
        "run_dir": str(rc.paths.root),
        "competition": rc.competition.id,
        "metric": evaluation.metric.to_dict(),
        "steps": len(journal),
        "good_nodes": len(journal.good_nodes()),
        "best_node": best.id if best else None,
        "validation_metric": best.metric.value if best and best.metric else None,
        **interval_summary(best),
        "tie": tie.describe() if tie else None,
        "validation_mean_over_folds": folds.picked_mean() if folds else None,
        "validation_mean_over_folds_interval": folds.picked_interval() if folds else None,
        "folds": folds.to_dict() if folds else None,
        "validation_source": str(evaluation.validation_source),
        "unverified_reason": evaluation.unverified_reason,
        "claimed_metric": best.meta.claimed_metric if best else None,
        "refit": refit_note,
        "submission": str(submission) if submission else None,
        "delivered": delivery.delivered if delivery else None,
        "ensemble": delivery.to_dict() if delivery else None,
        "single_submission": str(single_submission) if single_submission else None,
        "grade": report.model_dump(mode="json") if report else None,
        "grade_error": None if report is not None else getattr(rc, "grade_error", None),
        "stopped_reason": state.stopped_reason,
        "cost_usd": rc.ledger.total_cost_usd,
        "sandbox": rc.sandbox_record(),
    }
    report_text = render_report(rc, journal, state, best, report, refit_note, delivery, tie, folds)
    write_text_atomic(rc.paths.report, report_text)
    return summary


def score_curve(journal: Journal) -> list[tuple[int, float | None]]:
    """Best validation metric so far after each step (None until a good node exists)."""
    curve, best = [], None
    for node in journal:
        scored = node.is_good and node.metric is not None and node.metric.value is not None
        if scored and (best is None or node.metric > best):
            best = node.metric
        curve.append((node.step or 0, best.value if best else None))
    return curve


def tree_lines(journal: Journal) -> list[str]:
    """The journal as an indented tree (merge nodes appear under their first parent); in an mcts run, each node's
    visits and value as its record holds them."""
    lines: list[str] = []

    def walk(node: Node, depth: int) -> None:
        status = (
            f"[BUGGY] {node.bug_reason}" if node.is_buggy else f"metric {_fmt(node)}, claimed {_claim(node)}"
        )
        if node.inconsistent:
            status += " [FLAGGED: test predictions unlike its held-out ones]"
        mode = f" [{node.meta.search_mode}]" if node.meta.search_mode else ""
        if node.visits is not None:
            mode += f" [visits {node.visits}, value {node.total_reward:.3g}]"
        lines.append(f"{'  ' * depth}- {node.id[:8]} {node.task_type}{mode} by {node.agent_id}: {status}")
        for child in journal.children(node):
            if child.parent_ids and child.parent_ids[0] == node.id:
                walk(child, depth + 1)

    for root in (n for n in journal if not n.parent_ids):
        walk(root, 0)
    return lines


def _fmt(node: Node) -> str:
    """The node's score, its 95% interval in brackets where it has one, or that it is unverified."""
    if not node.metric or node.metric.value is None:
        return "n/a"
    unverified = "" if node.meta.validation_source == ValidationSource.HARNESS else " (unverified)"
    return f"{with_interval(node.metric.value, node.meta.score_interval, '.5g')}{unverified}"


def _can_fold(rc: RunContext) -> bool:
    """Whether further folds could draw other held-out rows: a harness split that is not a time split's one
    latest span."""
    return rc.harness is not None and not rc.harness.holdout.split.startswith("time:")


def interval_summary(node: Node | None) -> dict[str, Any]:
    """The summary's figures of the delivered node's score: its 95% interval, standard error, how the interval
    was drawn (or why there is none) and the warning where the held-out rows are too few."""
    meta = node.meta if node is not None else None
    return {
        "validation_interval": meta.score_interval if meta else None,
        "validation_se": meta.score_se if meta else None,
        "validation_interval_note": meta.score_interval_note if meta else None,
        "validation_warning": meta.score_warning if meta else None,
    }


def interval_lines(node: Node) -> list[str]:
    """The report's lines on the best node's score: what the brackets are, how they were drawn, and the warning
    where the held-out rows are too few for the metric."""
    meta, out = node.meta, []
    if meta.score_interval:
        se = f", standard error {meta.score_se:.3g}" if meta.score_se is not None else ""
        out.append(
            "In brackets: the score's 95% interval, from a bootstrap of the held-out rows (resampled and "
            f"rescored with the competition's metric{se})."
        )
    if meta.score_interval_note:
        lead = "Interval" if meta.score_interval else "No interval"
        out.append(f"{lead}: {meta.score_interval_note}.")
    if meta.score_warning:
        out.append(f"Caution: {meta.score_warning}.")
    return [*out, ""] if out else []


def _claim(node: Node) -> str:
    claimed = node.meta.claimed_metric
    return "none printed" if claimed is None else f"{claimed:.5g}"


def render_report(
    rc: RunContext,
    journal: Journal,
    state: RunState,
    best: Node | None,
    grade: GradeReport | None,
    refit_note: str | None = None,
    delivery: Delivery | None = None,
    tie: Tie | None = None,
    folds: FoldResult | None = None,
) -> str:
    usage = rc.ledger.summary()
    out = [
        f"# Run {state.run_id}",
        "",
        f"Competition: `{rc.competition.id}`  ",
        f"Run dir: `{rc.paths.root}`",
    ]
    out += [f"Steps: {len(journal)} ({len(journal.good_nodes())} good, {len(journal.buggy_nodes())} buggy)  "]
    out += [f"Stopped: {state.stopped_reason or 'limits not reached'}", ""]
    sandbox = rc.sandbox_record()
    confined = "" if sandbox["isolated"] else " (NOT isolated: isolated: false)"
    out += ["## Evaluation", "", *(f"- {line}" for line in rc.evaluation.lines())]
    out += [
        f"- sandbox: {sandbox['description']}{confined}",
        f"- each solution: {sandbox['cpus']:g} CPU{'' if sandbox['cpus'] == 1 else 's'}, "
        f"{sandbox['memory_mb']} MB of memory (held by "
        f"{sandbox['memory_guard']}), {sandbox['gpus']}",
        "",
    ]
    out += ["## Result", ""]
    if best is None:
        out += ["No node produced a valid solution.", ""]
    else:
        source = "harness score" if rc.evaluation.holdout else "printed by the solution, unverified"
        out += [
            f"Best node `{best.id}` ({best.task_type} by {best.agent_id}): validation metric {_fmt(best)} "
            f"({source}); the solution's own claim: {_claim(best)}.",
            "",
            *interval_lines(best),
        ]
        if tie is not None:
            out += [tie.describe(), ""]
        if folds is None and best.meta.score_warning and _can_fold(rc):
            out += [
                "With evaluation.folds=3 the best candidates would be scored on other held-out rows too.",
                "",
            ]
        if folds is not None:
            out += [
                "Scored on further folds of the harness split (evaluation.folds); the best mean is delivered:",
                "",
                *folds.report_lines(),
                "",
            ]
        if refit_note:
            out += [f"Refit: {refit_note}.", ""]
        if delivery is not None:
            out += report_lines(delivery, rc.lower_is_better)
    if grade is not None:
        out += [
            "| score | valid | medal | gold | silver | bronze | median |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            f"| {grade.score} | {grade.valid} | {grade.medal or 'none'} | {grade.gold_threshold} | "
            f"{grade.silver_threshold} | {grade.bronze_threshold} | {grade.median_threshold} |",
            "",
        ]
        if grade.reason:
            out += [f"Grader: {grade.reason}", ""]
        if grade.note:
            out += [f"Grader tolerated: {grade.note}", ""]
    elif getattr(rc, "grade_error", None):
        out += [f"Not graded: {rc.grade_error}", ""]
    out += consistency_lines(rc, journal)
    out += ["## Best score over steps", "", "| step | best so far |", "| --- | --- |"]
    out += [
        f"| {step} | {'n/a' if value is None else f'{value:.5g}'} |" for step, value in score_curve(journal)
    ]
    out += ["", "## Tree", "", *tree_lines(journal), ""]
    out += [*reply_lines(rc.paths.root, journal), "## Model usage", ""]
    total = usage["total"]
    out += [
        "| stage | calls | prompt tokens | completion tokens | cost (USD) |",
        "| --- | --- | --- | --- | --- |",
        f"| all | {total.get('calls', 0)} | {total.get('prompt_tokens', 0)} | "
        f"{total.get('completion_tokens', 0)} | {total.get('cost_usd', 0.0):.4f} |",
    ]
    for stage, t in usage["by_stage"].items():
        out += [
            f"| {stage} | {t.get('calls', 0)} | {t.get('prompt_tokens', 0)} | {t.get('completion_tokens', 0)} | "
            f"{t.get('cost_usd', 0.0):.4f} |"
        ]
    if total.get("estimated_calls"):
        out += [
            "",
            f"{total['estimated_calls']} call(s) reported no usage: their tokens and cost are estimates "
            "(4 characters per token).",
        ]
    return "\n".join(out) + "\n"
