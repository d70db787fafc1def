"""Prefect artifacts: per epoch the epoch's nodes and the dispatcher as tables, and a markdown summary (the
search's mode, the GA population, the score over steps and a link to its plot); at the end of a run the
ensemble decision and the delivered submission."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from prefect.artifacts import create_markdown_artifact, create_table_artifact

from swarm.atomic import write_text_atomic
from swarm.journal import Journal, Node
from swarm.metric import interval_text, with_interval
from swarm.pipeline.context import RunContext
from swarm.pipeline.finalize import score_curve
from swarm.pipeline.plot import score_svg
from swarm.pipeline.policy import FINAL, STAGNATION, steps_since_improvement
from swarm.pipeline.state import RunState


def journal_rows(nodes: Iterable[Node]) -> list[dict[str, object]]:
    return [
        {
            "step": node.step,
            "node": node.id[:8],
            "parent": ",".join(pid[:8] for pid in node.parent_ids) or "-",
            "agent": node.agent_id,
            "task": node.task_type,
            "metric": None if node.metric is None else node.metric.value,
            "95% interval": interval_text(node.meta.score_interval),
            "scored by": "harness" if node.meta.validation_source == "harness" else "unverified",
            "claimed": node.meta.claimed_metric,
            "buggy": node.is_buggy,
            "why": node.bug_reason or "",
            "mode": node.meta.search_mode or "",
        }
        for node in nodes
    ]


def mode_lines(journal: Journal, epoch: int, patience: int) -> list[str]:
    """The epoch's steps chosen in the final phase or the stagnation mode, and the steps since the last
    improvement (markdown list items)."""
    mine = [n for n in journal if n.epoch == epoch and n.meta.search_mode]
    since = steps_since_improvement(journal)
    lines = [
        f"- steps since the best score last improved: {'n/a' if since is None else since} (patience {patience})"
    ]
    for mode, what in (
        (STAGNATION, "stagnation mode (no improvement for search.patience steps)"),
        (FINAL, "final phase"),
    ):
        steps = [f"{n.step} {n.task_type}" for n in mine if n.meta.search_mode == mode]
        if steps:
            lines.append(f"- {what}: {len(steps)} step(s) this epoch ({', '.join(steps)})")
    return lines


def population_rows(journal: Journal, state: RunState) -> list[dict[str, object]]:
    """The GA population, best first: node, fitness, metric, generation, task type, agent, parents."""
    rows = []
    for node_id in state.population:
        node = journal.get(node_id)
        rows.append(
            {
                "node": node.id[:8],
                "fitness": None if node.fitness is None else round(node.fitness, 4),
                "metric": None if node.metric is None else node.metric.value,
                "generation": node.generation,
                "task": node.task_type,
                "agent": node.agent_id,
                "parents": ",".join(pid[:8] for pid in node.parent_ids) or "-",
            }
        )
    return rows


def artifact_key(run_id: str, branch: str, epoch: int) -> str:
    """A Prefect artifact key (lowercase letters, digits, dashes) for one epoch of one run branch."""
    name = run_id if branch == "main" else f"{run_id}-{branch}"
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return f"{slug[-80:].strip('-')}-e{epoch}"


def curve_lines(curve: list[tuple[int, float | None]], lower_is_better: bool) -> list[str]:
    """The best score over steps (`score_curve`) as markdown lines, with a bar per step (readable in any UI)."""
    curve = [(step, value) for step, value in curve if value is not None]
    if not curve:
        return ["no score yet"]
    values = [v for _, v in curve]
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    direction = "lower" if lower_is_better else "higher"
    lines = [f"Best validation score over steps ({direction} is better):", "", "```"]
    for step, value in curve:
        fill = (hi - value) / span if lower_is_better else (value - lo) / span
        lines.append(f"step {step:>4}  {value:>12.6g}  {'#' * (1 + round(fill * 30))}")
    return [*lines, "```"]


def markdown_table(rows: list[dict[str, object]]) -> list[str]:
    """Rows of equal keys as markdown table lines (empty for no rows)."""
    if not rows:
        return []
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for row in rows:
        cells = (
            "" if row[c] is None else str(row[c]).replace("|", "\\|").replace("\n", " ") for c in columns
        )
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def summary_markdown(
    rc: RunContext,
    journal: Journal,
    state: RunState,
    epoch: int,
    curve: list[tuple[int, float | None]],
    plot: Path,
) -> str:
    """The epoch's summary: counts, best, spend, search modes, the GA population, the score curve and a link
    to its SVG plot."""
    best = journal.best_node(only_good=True)
    best_text = (
        f"`{best.id[:8]}` metric {with_interval(best.metric.value, best.meta.score_interval, '.5g')}"
        if best and best.metric and best.metric.value is not None
        else "none yet"
    )
    population = population_rows(journal, state)
    return "\n".join(
        [
            f"# Epoch {epoch} of `{state.run_id}`",
            f"- nodes: {len(journal)} ({len(journal.good_nodes())} good, {len(journal.buggy_nodes())} buggy)",
            f"- best: {best_text}",
            f"- spend: ${rc.ledger.total_cost_usd:.4f}",
            f"- stopped: {state.stopped_reason or 'no'}",
            *mode_lines(journal, epoch, rc.cfg.search.patience),
            "",
            *curve_lines(curve, rc.lower_is_better),
            "",
            f"[Best score over steps (SVG)]({plot.resolve().as_uri()})",
            "",
            f"## GA population (generation {state.generation})" if population else "## GA population: empty",
            "",
            *markdown_table(population),
        ]
    )


def publish_epoch_artifacts(rc: RunContext, journal: Journal, state: RunState, epoch: int) -> None:
    """Three artifacts an epoch (each one round trip to the API, so no more): the epoch's nodes as a table
    (this epoch's only, so an artifact's size does not grow with the run; the whole tree is in report.md),
    the dispatcher's table, and the markdown summary with the GA population and the plot's link."""
    key = artifact_key(state.run_id, state.branch, epoch)
    create_table_artifact(
        journal_rows([node for node in journal if node.epoch == epoch]),
        key=f"journal-{key}",
        description=f"Journal: the nodes of epoch {epoch}",
    )
    create_table_artifact(
        rc.dispatcher.rows(),
        key=f"dispatcher-{key}",
        description=f"Task dispatcher after epoch {epoch}: EMA score per agent and task type (n = updates)",
    )
    curve = score_curve(journal)
    plot = rc.paths.root / "epochs" / str(epoch) / "score.svg"
    write_text_atomic(plot, score_svg(curve, lower_is_better=rc.lower_is_better))
    create_markdown_artifact(summary_markdown(rc, journal, state, epoch, curve, plot), key=f"summary-{key}")


def run_key(run_id: str, branch: str) -> str:
    """A Prefect artifact key for one run branch (no epoch)."""
    return artifact_key(run_id, branch, 0).removesuffix("-e0")


def ensemble_markdown(summary: dict[str, Any], journal: Journal) -> str:
    """The end-of-run blend: the decision and why, single vs blended scores, members and weights."""
    ensemble = summary.get("ensemble") or {}
    choice = ensemble.get("choice")
    if not choice:
        return f"# Ensemble\n\nNo blend was considered: {ensemble.get('note') or 'no good node'}.\n"

    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.6g}"

    def harness(node_id: str) -> str:
        node = journal.get(node_id) if node_id in journal else None
        return fmt(node.metric.value) if node and node.metric else "n/a"

    lines = [
        "# Ensemble",
        "",
        f"**Delivered: {ensemble['delivered']}**. {choice['reason']}.",
        "",
        "| estimate | blend | best single node |",
        "| --- | --- | --- |",
        f"| honest (2-fold, {choice['rows']} held-out rows) | {fmt(choice['honest_ensemble'])} | "
        f"{fmt(choice['honest_single'])} |",
        f"| on all held-out rows | {fmt(choice['in_sample_ensemble'])} | {fmt(choice['in_sample_single'])} |",
        "",
        "| member | weight | harness score | test predictions |",
        "| --- | --- | --- | --- |",
    ]
    weights = choice["weights"] or ({choice["single_node"]: 1.0} if choice["single_node"] else {})
    for node_id, weight in weights.items():
        lines.append(
            f"| `{node_id[:8]}` | {weight:.3f} | {harness(node_id)} | {ensemble['members'].get(node_id, 'single node')} |"
        )
    return "\n".join(lines) + "\n"


def delivered_markdown(summary: dict[str, Any]) -> str:
    """Which submission the run delivered, and its grade."""
    ensemble = summary.get("ensemble") or {}
    choice = ensemble.get("choice") or {}
    if summary.get("delivered") == "ensemble":
        what = f"a blend of {len(choice.get('weights') or {})} nodes (see the ensemble artifact)"
    elif summary.get("best_node"):
        what = f"the best single node `{summary['best_node'][:8]}` (refit: {summary.get('refit')})"
    else:
        what = "nothing: no node produced a valid solution"
    grade = summary.get("grade") or {}
    graded = (
        f"hidden-test score {grade.get('score')}, medal {grade.get('medal') or 'none'}"
        if grade
        else f"not graded ({summary.get('grade_error')})"
    )
    return "\n".join(
        [
            f"# Final submission of `{Path(summary['run_dir']).name}`",
            f"- delivered: {what}",
            f"- file: `{summary.get('submission')}`",
            f"- {graded}",
            f"- stopped: {summary.get('stopped_reason') or 'limits not reached'}",
        ]
    )


def publish_final_artifacts(journal: Journal, state: RunState, summary: dict[str, Any]) -> None:
    """The `ensemble` artifact and the delivered submission's summary of a finished run."""
    key = run_key(state.run_id, state.branch)
    create_markdown_artifact(
        ensemble_markdown(summary, journal),
        key=f"ensemble-{key}",
        description="Ensemble: members, weights, scores",
    )
    create_markdown_artifact(
        delivered_markdown(summary), key=f"delivered-{key}", description="The submission the run delivered"
    )
