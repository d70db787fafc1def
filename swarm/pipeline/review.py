"""The review stage's model call: the feedback model's opinion of one execution, overruled by its facts.

The model is asked (forced function `submit_review`) whether the run is buggy and what its validation metric is;
`swarm.evaluation.review.combine_review` then applies the rules (the facts of the run win). If the call fails for
good, the outcome is built from the facts alone and says so. Where the model's context is known, the prompt is
fitted to it (`fit_review`: the output cut first, then the code, then the task description), leaving room for
the tool's definition and one repair round, which replays the reply and asks again in JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from sandbox import ExecutionResult
from swarm.evaluation.review import ExecutionFacts, ReviewOutcome, SubmitReview, combine_review
from swarm.llm.base import CallContext, LLMClient, LLMError, Message, ToolSpec
from swarm.llm.prompt_fit import Fitted, fit_prompt, message_tokens, repair_tokens, tool_tokens
from swarm.protocol import METRIC_LINE_PREFIX
from swarm.text import trim_middle

REVIEW_SYSTEM = (
    "You review the execution of a Python script written to solve a machine-learning competition. "
    "Judge from the code and its output whether it ran correctly, whether it wrote its predictions to "
    "submission.csv, and what validation metric it reported. Report by calling submit_review."
)


# The least of each part a fitted review keeps (chars), cut in this order where the context is short.
REVIEW_MINIMUMS = {"output": 1000, "code": 2000, "task": 1000}

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
    max_prompt_tokens: int | None = None,
) -> ReviewOutcome:
    """Ask the model for a review, then overrule it with the facts of the run.

    `max_prompt_tokens`, the room the model's context leaves beside the reply (`swarm.llm.prompt_fit.
    prompt_room`; None: not known), fits the prompt with room for the tool's definition and one repair round:
    the output is cut first, then the code, then the task description (`fit_review`)."""
    if rel_tol < 0:
        raise ValueError(f"rel_tol must be >= 0, got {rel_tol}")
    limits = {"output": max_output_chars, "code": max_code_chars, "task": len(task_description)}
    if max_prompt_tokens is None:
        messages = review_messages(task_description, code, facts, limits)
    else:
        messages = fit_review(task_description, code, facts, max_prompt_tokens, limits).messages
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


def review_messages(task: str, code: str, facts: ExecutionFacts, limits: Mapping[str, int]) -> list[Message]:
    """The review's messages with the output, the code and the task clipped to `limits` (chars)."""
    return [
        Message("system", REVIEW_SYSTEM),
        Message(
            "user",
            _review_prompt(
                trim_middle(task.strip(), limits["task"]),
                _clip(code, limits["code"]),
                _clip(facts.result.output, limits["output"]),
                facts,
            ),
        ),
    ]


def review_room(max_prompt_tokens: int) -> int:
    """Tokens the review's messages may take: the room less the tool's definition and one repair round."""
    return max_prompt_tokens - tool_tokens(SUBMIT_REVIEW) - repair_tokens(SUBMIT_REVIEW)


def fit_review(
    task: str, code: str, facts: ExecutionFacts, max_prompt_tokens: int, limits: Mapping[str, int]
) -> Fitted:
    """The review's messages with the output, then the code, then the task cut (to `REVIEW_MINIMUMS` at
    most) until they, the tool and a repair round fit in `max_prompt_tokens`."""
    return fit_prompt(
        lambda sizes: review_messages(task, code, facts, sizes),
        limits,
        REVIEW_MINIMUMS,
        review_room(max_prompt_tokens),
    )


def smallest_review_tokens(task: str) -> int:
    """The tokens the review needs at its smallest, the tool and a repair round included: long code and
    output cut to `REVIEW_MINIMUMS`, and the task description (cut to its minimum too)."""
    filler = "lorem ipsum " * 4000
    result = ExecutionResult(
        output=filler,
        exc_info=filler[:300],
        exec_time=3600.0,
        submission_path=Path("submission.csv"),
        backend="local",
        exit_code=1,
        exc_type="ValueError",
        timed_out=False,
        oom_killed=False,
    )
    facts = ExecutionFacts(result=result, submission_problem=filler[:300], timeout_s=3600.0)
    messages = review_messages(task or filler, filler, facts, REVIEW_MINIMUMS)
    return message_tokens(messages) + tool_tokens(SUBMIT_REVIEW) + repair_tokens(SUBMIT_REVIEW)


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
