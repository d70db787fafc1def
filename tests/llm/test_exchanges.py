"""The exchange log: one JSON line per attempt in the node's file, read back as written, keys redacted; and
what the clients keep in it (each attempt of a provider client, each call of the offline coder's wrapper)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from swarm.config import StageLLMConfig
from swarm.llm.base import CallContext, Message, ToolSpec
from swarm.llm.exchanges import Exchange, ExchangeLog, exchanges_path, read_exchanges
from swarm.llm.factory import RecordingClient, make_client
from swarm.llm.provider import redact
from swarm.llm.usage import UsageLedger
from tests.doubles.loopback_server import Reply

from .conftest import FAKE_KEY, PLAN_TOOL


def _exchange(node_id: str | None, reply: str) -> Exchange:
    ctx = CallContext(stage="code", kind="draft", run_id="r", epoch=1, node_id=node_id, agent_id="agent_0")
    return Exchange.for_call(
        ctx,
        [Message("user", "write code")],
        provider="openai",
        model="m",
        mode="complete",
        attempt=1,
        reply=reply,
    )


def test_exchanges_are_kept_per_node_in_order_and_run_level_calls_apart(tmp_path: Path) -> None:
    log = ExchangeLog(tmp_path)
    log.record(_exchange("n1", "first"))
    log.record(_exchange("n1", "second"))
    log.record(_exchange(None, "evolution"))
    assert [e["reply"] for e in read_exchanges(tmp_path, "n1")] == ["first", "second"]
    assert [e["reply"] for e in read_exchanges(tmp_path, None)] == ["evolution"]
    assert read_exchanges(tmp_path, "n1")[0]["messages"] == [{"role": "user", "content": "write code"}]
    assert read_exchanges(tmp_path, "other") == []


def test_a_key_in_a_reply_is_redacted_on_disk(tmp_path: Path) -> None:
    secret = "sk-live-0123456789abcdef"
    ExchangeLog(tmp_path).record(_exchange("n1", f"my key is {secret}"), lambda t: redact(t, (secret,)))
    text = exchanges_path(tmp_path, "n1").read_text()
    assert secret not in text and "[redacted]" in text


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    ExchangeLog(tmp_path).record(_exchange("n1", "whole"))
    with exchanges_path(tmp_path, "n1").open("a") as handle:
        handle.write('{"stage": "co')
    assert [e["reply"] for e in read_exchanges(tmp_path, "n1")] == ["whole"]


# -- what the clients keep, through the real SDKs against the loopback server ------------------------------

CTX = CallContext(stage="code", kind="draft", run_id="r", epoch=1, node_id="n7", agent_id="agent_0")


def test_a_code_reply_and_a_failed_attempt_are_kept_with_settings_and_tokens_but_no_key(
    make, server, provider, tmp_path
) -> None:
    prose = f"I would train a forest; my key is {FAKE_KEY}."  # a reply without code, echoing a key
    server.enqueue(Reply.error(500, "overloaded"), Reply.say(prose, prompt_tokens=21, completion_tokens=4))
    client = make(provider, temperature=0.25, max_tokens=321)
    client.exchanges = ExchangeLog(tmp_path)
    messages = [Message("system", "You are terse."), Message("user", f"Write code. (key {FAKE_KEY})")]
    client.complete(messages, CTX)
    failed, answered = read_exchanges(tmp_path, "n7")
    assert (failed["ok"], failed["reply"], failed["attempt"]) == (False, None, 1) and "500" in failed["error"]
    assert answered["ok"] and answered["attempt"] == 2 and answered["mode"] == "complete"
    assert answered["reply"] == prose.replace(FAKE_KEY, "[redacted]")
    assert (answered["prompt_tokens"], answered["completion_tokens"]) == (21, 4)
    assert answered["messages"][0] == {"role": "system", "content": "You are terse."}
    base_url = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    assert answered["settings"] == {
        "model": client.model,
        "base_url": base_url,
        "temperature": 0.25,
        "max_tokens": 321,
    }
    assert (answered["stage"], answered["kind"], answered["agent_id"]) == ("code", "draft", "agent_0")
    assert FAKE_KEY not in exchanges_path(tmp_path, "n7").read_text()


def test_a_reviews_rounds_are_kept_each_with_how_it_asked(make, server, provider, tmp_path) -> None:
    server.enqueue(Reply.tool_call("submit_plan", {"name": "x"}), Reply.say('{"name": "x", "steps": 2}'))
    client = make(provider)
    client.exchanges = ExchangeLog(tmp_path)
    assert client.call_tool([Message("user", "Plan.")], PLAN_TOOL, CTX) == {"name": "x", "steps": 2}
    tool_round, json_round = read_exchanges(tmp_path, "n7")
    assert (tool_round["mode"], tool_round["ok"]) == ("tool", False)
    assert "unusable reply" in tool_round["error"] and "steps" in tool_round["error"]
    raw = tool_round["tool_args"]
    assert (json.loads(raw) if isinstance(raw, str) else raw) == {"name": "x"}
    assert (
        tool_round["settings"]["tool"] == "submit_plan" and tool_round["settings"]["tool_choice"] == "forced"
    )
    without_tools = "schema" if provider == "openai" else "json"
    assert (json_round["mode"], json_round["ok"], json_round["tool_args"]) == (without_tools, True, None)
    assert json_round["reply"] == '{"name": "x", "steps": 2}'
    assert ("response_format" in json_round["settings"]) == (provider == "openai")
    assert [m["role"] for m in json_round["messages"]] == ["user", "assistant", "user"]
    assert "not usable" in json_round["messages"][-1]["content"]


def test_the_offline_coders_calls_are_kept_too(tmp_path) -> None:
    class Verdict(BaseModel):
        ok: bool

    class Coder:
        provider, model = "offline", "offline-coder"

        def complete(self, messages, ctx):
            return "```python\nprint(1)\n```"

        def call_tool(self, messages, tool, ctx):
            return {"ok": True}

    client = make_client(
        StageLLMConfig(provider="offline"),
        {},
        UsageLedger(),
        lambda _: Coder(),
        exchanges=ExchangeLog(tmp_path),
    )
    assert isinstance(client, RecordingClient)
    client.complete([Message("user", "code")], CTX)
    client.call_tool([Message("user", "judge")], ToolSpec("verdict", "Judge.", Verdict), CTX)
    code, verdict = read_exchanges(tmp_path, "n7")
    assert (code["mode"], code["reply"], code["provider"]) == (
        "complete",
        "```python\nprint(1)\n```",
        "offline",
    )
    assert (verdict["mode"], verdict["tool_args"], verdict["settings"]["tool"]) == (
        "tool",
        {"ok": True},
        "verdict",
    )
    assert verdict["messages"] == [{"role": "user", "content": "judge"}]
