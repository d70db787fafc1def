"""The models preflight: a stage naming a model its endpoint does not serve fails before the run starts."""

from __future__ import annotations

import socket

import pytest

from swarm.config import LLMConfig, StageLLMConfig
from swarm.llm.preflight import ModelNotServed, check_models
from tests.doubles.loopback_server import LoopbackServer

from .conftest import FAKE_KEY, MODELS

KEY_ENV = "LOOPBACK_TEST_KEY"


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, FAKE_KEY)


def llm(base_url: str, provider: str = "openai", model: str | None = None, **stage) -> LLMConfig:
    """The code stage on `base_url`; the other stages offline."""
    code = StageLLMConfig(
        provider=provider, model=model or MODELS[provider], base_url=base_url, api_key_env=KEY_ENV, **stage
    )
    offline = StageLLMConfig(provider="offline")
    return LLMConfig(code=code, feedback=offline, evolution=offline)


def base_url(server: LoopbackServer, provider: str) -> str:
    return server.openai_base_url if provider == "openai" else server.anthropic_base_url


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_served_model_passes_and_an_unknown_one_fails_in_one_sentence(provider):
    with LoopbackServer(models=[MODELS[provider], "other-model"]) as server:
        check_models(llm(base_url(server, provider), provider))
        with pytest.raises(ModelNotServed) as info:
            check_models(llm(base_url(server, provider), provider, model="no-such-model"))
        assert server.requests == []  # no completion was asked for
    message = str(info.value)
    assert message.startswith(f"llm.code.model 'no-such-model' is not served by the {provider} endpoint at")
    assert message.endswith(f"it serves {MODELS[provider]}, other-model") and "\n" not in message


def test_a_model_found_once_is_not_looked_up_again():
    """The CLI checks before the flow starts and the flow checks again: one lookup is enough."""
    with LoopbackServer(models=["served-model"]) as server:
        check_models(llm(server.openai_base_url, model="served-model"))
        check_models(llm(server.openai_base_url, model="served-model"))
        assert [r.path for r in server.model_lookups] == ["/v1/models/served-model"]


def test_an_endpoint_that_cannot_tell_lets_the_run_start():
    with LoopbackServer() as server:  # no models endpoint at all (404 for both requests)
        check_models(llm(server.openai_base_url, model="anything"))
        check_models(llm(server.openai_base_url, model="anything"))  # not asked again
        assert [r.path for r in server.model_lookups] == ["/v1/models/anything", "/v1/models"]
    with socket.socket() as sock:  # nothing listens there: no connection
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    check_models(llm(f"http://127.0.0.1:{port}/v1", model="anything", timeout_s=2))


def test_a_stage_whose_client_cannot_be_built_is_named(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    stage = StageLLMConfig(provider="anthropic", model="claude-haiku-4-5")
    with pytest.raises(ModelNotServed, match=r"^llm.feedback: provider anthropic .* needs an API key"):
        check_models(LLMConfig(code=StageLLMConfig(provider="offline"), feedback=stage))
