"""Structured output the way each endpoint honours it, through the real SDKs against the loopback server: a
server that ignores the forced tool choice (llama.cpp) is learned once and then asked with a JSON-schema
response_format, a schema the server rejects or ignores falls back to plain JSON, and what was learned is
exported, saved in the run dir and restored so a resumed run does not probe again."""

from __future__ import annotations

import json

import pytest

from swarm.config import StageLLMConfig
from swarm.llm.base import CallContext, LLMError, Message
from swarm.llm.endpoint_facts import load_endpoint_facts, restore_endpoint_facts, save_endpoint_facts
from swarm.llm.factory import make_client
from swarm.pipeline.review import SUBMIT_REVIEW
from tests.doubles.loopback_server import IGNORED_TOOL_PROSE, LoopbackServer, Reply

from .conftest import FAKE_KEY, FAST_RETRY, PLAN_TOOL, PRICES, REVIEW

MSGS = [Message("system", "You review runs."), Message("user", "Review this run.")]
CTX = CallContext(stage="feedback", kind="review", node_id="n1")
SCHEMA_REJECTED = (
    "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
)


def asked_schema(body: dict) -> bool:
    return (body.get("response_format") or {}).get("type") == "json_schema"


def test_a_server_that_ignores_the_forced_tool_choice_costs_one_request_per_review_after_the_first(
    make, server, ledger
):
    server.ignore_tool_choice_object = server.honour_json_schema = True  # llama.cpp with --jinja
    server.enqueue(*[Reply.tool_call("submit_review", REVIEW)] * 4)
    client = make("openai")
    for _ in range(3):
        assert client.call_tool(MSGS, SUBMIT_REVIEW, CTX)["summary"] == "Ran cleanly."
    requests = server.requests
    assert len(requests) == 4 and server.pending == 0
    first = requests[0]
    assert "tools" in first.body and first.reply.tool_name is None and first.reply.text == IGNORED_TOOL_PROSE
    assert all("tools" not in r.body and asked_schema(r.body) for r in requests[1:])
    assert [r.mode for r in ledger.records] == ["tool", "schema", "schema", "schema"]
    assert (client.endpoint_facts()["tools"], client.endpoint_facts()["schema"]) == (False, True)


@pytest.mark.parametrize(
    ("cut_off", "learned"),
    [
        ("```python\nimport pandas as pd\n\ndef main():\n    print(", False),  # prose or code: ignored
        ('```json\n{"is_bug": false, "summary": "Ran', None),  # may be the call, written as text
    ],
)
def test_a_forced_call_answered_with_prose_cut_off_at_the_limit_is_learned_as_ignored(
    make, server, ledger, cut_off, learned
):
    """A small model rambles to its token limit instead of calling the tool: the prose tells as much as a
    finished reply would (measured: SmolLM2-135M on llama-server, 512 tokens of code for a review)."""
    server.ignore_tool_choice_object = server.honour_json_schema = True
    server.enqueue(Reply.cut_off(cut_off), *[Reply.tool_call("submit_review", REVIEW)] * 3)
    client = make("openai")
    assert client.call_tool(MSGS, SUBMIT_REVIEW, CTX)["summary"] == "Ran cleanly."
    assert client.endpoint_facts()["tools"] is learned
    assert client.call_tool(MSGS, SUBMIT_REVIEW, CTX)["summary"] == "Ran cleanly."
    modes = [r.mode for r in ledger.records]  # unsure, the second review tries the forced call once more
    assert modes == (
        ["tool", "schema", "schema"] if learned is False else ["tool", "schema", "tool", "schema"]
    )


def test_anthropic_answering_forced_tool_use_with_prose_is_asked_for_json_from_then_on(make, server, ledger):
    server.enqueue(Reply.say("It ran fine."), *[Reply.say(json.dumps(REVIEW))] * 3)
    client = make("anthropic")
    for _ in range(3):
        assert client.call_tool(MSGS, SUBMIT_REVIEW, CTX)["metric"] == 0.81
    assert len(server.requests) == 4
    assert all("tools" not in r.body for r in server.requests[1:])
    assert [r.mode for r in ledger.records] == ["tool", "json", "json", "json"]
    assert client.endpoint_facts()["schema"] is None  # the Messages API has no schema way


def test_a_schema_constrained_review_sends_the_tools_schema_and_returns_the_parsed_arguments(
    make, server, ledger
):
    server.honour_json_schema = True
    server.enqueue(Reply.tool_call("submit_review", REVIEW))
    client = make("openai", tool_calls="off")
    assert client.call_tool(MSGS, SUBMIT_REVIEW, CTX) == REVIEW
    (request,) = server.requests
    body = request.body
    assert "tools" not in body and "tool_choice" not in body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "submit_review", "schema": SUBMIT_REVIEW.json_schema()},
    }
    assert "JSON schema" in body["messages"][-1]["content"]  # asked in words too, for servers that ignore it
    assert request.reply.tool_name is None and json.loads(request.reply.text) == REVIEW
    assert [r.mode for r in ledger.records] == ["schema"] and client.endpoint_facts()["schema"] is True


def test_a_rejected_schema_falls_back_to_plain_json_and_is_remembered(make, server, ledger):
    server.enqueue(
        Reply.error(400, SCHEMA_REJECTED),
        Reply.say('{"name": "a", "steps": 1}'),
        Reply.say('{"name": "b", "steps": 2}'),
    )
    client = make("openai", tool_calls="off", max_retries=3)
    assert client.call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "a", "steps": 1}
    assert client.call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "b", "steps": 2}
    bodies = [r.body for r in server.requests]
    assert [asked_schema(b) for b in bodies] == [True, False, False]  # rejected once, not retried
    assert [r.mode for r in ledger.records] == ["schema", "json", "json"]
    assert client.endpoint_facts()["schema"] is False


def test_a_schema_answered_with_prose_is_repaired_in_plain_json_and_remembered(make, server):
    server.enqueue(Reply.say("The plan: two steps."), Reply.say('{"name": "a", "steps": 2}'))
    client = make("openai", tool_calls="off")
    assert client.call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "a", "steps": 2}
    first, second = (r.body for r in server.requests)
    assert asked_schema(first) and not asked_schema(second)
    assert "not usable" in second["messages"][-1]["content"]
    assert client.endpoint_facts()["schema"] is False


def test_a_bad_request_that_does_not_name_the_schema_is_raised(make, server):
    server.enqueue(Reply.error(400, "prompt is too long"), Reply.say('{"name": "a", "steps": 1}'))
    with pytest.raises(LLMError, match="prompt is too long"):
        make("openai", tool_calls="off").call_tool(MSGS, PLAN_TOOL, CTX)
    assert len(server.requests) == 1


def test_tool_calls_on_keeps_forcing_tools_on_a_server_that_ignores_them(make, server):
    server.ignore_tool_choice_object = server.honour_json_schema = True
    server.enqueue(*[Reply.tool_call("submit_review", REVIEW)] * 4)
    client = make("openai", tool_calls="on")
    for _ in range(2):
        client.call_tool(MSGS, SUBMIT_REVIEW, CTX)
    assert ["tools" in r.body for r in server.requests] == [True, False, True, False]


def test_learned_facts_are_exported_and_a_restored_client_asks_the_learned_way_at_once(make, server):
    server.ignore_tool_choice_object = server.honour_json_schema = True
    server.enqueue(*[Reply.tool_call("submit_review", REVIEW)] * 3)
    learned = make("openai")
    learned.call_tool(MSGS, SUBMIT_REVIEW, CTX)
    facts = learned.endpoint_facts()
    assert facts == {
        "provider": "openai",
        "model": "gpt-4o-mini",
        "base_url": server.openai_base_url,
        "tools": False,
        "schema": True,
    }
    fresh = make("openai")
    assert fresh.restore_endpoint_facts(json.loads(json.dumps(facts)))
    assert fresh.call_tool(MSGS, SUBMIT_REVIEW, CTX) == REVIEW
    assert len(server.requests) == 3 and asked_schema(server.requests[-1].body)
    other_model = make("openai", model="gpt-4o")
    assert not other_model.restore_endpoint_facts(facts)
    assert other_model.endpoint_facts()["tools"] is None


def test_the_facts_file_names_the_endpoint_without_credentials(make, server, tmp_path):
    server.ignore_tool_choice_object = server.honour_json_schema = True
    server.enqueue(*[Reply.tool_call("submit_review", REVIEW)] * 2)
    client = make("openai")
    client.call_tool(MSGS, SUBMIT_REVIEW, CTX)
    path = tmp_path / "llm_endpoints.json"
    with_secret = make("openai", base_url=f"http://user:{FAKE_KEY}@127.0.0.1:9/v1?api_key={FAKE_KEY}")
    with_secret.facts.tools = False
    assert save_endpoint_facts(path, {"feedback": client, "evolution": with_secret, "code": object()})
    assert not save_endpoint_facts(path, {"feedback": client})  # unchanged: not written again
    text = path.read_text()
    assert FAKE_KEY not in text and "REDACTED" in text
    saved = load_endpoint_facts(path)
    assert set(saved) == {"feedback", "evolution"} and saved["feedback"]["schema"] is True
    restored = make("openai")
    assert restore_endpoint_facts(path, {"feedback": restored, "code": make("openai")}) == ["feedback"]
    assert restored.endpoint_facts() == client.endpoint_facts()


def test_the_emulators_llama_cpp_preset_as_the_sdk_sees_it():
    import openai

    with LoopbackServer(llama_cpp=True) as served:
        sdk = openai.OpenAI(api_key=FAKE_KEY, base_url=served.openai_base_url, max_retries=0)
        served.enqueue(*[Reply.tool_call("submit_plan", {"name": "a", "steps": 1})] * 3)
        tools = [{"type": "function", "function": {"name": "submit_plan", "parameters": {}}}]
        forced = {"type": "function", "function": {"name": "submit_plan"}}
        msgs = [{"role": "user", "content": "plan"}]
        ignored = sdk.chat.completions.create(model="m", messages=msgs, tools=tools, tool_choice=forced)
        assert not ignored.choices[0].message.tool_calls and ignored.choices[0].message.content
        by_name = sdk.chat.completions.create(model="m", messages=msgs, tools=tools, tool_choice="required")
        assert by_name.choices[0].message.tool_calls[0].function.name == "submit_plan"
        schema = {"type": "json_schema", "json_schema": {"name": "submit_plan", "schema": {}}}
        constrained = sdk.chat.completions.create(model="m", messages=msgs, response_format=schema)
        assert json.loads(constrained.choices[0].message.content) == {"name": "a", "steps": 1}


def test_a_resumed_run_restores_what_its_stage_learned_and_keeps_every_exchange(
    server, tmp_path, competition_cache, monkeypatch
):
    from swarm.config import load_config
    from swarm.llm.exchanges import read_exchanges
    from swarm.pipeline.context import RunContext, create_run, open_run
    from swarm.pipeline.state import load_state

    monkeypatch.setenv("LOOPBACK_TEST_KEY", FAKE_KEY)
    server.ignore_tool_choice_object = server.honour_json_schema = True
    server.enqueue(*[Reply.tool_call("submit_review", REVIEW)] * 3)
    feedback = [
        "llm.feedback.provider=openai",
        f"llm.feedback.base_url={server.openai_base_url}",
        "llm.feedback.api_key_env=LOOPBACK_TEST_KEY",
        "llm.code.provider=offline",
        "llm.evolution.provider=offline",
    ]
    config = load_config(
        overrides=[
            f"project.cache_dir={competition_cache}",
            "data.competition=titanic",
            "execution.sandbox=local",
            *feedback,
        ],
        env_file=None,
    )
    paths = create_run(config, tmp_path / "run")
    first = RunContext(paths, config, load_state(paths))
    first.clients["feedback"].call_tool(MSGS, SUBMIT_REVIEW, CTX)  # learns: 2 requests
    saved = json.loads(paths.llm_endpoints.read_text())["stages"]
    assert (saved["feedback"]["tools"], saved["feedback"]["schema"]) == (False, True)
    resumed, _, _ = open_run(paths.root)
    assert resumed.clients["feedback"].call_tool(MSGS, SUBMIT_REVIEW, CTX) == REVIEW
    assert len(server.requests) == 3 and asked_schema(server.requests[-1].body)
    kept = read_exchanges(paths.root, "n1")
    assert [e["mode"] for e in kept] == ["tool", "schema", "schema"]
    assert FAKE_KEY not in (paths.root / "exchanges" / "n1.jsonl").read_text()
    assert FAKE_KEY not in paths.llm_endpoints.read_text()


def test_make_client_passes_the_exchange_log(server, ledger, tmp_path, monkeypatch):
    from swarm.llm.exchanges import ExchangeLog, read_exchanges

    monkeypatch.setenv("LOOPBACK_TEST_KEY", FAKE_KEY)
    cfg = StageLLMConfig(
        provider="openai", base_url=server.openai_base_url, api_key_env="LOOPBACK_TEST_KEY", model="m"
    )
    client = make_client(cfg, PRICES, ledger, retry=FAST_RETRY, exchanges=ExchangeLog(tmp_path))
    server.enqueue(Reply.say("hi"))
    client.complete(MSGS, CTX)
    assert [e["reply"] for e in read_exchanges(tmp_path, "n1")] == ["hi"]
