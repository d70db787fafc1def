"""Units behind the endpoint adaptations: thinking traces, error messages, reasoning families, estimates,
lenient JSON."""

from __future__ import annotations

import pytest

from swarm.llm.base import Message
from swarm.llm.endpoint_quirks import (
    budget_too_large,
    is_reasoning_model,
    merge_system,
    schema_unsupported,
    system_role_rejected,
    tools_unsupported,
)
from swarm.llm.estimate import CHARS_PER_TOKEN, estimate_prompt_tokens, estimate_tokens
from swarm.llm.json_tools import ToolArgsError, parse_tool_text, validate_tool_args
from swarm.llm.thinking import split_thinking

from .conftest import PLAN_TOOL


@pytest.mark.parametrize(
    ("text", "answer", "thinking"),
    [
        ("<think>hmm</think>\nAnswer", "Answer", "hmm"),
        ("<THINKING>a</THINKING>b<think>c</think>d", "bd", "a\n\nc"),
        ("reasoning without an opening tag</think>Answer", "Answer", "reasoning without an opening tag"),
        ("<think>cut off while thinking", "", "cut off while thinking"),
        ("plain text", "plain text", ""),
        (None, "", ""),
    ],
)
def test_split_thinking(text, answer, thinking) -> None:
    assert split_thinking(text) == (answer, thinking)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Unsupported value: 'messages[0].role' does not support 'system' with this model.", True),
        ("System role not supported", True),
        ("prompt is too long", False),
        ("Invalid value for 'temperature'", False),
    ],
)
def test_system_role_rejected(message, expected) -> None:
    assert system_role_rejected(message) is expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("tools param requires --jinja flag", True),
        ("registry.ollama.ai/library/gemma:2b does not support tools", True),
        ('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', True),
        ("internal server error", False),
        ("prompt is too long", False),
    ],
)
def test_tools_unsupported(message, expected) -> None:
    assert tools_unsupported(message) is expected


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("o3-mini", True),
        ("o1", True),
        ("gpt-5-mini", True),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", True),
        ("deepseek-reasoner", True),
        ("Qwen/QwQ-32B", True),
        ("qwen3:8b", True),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", False),
        ("gpt-4o-mini", False),
        ("claude-haiku-4-5", False),
        ("llama3.1:8b", False),
        ("omni-model", False),
    ],
)
def test_reasoning_families(model, expected) -> None:
    assert is_reasoning_model(model) is expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("This model's maximum context length is 32768 tokens. However, you requested 40000 tokens", True),
        ("max_tokens: 20480 > 8192, which is the maximum allowed number of output tokens", True),
        ("prompt is too long", False),
    ],
)
def test_budget_too_large(message, expected) -> None:
    assert budget_too_large(message) is expected


def test_merge_system() -> None:
    merged = merge_system([Message("system", "S"), Message("assistant", "A"), Message("user", "U")])
    assert merged == [Message("assistant", "A"), Message("user", "S\n\nU")]
    assert merge_system([Message("system", "S")]) == [Message("user", "S")]


def test_estimates_use_the_stated_ratio() -> None:
    assert CHARS_PER_TOKEN == 4.0
    assert estimate_tokens("x" * 10) == 3 and estimate_tokens("") == 0
    assert estimate_prompt_tokens(["x" * 8, ""]) == 2 + 4 + 0 + 4


def test_the_last_object_matching_the_schema_wins() -> None:
    text = 'Draft: {"name": "a", "steps": 1}. Final: {"name": "b", "steps": 2} and {"unrelated": true}'
    assert parse_tool_text(PLAN_TOOL, text) == {"name": "b", "steps": 2}


def test_no_matching_object_reports_the_schema_problem() -> None:
    with pytest.raises(ToolArgsError, match="steps"):
        parse_tool_text(PLAN_TOOL, 'Here: {"name": "a"}')
    with pytest.raises(ToolArgsError, match="not valid JSON"):
        validate_tool_args(PLAN_TOOL, '{"name": "a", "steps": ')


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (
            400,
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
            True,
        ),
        (422, "Unknown field json_schema", True),
        (500, "response_format: structured output is not supported by this backend", True),
        (
            500,
            "failed to parse grammar",
            False,
        ),  # a server error naming it, without saying it cannot: retried
        (429, "rate limit for response_format requests", False),
        (400, "prompt is too long", False),
        (None, "response_format not supported", False),
    ],
)
def test_schema_unsupported(status, message, expected) -> None:
    assert schema_unsupported(status, message) is expected
