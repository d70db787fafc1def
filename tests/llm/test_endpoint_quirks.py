"""Endpoints as they behave in the wild, through the real SDKs against the loopback server: thinking traces,
reasoning models that spend their budget thinking, a rejected system role, servers without tool calling,
messy tool arguments, replies without usage."""

from __future__ import annotations

import json

import pytest

from swarm.llm.base import CallContext, LLMError, Message, TokenBudgetSpent, thinking_of
from swarm.llm.usage import UsageLedger
from swarm.pipeline.review import SUBMIT_REVIEW
from tests.doubles.loopback_server import Reply

from .conftest import PLAN_TOOL, REVIEW

MSGS = [Message("system", "You are terse."), Message("user", "Say hi.")]
CTX = CallContext(stage="code", kind="draft")


def budget(request) -> int:
    body = request.body
    return body.get("max_tokens") or body.get("max_completion_tokens")


def test_reasoning_trace_is_kept_apart_from_the_answer(make, server, provider):
    server.enqueue(Reply.think("Step 1: think about ```python\nimport os\n```", "Final answer."))
    reply = make(provider).complete(MSGS, CTX)
    assert reply == "Final answer."
    assert "import os" in thinking_of(reply) and "import os" not in reply


def test_think_tags_in_the_text_are_not_the_answer(make, server, provider):
    server.enqueue(Reply.say("<think>\nA draft:\n```python\nprint(1)\n```\n</think>\n\nThe real answer."))
    reply = make(provider).complete(MSGS, CTX)
    assert reply == "The real answer." and "print(1)" in thinking_of(reply)


def test_json_after_a_thinking_trace_quoting_another_object(make, server, provider):
    quoted = 'SWARM_METRIC {"name": "accuracy", "value": 0.5, "lower_is_better": false}'
    server.enqueue(Reply.say(f"<think>The output printed {quoted}.</think>\n{json.dumps(REVIEW)}"))
    args = make(provider).call_tool(MSGS, SUBMIT_REVIEW, CallContext(stage="feedback", kind="review"))
    assert args["metric"] == 0.81 and len(server.requests) == 1


def test_budget_spent_thinking_says_which_setting_to_raise(make, server, provider, ledger):
    server.enqueue(Reply.thought_until_limit(), Reply.thought_until_limit(), Reply.say("never"))
    client = make(provider, max_tokens=1000)
    with pytest.raises(
        LLMError, match=r"token budget \(17384 tokens\).*raise llm\.code\.max_tokens \(now 1000\)"
    ):
        client.complete(MSGS, CTX)
    assert [budget(r) for r in server.requests] == [1000, 1000 + 16384]
    assert [r.ok for r in ledger.records] == [False, False]


def test_a_review_that_thought_until_the_limit_names_the_feedback_setting(make, server, provider):
    server.enqueue(Reply.thought_until_limit(), Reply.thought_until_limit())
    ctx = CallContext(stage="feedback", kind="review")
    with pytest.raises(TokenBudgetSpent, match=r"raise llm\.feedback\.max_tokens \(now 500\)"):
        make(provider, max_tokens=500).call_tool(MSGS, PLAN_TOOL, ctx)
    assert [budget(r) for r in server.requests] == [500, 500 + 16384]


def test_a_model_that_thought_until_the_limit_keeps_the_larger_budget(make, server, provider):
    server.enqueue(Reply.thought_until_limit(), Reply.say("one"), Reply.say("two"))
    client = make(provider, max_tokens=1000)
    assert client.complete(MSGS, CTX) == "one" and client.complete(MSGS, CTX) == "two"
    assert [budget(r) for r in server.requests] == [1000, 17384, 17384]


def test_known_reasoning_family_gets_room_for_the_answer_at_once(make, server):
    server.enqueue(Reply.say("ok"))
    make("openai", model="deepseek-ai/DeepSeek-R1", max_tokens=2000).complete(MSGS, CTX)
    assert budget(server.requests[0]) == 2000 + 16384


def test_a_budget_over_the_context_length_is_shrunk(make, server):
    too_long = (
        "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens "
        "(8000 in the messages, 32000 in the completion). Please reduce the length of the messages or completion."
    )
    server.enqueue(Reply.error(400, too_long), Reply.say("ok"), Reply.say("again"))
    client = make("openai", model="qwq-32b", max_tokens=1000)
    assert client.complete(MSGS, CTX) == "ok" and client.complete(MSGS, CTX) == "again"
    assert [budget(r) for r in server.requests] == [1000 + 16384, 1000 + 4096, 1000 + 4096]


def test_budget_spent_is_not_worth_retrying_the_same_call(make, server):
    server.enqueue(Reply.thought_until_limit())
    with pytest.raises(TokenBudgetSpent):
        make("openai", model="o3-mini").complete(MSGS, CTX)
    assert len(server.requests) == 1  # a known reasoning family already had the larger budget


def test_rejected_system_role_is_merged_into_the_user_turn_and_remembered(make, server, provider):
    server.reject_system = True
    server.enqueue(Reply.say("one"), Reply.say("two"))
    client = make(provider)
    assert client.complete(MSGS, CTX) == "one" and client.complete(MSGS, CTX) == "two"
    statuses = [r.reply.status for r in server.requests]
    assert statuses == [400, 200, 200]  # one rejection, then remembered
    last = server.requests[-1].body
    assert "system" not in last
    first_turn = last["messages"][0]
    assert first_turn["role"] == "user" and first_turn["content"] == "You are terse.\n\nSay hi."


def test_tools_rejected_with_a_server_error_switch_to_json_without_retries(make, server, provider, ledger):
    server.reject_tools = Reply.error(500, "tools param requires --jinja flag")
    server.enqueue(Reply.say('{"name": "a", "steps": 1}'), Reply.say('{"name": "b", "steps": 2}'))
    client = make(provider, max_retries=4)
    assert client.call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "a", "steps": 1}
    assert client.call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "b", "steps": 2}
    assert [r.reply.status for r in server.requests] == [500, 200, 200]
    # without tools: a JSON schema where the protocol has one (OpenAI's), else plain JSON
    without = "schema" if provider == "openai" else "json"
    assert [r.mode for r in ledger.records] == ["tool", without, without]


def test_a_plain_server_error_is_still_retried_with_tools(make, server, provider):
    server.enqueue(
        Reply.error(500, "internal error"), Reply.tool_call("submit_plan", {"name": "a", "steps": 1})
    )
    assert make(provider).call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "a", "steps": 1}
    assert all("tools" in r.body for r in server.requests)


def test_tool_calls_off_never_sends_tools(make, server, provider):
    server.enqueue(Reply.say('{"name": "a", "steps": 1}'))
    assert make(provider, tool_calls="off").call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "a", "steps": 1}
    assert "tools" not in server.requests[0].body


def test_tool_calls_on_never_falls_back(make, server, provider):
    server.enqueue(
        Reply.error(400, "this model does not support tools"), Reply.say('{"name": "a", "steps": 1}')
    )
    with pytest.raises(LLMError, match="does not support tools"):
        make(provider, tool_calls="on").call_tool(MSGS, PLAN_TOOL, CTX)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "args",
    [
        '```json\n{"name": "a", "steps": 1}\n```',
        '{"name": "a", "steps": 1}\nI chose one step because the task is small.',
        'Here you go: {"name": "a", "steps": 1} -- done',
        '{"name": "draft"} then, corrected: {"name": "a", "steps": 1}',
    ],
)
def test_messy_tool_arguments_are_parsed_leniently(make, server, provider, args):
    server.enqueue(Reply.tool_call("submit_plan", args))
    assert make(provider).call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "a", "steps": 1}
    assert len(server.requests) == 1


def test_retry_after_invalid_arguments_asks_in_plain_json(make, server, provider):
    server.enqueue(Reply.tool_call("submit_plan", {"name": "x"}), Reply.say('{"name": "x", "steps": 3}'))
    assert make(provider).call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "x", "steps": 3}
    second = server.requests[1].body
    assert "tools" not in second
    ask = second["messages"][-1]["content"]
    assert "not usable" in ask and "JSON schema" in ask and ask.count("JSON schema") == 1


def test_missing_usage_is_estimated_marked_and_counts_toward_the_cap(make, server, provider, tmp_path):
    server.enqueue(Reply.say("x" * 4000).without_usage())
    client = make(provider)
    client.ledger = ledger = UsageLedger(tmp_path / "capped.jsonl", spend_cap_usd=1e-9)
    client.complete(MSGS, CTX)
    (record,) = ledger.records
    assert record.estimated and record.completion_tokens == 1000 and record.prompt_tokens > 0
    assert record.cost_usd > 0 and ledger.cap_reached
    assert ledger.totals()["all"].estimated_calls == 1


def test_server_without_usage_for_every_reply(make, server, provider, ledger):
    server.omit_usage = True
    server.enqueue(Reply.tool_call("submit_plan", {"name": "a", "steps": 1}, prompt_tokens=999))
    make(provider).call_tool(MSGS, PLAN_TOOL, CTX)
    (record,) = ledger.records
    assert record.estimated and record.prompt_tokens not in (0, 999)


def test_reported_usage_is_not_marked_estimated(make, server, provider, ledger):
    server.enqueue(Reply.say("hi", prompt_tokens=7, completion_tokens=2))
    make(provider).complete(MSGS, CTX)
    (record,) = ledger.records
    assert not record.estimated and (record.prompt_tokens, record.completion_tokens) == (7, 2)
