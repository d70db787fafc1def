"""Prefect artifacts for an epoch: the journal as a table, a markdown summary, the score-over-steps plot."""

from __future__ import annotations

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
            "buggy": node.is_buggy,
            "why": node.bug_reason or "",
        }
        for node in journal
    ]


def publish_epoch_artifacts(rc: RunContext, journal: Journal, state: RunState, epoch: int) -> None:
    key = f"{state.run_id}-e{epoch}".lower().replace("_", "-")[-90:].strip("-")
    create_table_artifact(
        journal_rows(journal), key=f"journal-{key}", description=f"Journal after epoch {epoch}"
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
            ]
        ),
        key=f"summary-{key}",
    )
    plot = rc.paths.root / "epochs" / str(epoch) / "score.svg"
    write_text_atomic(plot, score_svg(score_curve(journal), lower_is_better=rc.lower_is_better))
    create_link_artifact(plot.resolve().as_uri(), link_text="best score over steps (SVG)", key=f"plot-{key}")
