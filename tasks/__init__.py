"""Prefect tasks: one per search step, each a thin adapter over `swarm.pipeline.steps`.

The stage tasks (generate, execute, review, evolve_agents) take the run dir (a string) and small pydantic
values, and find the run's context through `tasks.runs.get_context`, so any process that sees the run dir can
run them. select_parent and update_population run in the epoch flow's thread on the run it holds in memory
(`swarm.pipeline.schedule.LiveRun`), passed to them explicitly.
"""

from tasks.evolve_agents import evolve_agents
from tasks.execute import execute
from tasks.generate import generate
from tasks.review import review
from tasks.select_parent import select_parent
from tasks.update_population import update_population

__all__ = ["evolve_agents", "execute", "generate", "review", "select_parent", "update_population"]
