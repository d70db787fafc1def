"""What every real provider shares: retries, usage records, the exchange log, the spend cap, and getting a
tool's arguments the way the endpoint honours.

A provider subclass only turns an `Ask` into SDK request parameters (`_params`), sends them (`_request`) and
turns SDK exceptions into `ProviderError`s (`_classify`). This class wraps each request in tenacity (the SDK's
own retries are off, so every attempt is counted, recorded in the usage ledger and kept in the exchange log),
validates tool arguments with the tool's pydantic schema (one re-ask on invalid ones), and learns which way of
asking for them works (see `structured`): a forced tool call, a JSON-schema `response_format`, or plain JSON.
It also adapts to what an endpoint says it cannot do (see `endpoint_quirks`): a rejected system role is merged
into the first user message, and a model that spends its whole token budget thinking gets a budget with room
for the answer; both are remembered for the rest of the run.
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
    schema_unsupported,
    system_role_rejected,
    tools_unsupported,
)
from swarm.llm.estimate import estimate_prompt_tokens, estimate_tokens
from swarm.llm.exchanges import ExchangeLog, attempt_exchange
from swarm.llm.json_tools import json_instruction, repair_messages
from swarm.llm.prompt_fit import REPLY_FLOOR, margin_tokens
from swarm.llm.retry import ProviderError, RetryPolicy, is_retryable_status, parse_retry_after
from swarm.llm.structured import (
    Ask,
    EndpointFacts,
    Mode,
    Way,
    endpoint_identity,
    fits_schema_exactly,
    ignored_forced_call,
    json_check,
    shown,
    text_check,
    tool_check,
)
from swarm.llm.usage import UsageLedger, UsageRecord

ToolCalls = Literal["auto", "on", "off"]
Check = Callable[["RawReply"], Any]
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


_NO_REPLY = RawReply(text=None, tool_called=False, tool_args=None, prompt_tokens=0, completion_tokens=0)


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
    offers_schema = False  # whether the protocol has a JSON-schema response_format (the `schema` way)

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
        exchanges: ExchangeLog | None = None,
        context_tokens: int | None = None,
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
        self.exchanges = exchanges
        self.context_tokens = context_tokens  # the model's context length, where known (`context_window`)
        self.retry = retry or RetryPolicy()
        self.base_url = base_url
        self._secrets = (secret,) if secret else ()
        self.tool_calls = tool_calls
        self.facts = EndpointFacts()  # what the replies showed this endpoint honours
        self.on_learned: Callable[[], None] | None = None  # told when a fact changes (the run saves them)
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

    def _reply_budget(self, ask: Ask) -> int:
        """The token limit a request sends: `token_budget`, cut to what the context leaves beside the prompt
        (estimated, with a margin) when the context length is known; never below REPLY_FLOOR tokens."""
        if self.context_tokens is None:
            return self.token_budget
        prompt, _ = self._estimated_usage(ask)
        left = self.context_tokens - prompt - margin_tokens(self.context_tokens)
        return max(REPLY_FLOOR, min(self.token_budget, left))

    def complete(self, messages: list[Message], ctx: CallContext) -> str:
        """The model's text reply to `messages` (its thinking trace, if any, in `.thinking`)."""
        _check_messages(messages)
        for _ in range(2):  # an empty reply is recorded as unusable and asked for once more
            budget = self.token_budget
            reply, problem = self._send(ctx, Ask(messages, "complete"), text_check)
            if problem is None:
                return CompletionText.of(reply.text or "", truncated=reply.truncated, thinking=reply.thinking)
            self._note_spent_budget(ctx, budget, reply)
        raise LLMError(f"{self.provider} model {self.model} returned no text twice")

    def call_tool(self, messages: list[Message], tool: ToolSpec, ctx: CallContext) -> dict[str, Any]:
        """The arguments of `tool`, validated by `tool.schema`, asked for the way this endpoint honours.

        The first round uses the way learned so far (`_first_way`); unusable arguments get one repair round,
        in plain JSON (or a JSON schema) unless `tool_calls` is `on` and the model did call the tool."""
        _check_messages(messages)
        convo, way, problem = list(messages), self._first_way(), ""
        for round_number in (1, 2):
            budget = self.token_budget
            reply, result = self._round(convo, tool, ctx, way, instruct=round_number == 1)
            if isinstance(result, dict):
                return result
            problem = result
            if reply.truncated and not reply.tool_called and not (reply.text or "").strip():
                self._note_spent_budget(ctx, budget, reply)
            way = self._repair_way(reply)
            convo = convo + repair_messages(shown(reply), problem, tool, as_json=way != "tool")
        raise LLMError(
            f"{self.provider} model {self.model} gave invalid arguments for {tool.name} twice: {problem}"
        )

    def endpoint_facts(self) -> dict[str, Any]:
        """What this client learned of its endpoint, with the endpoint's identity (no credentials)."""
        with self._lock:
            facts = self.facts.as_dict()
        return {**endpoint_identity(self.provider, self.model, self.base_url), **facts}

    def restore_endpoint_facts(self, saved: Mapping[str, Any]) -> bool:
        """Take facts saved by `endpoint_facts` when they are about this very endpoint; True when taken."""
        identity = endpoint_identity(self.provider, self.model, self.base_url)
        if any(saved.get(key) != value for key, value in identity.items()):
            return False
        with self._lock:
            self.facts = EndpointFacts.from_dict(saved)
        return True

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

    def _params(self, ask: Ask) -> dict[str, Any]:
        """The SDK request's keyword arguments for `ask` (tool forced in `tool` mode, response_format in
        `schema` mode); kept apart from sending so the exchange log can show the settings sent."""
        raise NotImplementedError

    def _request(self, params: dict[str, Any], ask: Ask) -> RawReply:
        """Send one request built by `_params`; raise SDK exceptions unchanged."""
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
        if self.tool_calls != "auto" or self.facts.tools:
            return False
        return error.tools_rejected or error.status in _TOOL_REJECT_STATUS

    def _estimated_usage(self, ask: Ask, *outputs: str | None) -> tuple[int, int]:
        """(prompt, completion) tokens estimated for a reply without `usage` (see `swarm.llm.estimate`)."""
        contents = [m.content for m in self._prepared(ask.messages)]
        tool = ask.sent_tool
        if tool is not None:
            contents.append(json.dumps(tool.json_schema()) + tool.description)
        return estimate_prompt_tokens(contents), sum(estimate_tokens(o) for o in outputs)

    # -- the ways to a tool's arguments ----------------------------------------------------------------------

    def _first_way(self) -> Way:
        """A forced call unless `tool_calls` is off or (auto) the endpoint showed it does not honour one."""
        if self.tool_calls == "on" or (self.tool_calls == "auto" and self.facts.tools is not False):
            return "tool"
        return self._structured_way()

    def _structured_way(self) -> Way:
        """Without tools: a JSON schema where the protocol has one and the endpoint did not refuse it."""
        return "schema" if self.offers_schema and self.facts.schema is not False else "json"

    def _repair_way(self, reply: RawReply) -> Way:
        """The repair round asks in plain JSON (or a schema), which models get right more often; `on` keeps
        a model that did call the tool calling it."""
        return "tool" if self.tool_calls == "on" and reply.tool_called else self._structured_way()

    def _learn(self, **facts: bool) -> None:
        """Record what a reply showed; tell `on_learned` when a fact changed."""
        with self._lock:
            changed = any(getattr(self.facts, name) is not value for name, value in facts.items())
            for name, value in facts.items():
                setattr(self.facts, name, value)
        if changed and self.on_learned is not None:
            self.on_learned()

    def _round(
        self, convo: list[Message], tool: ToolSpec, ctx: CallContext, way: Way, instruct: bool
    ) -> tuple[RawReply, dict[str, Any] | str]:
        """One round of `call_tool`: the reply and its arguments, or why they are unusable."""
        if way != "tool":
            return self._structured_round(convo, tool, ctx, instruct)
        try:
            reply, result = self._send(ctx, Ask(convo, "tool", tool), tool_check(tool))
        except ProviderError as exc:
            if not self._may_drop_tools(exc):
                raise
            reply, result = self._structured_round(convo, tool, ctx, instruct, rejected=exc)
            self._learn(tools=False)  # the same request went through without tools
            return reply, result
        ignored = ignored_forced_call(reply)
        if ignored is not None:  # HTTP 200 without the forced call: tools not honoured
            self._learn(tools=not ignored)
        return reply, result

    def _structured_round(
        self,
        convo: list[Message],
        tool: ToolSpec,
        ctx: CallContext,
        instruct: bool,
        rejected: ProviderError | None = None,
    ) -> tuple[RawReply, dict[str, Any] | str]:
        """Ask for the arguments as JSON, schema-constrained where that way is open; `instruct` adds the
        JSON instruction (a repair turn carries its own). `rejected`: the tool request's error, reported
        instead when this request fails the same way (the request fails with or without tools)."""
        asked = convo + [json_instruction(tool)] if instruct else convo
        try:
            if self._structured_way() == "schema":
                answered = self._schema_round(asked, tool, ctx)
                if answered is not None:
                    return answered
            return self._send(ctx, Ask(asked, "json", tool), json_check(tool))
        except ProviderError as exc:
            if rejected is not None and exc.status == rejected.status:
                raise rejected from None
            raise

    def _schema_round(
        self, asked: list[Message], tool: ToolSpec, ctx: CallContext
    ) -> tuple[RawReply, dict[str, Any] | str] | None:
        """A schema-constrained request; None when the endpoint refused response_format (learned)."""
        try:
            reply, result = self._send(ctx, Ask(asked, "schema", tool), json_check(tool))
        except ProviderError as exc:
            if not exc.schema_rejected:
                raise
            self._learn(schema=False)
            return None
        if not reply.tool_called and not reply.truncated:  # prose or loose JSON: the schema was ignored
            self._learn(schema=fits_schema_exactly(tool, reply.text))
        return reply, result

    def _note_spent_budget(self, ctx: CallContext, budget: int, reply: RawReply) -> None:
        """A reply that stopped at the limit without an answer: the retry gets room for the answer, and a
        model that already had it raises TokenBudgetSpent naming the setting to raise."""
        if not reply.truncated:
            return
        if self._reasoning:
            spent = " on thinking" if reply.thinking or reply.completion_tokens else ""
            raise TokenBudgetSpent(
                f"{self.provider} model {self.model} returned no text: it spent its whole token budget "
                f"({budget} tokens){spent} and stopped at the limit before answering; raise "
                f"llm.{ctx.stage}.max_tokens (now {self.max_tokens})"
            )
        self._reasoning = True

    # -- shared machinery -----------------------------------------------------------------------------------

    def _send(self, ctx: CallContext, ask: Ask, check: Check) -> tuple[RawReply, Any]:
        """Send `ask` with retries; record every attempt; return the reply and `check(reply)`.

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
                        return self._attempt(ctx, ask, check, attempt.retry_state.attempt_number)
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

    def _attempt(self, ctx: CallContext, ask: Ask, check: Check, number: int) -> tuple[RawReply, Any]:
        """One request: the usage ledger and the exchange log get a record whatever its outcome."""
        if self.ledger is not None:
            self.ledger.check_cap()
        params: dict[str, Any] = {}
        start = time.perf_counter()
        try:
            params = self._params(ask)
            reply = self._request(params, ask)
        except SpendCapReached:
            raise
        except Exception as exc:  # noqa: BLE001 - classified below; unknown ones re-raised as LLMError
            latency = time.perf_counter() - start
            error = self._failure(exc, ask.mode)
            self._record(ctx, ask.mode, number, latency, None, str(error), error.status)
            self._keep(ctx, ask, params, number, latency, None, str(error))
            raise error from None
        latency = time.perf_counter() - start
        result = check(reply)
        problem = f"unusable reply: {result}" if isinstance(result, str) else None
        self._record(ctx, ask.mode, number, latency, reply, problem)
        self._keep(ctx, ask, params, number, latency, reply, problem)
        return reply, result

    def _failure(self, exc: Exception, mode: Mode) -> ProviderError:
        """The ProviderError for a failed request, marked when it says tools or a schema are not taken
        (retrying the same request cannot help then)."""
        error = self._classify(exc)
        if error is None:
            error = ProviderError(
                f"{self.provider} model {self.model}: unexpected {type(exc).__name__}: "
                f"{redact(str(exc), self._secrets)}",
                provider=self.provider,
                model=self.model,
            )
        if mode == "tool" and self.tool_calls == "auto" and error.status and tools_unsupported(str(error)):
            error.retryable, error.tools_rejected = False, True
        if mode == "schema" and schema_unsupported(error.status, str(error)):
            error.retryable, error.schema_rejected = False, True
        return error

    def _keep(
        self,
        ctx: CallContext,
        ask: Ask,
        params: dict[str, Any],
        number: int,
        latency: float,
        reply: RawReply | None,
        error: str | None,
    ) -> None:
        """Append the attempt to the exchange log, every text redacted."""
        if self.exchanges is None:
            return
        exchange = attempt_exchange(
            ctx,
            Ask(self._prepared(ask.messages), ask.mode, ask.tool),
            params,
            provider=self.provider,
            model=self.model,
            base_url=self.base_url,
            attempt=number,
            latency_s=latency,
            reply=reply,
            error=error,
        )
        self.exchanges.record(exchange, lambda text: redact(text, self._secrets))

    def _record(
        self,
        ctx: CallContext,
        mode: Mode,
        number: int,
        latency: float,
        reply: RawReply | None,
        error: str | None = None,
        status: int | None = None,
    ) -> None:
        """One usage record for an attempt: `reply` None when the request failed, `error` when it failed or
        its reply was unusable."""
        if self.ledger is None:
            return
        got = reply or _NO_REPLY
        self.ledger.record(
            UsageRecord.priced_call(
                ctx,
                self.provider,
                self.model,
                self.prices,
                ts=time.time(),
                mode=mode,
                attempt=number,
                prompt_tokens=got.prompt_tokens,
                completion_tokens=got.completion_tokens,
                latency_s=round(latency, 6),
                ok=error is None,
                error=redact(error, self._secrets) if error else None,
                status=status,
                cache_read_tokens=got.cache_read_tokens,
                cache_creation_tokens=got.cache_creation_tokens,
                estimated=got.estimated,
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
