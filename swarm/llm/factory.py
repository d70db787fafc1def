"""`make_client`: the LLM client for one stage's configuration.

Provider `auto` picks by model family (names starting with `claude` are Anthropic's, everything else speaks
the OpenAI protocol): the real provider when its API key is set in the environment, or an OpenAI-compatible
server when `base_url` is set (local servers need no key); otherwise the offline coder, which the caller passes
as `offline_factory` (`swarm.pipeline.context` passes `swarm.offline_coder.OfflineClient`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from swarm.config import DEFAULT_KEY_ENV, LLMConfig, ModelPrice, StageLLMConfig
from swarm.llm.base import CallContext, LLMClient, LLMError, Message, Stage, ToolSpec, thinking_of
from swarm.llm.exchanges import Exchange, ExchangeLog
from swarm.llm.provider import redact
from swarm.llm.retry import RetryPolicy
from swarm.llm.usage import UsageLedger, UsageRecord

# Builds the offline coder for a stage; the default is `swarm.offline_coder.OfflineClient()` (seed 0).
OfflineFactory = Callable[[StageLLMConfig], LLMClient]


def model_family(model: str) -> str:
    """`anthropic` for Claude models, `openai` for everything else."""
    return "anthropic" if model.lower().startswith("claude") else "openai"


def resolve_provider(stage_cfg: StageLLMConfig) -> str:
    """The concrete provider (`openai`, `anthropic` or `offline`) that `make_client` would use."""
    if stage_cfg.provider != "auto":
        return stage_cfg.provider
    family = model_family(stage_cfg.model)
    if stage_cfg.api_key():  # the environment, else the .env the config was loaded with
        return family
    if stage_cfg.base_url and family == "openai":
        return "openai"
    return "offline"


def make_client(
    stage_cfg: StageLLMConfig,
    prices: Mapping[str, ModelPrice] | None,
    ledger: UsageLedger | None,
    offline_factory: OfflineFactory | None = None,
    *,
    retry: RetryPolicy | None = None,
    context_tokens: int | None = None,
    exchanges: ExchangeLog | None = None,
) -> LLMClient:
    """The client for one stage. API keys come from the environment only and are never stored in the config.

    `retry` defaults to the stage's `retry_base_s` / `retry_max_wait_s` backoff. `context_tokens`, the model's
    context length where known (`swarm.llm.context_window`), caps each request's `max_tokens` to what the
    context leaves beside the prompt; the offline coder has no context and ignores it. `exchanges`, when given,
    keeps every model exchange (the run's log in its run dir).
    """
    provider = resolve_provider(stage_cfg)
    if retry is None:
        retry = RetryPolicy(base_s=stage_cfg.retry_base_s, max_wait_s=stage_cfg.retry_max_wait_s)
    common: dict[str, Any] = {
        "model": stage_cfg.model,
        "temperature": stage_cfg.temperature,
        "max_tokens": stage_cfg.max_tokens,
        "timeout_s": stage_cfg.timeout_s,
        "max_retries": stage_cfg.max_retries,
        "prices": prices,
        "ledger": ledger,
        "retry": retry,
        "base_url": stage_cfg.base_url,
        "tool_calls": stage_cfg.tool_calls,
        "exchanges": exchanges,
        "context_tokens": context_tokens,
    }
    if provider == "offline":  # no context limit: the offline coder ignores context_tokens
        return RecordingClient(_offline_client(stage_cfg, offline_factory), ledger, exchanges)
    key_env = stage_cfg.api_key_env or DEFAULT_KEY_ENV[provider]
    key = os.environ.get(key_env) or stage_cfg.model_copy(update={"provider": provider}).api_key() or None
    if provider == "openai":
        if key is None and not stage_cfg.base_url:
            raise LLMError(
                f"provider openai (model {stage_cfg.model}) needs an API key in ${key_env}, which is not set "
                "(or set base_url to an OpenAI-compatible server that needs none)"
            )
        from swarm.llm.openai_provider import OpenAIClient

        return OpenAIClient(api_key=key, **common)
    if provider == "anthropic":
        if key is None:
            raise LLMError(
                f"provider anthropic (model {stage_cfg.model}) needs an API key in ${key_env}, which is not set"
            )
        from swarm.llm.anthropic_provider import AnthropicClient

        return AnthropicClient(api_key=key, **common)
    raise LLMError(f"unknown LLM provider {provider!r}; expected auto, openai, anthropic or offline")


def make_stage_clients(
    llm: LLMConfig,
    ledger: UsageLedger | None,
    offline_factory: OfflineFactory | None = None,
    *,
    retry: RetryPolicy | None = None,
    exchanges: ExchangeLog | None = None,
) -> dict[Stage, LLMClient]:
    """One client per stage (`code`, `feedback`, `evolution`), sharing the price table, the ledger and the
    exchange log."""
    stages: dict[Stage, StageLLMConfig] = {
        "code": llm.code,
        "feedback": llm.feedback,
        "evolution": llm.evolution,
    }
    return {
        name: make_client(cfg, llm.prices, ledger, offline_factory, retry=retry, exchanges=exchanges)
        for name, cfg in stages.items()
    }


def _offline_client(stage_cfg: StageLLMConfig, offline_factory: OfflineFactory | None) -> LLMClient:
    """The offline coder, from the caller's factory: this package does not import it (it imports this one)."""
    if offline_factory is None:
        raise LLMError(
            f"no API key is set (${stage_cfg.key_env_name() or 'OPENAI_API_KEY'}) and no offline coder was given "
            "(offline_factory) to stand in for the model"
        )
    return offline_factory(stage_cfg)


class RecordingClient:
    """Wraps a client without its own accounting (the offline coder) so its calls reach the ledger and the
    exchange log too (one record each per call: the text returned, or the arguments for `call_tool`)."""

    def __init__(
        self, inner: LLMClient, ledger: UsageLedger | None, exchanges: ExchangeLog | None = None
    ) -> None:
        self.inner = inner
        self.ledger = ledger
        self.exchanges = exchanges
        self.provider = getattr(inner, "provider", "offline")
        self.model = getattr(inner, "model", "offline")

    def __repr__(self) -> str:
        return f"RecordingClient({self.inner!r})"

    def complete(self, messages: list[Message], ctx: CallContext) -> str:
        return self._run(ctx, "complete", messages, {}, lambda: self.inner.complete(messages, ctx))

    def call_tool(self, messages: list[Message], tool: ToolSpec, ctx: CallContext) -> dict[str, Any]:
        settings = {"tool": tool.name}
        return self._run(ctx, "tool", messages, settings, lambda: self.inner.call_tool(messages, tool, ctx))

    def _run(
        self,
        ctx: CallContext,
        mode: str,
        messages: list[Message],
        settings: dict[str, Any],
        call: Callable[[], Any],
    ) -> Any:
        if self.ledger is not None:
            self.ledger.check_cap()
        start = time.perf_counter()
        try:
            result = call()
        except Exception as exc:
            self._account(ctx, mode, messages, settings, start, None, f"{type(exc).__name__}: {exc}")
            raise
        self._account(ctx, mode, messages, settings, start, result, None)
        return result

    def _account(
        self,
        ctx: CallContext,
        mode: str,
        messages: list[Message],
        settings: dict[str, Any],
        start: float,
        result: Any,
        error: str | None,
    ) -> None:
        """One usage record and one exchange for a call that returned `result` or failed with `error`."""
        latency = round(time.perf_counter() - start, 6)
        if self.ledger is not None:
            self.ledger.record(
                UsageRecord.for_call(
                    ctx,
                    self.provider,
                    self.model,
                    ts=time.time(),
                    mode=mode,
                    attempt=1,
                    prompt_tokens=0,
                    completion_tokens=0,
                    latency_s=latency,
                    cost_usd=0.0,
                    priced=True,
                    ok=error is None,
                    error=error,
                )
            )
        if self.exchanges is not None:
            exchange = Exchange.for_call(
                ctx,
                messages,
                provider=self.provider,
                model=self.model,
                mode=mode,
                attempt=1,
                settings={"model": self.model, **settings},
                reply=result if isinstance(result, str) else None,
                tool_args=result if isinstance(result, dict) else None,
                thinking=thinking_of(result) if isinstance(result, str) else "",
                latency_s=latency,
                ok=error is None,
                error=error,
            )
            self.exchanges.record(exchange, lambda text: redact(text, ()))
