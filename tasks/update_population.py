"""update_population: add a finished step's node to the journal and the experience pool, and persist the run.

The task takes the run its epoch holds in memory (`swarm.pipeline.schedule.LiveRun`) and the step's outcome (its
prompt, code, output and review), both passed in `opaque` so Prefect does not walk their fields, and returns the
new node's id; it runs in the flow's own thread. No cache (`NO_CACHE`): Prefect neither hashes its inputs nor
keeps its result. A rerun for a node already in the journal records nothing again.
"""

from __future__ import annotations

from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from swarm.pipeline import steps
from swarm.pipeline.schedule import LiveRun


def _name(parameters: dict[str, Any]) -> str:
    return f"update_population[{parameters['outcome'].planned.plan.label()}]"


@task(task_run_name=_name, cache_policy=NO_CACHE, persist_result=False)
def update_population(run: LiveRun, outcome: steps.StepOutcome) -> str:
    """The id of the node recorded for `outcome`."""
    node_id = outcome.planned.plan.node_id
    if node_id not in run.journal:
        steps.update_population(run.rc, run.journal, run.state, outcome)
    return node_id
