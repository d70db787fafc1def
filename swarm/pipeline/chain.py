"""One step's chain, generate -> execute -> adopt_outputs -> review, written once for the epoch flow and the
plain runner.

The chain runs wherever the scheduler's `submit` puts it (a worker thread, a Dask worker), on one planned step.
Its three stages are passed in as `StepStages`: the plain runner calls the step functions of
`swarm.pipeline.steps` directly (`plain_stages`); the epoch flow passes its Prefect tasks, which add caching,
retries and persisted results around the same functions (`flows.epoch.task_stages`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sandbox import ExecutionResult
from swarm.evaluation.review import ReviewOutcome
from swarm.pipeline import step_lines, steps
from swarm.pipeline.context import RunContext
from swarm.pipeline.progress import PROGRESS
from swarm.pipeline.step_timing import stage_timings


@dataclass(frozen=True)
class StepStages:
    """How each stage of a step is run: called with the planned step and what the stages before returned."""

    generate: Callable[[steps.PlannedStep], steps.Generation]
    execute: Callable[[steps.PlannedStep, steps.Generation], ExecutionResult | None]
    review: Callable[[steps.PlannedStep, steps.Generation, ExecutionResult | None], ReviewOutcome]


def plain_stages(rc: RunContext) -> StepStages:
    """The step functions called as they are: no cache, no retries."""
    return StepStages(
        generate=lambda planned: steps.generate(rc, planned),
        execute=lambda planned, generation: steps.execute(rc, planned.plan, generation),
        review=lambda planned, generation, result: steps.review(rc, planned.plan, generation, result),
    )


def run_chain(
    rc: RunContext,
    planned: steps.PlannedStep,
    stages: StepStages,
    notify: Callable[[str], None] = PROGRESS.note,
) -> steps.StepOutcome:
    """generate -> execute -> adopt_outputs -> review for one planned step (safe in a worker thread: it reads
    the run's context and writes only the step's own files, never the journal or the state). Each event is
    one line to `notify` (`swarm.pipeline.step_lines`; by default the progress board's subscribers)."""
    plan = planned.plan
    notify(step_lines.planned_line(plan))
    walls, started = {}, time.monotonic()
    generation = stages.generate(planned)
    walls["generate"] = seconds = time.monotonic() - started
    records = rc.ledger.records
    notify(step_lines.replied_line(plan, seconds, records, generation.parse_error, generation.reasked))
    started = time.monotonic()
    result = stages.execute(planned, generation)
    result = steps.adopt_outputs(rc, plan, result)
    walls["execute"], started = time.monotonic() - started, time.monotonic()
    failed = result is not None and not result.succeeded
    notify(step_lines.executed_line(plan, result, steps.failure_headline(result) if failed else None))
    outcome = stages.review(planned, generation, result)
    walls["review"] = time.monotonic() - started
    notify(step_lines.reviewed_line(plan, outcome))
    sandbox_s = result.exec_time if result is not None else None
    timings = stage_timings(planned.prompt_s, walls, generation.model_s, sandbox_s, outcome.timings)
    return steps.StepOutcome(
        planned=planned, generation=generation, result=result, outcome=outcome, timings=timings
    )
