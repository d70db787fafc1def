"""A stage's context length (config, llama.cpp's /props, vLLM's max_model_len, the hosted table), the reply's
max_tokens cut to what it leaves, and the sentence when even the smallest prompt cannot fit."""

from __future__ import annotations

import socket

import pytest

from swarm.config import LLMConfig, StageLLMConfig
from swarm.llm.base import CallContext, Message
from swarm.llm.context_window import (
    HOSTED_CONTEXT,
    SOURCE_MODELS,
    SOURCE_OFFLINE,
    SOURCE_PROPS,
    SOURCE_TABLE,
    ContextWindow,
    find_context,
    find_context_limits,
    hosted_context,
    server_root,
)
from swarm.llm.estimate import estimate_prompt_tokens
from swarm.llm.prompt_fit import REPLY_FLOOR, margin_tokens, prompt_room, shortfall
from tests.doubles.loopback_server import LoopbackServer, Reply

from .conftest import FAKE_KEY, PLAN_TOOL

KEY_ENV = "LOOPBACK_TEST_KEY"
LOCAL_MODEL = "qwen2.5-coder-7b"  # not in the hosted table: only the server can tell
CTX = CallContext(stage="code", kind="draft", node_id="n1")
LLAMA_PROPS = {
    "default_generation_settings": {"n_ctx": 8192, "temperature": 0.8, "n_predict": -1},
    "total_slots": 1,
    "model_path": "/models/qwen.gguf",
    "chat_template": "{{ messages }}",
}


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, FAKE_KEY)


def stage(base_url: str | None, model: str = LOCAL_MODEL, **fields) -> StageLLMConfig:
    values = {"provider": "openai", "model": model, "base_url": base_url, "api_key_env": KEY_ENV, **fields}
    return StageLLMConfig(**values)


def test_llama_cpp_props_give_the_context_per_request():
    with LoopbackServer(props=LLAMA_PROPS) as server:
        found = find_context("code", stage(server.openai_base_url))
        assert [r.path for r in server.model_lookups] == ["/props"]  # at the root, not under /v1
    assert found == ContextWindow(8192, SOURCE_PROPS)
    assert found.describe("code") == "llm.code: context 8,192 tokens (from the server's /props)"


def test_newer_props_with_a_top_level_n_ctx_are_read_too():
    with LoopbackServer(
        props={"n_ctx": 16384, "default_generation_settings": {"temperature": 0.8}}
    ) as server:
        assert find_context("code", stage(server.openai_base_url)) == ContextWindow(16384, SOURCE_PROPS)


def test_vllm_max_model_len_of_the_model_is_read_from_its_models_list():
    with LoopbackServer(models=["other", LOCAL_MODEL], max_model_len=32768) as server:
        found = find_context("feedback", stage(server.openai_base_url))
        lookups = server.model_lookups
    assert found == ContextWindow(32768, SOURCE_MODELS)
    assert [r.path for r in lookups] == ["/props", "/v1/models"]
    assert lookups[1].headers["authorization"] == f"Bearer {FAKE_KEY}"  # vLLM started with --api-key


def test_the_config_wins_over_the_server():
    with LoopbackServer(props=LLAMA_PROPS) as server:
        found = find_context("code", stage(server.openai_base_url, context_tokens=4096))
        assert server.model_lookups == []  # not even asked
    assert found == ContextWindow(4096, "llm.code.context_tokens")


@pytest.mark.parametrize(
    "server_kwargs",
    [
        {},  # /props and /v1/models answer 404
        {"props": "<html>not json</html>", "models": [LOCAL_MODEL]},  # garbage, and a list without the field
        {"props": {"default_generation_settings": {"n_ctx": "8192"}}, "models": ["another-model"]},
        {"props": {"n_ctx": 0}, "models": [LOCAL_MODEL], "max_model_len": -1},
    ],
)
def test_a_server_that_says_nothing_usable_leaves_the_context_unknown(server_kwargs):
    with LoopbackServer(**server_kwargs) as server:
        found = find_context("code", stage(server.openai_base_url))
    assert found.tokens is None and "unknown" in found.source


def test_a_server_that_does_not_answer_leaves_the_context_unknown():
    with socket.socket() as sock:  # nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert find_context("code", stage(f"http://127.0.0.1:{port}/v1"), timeout_s=1.0).tokens is None


def test_a_local_server_that_says_nothing_falls_back_to_the_table_for_a_hosted_name():
    with LoopbackServer() as server:
        found = find_context("code", stage(server.openai_base_url, model="gpt-4o-mini"))
    assert found == ContextWindow(128_000, SOURCE_TABLE)


@pytest.mark.parametrize(
    ("model", "tokens"),
    [
        ("gpt-4o", 128_000),
        ("gpt-4o-mini-2024-07-18", 128_000),
        ("gpt-4.1-nano", 1_047_576),
        ("o1", 200_000),
        ("o1-mini", 128_000),
        ("o3-mini", 200_000),
        ("o4-mini", 200_000),
        ("gpt-5-mini", 400_000),
        ("claude-haiku-4-5", 200_000),
        ("openai/gpt-4o", 128_000),
        ("gpt-3.5-turbo", None),
        ("llama-3-8b", None),
    ],
)
def test_hosted_models_by_name_prefix(model, tokens):
    assert hosted_context(model) == tokens


def test_hosted_stages_use_the_table_without_asking_anyone(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-used-0123456789")
    found = find_context("code", StageLLMConfig(provider="anthropic", model="claude-sonnet-4-5"))
    assert found == ContextWindow(200_000, SOURCE_TABLE)
    assert dict(HOSTED_CONTEXT)["claude-"] == 200_000


def test_the_offline_coder_has_no_limit():
    assert find_context("code", StageLLMConfig(provider="offline")) == ContextWindow(None, SOURCE_OFFLINE)


def test_stages_on_one_server_share_one_lookup():
    with LoopbackServer(props=LLAMA_PROPS) as server:
        base = stage(server.openai_base_url)
        llm = LLMConfig(
            code=base, feedback=base, evolution=stage(server.openai_base_url, context_tokens=2048)
        )
        found = find_context_limits(llm)
        assert [r.path for r in server.model_lookups] == ["/props"]
    assert {name: window.tokens for name, window in found.items()} == {
        "code": 8192,
        "feedback": 8192,
        "evolution": 2048,
    }


def test_server_root_drops_a_trailing_v1():
    assert server_root("http://host:8080/v1") == "http://host:8080"
    assert server_root("http://host:8080/v1/") == "http://host:8080"
    assert server_root("http://host:8080/api") == "http://host:8080/api"


# -- the reply's max_tokens ----------------------------------------------------------------------------------


def test_max_tokens_is_cut_to_what_the_context_leaves(make, server, provider):
    server.enqueue(Reply.say("short"), Reply.say("short"))
    client = make(provider, max_tokens=4096)
    messages = [Message("system", "You write code."), Message("user", "x" * 20_000)]  # ~5,000 tokens
    assert client.complete(messages, CTX) == "short"  # context unknown: max_tokens as configured
    client.context_tokens = 8192
    assert client.complete(messages, CTX) == "short"
    unknown, known = (r.body["max_tokens"] for r in server.requests)
    prompt = estimate_prompt_tokens(m.content for m in messages)
    assert unknown == 4096
    assert known == 8192 - prompt - margin_tokens(8192) < 4096
    assert prompt + known <= 8192


def test_a_tool_call_counts_the_tool_definition_too(make, server):
    server.enqueue(Reply.tool_call("submit_plan", {"name": "p", "steps": 2}))
    client = make("openai", max_tokens=4096)
    client.context_tokens = 4096
    messages = [Message("user", "y" * 12_000)]
    assert client.call_tool(messages, PLAN_TOOL, CTX) == {"name": "p", "steps": 2}
    sent = server.requests[0].body["max_tokens"]
    without_tool = 4096 - estimate_prompt_tokens(["y" * 12_000]) - margin_tokens(4096)
    assert REPLY_FLOOR < sent < without_tool


def test_a_context_with_room_to_spare_keeps_max_tokens_and_a_full_one_keeps_the_floor(make, server):
    server.enqueue(Reply.say("a"), Reply.say("b"))
    client = make("openai", max_tokens=1000)
    client.context_tokens = 128_000
    client.complete([Message("user", "hi")], CTX)
    client.context_tokens = 1024
    client.complete([Message("user", "z" * 8000)], CTX)  # the prompt alone overflows: the server will say so
    assert [r.body["max_tokens"] for r in server.requests] == [1000, REPLY_FLOOR]


def test_make_client_sets_the_context(make):
    from swarm.llm.factory import make_client

    client = make_client(stage("http://127.0.0.1:9/v1"), None, None, context_tokens=8192)
    assert client.context_tokens == 8192
    assert make("openai").context_tokens is None


# -- the sentence before the first step ----------------------------------------------------------------------


def test_no_sentence_when_the_smallest_prompt_and_reply_fit():
    assert shortfall("code", "the code prompt", 3000, 4096, 8192, SOURCE_PROPS) is None
    assert prompt_room(8192, 4096) == 8192 - 4096 - margin_tokens(8192)
    assert prompt_room(None, 4096) is None


def test_a_context_too_small_for_the_reply_says_what_to_lower_it_to():
    line = shortfall("feedback", "the review prompt", 3000, 4096, 6000, SOURCE_PROPS)
    left = 6000 - 3000 - margin_tokens(6000)
    assert line == (
        "llm.feedback: the review prompt needs about 3,000 tokens even at its smallest, and with a reply of up "
        f"to 4,096 (llm.feedback.max_tokens) {4096 - left:,} more than the model's context of 6,000 tokens "
        "(from the server's /props) holds; give the model a longer context (llama.cpp's -c, vLLM's "
        f"--max-model-len) or lower llm.feedback.max_tokens to {left:,} (until then replies are cut to what "
        "is left)"
    )


def test_a_context_too_small_for_the_prompt_itself_says_by_how_much():
    line = shortfall("code", "the code prompt", 3000, 4096, 1024, "llm.code.context_tokens")
    short = REPLY_FLOOR - (1024 - 3000 - margin_tokens(1024))
    assert line is not None and line.startswith(
        "llm.code: the code prompt needs about 3,000 tokens even at its smallest, "
        f"{short:,} more than the model's context of 1,024 tokens (from llm.code.context_tokens) holds"
    )
    assert "lower llm.code.max_tokens" not in line and "\n" not in line
