"""The `openai` provider: the openai SDK against OpenAI or any OpenAI-compatible server (vLLM, Ollama, …)."""

from __future__ import annotations

from typing import Any

import openai

from swarm.llm.provider import ProviderClient, RawReply
from swarm.llm.retry import ProviderError
from swarm.llm.structured import Ask, response_format
from swarm.llm.thinking import join_thinking, split_thinking

# Placeholder key for local servers that need none (the SDK refuses an empty key).
NO_KEY = "not-needed"


class OpenAIClient(ProviderClient):
    """Chat Completions with forced function calling (`tool_choice` naming the function), or a JSON-schema
    `response_format` where the server does not honour forced calls (see `structured`)."""

    provider = "openai"
    sdk = openai
    offers_schema = True

    def __init__(self, *, api_key: str | None, base_url: str | None = None, **kwargs: Any) -> None:
        super().__init__(secret=api_key, base_url=base_url, **kwargs)
        self._sdk = openai.OpenAI(
            api_key=api_key or NO_KEY, base_url=base_url, timeout=self.timeout_s, max_retries=0
        )
        self._token_param = "max_tokens"
        self._send_temperature = True

    def _params(self, ask: Ask) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in self._prepared(ask.messages)],
            self._token_param: self._reply_budget(ask),
        }
        if self._send_temperature:
            params["temperature"] = self.temperature
        tool = ask.tool
        if ask.mode == "tool" and tool is not None:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.json_schema(),
                    },
                }
            ]
            params["tool_choice"] = {"type": "function", "function": {"name": tool.name}}
        elif ask.mode == "schema" and tool is not None:
            params["response_format"] = response_format(tool)
        return params

    def _request(self, params: dict[str, Any], ask: Ask) -> RawReply:
        tool = ask.tool
        response = self._sdk.chat.completions.create(**params)
        if not response.choices:
            raise self._error("the reply has no choices", None, retryable=True)
        choice = response.choices[0]
        message = choice.message
        calls = [c for c in (message.tool_calls or []) if getattr(c, "function", None) is not None]
        chosen = next(
            (c for c in calls if tool and c.function.name == tool.name), calls[0] if calls else None
        )
        text, tagged = split_thinking(message.content)
        # vLLM, DeepSeek and llama.cpp put the trace in `reasoning_content`, some servers in `reasoning`
        reasoning = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
        thinking = join_thinking(reasoning if isinstance(reasoning, str) else None, tagged)
        args = chosen.function.arguments if chosen is not None else None
        usage = getattr(response, "usage", None)
        estimated = getattr(usage, "prompt_tokens", None) is None
        if estimated:
            prompt, completion = self._estimated_usage(ask, message.content, thinking, args)
        else:
            prompt, completion = usage.prompt_tokens or 0, getattr(usage, "completion_tokens", None) or 0
        return RawReply(
            text=text if message.content is not None else None,
            tool_called=chosen is not None,
            tool_args=args,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cache_read_tokens=openai_cached_tokens(usage),
            truncated=choice.finish_reason == "length",
            thinking=thinking,
            estimated=estimated,
        )

    def _retrieve_model(self, timeout_s: float) -> None:
        self._sdk.with_options(timeout=timeout_s, max_retries=0).models.retrieve(self.model)

    def _list_models(self, timeout_s: float) -> list[str]:
        sdk = self._sdk.with_options(timeout=timeout_s, max_retries=0)
        return [model.id for model in sdk.models.list()]

    def _adapt(self, error: ProviderError) -> bool:
        text = str(error)
        if error.status == 400 and "max_completion_tokens" in text and self._token_param == "max_tokens":
            self._token_param = "max_completion_tokens"
            return True
        if error.status == 400 and "temperature" in text and self._send_temperature:
            self._send_temperature = False
            return True
        return False


def openai_cached_tokens(usage: Any) -> int:
    """Prompt tokens served from OpenAI's prompt cache (already counted in `prompt_tokens`)."""
    details = getattr(usage, "prompt_tokens_details", None) if usage is not None else None
    return int(getattr(details, "cached_tokens", None) or 0)
