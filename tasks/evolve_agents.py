"""evolve_agents: rewrite the weakest agents' prompts. A no-op until agent evolution lands."""

from __future__ import annotations

from prefect import task


@task(task_run_name="evolve_agents[epoch {epoch}]")
def evolve_agents(run_dir: str, epoch: int) -> list[str]:
    """The ids of the agents whose texts changed (none yet)."""
    return []
