"""execute: run the solution in the sandbox. A solution's crash is a Failed task run whose state message is one
line (the error and the script's line) and whose log holds its traceback as lines (both in the UI); it is never
retried: it goes to the debug path. Engine faults are retried.
A step whose GPUs are busy logs "waiting for GPU" (and when it gets them) in its task run."""

from __future__ import annotations

from typing import Any

from prefect import get_run_logger, task
from prefect.states import Failed, State

from sandbox import ExecutionResult
from swarm.pipeline import steps
from tasks.naming import step_name
from tasks.retry import SOLUTION_FAILED, worth_retrying
from tasks.runs import get_context


def execution_key(context: Any, parameters: dict[str, Any]) -> str:
    rc = get_context(parameters["run_dir"])
    return steps.execution_cache_key(rc, parameters["generation"].code)


def _log_in_task(line: str) -> None:
    """A line in the task run's log (the Prefect UI shows it under the execute task)."""
    get_run_logger().info(line)


@task(
    task_run_name=step_name("execute"),
    cache_key_fn=execution_key,
    persist_result=True,
    retries=2,
    retry_delay_seconds=[2, 10],
    retry_condition_fn=worth_retrying,
)
def execute(
    run_dir: str, planned: steps.PlannedStep, generation: steps.Generation
) -> ExecutionResult | None | State:
    result = steps.execute(get_context(run_dir), planned.plan, generation, notify=_log_in_task)
    if result is not None and not result.succeeded:  # the traceback as lines in the log, the state one line
        get_run_logger().error("%s: %s", SOLUTION_FAILED, steps.failure_message(result))
        return Failed(message=f"{SOLUTION_FAILED}: {steps.failure_headline(result)}", data=result)
    return result
