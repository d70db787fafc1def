"""Both providers through the real SDKs against the loopback server."""

from __future__ import annotations

import time

import pytest

from swarm.llm.base import CallContext, LLMError, Message, SpendCapReached
from swarm.llm.retry import RetryPolicy
from swarm.llm.usage import read_records
from tests.doubles.loopback_server import Reply

from .conftest import FAKE_KEY, FAST_RETRY, PLAN_TOOL, PRICES

CTX = CallContext(stage="code", kind="draft", run_id="r1", epoch=2, node_id="n7", agent_id="a3")
MSGS = [Message("system", "You are terse."), Message("user", "Say hi.")]


def test_plain_completion_sends_system_the_provider_way(make, server, provider, ledger):
    server.enqueue(Reply.say("hello there", prompt_tokens=21, completion_tokens=4))
    client = make(provider, temperature=0.25, max_tokens=321)
    assert client.complete(MSGS, CTX) == "hello there"
    (req,) = server.requests
    body = req.body
    assert body["model"] == client.model
    assert body["temperature"] == 0.25
    if provider == "anthropic":
        assert req.path == "/v1/messages"
        assert body["system"] == "You are terse."
        assert body["messages"] == [{"role": "user", "content": "Say hi."}]
        assert body["max_tokens"] == 321
    else:
        assert req.path == "/v1/chat/completions"
        assert body["messages"][0] == {"role": "system", "content": "You are terse."}
        assert body["max_tokens"] == 321
        assert "tools" not in body
    (record,) = ledger.records
    assert (record.prompt_tokens, record.completion_tokens, record.ok) == (21, 4, True)
    assert (record.stage, record.kind, record.run_id, record.epoch, record.node_id, record.agent_id) == (
        "code",
        "draft",
        "r1",
        2,
        "n7",
        "a3",
    )


def test_forced_tool_call_is_validated(make, server, provider):
    server.enqueue(Reply.tool_call("submit_plan", {"name": "lgbm", "steps": 3}))
    client = make(provider)
    assert client.call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "lgbm", "steps": 3}
    body = server.requests[0].body
    if provider == "anthropic":
        assert body["tool_choice"] == {"type": "tool", "name": "submit_plan"}
        assert body["tools"][0]["input_schema"]["required"] == ["name", "steps"]
    else:
        assert body["tool_choice"] == {"type": "function", "function": {"name": "submit_plan"}}
        assert body["tools"][0]["function"]["parameters"]["required"] == ["name", "steps"]


@pytest.mark.parametrize("status", [429, 500, 503, 529])
def test_transient_status_is_retried(make, server, provider, ledger, status):
    server.enqueue(Reply.error(status), Reply.say("recovered"))
    assert make(provider).complete(MSGS, CTX) == "recovered"
    assert len(server.requests) == 2
    first, second = ledger.records
    assert (first.ok, first.status, first.attempt, first.prompt_tokens) == (False, status, 1, 0)
    assert (second.ok, second.attempt) == (True, 2)
    assert str(status) in first.error


def test_timeout_is_retried(make, server, provider, ledger):
    server.enqueue(Reply.slow(3.0), Reply.say("in time"))
    client = make(provider, timeout_s=0.3)
    start = time.perf_counter()
    assert client.complete(MSGS, CTX) == "in time"
    assert time.perf_counter() - start < 2.5
    first, second = ledger.records
    assert not first.ok and "timed out" in first.error and first.latency_s >= 0.25
    assert second.ok


def test_gives_up_after_max_retries(make, server, provider, ledger):
    server.enqueue(*[Reply.error(500, "boom")] * 5)
    with pytest.raises(LLMError, match=r"gave up after 3 attempts") as info:
        make(provider, max_retries=2).complete(MSGS, CTX)
    assert "boom" in str(info.value) and provider in str(info.value)
    assert len(server.requests) == 3 and server.pending == 2
    assert [r.ok for r in ledger.records] == [False, False, False]


def test_auth_failure_is_not_retried_and_hides_the_key(make, server, provider, ledger):
    server.enqueue(Reply.error(401, "invalid x-api-key", echo_auth=True), Reply.say("never"))
    client = make(provider)
    with pytest.raises(LLMError) as info:
        client.complete(MSGS, CTX)
    message = str(info.value)
    assert "401" in message and provider in message and client.model in message
    assert FAKE_KEY not in message and "[redacted]" in message
    assert info.value.__cause__ is None
    assert len(server.requests) == 1
    assert FAKE_KEY not in ledger.path.read_text()
    assert FAKE_KEY not in repr(client)
    # the key did reach the server: the SDK sent it
    headers = server.requests[0].headers
    assert FAKE_KEY in headers.get("authorization", "") + headers.get("x-api-key", "")


def test_malformed_tool_arguments_get_one_reask(make, server, provider, ledger):
    bad = '{"name": "x", "steps": ' if provider == "openai" else {"name": "x", "steps": "many"}
    server.enqueue(
        Reply.tool_call("submit_plan", bad), Reply.tool_call("submit_plan", {"name": "x", "steps": 2})
    )
    assert make(provider).call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "x", "steps": 2}
    assert len(server.requests) == 2
    repair = server.requests[1].body["messages"][-1]["content"]
    assert "not usable" in repair and "submit_plan" in repair
    first, second = ledger.records
    assert not first.ok and "unusable reply" in first.error and first.prompt_tokens == 10
    assert second.ok


def test_malformed_twice_raises_clear_error(make, server, provider):
    server.enqueue(*[Reply.tool_call("submit_plan", {"name": "x"})] * 2)
    with pytest.raises(LLMError, match=r"invalid arguments for submit_plan twice: .*steps"):
        make(provider).call_tool(MSGS, PLAN_TOOL, CTX)
    assert len(server.requests) == 2


def test_reply_without_tool_call_uses_json_in_the_text(make, server, provider):
    server.enqueue(Reply.say('Sure! ```json\n{"name": "rf", "steps": 4}\n``` Done.'))
    assert make(provider).call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "rf", "steps": 4}
    assert len(server.requests) == 1


def test_reply_without_tool_call_or_json_reasks_for_json(make, server, provider):
    server.enqueue(Reply.say("I would train a random forest."), Reply.say('{"name": "rf", "steps": 1}'))
    assert make(provider).call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "rf", "steps": 1}
    second = server.requests[1].body
    assert "tools" not in second
    assert "JSON schema" in second["messages"][-1]["content"]


def test_endpoint_that_rejects_tools_falls_back_to_json(make, server, provider, ledger):
    server.enqueue(
        Reply.error(400, "this model does not support tools"),
        Reply.say('{"name": "a", "steps": 1}'),
        Reply.say('Here: {"name": "b", "steps": 2}'),
    )
    client = make(provider)
    assert client.call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "a", "steps": 1}
    assert client.call_tool(MSGS, PLAN_TOOL, CTX) == {"name": "b", "steps": 2}
    bodies = [r.body for r in server.requests]
    assert "tools" in bodies[0] and "tools" not in bodies[1] and "tools" not in bodies[2]
    if provider == "openai":  # the schema is tried; prose around the JSON shows the server ignored it
        assert [r.mode for r in ledger.records] == ["tool", "schema", "schema"]
        assert client.endpoint_facts()["schema"] is False
    else:
        assert [r.mode for r in ledger.records] == ["tool", "json", "json"]


def test_bad_request_that_is_not_about_tools_is_raised(make, server, provider):
    server.enqueue(Reply.error(400, "prompt is too long"), Reply.error(400, "prompt is too long"))
    with pytest.raises(LLMError, match="prompt is too long"):
        make(provider).call_tool(MSGS, PLAN_TOOL, CTX)
    assert len(server.requests) == 2


def test_tokens_and_cost_match_what_the_server_reported(make, server, provider, ledger):
    server.enqueue(
        Reply.error(429),
        Reply.say("one", prompt_tokens=1200, completion_tokens=300),
        Reply.tool_call("submit_plan", {"name": "z", "steps": 9}, prompt_tokens=800, completion_tokens=50),
    )
    client = make(provider)
    client.complete(MSGS, CTX)
    client.call_tool(MSGS, PLAN_TOOL, CallContext(stage="feedback", kind="review", agent_id="a9"))
    price = PRICES[client.model]
    expected = (2000 * price.input_per_mtok + 350 * price.output_per_mtok) / 1e6
    assert ledger.total_cost_usd == pytest.approx(expected)
    totals = ledger.totals("stage")
    assert (totals["code"].calls, totals["code"].failed, totals["code"].prompt_tokens) == (2, 1, 1200)
    assert (totals["feedback"].prompt_tokens, totals["feedback"].completion_tokens) == (800, 50)
    assert ledger.totals("agent")["a9"].cost_usd == pytest.approx(
        (800 * price.input_per_mtok + 50 * price.output_per_mtok) / 1e6
    )
    assert all(r.priced for r in ledger.records)


def test_unknown_model_costs_nothing_and_is_flagged(make, server, provider, ledger):
    server.enqueue(Reply.say("x", prompt_tokens=500, completion_tokens=500))
    make(provider, model="mystery-model-7b").complete(MSGS, CTX)
    (record,) = ledger.records
    assert (record.cost_usd, record.priced) == (0.0, False)
    assert ledger.totals()["all"].unpriced_calls == 1


def test_spend_cap_stops_further_calls(make, server, provider, ledger):
    price = PRICES[make(provider).model]
    ledger.spend_cap_usd = 1000 * price.input_per_mtok / 1e6  # exactly one 1000-token prompt
    server.enqueue(Reply.say("a", prompt_tokens=1000, completion_tokens=0), Reply.say("b"))
    client = make(provider)
    assert not ledger.cap_reached
    client.complete(MSGS, CTX)
    assert ledger.cap_reached
    with pytest.raises(SpendCapReached, match="spend cap reached"):
        client.complete(MSGS, CTX)
    assert len(server.requests) == 1


def test_openai_switches_to_max_completion_tokens_when_asked(make, server):
    server.enqueue(
        Reply.error(400, "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead."),
        Reply.say("ok"),
    )
    assert make("openai").complete(MSGS, CTX) == "ok"
    second = server.requests[1].body
    assert "max_tokens" not in second and second["max_completion_tokens"] == 4096


def test_openai_compatible_server_needs_no_key(server, ledger, monkeypatch):
    from swarm.config import StageLLMConfig
    from swarm.llm.factory import make_client

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.enqueue(Reply.say("local"))
    cfg = StageLLMConfig(provider="auto", model="qwen2.5-coder", base_url=server.openai_base_url)
    client = make_client(cfg, PRICES, ledger)
    assert client.provider == "openai"
    assert client.complete(MSGS, CTX) == "local"


def test_empty_text_is_asked_once_more_then_fails(make, server, provider, ledger):
    server.enqueue(Reply.say(""), Reply.say("second try"))
    client = make(provider)
    assert client.complete(MSGS, CTX) == "second try"
    server.enqueue(Reply.say(""), Reply.say("  "))
    with pytest.raises(LLMError, match="returned no text twice"):
        client.complete(MSGS, CTX)
    assert [r.ok for r in ledger.records] == [False, True, False, False]


def test_concurrent_calls_share_one_client(make, server, provider, ledger):
    from concurrent.futures import ThreadPoolExecutor

    server.latency_s = 0.3
    server.enqueue(*[Reply.say(f"r{i}", prompt_tokens=100) for i in range(6)])
    client = make(provider)
    start = time.perf_counter()
    with ThreadPoolExecutor(6) as pool:
        replies = list(
            pool.map(lambda i: client.complete(MSGS, CallContext(stage="code", agent_id=f"a{i}")), range(6))
        )
    assert sorted(replies) == [f"r{i}" for i in range(6)]
    assert time.perf_counter() - start < 6 * 0.3
    assert len(ledger.records) == 6 and ledger.totals()["all"].prompt_tokens == 600


def test_retry_after_header_is_honoured(make, server, provider):
    server.enqueue(Reply.error(429, "slow down", headers={"retry-after": "0.4"}), Reply.say("ok"))
    start = time.perf_counter()
    client = make(provider, retry=RetryPolicy(base_s=0.001, max_wait_s=5.0, jitter_s=0.0))
    assert client.complete(MSGS, CTX) == "ok"
    assert time.perf_counter() - start >= 0.4


def test_rejected_temperature_is_dropped(make, server, provider):
    server.enqueue(Reply.error(400, "`temperature` is not supported with this model."), Reply.say("ok"))
    assert make(provider).complete(MSGS, CTX) == "ok"
    first, second = (r.body for r in server.requests)
    assert "temperature" in first and "temperature" not in second


def test_loopback_server_rejects_unknown_paths_and_bad_scripts(server):
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(urllib.request.Request(server.url + "/v2/nothing", data=b"{}"), timeout=5)
    assert info.value.code == 404 and server.requests[0].protocol is None
    with pytest.raises(ValueError, match="status >= 400"):
        Reply.error(200)


def test_price_override_in_the_config_reaches_the_recorded_cost(server, tmp_path, monkeypatch):
    """`llm.prices` from a YAML file and a --set override price the code stage's calls."""
    from swarm.config import load_config
    from swarm.llm.factory import make_stage_clients
    from swarm.llm.usage import ledger_for_run

    monkeypatch.setenv("LOOPBACK_TEST_KEY", FAKE_KEY)
    (tmp_path / "run.yaml").write_text(
        "llm:\n  prices:\n    house-model: {input_per_mtok: 7.0, output_per_mtok: 11.0}\n"
    )
    cfg = load_config(
        tmp_path / "run.yaml",
        overrides=[
            "llm.prices.house-model.output_per_mtok=13.0",
            "llm.code.provider=openai",
            "llm.code.model=house-model-2025-01",
            f"llm.code.base_url={server.openai_base_url}",
            "llm.code.api_key_env=LOOPBACK_TEST_KEY",
        ],
        env_file=None,
    )
    ledger = ledger_for_run(tmp_path / "run", cfg.llm)
    from swarm.offline_coder import OfflineClient

    clients = make_stage_clients(cfg.llm, ledger, lambda _: OfflineClient(), retry=FAST_RETRY)
    server.enqueue(Reply.say("ok", prompt_tokens=100_000, completion_tokens=20_000))
    clients["code"].complete(MSGS, CTX)
    (record,) = read_records(ledger.path)
    assert record.priced and record.model == "house-model-2025-01"
    assert record.cost_usd == pytest.approx(100_000 * 7.0 / 1e6 + 20_000 * 13.0 / 1e6)


def test_cache_tokens_are_recorded_and_priced(make, server, provider, ledger):
    """Anthropic: reads 0.1x and writes 1.25x the input price; OpenAI's cached reads at the input price."""
    server.enqueue(
        Reply.say(
            "x", prompt_tokens=1000, completion_tokens=100, cache_read_tokens=8000, cache_creation_tokens=2000
        )
    )
    client = make(provider)
    client.complete(MSGS, CTX)
    (record,) = ledger.records
    price = PRICES[client.model]
    if provider == "anthropic":
        assert (record.prompt_tokens, record.cache_read_tokens, record.cache_creation_tokens) == (
            11000,
            8000,
            2000,
        )
        input_cost = (1000 + 0.1 * 8000 + 1.25 * 2000) * price.input_per_mtok
    else:  # OpenAI folds cache reads into prompt_tokens and reports no cache writes
        assert (record.prompt_tokens, record.cache_read_tokens, record.cache_creation_tokens) == (
            9000,
            8000,
            0,
        )
        input_cost = 9000 * price.input_per_mtok
    assert record.cost_usd == pytest.approx((input_cost + 100 * price.output_per_mtok) / 1e6)
    totals = ledger.totals()["all"]
    assert (totals.cache_read_tokens, totals.prompt_tokens) == (8000, record.prompt_tokens)


def test_a_reply_without_a_code_block_fails_to_parse_clearly(make, server, provider):
    """The code stage's reply goes through the real SDK; prose without code raises ResponseParseError."""
    from swarm.llm.response import ResponseParseError, parse_response

    prose = "I would train a gradient-boosted model on the numeric columns and tune it with k-fold CV."
    server.enqueue(Reply.say(prose), Reply.say("Here is the idea:\n```text\nuse lightgbm\n```\n"))
    client = make(provider)
    with pytest.raises(ResponseParseError, match=r"no Python code in the reply \(\d+ chars of prose"):
        parse_response(client.complete(MSGS, CTX))
    with pytest.raises(ResponseParseError, match=r"1 fenced block\(s\) \(text\) but none is Python"):
        parse_response(client.complete(MSGS, CTX))


def test_a_reply_cut_off_at_the_token_limit_says_so(make, server, provider, ledger):
    from swarm.llm.base import was_truncated

    server.enqueue(
        Reply.cut_off("```python\nimport csv\nrows = list(", completion_tokens=64), Reply.say("done")
    )
    client = make(provider)
    cut, whole = client.complete(MSGS, CTX), client.complete(MSGS, CTX)
    assert cut == "```python\nimport csv\nrows = list(" and was_truncated(cut)
    assert whole == "done" and not was_truncated(whole) and not was_truncated("plain str")
    assert [r.completion_tokens for r in ledger.records] == [64, 5]


def test_retry_backoff_comes_from_the_stage_config(server, ledger, monkeypatch):
    """retry_base_s / retry_max_wait_s set the waits between attempts (here: no Retry-After)."""
    from swarm.config import StageLLMConfig
    from swarm.llm.factory import make_client

    monkeypatch.setenv("LOOPBACK_TEST_KEY", FAKE_KEY)
    stage = dict(provider="openai", base_url=server.openai_base_url, api_key_env="LOOPBACK_TEST_KEY")
    for base_s, at_least, at_most in ((0.3, 0.3, 5.0), (0.0, 0.0, 0.25)):
        server.enqueue(Reply.error(500), Reply.say("ok"))
        client = make_client(
            StageLLMConfig(**stage, retry_base_s=base_s, retry_max_wait_s=1.0), PRICES, ledger
        )
        start = time.perf_counter()
        assert client.complete(MSGS, CTX) == "ok"
        assert at_least <= time.perf_counter() - start < at_most


def test_loopback_server_serves_its_models_endpoint_to_both_sdks(server):
    import anthropic
    import openai

    from tests.doubles.loopback_server import LoopbackServer

    with LoopbackServer(models=["gpt-4o-mini", "claude-haiku-4-5"]) as served:
        oa = openai.OpenAI(api_key=FAKE_KEY, base_url=served.openai_base_url, max_retries=0)
        an = anthropic.Anthropic(api_key=FAKE_KEY, base_url=served.anthropic_base_url, max_retries=0)
        assert oa.models.retrieve("gpt-4o-mini").id == "gpt-4o-mini"
        assert an.models.retrieve("claude-haiku-4-5").id == "claude-haiku-4-5"
        assert [m.id for m in oa.models.list()] == [m.id for m in an.models.list()] == list(served.models)
        with pytest.raises(openai.NotFoundError, match="no-such-model"):
            oa.models.retrieve("no-such-model")
        with pytest.raises(anthropic.NotFoundError, match="no-such-model"):
            an.models.retrieve("no-such-model")
        assert len(served.model_lookups) == 6 and served.requests == []
    oa = openai.OpenAI(api_key=FAKE_KEY, base_url=server.openai_base_url, max_retries=0)
    with pytest.raises(openai.NotFoundError, match="unknown path"):  # no `models`: no endpoint
        oa.models.list()
