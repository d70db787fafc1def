"""A run learns each stage's context once, fits its prompts and caps its replies to it, and says before the first
step which stage's smallest prompt and reply cannot fit."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from swarm.config import load_config
from swarm.llm.context_window import SOURCE_OFFLINE, SOURCE_PROPS, ContextWindow
from swarm.llm.prompt_fit import message_tokens
from swarm.pipeline import steps
from swarm.pipeline.context import create_run, open_run, resolve_competition
from swarm.pipeline.preflight import warn_context
from tests.doubles.loopback_server import LoopbackServer

KEY_ENV = "SWARM_CONTEXT_TEST_KEY"


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-context-test-0123456789")


def code_stage(base_url: str, **fields: object) -> list[str]:
    values = {
        "provider": "openai",
        "model": "local-coder",
        "base_url": base_url,
        "api_key_env": KEY_ENV,
        **fields,
    }
    return [f"llm.code.{name}={value}" for name, value in values.items()]


def test_a_run_fits_its_code_prompt_to_the_servers_context(
    tmp_path: Path, base_overrides: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    props = {"default_generation_settings": {"n_ctx": 6000}}
    with LoopbackServer(props=props) as server:
        overrides = [*base_overrides, *code_stage(server.openai_base_url, max_tokens=2048)]
        run_dir = create_run(load_config(None, overrides), tmp_path / "run").root
        with caplog.at_level(logging.INFO, logger="swarm.pipeline.context"):
            rc, journal, state = open_run(run_dir)
        assert [r.path for r in server.model_lookups] == ["/props"]  # once, when the run was opened
        assert server.requests == []
    assert rc.context_windows["code"] == ContextWindow(6000, SOURCE_PROPS)
    assert rc.context_windows["feedback"] == ContextWindow(None, SOURCE_OFFLINE)
    assert rc.context_limits == {"code": 6000, "feedback": None, "evolution": None}
    assert rc.clients["code"].context_tokens == 6000
    assert "llm.code: context 6,000 tokens (from the server's /props)" in caplog.messages
    room = rc.prompt_room("code")
    assert room is not None and rc.prompt_room("feedback") is None
    planned = steps.select_parent(rc, journal, state)
    profile = rc.agents.current(planned.plan.agent_id)
    unfitted = rc.prompts.build(
        planned.plan.task_type,
        profile,
        task_desc=rc.task_desc,
        data_preview=rc.data_preview,
        packages=rc.packages,
    )
    assert message_tokens(unfitted) > room  # the draft's prompt did not fit as it was
    sent = planned.message_objects()
    assert message_tokens(sent) <= room and message_tokens(sent) + 2048 <= 6000


def test_a_context_too_small_for_the_smallest_prompts_is_said_before_the_first_step(
    base_overrides: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    url = "http://127.0.0.1:9/v1"  # never asked: the config gives the context
    feedback = [
        f"llm.feedback.{k}={v}"
        for k, v in {"provider": "openai", "base_url": url, "api_key_env": KEY_ENV}.items()
    ]
    overrides = [
        *base_overrides,
        *code_stage(url, context_tokens=1024),
        *feedback,
        "llm.feedback.context_tokens=16000",
    ]
    cfg = load_config(None, overrides)
    with caplog.at_level(logging.WARNING, logger="swarm.pipeline.preflight"):
        lines = warn_context(cfg, resolve_competition(cfg))
    assert len(lines) == 1  # the review fits in 16,000 tokens; the offline evolution stage has no limit
    (line,) = lines
    assert line.startswith("llm.code: the code prompt (of a merge step) needs about ")
    assert "more than the model's context of 1,024 tokens (from llm.code.context_tokens) holds" in line
    assert line in caplog.messages and "\n" not in line


def test_a_reply_that_does_not_fit_beside_the_smallest_review_names_max_tokens(
    base_overrides: list[str],
) -> None:
    url = "http://127.0.0.1:9/v1"
    values = {
        "provider": "openai",
        "base_url": url,
        "api_key_env": KEY_ENV,
        "context_tokens": 6000,
        "max_tokens": 4096,
    }
    cfg = load_config(None, [*base_overrides, *[f"llm.feedback.{k}={v}" for k, v in values.items()]])
    (line,) = warn_context(cfg, resolve_competition(cfg))
    assert line.startswith("llm.feedback: the review prompt needs about ")
    assert "lower llm.feedback.max_tokens to " in line
