"""Task run names that say what a step is, e.g. `generate[agent_2 improve 3f2c1a]`."""

from __future__ import annotations

from collections.abc import Callable

from prefect.runtime import task_run


def step_name(verb: str) -> Callable[[], str]:
    def name() -> str:
        planned = task_run.parameters.get("planned")
        return f"{verb}[{planned.plan.label()}]" if planned is not None else verb

    return name
