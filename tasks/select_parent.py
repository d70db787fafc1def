"""select_parent: decide the next step and its prompt, and record it (pending) before any model call.

The task takes the run dir and the step number, nothing else: it plans on the journal and state the epoch
flow holds in memory (`tasks.runs.hold_run`), in the flow's own thread, so no other thread touches them and
Prefect never hashes or serialises the journal. No cache (`NO_CACHE`): every call plans a new step. A rerun
of the same step (a retry) returns the plan already made instead of advancing the step counter again.
"""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NO_CACHE

from swarm.atomic import read_json
from swarm.pipeline import steps
from swarm.pipeline.schedule import plan_step
from tasks.runs import held_run


@task(task_run_name="select_parent[step {step}]", cache_policy=NO_CACHE, persist_result=False)
def select_parent(run_dir: str, step: int) -> steps.PlannedStep:
    """Plan step `step`, which must be the run's next step or one already planned and still pending."""
    rc, journal, state = held_run(run_dir)
    if state.next_step == step:
        return plan_step(rc, journal, state)
    planned = [p for p in state.pending if p.step == step]
    if not planned:
        raise ValueError(f"cannot plan step {step}: the run's next step is {state.next_step}")
    return steps.PlannedStep.model_validate(read_json(rc.pending_path(planned[0].node_id)))
