"""generate: the code model writes a solution; cached on the full prompt and model, persisted in the run."""

from __future__ import annotations

from typing import Any

from prefect import task

from swarm.pipeline import steps
from tasks.naming import step_name
from tasks.retry import worth_retrying
from tasks.runs import get_context


def generation_key(context: Any, parameters: dict[str, Any]) -> str:
    stage = get_context(parameters["run_dir"]).cfg.llm.code
    client = get_context(parameters["run_dir"]).clients["code"]
    return steps.generation_cache_key(parameters["planned"], client.model, client.provider, stage.temperature)


@task(
    task_run_name=step_name("generate"),
    cache_key_fn=generation_key,
    persist_result=True,
    retries=2,
    retry_delay_seconds=[1, 5],
    retry_condition_fn=worth_retrying,
)
def generate(run_dir: str, planned: steps.PlannedStep) -> steps.Generation:
    return steps.generate(get_context(run_dir), planned)
