"""Task run names that say what a step is, e.g. `generate[agent_2 improve 3f2c1a]`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def step_name(verb: str) -> Callable[..., str]:
    """A `task_run_name` callable. Prefect passes it the task's resolved parameters (an `opaque(planned)` from
    the epoch flow arrives unwrapped), which `prefect.runtime.task_run.parameters` would not give."""

    def name(parameters: dict[str, Any]) -> str:
        planned = parameters.get("planned")
        return f"{verb}[{planned.plan.label()}]" if planned is not None else verb

    return name
