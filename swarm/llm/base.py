"""The one small interface every stage uses to talk to a model.

`complete(messages, ctx) -> str` returns the model's text (a `CompletionText` that says whether the token
limit cut it off, from clients that know); `call_tool(messages, tool, ctx) -> dict` forces one function call
and returns its validated arguments. `CallContext` attributes a call (run, epoch, node, agent, stage) and
carries structured `hints` that real models ignore and the offline coder relies on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

Role = Literal["system", "user", "assistant"]
Stage = Literal["code", "feedback", "evolution"]
RequestKind = Literal[
    "draft",
    "improve",
    "debug",
    "merge",
    "mutate",
    "review",
    "evolve_role",
    "evolve_strategy",
    "metric",
    "other",
]


class LLMError(RuntimeError):
    """A model call failed for good (after retries, or on an error that retrying cannot fix)."""


class TokenBudgetSpent(LLMError):
    """The model spent its whole token budget (thinking) without answering; retrying the same call cannot
    help: the message names the `max_tokens` setting to raise."""


class SpendCapReached(LLMError):
    """The run's spend cap is reached; the run should stop cleanly after the current step."""


class CompletionText(str):
    """A model's text reply that knows whether it was cut off at the token limit (`truncated`), and the
    thinking trace the model wrote before its answer (`thinking`, not part of the text).

    It is a `str`, so callers that do not care see plain text; clients without the information return `str`.
    """

    truncated: bool = False
    thinking: str = ""

    @classmethod
    def of(cls, text: str, truncated: bool = False, thinking: str = "") -> CompletionText:
        value = cls(text)
        value.truncated = truncated
        value.thinking = thinking
        return value


def was_truncated(text: str) -> bool:
    """Whether a `complete` reply was cut off at the token limit (False when the client cannot tell)."""
    return bool(getattr(text, "truncated", False))


def thinking_of(text: str) -> str:
    """The thinking trace a client separated from a `complete` reply ("" when none or unknown)."""
    return str(getattr(text, "thinking", "") or "")


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True)
class ToolSpec:
    """A function the model is forced to call; `schema` validates (and describes) its arguments."""

    name: str
    description: str
    schema: type[BaseModel]

    def json_schema(self) -> dict[str, Any]:
        return self.schema.model_json_schema()


@dataclass
class CallContext:
    """Who makes a call and why. `hints` holds structured facts for the offline coder, e.g.
    `competition_dir`, `data_preview`, `parent_code`, `parent_codes`, `parent_output`, `gene`, `crossover_plan`,
    `current_text`, `elite_text`; real providers never send hints anywhere."""

    stage: Stage
    kind: RequestKind = "other"
    run_id: str | None = None
    epoch: int | None = None
    node_id: str | None = None
    agent_id: str | None = None
    hints: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class LLMClient(Protocol):
    """A model behind one stage's configuration."""

    provider: str
    model: str

    def complete(self, messages: list[Message], ctx: CallContext) -> str: ...

    def call_tool(self, messages: list[Message], tool: ToolSpec, ctx: CallContext) -> dict[str, Any]: ...
