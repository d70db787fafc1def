"""Prefect tasks: one per search step, each a thin adapter over `swarm.pipeline.steps`.

Tasks take the run dir (a string) and small pydantic values, and find the run's context through
`tasks.runs.get_context`, so any process that sees the run dir can run them.
"""

from tasks.evolve_agents import evolve_agents
from tasks.execute import execute
from tasks.generate import generate
from tasks.review import review
from tasks.select_parent import select_parent
from tasks.update_population import update_population

__all__ = ["evolve_agents", "execute", "generate", "review", "select_parent", "update_population"]
