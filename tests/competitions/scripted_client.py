"""A scripted stand-in for the model that reads a competition's metric: its answers are given, its calls kept."""

from __future__ import annotations

from typing import Any

from swarm.llm.base import CallContext, Message, ToolSpec


class ScriptedClient:
    """An LLMClient whose call_tool answers from a list (an exception is raised) and records the calls."""

    provider = "scripted"
    model = "scripted-1"

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[list[Message], ToolSpec, CallContext]] = []

    def complete(self, messages: list[Message], ctx: CallContext) -> str:
        raise AssertionError("complete is not used")

    def call_tool(self, messages: list[Message], tool: ToolSpec, ctx: CallContext) -> dict[str, Any]:
        self.calls.append((messages, tool, ctx))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer
