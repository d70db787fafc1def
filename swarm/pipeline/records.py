"""What the journal keeps of a step's execution and review (`swarm.journal.step_record`): the sandbox's
`ExecutionResult` and the review's `ReviewOutcome` reduced to the node's records."""

from __future__ import annotations

from sandbox import ExecutionResult
from swarm.evaluation.review import ReviewOutcome
from swarm.journal import Execution, Review
from swarm.metric import MetricValue


def execution_record(result: ExecutionResult | None) -> Execution:
    """What the journal keeps of the sandbox's result (the rest stays in the node's directory); the defaults
    when the code never ran."""
    if result is None:
        return Execution()
    return Execution(
        term_out=result.output,
        exec_time=result.exec_time,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        oom_killed=result.oom_killed,
        exc_type=result.exc_type,
        exc_info={"message": result.exc_info} if result.exc_info else None,
        exc_stack=[(f.file, f.line, f.function, f.code) for f in result.exc_stack] or None,
    )


def review_record(outcome: ReviewOutcome) -> Review:
    """What the journal keeps of the review's outcome (the model's own words are in its meta and log)."""
    return Review(
        analysis=outcome.summary,
        metric=MetricValue(outcome.metric, bool(outcome.lower_is_better)),
        is_buggy=outcome.is_buggy,
        bug_reason=outcome.bug_reason,
        metric_conflict=outcome.has_metric_conflict,
    )
