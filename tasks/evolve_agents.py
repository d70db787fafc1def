"""evolve_agents: every `evolution_interval` epochs, rewrite the texts of the weakest agents.

The work is `swarm.agent_evolution.evolve_agents`; this task decides whether it is due, saves what it did to
`evolution/<epoch>.json` in the run dir, and publishes a markdown artifact with the scores and a diff of each
changed text. A model fault while rewriting one text keeps that text and is reported, so nothing is retried.
"""

from __future__ import annotations

import dataclasses
import logging

from prefect import task
from prefect.artifacts import create_markdown_artifact

from swarm.agent_evolution import EvolutionReport, evolution_due
from swarm.agent_evolution import evolve_agents as evolve
from swarm.atomic import write_json_atomic
from tasks.runs import get_context

log = logging.getLogger(__name__)


@task(task_run_name="evolve_agents[epoch {epoch}]")
def evolve_agents(run_dir: str, epoch: int) -> list[str]:
    """The ids of the agents whose texts changed after `epoch` (none when evolution is not due)."""
    rc = get_context(run_dir)
    evolution = rc.cfg.evolution
    not_due = evolution_due(
        epoch, evolution.evolution_interval, len(rc.pool), evolution.min_records_for_evolution
    )
    if not_due:
        log.info("no agent evolution after epoch %d: %s", epoch, not_due)
        return []
    report = evolve(
        store=rc.agents,
        pool=rc.pool,
        builder=rc.prompts,
        client=rc.clients["evolution"],
        task_desc=rc.task_desc,
        epoch=epoch,
        agent_ids=rc.agent_ids,
        agents_kept=evolution.agents_kept,
        lower_is_better=rc.lower_is_better,
        run_id=rc.run_id,
    )
    write_json_atomic(rc.paths.root / "evolution" / f"{epoch}.json", dataclasses.asdict(report))
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
