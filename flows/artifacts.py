"""Prefect artifacts for an epoch: the journal as a table, a markdown summary, the score-over-steps plot."""

from __future__ import annotations

import re

from prefect.artifacts import create_link_artifact, create_markdown_artifact, create_table_artifact

from swarm.atomic import write_text_atomic
from swarm.journal import Journal
from swarm.pipeline.context import RunContext
from swarm.pipeline.finalize import score_curve
from swarm.pipeline.plot import score_svg
from swarm.pipeline.state import RunState


def journal_rows(journal: Journal) -> list[dict[str, object]]:
    return [
        {
            "step": node.step,
            "node": node.id[:8],
            "parent": ",".join(pid[:8] for pid in node.parent_ids) or "-",
            "agent": node.agent_id,
            "task": node.task_type,
            "metric": None if node.metric is None else node.metric.value,
            "scored by": "harness" if node.meta.get("validation_source") == "harness" else "unverified",
            "claimed": node.meta.get("claimed_metric"),
            "buggy": node.is_buggy,
            "why": node.bug_reason or "",
        }
        for node in journal
    ]


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


def curve_lines(journal: Journal, lower_is_better: bool) -> list[str]:
    """The best score over steps as markdown lines, with a bar per step (readable in any UI)."""
    curve = [(step, value) for step, value in score_curve(journal) if value is not None]
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


def publish_epoch_artifacts(rc: RunContext, journal: Journal, state: RunState, epoch: int) -> None:
    key = artifact_key(state.run_id, state.branch, epoch)
    create_table_artifact(
        journal_rows(journal), key=f"journal-{key}", description=f"Journal after epoch {epoch}"
    )
    create_table_artifact(
        rc.dispatcher.rows(),
        key=f"dispatcher-{key}",
        description=f"Task dispatcher after epoch {epoch}: EMA score per agent and task type (n = updates)",
    )
    if state.population:
        create_table_artifact(
            population_rows(journal, state),
            key=f"population-{key}",
            description=f"GA population after epoch {epoch} (generation {state.generation})",
        )
    best = journal.best_node(only_good=True)
    best_text = f"`{best.id[:8]}` metric {best.metric.value:.5g}" if best and best.metric else "none yet"
    create_markdown_artifact(
        "\n".join(
            [
                f"# Epoch {epoch} of `{state.run_id}`",
                f"- nodes: {len(journal)} ({len(journal.good_nodes())} good, {len(journal.buggy_nodes())} buggy)",
                f"- best: {best_text}",
                f"- spend: ${rc.ledger.total_cost_usd:.4f}",
                f"- stopped: {state.stopped_reason or 'no'}",
                "",
                *curve_lines(journal, rc.lower_is_better),
            ]
        ),
        key=f"summary-{key}",
    )
    plot = rc.paths.root / "epochs" / str(epoch) / "score.svg"
    write_text_atomic(plot, score_svg(score_curve(journal), lower_is_better=rc.lower_is_better))
    create_link_artifact(plot.resolve().as_uri(), link_text="best score over steps (SVG)", key=f"plot-{key}")
