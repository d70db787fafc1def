"""update_population: add the node to the journal and the experience pool, and persist the run."""

from __future__ import annotations

from prefect import task
from prefect.runtime import task_run

from swarm.journal import Journal, Node
from swarm.pipeline import steps
from swarm.pipeline.state import RunState
from tasks.runs import get_context


@task(task_run_name=lambda: f"update_population[{task_run.parameters['outcome'].planned.plan.label()}]")
def update_population(run_dir: str, journal: Journal, state: RunState, outcome: steps.StepOutcome) -> Node:
    return steps.update_population(get_context(run_dir), journal, state, outcome)
