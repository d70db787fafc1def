"""The three ways to get a tool's arguments from a model, and what an endpoint's replies say about them.

- `tool`: a forced function call (`tool_choice` naming the function). Most servers honour it; llama.cpp's
  `llama-server` (measured with build 11434) takes only a string `tool_choice`, logs a type error for the
  object form, falls back to `auto` and answers HTTP 200 with prose and no call: nothing says it was ignored.
- `schema`: a JSON-schema `response_format` (OpenAI protocol only), which llama.cpp, vLLM, Ollama, SGLang and
  OpenAI turn into grammar-constrained output; the JSON instruction is sent too, so a server that ignores
  `response_format` is still asked for JSON in words.
- `json`: the JSON instruction alone (`json_tools.json_instruction`), read leniently.

`EndpointFacts` holds what one client (one stage of one run) learned: whether forced calls are honoured
(`tools`) and whether schema requests come back as JSON that fits the schema (`schema`); None until a reply
says. The client chooses its way from them (see `ProviderClient.call_tool`), so once learned a call costs one
request. The checks here judge a reply for each way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from swarm.config import redact_url
from swarm.llm.base import Message, ToolSpec
from swarm.llm.json_tools import ToolArgsError, parse_tool_text, validate_tool_args

Mode = Literal["complete", "tool", "schema", "json"]
Way = Literal["tool", "schema", "json"]
FACT_NAMES = ("tools", "schema")


class ReplyLike(Protocol):
    """What the checks read of a provider's reply (`provider.RawReply`)."""

    text: str | None
    tool_called: bool
    tool_args: Any
    truncated: bool


@dataclass(frozen=True)
class Ask:
    """One request as the client means it: the messages, how the answer is asked for, and the tool."""

    messages: list[Message]
    mode: Mode
    tool: ToolSpec | None = None

    @property
    def sent_tool(self) -> ToolSpec | None:
        """The tool whose schema travels with the request (as a tool or a response_format), else None."""
        return self.tool if self.mode in ("tool", "schema") else None


@dataclass
class EndpointFacts:
    """What an endpoint's replies showed: True honoured, False not, None not known yet."""

    tools: bool | None = None  # a forced tool call comes back as that call
    schema: bool | None = None  # a json_schema response_format comes back as JSON that fits the schema

    def as_dict(self) -> dict[str, bool | None]:
        return {name: getattr(self, name) for name in FACT_NAMES}

    @classmethod
    def from_dict(cls, saved: Mapping[str, Any]) -> EndpointFacts:
        """The facts in `saved`; anything but True, False or None reads as not known."""
        return cls(**{name: _fact(saved.get(name)) for name in FACT_NAMES})

    @property
    def known(self) -> bool:
        """Whether any fact was learned."""
        return any(value is not None for value in self.as_dict().values())


def endpoint_identity(provider: str, model: str, base_url: str | None) -> dict[str, str | None]:
    """Who the facts are about; a saved fact is trusted only for the same identity. The URL is redacted,
    since a base_url may carry credentials."""
    return {"provider": provider, "model": model, "base_url": redact_url(base_url) if base_url else None}


def response_format(tool: ToolSpec) -> dict[str, Any]:
    """The OpenAI-protocol `response_format` asking for the tool's arguments as schema-constrained JSON."""
    return {"type": "json_schema", "json_schema": {"name": tool.name, "schema": tool.json_schema()}}


def fits_schema_exactly(tool: ToolSpec, text: str | None) -> bool:
    """Whether `text` is one JSON object, nothing around it, that fits the tool's schema: what a server that
    constrains its output to the schema sends (leniently parsed text is usable, but shows no constraint)."""
    try:
        value = json.loads((text or "").strip())
        validate_tool_args(tool, value if isinstance(value, dict) else None)
    except (json.JSONDecodeError, ToolArgsError):
        return False
    return True


def ignored_forced_call(reply: ReplyLike) -> bool | None:
    """What a reply to a forced tool call says of the endpoint: True when it ignored the forced call (HTTP 200
    without a call: prose, or JSON written as text), False when it called the tool, None when it cannot tell
    (cut off at the limit with nothing written, or with the start of a JSON object that may be the call
    written as text). Prose cut off at the limit tells: a server that forces the call would have begun one."""
    if reply.tool_called:
        return False
    if not reply.truncated:
        return True
    head = (reply.text or "").lstrip()
    if head.startswith("```"):  # a fence: what counts is what it holds
        head = head.partition("\n")[2].lstrip()
    return None if not head or head.startswith("{") else True


def text_check(reply: ReplyLike) -> str | None:
    """A `complete` reply's problem: none unless it holds no text."""
    return "the model returned no text" if not (reply.text or "").strip() else None


def tool_check(tool: ToolSpec) -> Callable[[ReplyLike], dict[str, Any] | str]:
    """The arguments of a forced call, or the JSON a model that did not call wrote instead; else the problem."""

    def check(reply: ReplyLike) -> dict[str, Any] | str:
        try:
            return _arguments(tool, reply)
        except ToolArgsError as exc:
            if not reply.tool_called:
                return f"the model replied without calling {tool.name} ({exc})"
            return str(exc)

    return check


def json_check(tool: ToolSpec) -> Callable[[ReplyLike], dict[str, Any] | str]:
    """The arguments written as JSON (schema and json ways), or the problem."""

    def check(reply: ReplyLike) -> dict[str, Any] | str:
        try:
            return _arguments(tool, reply)
        except ToolArgsError as exc:
            return str(exc)

    return check


def shown(reply: ReplyLike) -> str:
    """How an unusable reply is replayed to the model in the repair turn."""
    if reply.tool_called:
        args = reply.tool_args if isinstance(reply.tool_args, str) else json.dumps(reply.tool_args)
        return args[:4000]
    return (reply.text or "")[:4000]


def _arguments(tool: ToolSpec, reply: ReplyLike) -> dict[str, Any]:
    if reply.tool_called:
        return validate_tool_args(tool, reply.tool_args)
    return parse_tool_text(tool, reply.text or "")


def _fact(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None
