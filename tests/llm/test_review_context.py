"""The review prompt fitted to a small context: the output cut first, then the code, with room for the reply,
the tool's definition and one repair round; the smallest it can be."""

from __future__ import annotations

import json
from pathlib import Path

from sandbox import ExecutionResult
from swarm.evaluation.review import ExecutionFacts
from swarm.llm.base import CallContext, Message
from swarm.llm.estimate import estimate_prompt_tokens
from swarm.llm.prompt_fit import margin_tokens, prompt_room, repair_tokens, tool_tokens
from swarm.pipeline.review import (
    REVIEW_MINIMUMS,
    SUBMIT_REVIEW,
    fit_review,
    review_execution,
    review_messages,
    smallest_review_tokens,
)
from swarm.protocol import metric_line
from tests.doubles.loopback_server import Reply

CTX = CallContext(stage="feedback", kind="review", node_id="n1")
CODE = "".join(f"model_{i} = fit(frame, depth={i})  # step {i}\n" for i in range(600))  # ~24,000 chars
OUTPUT = "".join(f"fold {i}: auc 0.{i:04d}\n" for i in range(1500)) + metric_line("auc", 0.8123, False)
TASK = "Predict which customers churn. " * 200  # ~6,000 chars
REVIEW = {
    "is_bug": False,
    "has_csv_submission": True,
    "summary": "Fine.",
    "metric": 0.8123,
    "lower_is_better": False,
}


def clean_run(output: str = OUTPUT) -> ExecutionFacts:
    result = ExecutionResult(
        output=output, exit_code=0, exec_time=12.0, submission_path=Path("submission.csv"), backend="local"
    )
    return ExecutionFacts(result=result)


def request_tokens(body: dict) -> int:
    """The estimated tokens of a recorded OpenAI request: its messages and its tool (as the provider counts)."""
    contents = [m["content"] for m in body["messages"]]
    if body.get("tools"):
        contents.append(json.dumps(SUBMIT_REVIEW.json_schema()) + SUBMIT_REVIEW.description)
    return estimate_prompt_tokens(contents)


def test_the_review_fits_an_8k_context_with_its_reply_and_a_repair_round(make, server):
    server.enqueue(
        Reply.tool_call("submit_review", '{"is_bug": fal'), Reply.tool_call("submit_review", REVIEW)
    )
    client = make("openai", max_tokens=4096)
    client.context_tokens = 8192
    limits = {"output": 8000, "code": 20000, "task": len(TASK)}
    unfitted = review_messages(TASK, CODE, clean_run(), limits)
    room = prompt_room(8192, 4096)
    assert room is not None
    assert (
        estimate_prompt_tokens(m.content for m in unfitted) + tool_tokens(SUBMIT_REVIEW) > room
    )  # too big as is
    outcome = review_execution(
        client, CTX, task_description=TASK, code=CODE, facts=clean_run(), max_prompt_tokens=room
    )
    assert outcome.metric == 0.8123 and not outcome.is_buggy
    first, repair = (r.body for r in server.requests)
    assert request_tokens(first) + repair_tokens(SUBMIT_REVIEW) + 4096 <= 8192 - margin_tokens(8192)
    assert first["max_tokens"] == 4096  # the prompt left the whole reply its room
    assert len(repair["messages"]) == 4 and repair["max_tokens"] == 4096  # so did the repair round
    assert request_tokens(repair) + 4096 <= 8192
    prompt = first["messages"][1]["content"]
    assert "# step 0\n" in prompt and "# step 599\n" in prompt  # the code's head and tail
    assert "SWARM_METRIC" in prompt  # the output's tail, where the metric line is


def test_the_output_is_cut_before_the_code():
    limits = {"output": 8000, "code": 20000, "task": len(TASK)}
    full = estimate_prompt_tokens(m.content for m in review_messages(TASK, CODE, clean_run(), limits))
    room = full + tool_tokens(SUBMIT_REVIEW) + repair_tokens(SUBMIT_REVIEW) - 2000  # 8,000 chars too many
    fitted = fit_review(TASK, CODE, clean_run(), room, limits)
    assert fitted.fits
    assert fitted.sizes["output"] == REVIEW_MINIMUMS["output"]  # all the way down first
    assert REVIEW_MINIMUMS["code"] < fitted.sizes["code"] < 20000  # then the code, only as far as needed
    assert fitted.sizes["task"] == len(TASK)  # the task last: untouched here
    tighter = fit_review(TASK, CODE, clean_run(), 1500, limits)
    assert not tighter.fits and tighter.sizes == {"output": 1000, "code": 2000, "task": 1000}


def test_without_a_known_context_the_review_is_as_before(make, server):
    server.enqueue(Reply.tool_call("submit_review", REVIEW))
    client = make("openai", max_tokens=4096)
    review_execution(client, CTX, task_description=TASK, code=CODE, facts=clean_run())
    body = server.requests[0].body
    limits = {"output": 8000, "code": 20000, "task": len(TASK)}
    sent = [Message(m["role"], m["content"]) for m in body["messages"]]
    assert sent == review_messages(TASK, CODE, clean_run(), limits) and body["max_tokens"] == 4096


def test_the_smallest_review_counts_the_tool_and_a_repair_round():
    smallest = smallest_review_tokens(TASK)
    floor = tool_tokens(SUBMIT_REVIEW) + repair_tokens(SUBMIT_REVIEW) + sum(REVIEW_MINIMUMS.values()) // 4
    assert floor < smallest < floor + 600  # the facts, the headings and the system message besides
