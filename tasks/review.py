"""review: judge an executed node (the model's review checked against hard facts)."""

from __future__ import annotations

from typing import Any

from prefect import task

from sandbox import ExecutionResult
from swarm.evaluation.review import ReviewOutcome
from swarm.pipeline import steps
from tasks.naming import step_name
from tasks.retry import worth_retrying
from tasks.runs import get_context


def review_key(context: Any, parameters: dict[str, Any]) -> str:
    rc = get_context(parameters["run_dir"])
    return steps.review_cache_key(rc, parameters["planned"], parameters["generation"], parameters["result"])


@task(
    task_run_name=step_name("review"),
    cache_key_fn=review_key,
    persist_result=True,
    retries=2,
    retry_delay_seconds=[1, 5],
    retry_condition_fn=worth_retrying,
)
def review(
    run_dir: str, planned: steps.PlannedStep, generation: steps.Generation, result: ExecutionResult | None
) -> ReviewOutcome:
    return steps.review(get_context(run_dir), planned.plan, generation, result)
