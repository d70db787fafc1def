"""review: judge an executed node (the model's review checked against hard facts). A review whose call failed,
or whose verdict the facts overruled, is logged as a warning with the reviewer's reply and kept as an artifact
(`tasks.replies`)."""

from __future__ import annotations

import json
from typing import Any

from prefect import task

from sandbox import ExecutionResult
from swarm.evaluation.review import ReviewOutcome
from swarm.pipeline import steps
from swarm.pipeline.replies import kept_exchanges, last_reply, review_why
from tasks.naming import step_name
from tasks.replies import show_reply
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
    rc = get_context(run_dir)
    outcome = steps.review(rc, planned.plan, generation, result)
    why = review_why(outcome.review_error, outcome.overruled, outcome.bug_reason)
    if why:
        node_id = planned.plan.node_id
        said = json.dumps(outcome.llm_said, indent=1) if outcome.llm_said is not None else outcome.summary
        reply = last_reply(rc.paths.root, node_id, "feedback") or said
        show_reply("review", node_id, why, reply, kept_exchanges(rc.paths.root, node_id))
    return outcome
