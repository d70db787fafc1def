"""The `anthropic` provider: the Messages API with `system=` and forced tool use."""

from __future__ import annotations

import json
from typing import Any

import anthropic

from swarm.llm.base import Message
from swarm.llm.provider import ProviderClient, RawReply
from swarm.llm.retry import ProviderError
from swarm.llm.structured import Ask
from swarm.llm.thinking import join_thinking, split_thinking


class AnthropicClient(ProviderClient):
    """Claude models; tool use is forced with `tool_choice={"type": "tool", "name": ...}` (the Messages API
    has no JSON-schema response_format, so there is no `schema` way: plain JSON where tools fail)."""

    provider = "anthropic"
    sdk = anthropic

    def __init__(self, *, api_key: str, base_url: str | None = None, **kwargs: Any) -> None:
        super().__init__(secret=api_key, base_url=base_url, **kwargs)
        self._sdk = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, timeout=self.timeout_s, max_retries=0
        )
        self._send_temperature = True

    def _params(self, ask: Ask) -> dict[str, Any]:
        system, turns = to_anthropic_messages(self._prepared(ask.messages))
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self._reply_budget(ask),
            "messages": turns,
        }
        if system:
            params["system"] = system
        if self._send_temperature:
            # newer SDKs dropped the keyword; the API still takes the field for the models that support it
            params["extra_body"] = {"temperature": self.temperature}
        tool = ask.tool
        if ask.mode == "tool" and tool is not None:
            params["tools"] = [
                {"name": tool.name, "description": tool.description, "input_schema": tool.json_schema()}
            ]
            params["tool_choice"] = {"type": "tool", "name": tool.name}
        return params

    def _request(self, params: dict[str, Any], ask: Ask) -> RawReply:
        tool = ask.tool
        response = self._sdk.messages.create(**params)
        blocks = list(response.content or [])
        texts = [block.text for block in blocks if getattr(block, "type", None) == "text"]
        thoughts = [getattr(b, "thinking", "") for b in blocks if getattr(b, "type", None) == "thinking"]
        uses = [block for block in blocks if getattr(block, "type", None) == "tool_use"]
        chosen = next((u for u in uses if tool and u.name == tool.name), uses[0] if uses else None)
        raw_text = "".join(texts) if texts else None
        text, tagged = split_thinking(raw_text)
        thinking = join_thinking(*thoughts, tagged)
        usage = getattr(response, "usage", None)
        prompt, cache_read, cache_creation = anthropic_input_tokens(usage)
        completion = getattr(usage, "output_tokens", None) or 0
        estimated = usage is None or getattr(usage, "input_tokens", None) is None
        if estimated:
            args = chosen.input if chosen is not None else None
            shown = args if isinstance(args, str) or args is None else json.dumps(args)
            prompt, completion = self._estimated_usage(ask, raw_text, thinking, shown)
        return RawReply(
            text=text if raw_text is not None else None,
            tool_called=chosen is not None,
            tool_args=chosen.input if chosen is not None else None,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cache_read_tokens=cache_read,
            cache_creation_tokens=cache_creation,
            truncated=response.stop_reason == "max_tokens",
            thinking=thinking,
            estimated=estimated,
        )

    def _retrieve_model(self, timeout_s: float) -> None:
        self._sdk.with_options(timeout=timeout_s, max_retries=0).models.retrieve(self.model)

    def _list_models(self, timeout_s: float) -> list[str]:
        sdk = self._sdk.with_options(timeout=timeout_s, max_retries=0)
        return [model.id for model in sdk.models.list(limit=1000)]

    def _adapt(self, error: ProviderError) -> bool:
        if error.status == 400 and "temperature" in str(error) and self._send_temperature:
            self._send_temperature = False
            return True
        return False


def anthropic_input_tokens(usage: Any) -> tuple[int, int, int]:
    """(all input tokens, cache reads, cache writes): Anthropic's `input_tokens` excludes the cache ones."""
    if usage is None:
        return 0, 0, 0
    uncached = getattr(usage, "input_tokens", None) or 0
    read = getattr(usage, "cache_read_input_tokens", None) or 0
    written = getattr(usage, "cache_creation_input_tokens", None) or 0
    return uncached + read + written, read, written


def to_anthropic_messages(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """(system prompt, alternating user/assistant turns); system messages are joined, same-role turns merged."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if turns and turns[-1]["role"] == message.role:
            turns[-1]["content"] += "\n\n" + message.content
        else:
            turns.append({"role": message.role, "content": message.content})
    if not turns:
        raise ValueError("an Anthropic request needs at least one user or assistant message")
    if turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": "(continue)"})
    return system, turns
