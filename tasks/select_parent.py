"""select_parent: decide the next step and its prompt, and record it (pending) before any model call.

The task takes the run its epoch holds in memory (`swarm.pipeline.schedule.LiveRun`, which the flow passes in
`opaque`, so Prefect neither walks nor hashes the journal) and the step number; it runs in the flow's own thread,
so no other thread touches the journal and state. No cache (`NO_CACHE`): every call plans a new step. A rerun of
the same step (a retry) returns the plan already made instead of advancing the step counter again.
"""

from __future__ import annotations

from prefect import task
from prefect.cache_policies import NO_CACHE

from swarm.atomic import read_json
from swarm.pipeline import steps
from swarm.pipeline.schedule import LiveRun, plan_step


@task(task_run_name="select_parent[step {step}]", cache_policy=NO_CACHE, persist_result=False)
def select_parent(run: LiveRun, step: int) -> steps.PlannedStep:
    """Plan step `step`, which must be the run's next step or one already planned and still pending."""
    if run.state.next_step == step:
        return plan_step(run.rc, run.journal, run.state)
    planned = [p for p in run.state.pending if p.step == step]
    if not planned:
        raise ValueError(f"cannot plan step {step}: the run's next step is {run.state.next_step}")
    return steps.PlannedStep.model_validate(read_json(run.rc.pending_path(planned[0].node_id)))
