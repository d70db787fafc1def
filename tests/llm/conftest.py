"""Fixtures: a loopback server, and clients built by the real factory that talk to it via the real SDKs."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from pydantic import BaseModel

from swarm.config import ModelPrice, StageLLMConfig
from swarm.llm.base import ToolSpec
from swarm.llm.factory import make_client
from swarm.llm.provider import ProviderClient
from swarm.llm.retry import RetryPolicy
from swarm.llm.usage import UsageLedger
from tests.doubles.loopback_server import LoopbackServer

FAKE_KEY = "sk-loopback-0123456789abcdef"
MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-haiku-4-5"}
PRICES = {
    "gpt-4o-mini": ModelPrice(input_per_mtok=0.15, output_per_mtok=0.6),
    "claude-haiku-4-5": ModelPrice(input_per_mtok=1.0, output_per_mtok=5.0),
}
# A review's arguments as a model gives them (submit_review).
REVIEW = {
    "is_bug": False,
    "has_csv_submission": True,
    "summary": "Ran cleanly.",
    "metric": 0.81,
    "lower_is_better": False,
}

FAST_RETRY = RetryPolicy(base_s=0.001, max_wait_s=0.01, jitter_s=0.001)


class Plan(BaseModel):
    name: str
    steps: int


PLAN_TOOL = ToolSpec(name="submit_plan", description="Submit a plan.", schema=Plan)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as srv:
        yield srv


@pytest.fixture
def ledger(tmp_path) -> UsageLedger:
    return UsageLedger(tmp_path / "usage.jsonl")


@pytest.fixture(params=["openai", "anthropic"])
def provider(request) -> str:
    return request.param


@pytest.fixture
def make(
    server: LoopbackServer, ledger: UsageLedger, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., ProviderClient]:
    """Build a client for `provider` through make_client, pointed at the loopback server."""

    def build(provider: str, retry: RetryPolicy = FAST_RETRY, **overrides) -> ProviderClient:
        monkeypatch.setenv("LOOPBACK_TEST_KEY", FAKE_KEY)
        base_url = server.openai_base_url if provider == "openai" else server.anthropic_base_url
        fields = {
            "provider": provider,
            "model": MODELS[provider],
            "base_url": base_url,
            "api_key_env": "LOOPBACK_TEST_KEY",
            "timeout_s": 5.0,
            "max_retries": 3,
            **overrides,
        }
        client = make_client(StageLLMConfig(**fields), PRICES, ledger, retry=retry)
        assert isinstance(client, ProviderClient)
        return client

    return build
