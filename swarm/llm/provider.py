"""What every real provider shares: retries, usage records, the spend cap, tool-call validation and fallback.

A provider subclass only turns messages into one SDK request (`_request`) and SDK exceptions into
`ProviderError`s (`_classify`). This class wraps each request in tenacity (the SDK's own retries are off, so
every attempt is counted and recorded), validates tool arguments with the tool's pydantic schema (one re-ask,
in plain JSON, on invalid ones), and falls back to asking for JSON when the endpoint rejects tools or replies
without a call. It also adapts to what an endpoint says it cannot do (see `endpoint_quirks`): a rejected
system role is merged into the first user message, and a model that spends its whole token budget thinking
gets a budget with room for the answer; both are remembered for the rest of the run.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tenacity import Retrying, retry_if_exception, stop_after_attempt

from swarm.config import ModelPrice
from swarm.llm.base import (
    CallContext,
    CompletionText,
    LLMError,
    Message,
    SpendCapReached,
    TokenBudgetSpent,
    ToolSpec,
)
from swarm.llm.endpoint_quirks import (
    REASONING_ALLOWANCE,
    budget_too_large,
    is_reasoning_model,
    merge_system,
    system_role_rejected,
    tools_unsupported,
)
from swarm.llm.estimate import estimate_prompt_tokens, estimate_tokens
from swarm.llm.json_tools import (
    ToolArgsError,
    json_instruction,
    parse_tool_text,
    repair_messages,
    validate_tool_args,
)
from swarm.llm.prompt_fit import REPLY_FLOOR, margin_tokens
from swarm.llm.retry import ProviderError, RetryPolicy, is_retryable_status, parse_retry_after
from swarm.llm.usage import UsageLedger, UsageRecord, cost_usd

Mode = Literal["complete", "tool", "json"]
ToolCalls = Literal["auto", "on", "off"]
# Statuses with which an endpoint may reject a request only because it carries tools.
_TOOL_REJECT_STATUS = frozenset({400, 404, 422, 501})
_KEYLIKE_RE = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{6,}|sk-ant-[A-Za-z0-9_\-*]{6,})")


@dataclass(frozen=True)
class RawReply:
    """One provider reply, reduced to what the client needs. `prompt_tokens` includes the cache tokens."""

    text: str | None
    tool_called: bool
    tool_args: Any
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    truncated: bool = False  # the reply stopped at the token limit
    thinking: str = ""  # the model's thinking trace, kept apart from `text`
    estimated: bool = False  # the endpoint reported no usage: the token counts are estimates


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with every secret and anything shaped like an API key replaced by [redacted]."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return _KEYLIKE_RE.sub("[redacted]", text)


class ProviderClient:
    """Base of the openai and anthropic clients; implements the `LLMClient` protocol."""

    provider = "base"
    sdk: Any = None  # the SDK module (openai, anthropic) whose exceptions `_classify` maps
    context_tokens: int | None = None  # the model's context length, where known (`swarm.llm.context_window`)

    def __init__(
        self,
        *,
        model: str,
        temperature: float,
        max_tokens: int,
        timeout_s: float,
        max_retries: int,
        prices: Mapping[str, ModelPrice] | None = None,
        ledger: UsageLedger | None = None,
        retry: RetryPolicy | None = None,
        secret: str | None = None,
        base_url: str | None = None,
        tool_calls: ToolCalls = "auto",
    ) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.prices = dict(prices or {})
        self.ledger = ledger
        self.retry = retry or RetryPolicy()
        self.base_url = base_url
        self._secrets = (secret,) if secret else ()
        self.tool_calls = tool_calls
        self._tools_supported: bool | None = False if tool_calls == "off" else None  # None: not known yet
        self._merge_system = False  # the model rejected the system role
        self._reasoning = is_reasoning_model(model)  # it thinks first: its budget leaves room for the answer
        self._allowance = REASONING_ALLOWANCE  # shrunk when the server says the budget exceeds its context
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        where = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"{type(self).__name__}(provider={self.provider!r}, model={self.model!r}{where})"

    # -- the LLMClient protocol -----------------------------------------------------------------------------

    @property
    def token_budget(self) -> int:
        """The token limit sent: `max_tokens`, plus the reasoning allowance for a model that thinks first."""
        return self.max_tokens + (self._allowance if self._reasoning else 0)

    def _reply_budget(self, messages: list[Message], tool: ToolSpec | None = None) -> int:
        """The token limit a request sends: `token_budget`, cut to what the context leaves beside the prompt
        (estimated, with a margin) when the context length is known; never below REPLY_FLOOR tokens."""
        if self.context_tokens is None:
            return self.token_budget
        prompt, _ = self._estimated_usage(messages, tool)
        left = self.context_tokens - prompt - margin_tokens(self.context_tokens)
        return max(REPLY_FLOOR, min(self.token_budget, left))

    def complete(self, messages: list[Message], ctx: CallContext) -> str:
        """The model's text reply to `messages` (its thinking trace, if any, in `.thinking`)."""
        _check_messages(messages)
        for _ in range(2):  # an empty reply is recorded as unusable and asked for once more
            budget = self.token_budget
            reply, problem = self._send(
                ctx, "complete", lambda: self._request(messages, None), check=_check_text
            )
            if problem is None:
                return CompletionText.of(reply.text or "", truncated=reply.truncated, thinking=reply.thinking)
            if reply.truncated:
                if self._reasoning:
                    raise TokenBudgetSpent(self._budget_spent(ctx, budget, reply))
                self._reasoning = True  # it thought until the limit: the retry leaves room for the answer
        raise LLMError(f"{self.provider} model {self.model} returned no text twice")

    def _budget_spent(self, ctx: CallContext, budget: int, reply: RawReply) -> str:
        spent = " on thinking" if reply.thinking or reply.completion_tokens else ""
        return (
            f"{self.provider} model {self.model} returned no text: it spent its whole token budget ({budget} "
            f"tokens){spent} and stopped at the limit before answering; raise llm.{ctx.stage}.max_tokens "
            f"(now {self.max_tokens})"
        )

    def call_tool(self, messages: list[Message], tool: ToolSpec, ctx: CallContext) -> dict[str, Any]:
        """Force one call of `tool`; return its arguments validated by `tool.schema`."""
        _check_messages(messages)
        convo = list(messages)
        use_json = self._tools_supported is False
        problem = ""
        for round_number in (1, 2):
            instruct = round_number == 1  # a repair turn asking for JSON carries the instruction itself
            budget = self.token_budget
            if not use_json:
                try:
                    reply, result = self._send(
                        ctx, "tool", lambda c=convo: self._request(c, tool), check=_tool_check(tool)
                    )
                except ProviderError as exc:
                    if not self._may_drop_tools(exc):
                        raise
                    use_json = True  # the endpoint rejects tool calling: ask for JSON instead
                    reply, result = self._json_round(convo, tool, ctx, rejected=exc, instruct=instruct)
                if reply.tool_called:
                    self._tools_supported = True
            else:
                reply, result = self._json_round(convo, tool, ctx, instruct=instruct)
            if isinstance(result, dict):
                return result
            problem = result
            if reply.truncated and not reply.tool_called and not (reply.text or "").strip():
                if self._reasoning:
                    raise TokenBudgetSpent(self._budget_spent(ctx, budget, reply))
                self._reasoning = True  # it thought until the limit: the retry leaves room for the answer
            if round_number == 1:
                if not reply.tool_called or self.tool_calls != "on":
                    use_json = True  # the repair asks for plain JSON, which models get right more often
                convo = convo + repair_messages(_shown(reply), problem, tool, as_json=use_json)
        raise LLMError(
            f"{self.provider} model {self.model} gave invalid arguments for {tool.name} twice: {problem}"
        )

    def model_served(self, timeout_s: float = 15.0) -> tuple[bool | None, list[str]]:
        """Whether the endpoint serves `self.model`, asked of its models endpoint (no tokens are spent).

        (True, []) when it does; (False, served model ids) when it answered 404 for the model and lists
        models without it; (None, []) when it cannot tell: no models endpoint, no connection, access denied.
        """
        try:
            self._retrieve_model(timeout_s)
            return True, []
        except Exception as exc:  # noqa: BLE001 - only a 404 says anything about the model
            if getattr(exc, "status_code", None) != 404:
                return None, []
        try:
            served = self._list_models(timeout_s)
        except Exception:  # noqa: BLE001 - a 404 for the model, but no list: the endpoint may be missing
            return None, []
        return (True, []) if self.model in served else (False, served)

    # -- provider hooks -------------------------------------------------------------------------------------

    def _retrieve_model(self, timeout_s: float) -> None:
        """Look `self.model` up at the models endpoint; raise the SDK's exception when it fails."""
        raise NotImplementedError

    def _list_models(self, timeout_s: float) -> list[str]:
        """The ids of the models the endpoint lists; raise the SDK's exception when it fails."""
        raise NotImplementedError

    def _request(self, messages: list[Message], tool: ToolSpec | None) -> RawReply:
        """Send one request (tool forced when given); raise SDK exceptions unchanged."""
        raise NotImplementedError

    def _classify(self, exc: Exception) -> ProviderError | None:
        """A ProviderError for an SDK exception, or None when `exc` is not a provider failure.

        Both SDKs raise the same three kinds (`sdk` is the subclass's SDK module): timeouts and connection
        failures are retryable, an HTTP status is retryable when `is_retryable_status` says so."""
        if isinstance(exc, ProviderError):
            return exc
        if isinstance(exc, self.sdk.APITimeoutError):
            return self._error(f"timed out after {self.timeout_s:g} s", None, retryable=True)
        if isinstance(exc, self.sdk.APIConnectionError):
            return self._error(f"connection failed: {exc}", None, retryable=True)
        if isinstance(exc, self.sdk.APIStatusError):
            status = exc.status_code
            return self._error(
                f"HTTP {status}: {error_detail(exc)}",
                status,
                retryable=is_retryable_status(status),
                retry_after_s=parse_retry_after(exc.response.headers.get("retry-after")),
            )
        return None

    def _adapt(self, error: ProviderError) -> bool:
        """Change request parameters the endpoint rejected (e.g. `temperature`); True when something changed."""
        return False

    def _adapt_common(self, error: ProviderError) -> bool:
        """Adaptations every provider shares: a rejected system role is merged into the first user turn."""
        if error.status == 400 and not self._merge_system and system_role_rejected(str(error)):
            self._merge_system = True
            return True
        if error.status == 400 and self._reasoning and self._allowance > 0 and budget_too_large(str(error)):
            self._allowance //= 4  # the allowance overflowed the server's context: a smaller one
            return True
        return False

    def _prepared(self, messages: list[Message]) -> list[Message]:
        """The messages as this endpoint takes them (system role merged when it rejected one)."""
        return merge_system(messages) if self._merge_system else messages

    def _may_drop_tools(self, error: ProviderError) -> bool:
        """Whether a failed tool request may be asked again without tools (`tool_calls` auto only)."""
        if self.tool_calls != "auto" or self._tools_supported:
            return False
        return error.tools_rejected or error.status in _TOOL_REJECT_STATUS

    def _estimated_usage(
        self, messages: list[Message], tool: ToolSpec | None, *outputs: str | None
    ) -> tuple[int, int]:
        """(prompt, completion) tokens estimated for a reply without `usage` (see `swarm.llm.estimate`)."""
        contents = [m.content for m in self._prepared(messages)]
        if tool is not None:
            contents.append(json.dumps(tool.json_schema()) + tool.description)
        return estimate_prompt_tokens(contents), sum(estimate_tokens(o) for o in outputs)

    # -- shared machinery -----------------------------------------------------------------------------------

    def _json_round(
        self,
        convo: list[Message],
        tool: ToolSpec,
        ctx: CallContext,
        rejected: ProviderError | None = None,
        instruct: bool = True,
    ) -> tuple[RawReply, dict[str, Any] | str]:
        asked = convo + [json_instruction(tool)] if instruct else convo
        try:
            reply, result = self._send(
                ctx, "json", lambda: self._request(asked, None), check=_json_check(tool)
            )
        except ProviderError as exc:
            if rejected is not None and exc.status == rejected.status:
                raise rejected from None  # the request fails with or without tools: report the original
            raise
        if rejected is not None:
            self._tools_supported = False
        return reply, result

    def _send(
        self, ctx: CallContext, mode: Mode, request: Callable[[], RawReply], check: Callable[[RawReply], Any]
    ) -> tuple[RawReply, Any]:
        """Run `request` with retries; record every attempt; return the reply and `check(reply)`.

        `check` returns a validated result, or a string describing why the reply is unusable (recorded as a
        failed attempt, not retried here).
        """
        attempts = self.max_retries + 1
        retrying = Retrying(
            stop=stop_after_attempt(attempts),
            wait=self.retry.wait,
            retry=retry_if_exception(lambda e: isinstance(e, ProviderError) and e.retryable),
            reraise=True,
        )
        adaptations = 0
        while True:  # reraise=True: tenacity re-raises the last ProviderError once attempts run out
            try:
                for attempt in retrying:
                    with attempt:
                        return self._attempt(ctx, mode, request, check, attempt.retry_state.attempt_number)
            except ProviderError as exc:
                exc.attempts = retrying.statistics.get("attempt_number", 1)
                adaptable = adaptations < 3 and not exc.retryable
                if adaptable and (self._adapt_common(exc) or self._adapt(exc)):
                    adaptations += 1
                    continue
                if exc.retryable:
                    raise ProviderError(
                        f"{exc} (gave up after {exc.attempts} attempts)",
                        provider=exc.provider,
                        model=exc.model,
                        status=exc.status,
                        retryable=True,
                        attempts=exc.attempts,
                    ) from None
                raise

    def _attempt(
        self,
        ctx: CallContext,
        mode: Mode,
        request: Callable[[], RawReply],
        check: Callable[[RawReply], Any],
        number: int,
    ) -> tuple[RawReply, Any]:
        if self.ledger is not None:
            self.ledger.check_cap()
        start = time.perf_counter()
        try:
            reply = request()
        except SpendCapReached:
            raise
        except Exception as exc:  # noqa: BLE001 - classified below; unknown ones re-raised as LLMError
            latency = time.perf_counter() - start
            error = self._classify(exc)
            if error is None:
                error = ProviderError(
                    f"{self.provider} model {self.model}: unexpected {type(exc).__name__}: "
                    f"{redact(str(exc), self._secrets)}",
                    provider=self.provider,
                    model=self.model,
                )
            if (
                mode == "tool"
                and self.tool_calls == "auto"
                and error.status
                and tools_unsupported(str(error))
            ):
                error.retryable, error.tools_rejected = False, True  # retrying with tools cannot help
            self._record(ctx, mode, number, latency, 0, 0, ok=False, error=str(error), status=error.status)
            raise error from None
        latency = time.perf_counter() - start
        result = check(reply)
        problem = result if isinstance(result, str) else None
        self._record(
            ctx,
            mode,
            number,
            latency,
            reply.prompt_tokens,
            reply.completion_tokens,
            ok=problem is None,
            error=f"unusable reply: {problem}" if problem else None,
            cache=(reply.cache_read_tokens, reply.cache_creation_tokens),
            estimated=reply.estimated,
        )
        return reply, result

    def _record(
        self,
        ctx: CallContext,
        mode: Mode,
        number: int,
        latency: float,
        prompt_tokens: int,
        completion_tokens: int,
        *,
        ok: bool,
        error: str | None = None,
        status: int | None = None,
        cache: tuple[int, int] = (0, 0),
        estimated: bool = False,
    ) -> None:
        if self.ledger is None:
            return
        cache_read, cache_creation = cache
        cost, priced = cost_usd(
            self.model,
            prompt_tokens,
            completion_tokens,
            self.prices,
            provider=self.provider,
            cache_read_tokens=cache_read,
            cache_creation_tokens=cache_creation,
        )
        self.ledger.record(
            UsageRecord.for_call(
                ctx,
                self.provider,
                self.model,
                ts=time.time(),
                mode=mode,
                attempt=number,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                latency_s=round(latency, 6),
                cost_usd=cost,
                priced=priced,
                ok=ok,
                error=redact(error, self._secrets) if error else None,
                status=status,
                cache_read_tokens=cache_read,
                cache_creation_tokens=cache_creation,
                estimated=estimated,
            )
        )

    def _error(
        self, what: str, status: int | None, retryable: bool, retry_after_s: float | None = None
    ) -> ProviderError:
        """A ProviderError naming provider and model, with secrets removed from the message."""
        where = f" at {self.base_url}" if self.base_url else ""
        return ProviderError(
            redact(f"{self.provider} model {self.model}{where}: {what}", self._secrets),
            provider=self.provider,
            model=self.model,
            status=status,
            retryable=retryable,
            retry_after_s=retry_after_s,
        )


def error_detail(exc: Exception) -> str:
    """The server's error message from an SDK status error (its JSON body), else the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(getattr(exc, "message", None) or exc)


def _check_messages(messages: list[Message]) -> None:
    if not messages:
        raise ValueError("messages must not be empty")
    for i, message in enumerate(messages):
        if not isinstance(message, Message):
            raise TypeError(f"messages[{i}] must be a swarm.llm.base.Message, got {type(message).__name__}")
        if message.role not in ("system", "user", "assistant"):
            raise ValueError(f"messages[{i}] has unknown role {message.role!r}")


def _check_text(reply: RawReply) -> str | None:
    return "the model returned no text" if not (reply.text or "").strip() else None


def _tool_check(tool: ToolSpec) -> Callable[[RawReply], dict[str, Any] | str]:
    def check(reply: RawReply) -> dict[str, Any] | str:
        try:
            if reply.tool_called:
                return validate_tool_args(tool, reply.tool_args)
            # no tool call: a model that cannot call tools may still have written the JSON as text
            return parse_tool_text(tool, reply.text or "")
        except ToolArgsError as exc:
            if not reply.tool_called:
                return f"the model replied without calling {tool.name} ({exc})"
            return str(exc)

    return check


def _json_check(tool: ToolSpec) -> Callable[[RawReply], dict[str, Any] | str]:
    def check(reply: RawReply) -> dict[str, Any] | str:
        try:
            if reply.tool_called:
                return validate_tool_args(tool, reply.tool_args)
            return parse_tool_text(tool, reply.text or "")
        except ToolArgsError as exc:
            return str(exc)

    return check


def _shown(reply: RawReply) -> str:
    """How an unusable reply is replayed to the model in the repair turn."""
    if reply.tool_called:
        args = reply.tool_args if isinstance(reply.tool_args, str) else json.dumps(reply.tool_args)
        return args[:4000]
    return (reply.text or "")[:4000]
