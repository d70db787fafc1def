"""One line per event of a search step: planned, the model replied, executed, reviewed.

The step's chain (`swarm.pipeline.chain`) says them through the progress board (`PROGRESS.note`), so the main
job without its live view prints them, and the logs hold them. The score a reviewed line shows is the
harness's, never what the solution printed unless nothing else scored it (and then it says so), with its 95%
bootstrap interval in brackets (`0.795918 [0.745, 0.847]`) and, where the held-out rows are too few for the metric,
the sentence that says so.
"""

from __future__ import annotations

from collections.abc import Iterable

from sandbox import ExecutionResult
from swarm.evaluation.review import ReviewOutcome
from swarm.llm.usage import UsageRecord
from swarm.metric import with_interval
from swarm.pipeline.state import StepPlan

REASON_CHARS = 200  # of a bug's reason or a parse error, on one line


def _short(text: str | None) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 3] + "..."


def step_prefix(plan: StepPlan) -> str:
    """`step 3 (3f2c1a7b)`: the step's number and its node, as every line of it starts."""
    return f"step {plan.step} ({plan.node_id[:8]})"


def planned_line(plan: StepPlan) -> str:
    """The step's task type, agent and parents."""
    parents = f" from {', '.join(p[:8] for p in plan.parent_ids)}" if plan.parent_ids else ""
    mode = f" [{plan.mode}]" if plan.mode else ""
    return f"{step_prefix(plan)} planned: {plan.task_type}{mode} by {plan.agent_id}{parents}"


def replied_line(
    plan: StepPlan,
    seconds: float,
    records: Iterable[UsageRecord],
    parse_error: str | None,
    reasked: bool,
) -> str:
    """How long the code model took, the tokens the usage ledger holds for the step's calls, and whether the
    reply had code."""
    calls = [r for r in records if r.node_id == plan.node_id and r.stage == "code"]
    if calls:
        prompt = sum(r.prompt_tokens for r in calls)
        completion = sum(r.completion_tokens for r in calls)
        tokens = f"{prompt} prompt + {completion} completion tokens in {len(calls)} call(s)"
    else:
        tokens = "no model call recorded"
    again = " after being asked again" if reasked else ""
    said = f"no code{again} ({_short(parse_error)})" if parse_error else f"code{again}"
    return f"{step_prefix(plan)} model replied in {seconds:.1f} s ({tokens}): {said}"


def executed_line(plan: StepPlan, result: ExecutionResult | None, headline: str | None = None) -> str:
    """Whether the solution ran cleanly, and for how long; `headline` says why it failed."""
    if result is None:
        return f"{step_prefix(plan)} executed: not run (no code)"
    if result.succeeded:
        return f"{step_prefix(plan)} executed: ok in {result.exec_time:.1f} s"
    why = f": {headline}" if headline else ""
    return f"{step_prefix(plan)} executed: failed after {result.exec_time:.1f} s{why}"


def reviewed_line(plan: StepPlan, outcome: ReviewOutcome) -> str:
    """Buggy (and why) or good, with the harness's score of the held-out rows, its 95% interval in brackets,
    and the sentence saying the held-out rows are too few for the metric, where they are."""
    interval = outcome.interval
    if outcome.metric is None:
        score = "no score"
    elif outcome.metric_source == "harness":
        bounds = (interval.low, interval.high) if interval is not None and interval.known else None
        score = f"harness score {with_interval(outcome.metric, bounds)}"  # type: ignore[arg-type]
    else:
        score = f"score {outcome.metric:.6g} as the solution printed it (unverified: no harness split)"
    verdict = f"buggy ({_short(outcome.bug_reason)})" if outcome.is_buggy else "good"
    warning = f"; {interval.warning}" if interval is not None and interval.warning and outcome.metric else ""
    return f"{step_prefix(plan)} reviewed: {verdict}, {score}{warning}"
