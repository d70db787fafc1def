"""update_population: add a finished step's node to the journal and the experience pool, and persist the run.

The task takes the run dir and the step's outcome (its prompt, code, output and review; the epoch flow passes
it in `opaque`, so Prefect does not walk its fields) and returns the new node's id; it records on the journal
and state the epoch flow holds in memory (`tasks.runs.hold_run`), in the flow's own thread. No cache
(`NO_CACHE`): Prefect neither hashes its inputs nor keeps its result. A rerun for a node already in the
journal records nothing again.
"""

from __future__ import annotations

from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from swarm.pipeline import steps
from tasks.runs import held_run


def _name(parameters: dict[str, Any]) -> str:
    return f"update_population[{parameters['outcome'].planned.plan.label()}]"


@task(task_run_name=_name, cache_policy=NO_CACHE, persist_result=False)
def update_population(run_dir: str, outcome: steps.StepOutcome) -> str:
    """The id of the node recorded for `outcome`."""
    rc, journal, state = held_run(run_dir)
    node_id = outcome.planned.plan.node_id
    if node_id not in journal:
        steps.update_population(rc, journal, state, outcome)
    return node_id
