"""generate: the code model writes a solution; cached on the full prompt and model, persisted in the run.
A reply without code (after asking once more) is logged as a warning with its head and kept as an artifact
(`tasks.replies`), so the Prefect UI shows what the model said."""

from __future__ import annotations

from typing import Any

from prefect import task

from swarm.pipeline import steps
from swarm.pipeline.replies import codeless_why, kept_exchanges
from tasks.naming import step_name
from tasks.replies import show_reply
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
    rc = get_context(run_dir)
    generation = steps.generate(rc, planned)
    if generation.parse_error:
        node_id = planned.plan.node_id
        why = codeless_why(generation.parse_error, generation.reasked)
        show_reply("reply", node_id, why, generation.raw, kept_exchanges(rc.paths.root, node_id))
    return generation
