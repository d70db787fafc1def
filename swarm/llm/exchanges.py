"""Every model exchange of a run, kept where people look: the request sent and the raw reply received.

The usage ledger keeps what a call cost; this log keeps what was said. Each attempt at a model call (code,
each review round, evolution) appends one JSON line to `exchanges/<node id>.jsonl` in the run dir (calls that
belong to no node, such as agent evolution, to `exchanges/run.jsonl`): the messages, the settings sent (model,
endpoint, temperature, token limit, how structured output was asked for), the reply's text, tool arguments and
thinking trace, tokens, seconds, and the error of a failed attempt. API keys never reach it: every text is
passed through the client's redaction before it is written.

A reply with no code, or a review the rules overruled, can then be read in the run dir, in the report and in
the Prefect UI, instead of being lost to a cache.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from swarm.config import redact_url
from swarm.llm.base import CallContext, Message
from swarm.llm.structured import Ask

EXCHANGES_DIR = "exchanges"
RUN_LEVEL = "run"  # the file of calls attributed to no node
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Exchange:
    """One attempt at a model call: what was sent and what came back."""

    stage: str
    kind: str
    node_id: str | None
    epoch: int | None
    agent_id: str | None
    provider: str
    model: str
    mode: str  # complete, tool, schema, json
    attempt: int
    messages: list[dict[str, str]]
    settings: dict[str, Any] = field(default_factory=dict)
    reply: str | None = None  # the reply's text as received (None: no reply, e.g. an HTTP error)
    tool_args: Any = None  # the arguments of a tool call, as received
    thinking: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    ok: bool = True
    error: str | None = None
    truncated: bool = False
    ts: float = field(default_factory=time.time)

    @classmethod
    def for_call(cls, ctx: CallContext, messages: list[Message], **fields: Any) -> Exchange:
        """An exchange attributed from `ctx` (hints are never copied: they are not sent to any model)."""
        return cls(
            stage=ctx.stage,
            kind=ctx.kind,
            node_id=ctx.node_id,
            epoch=ctx.epoch,
            agent_id=ctx.agent_id,
            messages=[{"role": m.role, "content": m.content} for m in messages],
            **fields,
        )


def attempt_exchange(
    ctx: CallContext,
    ask: Ask,
    params: dict[str, Any],
    *,
    provider: str,
    model: str,
    base_url: str | None,
    attempt: int,
    latency_s: float,
    reply: Any,
    error: str | None,
) -> Exchange:
    """The exchange of one provider attempt: `ask` as sent, the settings read from the SDK `params`, and
    `reply` (a `provider.RawReply`; None when the request failed)."""
    got: dict[str, Any] = {}
    if reply is not None:
        got = {
            "reply": reply.text,
            "tool_args": reply.tool_args,
            "thinking": reply.thinking,
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "truncated": reply.truncated,
        }
    return Exchange.for_call(
        ctx,
        ask.messages,
        provider=provider,
        model=model,
        mode=ask.mode,
        attempt=attempt,
        settings=sent_settings(params, ask, model, base_url),
        latency_s=round(latency_s, 6),
        ok=error is None,
        error=error,
        **got,
    )


def sent_settings(params: dict[str, Any], ask: Ask, model: str, base_url: str | None) -> dict[str, Any]:
    """The settings an attempt sent: model, endpoint (credentials redacted), temperature and token limit as
    sent, and how a structured answer was asked for (a forced tool, or a JSON-schema response_format)."""
    settings: dict[str, Any] = {"model": model}
    if base_url:
        settings["base_url"] = redact_url(base_url)
    sent = {**(params.get("extra_body") or {}), **params}
    for key in ("temperature", "max_tokens", "max_completion_tokens"):
        if key in sent:
            settings[key] = sent[key]
    if ask.mode == "tool" and ask.tool is not None:
        settings["tool"], settings["tool_choice"] = ask.tool.name, "forced"
    elif ask.mode == "schema" and ask.tool is not None:
        settings["tool"], settings["response_format"] = ask.tool.name, "json_schema"
    return settings


class ExchangeLog:
    """Appends exchanges to one JSON-lines file per node under `<run dir>/exchanges/` (thread-safe)."""

    def __init__(self, run_root: Path) -> None:
        self.dir = Path(run_root) / EXCHANGES_DIR
        self._lock = threading.Lock()

    def record(self, exchange: Exchange, redact: Callable[[str], str] = str) -> None:
        """Append `exchange`, every text in it passed through `redact` first. A file that cannot be written
        is logged, not raised: keeping the exchange must not fail the model call it records."""
        line = redact(json.dumps(asdict(exchange), ensure_ascii=False, default=str))
        path = exchanges_path(self.dir.parent, exchange.node_id)
        try:
            with self._lock:
                path.parent.mkdir(parents=True, exist_ok=True)
                with path.open("a", encoding="utf-8") as handle:
                    handle.write(line + "\n")
        except OSError as exc:
            log.warning("could not keep a model exchange in %s: %s", path, exc)


def exchanges_path(run_root: Path, node_id: str | None) -> Path:
    """The file holding the exchanges of `node_id` (None: the run's own calls)."""
    name = _SAFE_NAME.sub("_", node_id) if node_id else RUN_LEVEL
    return Path(run_root) / EXCHANGES_DIR / f"{name}.jsonl"


def read_exchanges(run_root: Path, node_id: str | None) -> list[dict[str, Any]]:
    """The exchanges kept for `node_id`, oldest first ([] when none were kept; a torn last line is skipped)."""
    path = exchanges_path(run_root, node_id)
    if not path.is_file():
        return []
    kept = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            kept.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a run killed mid-write leaves a torn last line
    return kept
