"""select_parent: decide the next step and its prompt, and record it before any model call."""

from __future__ import annotations

from prefect import task

from swarm.journal import Journal
from swarm.pipeline import steps
from swarm.pipeline.state import RunState
from tasks.runs import get_context


@task(task_run_name="select_parent[step {state.next_step}]")
def select_parent(run_dir: str, journal: Journal, state: RunState) -> steps.PlannedStep:
    rc = get_context(run_dir)
    planned = steps.select_parent(rc, journal, state)
    rc.save_pending(planned)
    state.pending.append(planned.plan)
    rc.save(journal, state)
    return planned
