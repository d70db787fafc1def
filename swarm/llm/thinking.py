"""Thinking traces in model replies: `<think>` blocks, `reasoning_content`, Anthropic `thinking` blocks.

A trace is never code, plan or review input: `split_thinking` separates it from the answer so callers keep
it only for people to read.
"""

from __future__ import annotations

import re

_BLOCK_RE = re.compile(r"<(think|thinking|reasoning)>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
_OPEN_RE = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_CLOSE_RE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)


def split_thinking(text: str | None) -> tuple[str, str]:
    """(answer, thinking) of a reply. Closed blocks are cut out; a closing tag without its opening one (chat
    templates that put `<think>` in the prompt) makes everything before it thinking; an opening tag never
    closed (cut off while thinking) makes everything after it thinking."""
    if not text:
        return "", ""
    traces: list[str] = []

    def keep(match: re.Match[str]) -> str:
        traces.append(match.group(2).strip())
        return ""

    answer = _BLOCK_RE.sub(keep, text)
    closes = list(_CLOSE_RE.finditer(answer))
    if closes:
        last = closes[-1]
        traces.insert(0, _CLOSE_RE.sub("", answer[: last.start()]).strip())
        answer = answer[last.end() :]
    opened = _OPEN_RE.search(answer)
    if opened:
        traces.append(answer[opened.end() :].strip())
        answer = answer[: opened.start()]
    thinking = "\n\n".join(t for t in traces if t)
    return (answer.strip() if thinking or traces else answer), thinking


def join_thinking(*parts: str | None) -> str:
    """The non-empty traces, in order, one paragraph apart."""
    return "\n\n".join(p.strip() for p in parts if p and p.strip())
