"""Getting a tool's arguments out of a model reply and validating them with the tool's pydantic schema.

Used for real tool calls (arguments arrive as a JSON string or an object) and for the JSON fallback, where a
model without tool calling is asked for a JSON object and may wrap it in code fences or prose. Parsing is
lenient before it judges: the whole text, then fenced blocks, then every object embedded in prose (trailing
text ignored); the last complete object that matches the schema wins.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from swarm.llm.base import Message, ToolSpec

_FENCE_RE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)


class ToolArgsError(ValueError):
    """The model's arguments are not valid JSON or do not match the tool's schema."""


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in `text`: the whole text, a fenced block, or an object embedded in prose."""
    if not text or not text.strip():
        raise ToolArgsError("the reply is empty; a JSON object was expected")
    found = json_objects(text)
    if found:
        return found[0]
    raise ToolArgsError(f"no JSON object found in the reply (starts with {text.strip()[:80]!r})")


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object in `text`, in order: the whole text, fenced blocks, then objects in prose."""
    found: list[dict[str, Any]] = []
    for candidate in (text.strip(), *(block.strip() for block in _FENCE_RE.findall(text))):
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            found.append(value)
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and value not in found:
            found.append(value)
    return found


def parse_tool_text(tool: ToolSpec, text: str) -> dict[str, Any]:
    """Arguments from text that should hold one JSON object: the last complete object that matches the
    schema; ToolArgsError with the first object's problem when none does."""
    objects = json_objects(text or "")
    if not objects:
        extract_json_object(text)  # raises with the reason
    first_error: ToolArgsError | None = None
    for value in reversed(objects):
        try:
            return _validated(tool, value)
        except ToolArgsError as exc:
            first_error = exc
    assert first_error is not None
    raise first_error


def validate_tool_args(tool: ToolSpec, raw: Any) -> dict[str, Any]:
    """Validated arguments from a JSON string or an object; ToolArgsError says what is wrong. A string that is
    not one JSON object (fences, prose around it, trailing text) is searched for one that fits the schema."""
    if isinstance(raw, str):
        if not raw.strip():
            raw = {}
        else:
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError as exc:
                try:
                    return parse_tool_text(tool, raw)
                except ToolArgsError:
                    raise ToolArgsError(f"the arguments of {tool.name} are not valid JSON: {exc}") from None
    return _validated(tool, raw)


def _validated(tool: ToolSpec, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ToolArgsError(f"the arguments of {tool.name} must be a JSON object, got {type(raw).__name__}")
    try:
        return tool.schema.model_validate(raw).model_dump()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
        )
        raise ToolArgsError(f"the arguments of {tool.name} do not match its schema: {problems}") from None


def json_instruction(tool: ToolSpec) -> Message:
    """The user message that asks a model without tool calling for the tool's arguments as JSON."""
    schema = json.dumps(tool.json_schema(), separators=(",", ":"))
    return Message(
        "user",
        f"Reply with the arguments of the function `{tool.name}` ({tool.description}) as ONE JSON object "
        f"matching this JSON schema, and nothing else (no prose, no code fences):\n{schema}",
    )


def repair_messages(previous: str, problem: str, tool: ToolSpec, as_json: bool = False) -> list[Message]:
    """The turns that show a model its invalid arguments and ask once more (`as_json`: for a plain JSON
    object, with the schema, rather than a tool call)."""
    if as_json:
        ask = f"That was not usable: {problem}. " + json_instruction(tool).content
    else:
        ask = (
            f"That was not usable: {problem}. Call `{tool.name}` again with arguments that match its schema "
            "exactly (all required fields, correct types)."
        )
    return [Message("assistant", previous or "(no arguments)"), Message("user", ask)]
