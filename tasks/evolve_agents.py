"""evolve_agents: every `evolution_interval` epochs, rewrite the texts of the weakest agents.

The work is `swarm.pipeline.steps.evolve_if_due` (due or not, `swarm.agents.evolution.evolve_agents`, saved to
`evolution/<epoch>.json` in the run dir); this task publishes a markdown artifact with the scores and a diff of each
changed text. A model fault while rewriting one text keeps that text and is reported, so nothing is retried.
"""

from __future__ import annotations

import logging

from prefect import task
from prefect.artifacts import create_markdown_artifact

from swarm.agents.evolution import EvolutionReport
from swarm.pipeline import steps
from tasks.runs import get_context

log = logging.getLogger(__name__)


@task(task_run_name="evolve_agents[epoch {epoch}]")
def evolve_agents(run_dir: str, epoch: int) -> list[str]:
    """The ids of the agents whose texts changed after `epoch` (none when evolution is not due)."""
    report = steps.evolve_if_due(get_context(run_dir), epoch)
    if report is None:
        return []
    if report.skipped is None:
        create_markdown_artifact(report_markdown(report), description=f"Agent evolution after epoch {epoch}")
    return report.evolved


def report_markdown(report: EvolutionReport) -> str:
    """Scores, who was kept, and a diff of every changed text."""
    lines = [
        f"# Agent evolution after epoch {report.epoch}",
        "",
        "| agent | score | kept |",
        "| --- | --- | --- |",
    ]
    lines += [f"| {a} | {s:.4f} | {'yes' if a in report.kept else 'no'} |" for a, s in report.scores.items()]
    for change in report.changes:
        head = f"## {change.agent_id} / {change.part}: {change.old_version}"
        if change.new_version is None:
            lines += ["", f"{head} kept ({change.error})"]
        else:
            lines += ["", f"{head} -> {change.new_version}", "", "```diff", change.diff.rstrip(), "```"]
    return "\n".join(lines) + "\n"
