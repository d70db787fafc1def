"""Pure pieces: JSON extraction, retry waits, the ledger, message conversion, the factory."""

from __future__ import annotations

import json
import sys
import threading

import pytest
from tenacity import RetryCallState, Retrying

from swarm.config import ModelPrice, StageLLMConfig
from swarm.llm.anthropic_provider import to_anthropic_messages
from swarm.llm.base import CallContext, LLMError, Message, SpendCapReached
from swarm.llm.factory import RecordingClient, make_client, resolve_provider
from swarm.llm.json_tools import ToolArgsError, extract_json_object, validate_tool_args
from swarm.llm.provider import redact
from swarm.llm.retry import ProviderError, RetryPolicy
from swarm.llm.usage import UsageLedger, UsageRecord, cost_usd, read_records

from .conftest import PLAN_TOOL

CTX = CallContext(stage="code", agent_id="a1")


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "a", "steps": 1}',
        'Here you go:\n```json\n{"name": "a", "steps": 1}\n```',
        'I think {"name": "a", "steps": 1} is right. {"other": 2}',
    ],
)
def test_extract_json_object(text):
    assert extract_json_object(text) == {"name": "a", "steps": 1}


def test_extract_json_object_errors():
    with pytest.raises(ToolArgsError, match="empty"):
        extract_json_object("  ")
    with pytest.raises(ToolArgsError, match="no JSON object"):
        extract_json_object("just [1, 2] words")


def test_validate_tool_args_messages():
    assert validate_tool_args(PLAN_TOOL, '{"name": "a", "steps": "3"}') == {"name": "a", "steps": 3}
    with pytest.raises(ToolArgsError, match="not valid JSON"):
        validate_tool_args(PLAN_TOOL, '{"name": ')
    with pytest.raises(ToolArgsError, match="steps: Field required"):
        validate_tool_args(PLAN_TOOL, {"name": "a"})
    with pytest.raises(ToolArgsError, match="must be a JSON object"):
        validate_tool_args(PLAN_TOOL, [1])


def _state(number: int, exc: BaseException) -> RetryCallState:
    state = RetryCallState(Retrying(), fn=None, args=(), kwargs={})
    state.attempt_number = number
    state.set_exception((type(exc), exc, None))
    return state


def test_retry_waits_grow_and_are_capped():
    policy = RetryPolicy(base_s=1.0, max_wait_s=5.0, jitter_s=0.0)
    err = ProviderError("x", provider="p", model="m", retryable=True)
    assert [policy.wait(_state(n, err)) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]
    slow = ProviderError("x", provider="p", model="m", retryable=True, retry_after_s=3.0)
    assert policy.wait(_state(1, slow)) == 3.0
    jittered = RetryPolicy(base_s=1.0, max_wait_s=60, jitter_s=0.5)
    for n in (1, 2, 3):
        waits = [jittered.wait(_state(n, err)) for _ in range(50)]
        assert all(2 ** (n - 1) <= w <= 2 ** (n - 1) + 0.5 for w in waits) and len(set(waits)) > 1
    default_jitter = RetryPolicy(base_s=0.2, max_wait_s=60)  # jitter defaults to base_s
    assert all(0.8 <= default_jitter.wait(_state(3, err)) <= 1.0 for _ in range(50))


def test_cost_uses_longest_price_prefix():
    prices = {
        "gpt-4o": ModelPrice(input_per_mtok=2.5, output_per_mtok=10),
        "gpt-4o-mini": ModelPrice(input_per_mtok=0.15, output_per_mtok=0.6),
    }
    assert cost_usd("gpt-4o-mini-2024-07-18", 1_000_000, 1_000_000, prices) == (pytest.approx(0.75), True)
    assert cost_usd("gpt-4o-2024-08-06", 1_000_000, 0, prices) == (pytest.approx(2.5), True)
    assert cost_usd("llama3", 10, 10, prices) == (0.0, False)


def _record(cost: float, agent: str = "a1", ok: bool = True) -> UsageRecord:
    return UsageRecord.for_call(
        CallContext(stage="code", agent_id=agent),
        "openai",
        "m",
        ts=0.0,
        mode="complete",
        attempt=1,
        prompt_tokens=10,
        completion_tokens=1,
        latency_s=0.1,
        cost_usd=cost,
        priced=True,
        ok=ok,
    )


def test_ledger_is_thread_safe_and_resumes(tmp_path):
    path = tmp_path / "run" / "usage.jsonl"
    ledger = UsageLedger(path)
    threads = [
        threading.Thread(target=lambda i=i: [ledger.record(_record(0.001, f"a{i}")) for _ in range(50)])
        for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 200 and all(json.loads(line)["model"] == "m" for line in lines)
    assert {k: v.calls for k, v in ledger.totals("agent").items()} == {f"a{i}": 50 for i in range(4)}
    again = UsageLedger(path, spend_cap_usd=0.2)
    assert again.total_cost_usd == pytest.approx(0.2) and again.cap_reached
    with pytest.raises(SpendCapReached):
        again.check_cap()
    assert again.summary()["by_agent"]["a2"]["calls"] == 50


def test_ledger_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match="group usage by 'colour'"):
        UsageLedger().totals("colour")
    bad = tmp_path / "u.jsonl"
    bad.write_text('{"nope": 1}\n')
    with pytest.raises(ValueError, match="u.jsonl:1 is not a usage record"):
        read_records(bad)


def test_anthropic_message_conversion():
    system, turns = to_anthropic_messages(
        [
            Message("system", "S1"),
            Message("user", "a"),
            Message("user", "b"),
            Message("system", "S2"),
            Message("assistant", "c"),
        ]
    )
    assert system == "S1\n\nS2"
    assert turns == [{"role": "user", "content": "a\n\nb"}, {"role": "assistant", "content": "c"}]


def test_redact_removes_keys():
    assert redact("key sk-abc123456789 and secret-xyz", ("secret-xyz",)) == "key [redacted] and [redacted]"


class _Offline:
    provider = "offline"
    model = "offline-coder"

    def __init__(self, cfg):
        self.cfg = cfg

    def complete(self, messages, ctx):
        return "offline text"

    def call_tool(self, messages, tool, ctx):
        raise LLMError("offline cannot")


def test_auto_without_keys_uses_the_offline_factory(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    cfg = StageLLMConfig(provider="auto")
    assert resolve_provider(cfg) == "offline"
    ledger = UsageLedger()
    client = make_client(cfg, {}, ledger, offline_factory=_Offline)
    assert isinstance(client, RecordingClient) and client.inner.cfg is cfg
    assert client.complete([Message("user", "x")], CTX) == "offline text"
    with pytest.raises(LLMError):
        client.call_tool([Message("user", "x")], PLAN_TOOL, CTX)
    assert [(r.provider, r.ok) for r in ledger.records] == [("offline", True), ("offline", False)]


def test_auto_picks_the_provider_whose_key_is_set(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-123456")
    assert resolve_provider(StageLLMConfig(model="claude-sonnet-4-5")) == "anthropic"
    assert resolve_provider(StageLLMConfig(model="gpt-4o")) == "offline"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123456")
    assert resolve_provider(StageLLMConfig(model="gpt-4o")) == "openai"
    client = make_client(StageLLMConfig(model="claude-sonnet-4-5"), {}, None)
    assert client.provider == "anthropic" and "sk-ant" not in repr(client)


def test_missing_key_and_missing_offline_coder_give_clear_errors(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError, match=r"provider anthropic .* needs an API key in \$ANTHROPIC_API_KEY"):
        make_client(StageLLMConfig(provider="anthropic", model="claude-haiku-4-5"), {}, None)
    with pytest.raises(LLMError, match="no offline coder was given"):
        make_client(StageLLMConfig(provider="offline"), {}, None)


def test_stage_clients_and_run_ledger(tmp_path, monkeypatch):
    from swarm.config import LLMConfig
    from swarm.llm.factory import make_stage_clients
    from swarm.llm.usage import USAGE_FILE, ledger_for_run

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    llm = LLMConfig(spend_cap_usd=2.5)
    ledger = ledger_for_run(tmp_path, llm)
    assert ledger.path == tmp_path / USAGE_FILE and ledger.spend_cap_usd == 2.5
    clients = make_stage_clients(llm, ledger, offline_factory=_Offline)
    assert set(clients) == {"code", "feedback", "evolution"}
    assert clients["feedback"].inner.cfg.temperature == 0.0


def test_the_offline_coder_given_stands_in_for_the_model_and_reaches_the_ledger():
    from swarm.offline_coder import OfflineClient

    client = make_client(StageLLMConfig(provider="offline"), {}, UsageLedger(), lambda _: OfflineClient())
    assert isinstance(client, RecordingClient) and client.provider == "offline"
    assert type(client.inner).__name__ == "OfflineClient"


def test_cache_prices_follow_the_provider_rule_or_the_price_entry():
    prices = {"claude-x": ModelPrice(input_per_mtok=10.0, output_per_mtok=0.0)}
    cost, _ = cost_usd(
        "claude-x",
        3_000_000,
        0,
        prices,
        provider="anthropic",
        cache_read_tokens=1_000_000,
        cache_creation_tokens=1_000_000,
    )
    assert cost == pytest.approx(10.0 + 1.0 + 12.5)
    assert (
        cost_usd("claude-x", 3_000_000, 0, prices, provider="openai", cache_read_tokens=1_000_000)[0] == 30.0
    )

    class CachePrice(ModelPrice):  # a price table entry that names its own cache prices
        cache_read_per_mtok: float | None = None
        cache_write_per_mtok: float | None = None

    own = {"claude-x": CachePrice(input_per_mtok=10.0, cache_read_per_mtok=2.0, cache_write_per_mtok=20.0)}
    cost, _ = cost_usd(
        "claude-x",
        3_000_000,
        0,
        own,
        provider="anthropic",
        cache_read_tokens=1_000_000,
        cache_creation_tokens=1_000_000,
    )
    assert cost == pytest.approx(10.0 + 2.0 + 20.0)


def test_old_ledger_lines_without_cache_fields_still_load(tmp_path):
    line = {
        k: v for k, v in json.loads(json.dumps(_record(0.5).__dict__)).items() if not k.startswith("cache_")
    }
    (tmp_path / "old.jsonl").write_text(json.dumps(line) + "\n")
    (record,) = read_records(tmp_path / "old.jsonl")
    assert (record.cost_usd, record.cache_read_tokens, record.cache_creation_tokens) == (0.5, 0, 0)


WRITER = """
import sys, time
from swarm.llm.usage import UsageLedger, UsageRecord
ledger = UsageLedger(sys.argv[1])
for i in range(int(sys.argv[2])):
    ledger.record(UsageRecord(ts=time.time(), provider="p", model="m", stage="code", kind="draft", run_id=None,
        epoch=None, node_id=f"w{i}", agent_id=None, mode="text", attempt=1, prompt_tokens=1,
        completion_tokens=1, latency_s=0.0, cost_usd=0.01, priced=True, ok=True))
"""


def test_ledgers_of_several_processes_share_spend_and_cap(tmp_path) -> None:
    import subprocess

    path = tmp_path / "llm_usage.jsonl"
    flow = UsageLedger(path, spend_cap_usd=0.5)
    workers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), "20"]) for _ in range(3)]
    assert all(w.wait(timeout=60) == 0 for w in workers)
    assert flow.total_cost_usd == pytest.approx(0.6)  # what the other processes spent counts here
    assert flow.cap_reached
    with pytest.raises(SpendCapReached):
        flow.check_cap()
    lines = path.read_text().splitlines()
    assert len(lines) == 60 and all(json.loads(line)["cost_usd"] == 0.01 for line in lines)  # no torn lines
    assert len(UsageLedger(path).records) == 60
