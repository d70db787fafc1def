"""The review stage's model call: the feedback model's opinion of one execution, overruled by its facts.

The model is asked (forced function `submit_review`) whether the run is buggy and what its validation metric is;
`swarm.evaluation.review.combine_review` then applies the rules (the facts of the run win). If the call fails for
good, the outcome is built from the facts alone and says so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from swarm.evaluation.review import ExecutionFacts, ReviewOutcome, SubmitReview, combine_review
from swarm.llm.base import CallContext, LLMClient, LLMError, Message, ToolSpec
from swarm.protocol import METRIC_LINE_PREFIX
from swarm.text import trim_middle

REVIEW_SYSTEM = (
    "You review the execution of a Python script written to solve a machine-learning competition. "
    "Judge from the code and its output whether it ran correctly, whether it wrote its predictions to "
    "submission.csv, and what validation metric it reported. Report by calling submit_review."
)


SUBMIT_REVIEW = ToolSpec(
    name="submit_review",
    description="Submit the review of the script's execution.",
    schema=SubmitReview,
)


def review_execution(
    client: LLMClient,
    ctx: CallContext,
    *,
    task_description: str,
    code: str,
    facts: ExecutionFacts,
    rel_tol: float = 5e-3,
    max_output_chars: int = 8000,
    max_code_chars: int = 20000,
) -> ReviewOutcome:
    """Ask the model for a review, then overrule it with the facts of the run."""
    if rel_tol < 0:
        raise ValueError(f"rel_tol must be >= 0, got {rel_tol}")
    messages = [
        Message("system", REVIEW_SYSTEM),
        Message(
            "user",
            _review_prompt(
                task_description,
                _clip(code, max_code_chars),
                _clip(facts.result.output, max_output_chars),
                facts,
            ),
        ),
    ]
    hints = {
        "output": facts.result.output,
        "has_submission": facts.submission_exists,
        "submission_problem": facts.submission_problem,
        "exit_code": facts.result.exit_code,
        "timed_out": facts.result.timed_out,
    }
    ctx = replace(ctx, hints={**hints, **ctx.hints})  # for the offline coder; real models ignore hints
    llm_said: dict[str, Any] | None = None
    review_error: str | None = None
    try:
        llm_said = client.call_tool(messages, SUBMIT_REVIEW, ctx)
    except LLMError as exc:
        review_error = str(exc)
    return combine_review(llm_said, facts, rel_tol=rel_tol, review_error=review_error)


def _review_prompt(task: str, code: str, output: str, facts: ExecutionFacts) -> str:
    name = facts.submission_name
    lines = [
        f"exit code: {facts.result.exit_code}",
        f"exception: {facts.result.exc_type or 'none'}",
        f"timed out: {'yes' if facts.result.timed_out else 'no'}",
        f"killed for memory: {'yes' if facts.result.oom_killed else 'no'}",
        f"{name} written: {'yes' if facts.submission_exists else 'no'}",
    ]
    if facts.submission_exists and facts.submission_problem:
        lines.append(f"{name} is invalid: {facts.submission_problem}")
    lines.append(f"run time: {facts.result.exec_time:.1f} s")
    return (
        f"# Task\n{task.strip()}\n\n# Code\n```python\n{code}\n```\n\n# Output\n```\n{output}\n```\n\n"
        "# Facts of the run\n" + "\n".join(f"- {line}" for line in lines) + "\n\n"
        "Call submit_review. Report the validation metric exactly as the script printed it "
        f"(its `{METRIC_LINE_PREFIX}` line, if any), or null if it printed none."
    )


def _clip(text: str, limit: int) -> str:
    """Head and tail of `text` for the review prompt (the tail, where errors are, gets two thirds)."""
    return trim_middle(text, limit, head_fraction=1 / 3)
