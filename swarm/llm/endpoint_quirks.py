"""Recognising what an endpoint said it cannot do, and adapting requests to it.

- `system_role_rejected`: the model takes no system message (e.g. `'messages[0].role' does not support
  'system' with this model`); `merge_system` folds system text into the first user message.
- `tools_unsupported`: the endpoint cannot call tools (llama.cpp without `--jinja`: HTTP 500 `tools param
  requires --jinja flag`; Ollama: `does not support tools`; vLLM: `tool choice requires
  --enable-auto-tool-choice`), whatever the status.
- `schema_unsupported`: the endpoint rejects a JSON-schema `response_format` (OpenAI: `'response_format' of
  type 'json_schema' is not supported with this model`): a 4xx naming it, or any status saying it cannot.
- `is_reasoning_model`: model families that think before answering and count that against the token limit.
"""

from __future__ import annotations

import re

from swarm.llm.base import Message

_SYSTEM_RE = re.compile(
    r"(does not support|doesn't support|not supported|unsupported|not allowed|invalid)[^.]{0,40}\bsystem\b"
    r"|\bsystem\b[^.]{0,40}(not supported|unsupported|not allowed|is not permitted)",
    re.IGNORECASE,
)
_TOOL_WORD_RE = re.compile(
    r"\btools?\b|tool[_ ]?(choice|calls?|use|calling)|function[_ ]?call", re.IGNORECASE
)
_CANNOT_RE = re.compile(
    r"not support|unsupported|doesn't support|requires|not enabled|not available|disabled|not implemented"
    r"|--jinja|--enable-auto-tool-choice|cannot|can't|unknown (field|param)|unrecognized|not allowed",
    re.IGNORECASE,
)
_SCHEMA_WORD_RE = re.compile(
    r"response_format|json_schema|guided[_ ](json|decoding)|structured output|grammar", re.IGNORECASE
)
_REASONING_RE = re.compile(
    r"^o\d(?:$|[-_.:])|gpt-5|gpt-oss|deepseek-r1|deepseek-reasoner|qwq|qwen3|magistral|thinking|reasoning"
    r"|(?:^|[-_/:.])r1(?:$|[-_:.])",
    re.IGNORECASE,
)
_TOO_LARGE_RE = re.compile(
    r"maximum context length|context (length|window)|max_(completion_)?tokens[^.]{0,60}"
    r"(too large|exceed|must be (less|at most)|greater than)|max_tokens: \d+ >",
    re.IGNORECASE,
)
# Extra tokens a reasoning model gets on top of `max_tokens`, so its thinking leaves room for the answer.
REASONING_ALLOWANCE = 16384


def system_role_rejected(message: str) -> bool:
    """Whether an error message says the model takes no system role."""
    return bool(_SYSTEM_RE.search(message)) and "role" in message.lower() or "system role" in message.lower()


def tools_unsupported(message: str) -> bool:
    """Whether an error message says the endpoint cannot take tools / tool choice."""
    return bool(_TOOL_WORD_RE.search(message)) and bool(_CANNOT_RE.search(message))


def schema_unsupported(status: int | None, message: str) -> bool:
    """Whether an error answering a `response_format` request says the endpoint cannot take it: a
    non-transient 4xx naming it, or any status naming it with words that say it cannot."""
    if status is None or not _SCHEMA_WORD_RE.search(message):
        return False
    return (400 <= status < 500 and status not in (408, 409, 429)) or bool(_CANNOT_RE.search(message))


def budget_too_large(message: str) -> bool:
    """Whether an error message says the requested token budget does not fit the model's context."""
    return bool(_TOO_LARGE_RE.search(message))


def is_reasoning_model(model: str) -> bool:
    """Whether `model` (its name after any `org/` prefix) is of a known thinking family (Qwen3's Instruct
    and Coder models do not think)."""
    name = model.rsplit("/", 1)[-1].lower()
    if "qwen3" in name and re.search(r"instruct|coder", name):
        return False
    return bool(_REASONING_RE.search(name))


def merge_system(messages: list[Message]) -> list[Message]:
    """The messages with every system message folded into the first user message (or made one)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    rest = [m for m in messages if m.role != "system"]
    if not system:
        return rest
    for i, message in enumerate(rest):
        if message.role == "user":
            return [*rest[:i], Message("user", f"{system}\n\n{message.content}"), *rest[i + 1 :]]
    return [Message("user", system), *rest]
