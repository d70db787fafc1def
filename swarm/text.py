"""Trimming text to a budget: one rule for prompts, journal summaries and reviews."""

from __future__ import annotations


def trim_middle(text: str | None, limit: int, head_fraction: float = 0.5) -> str:
    """`text` cut to at most `limit` chars by dropping its middle, with a marker saying what was cut.

    `head_fraction` of the room goes to the head, the rest to the tail. Cuts snap to line ends where that
    loses little. A budget too small for the marker keeps only the last `limit` characters.
    """
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    if not 0.0 <= head_fraction <= 1.0:
        raise ValueError(f"head_fraction must be in [0, 1], got {head_fraction}")
    text = text or ""
    if len(text) <= limit:
        return text
    room = limit - len(_cut_marker(len(text), text.count("\n")))
    if room <= 0:
        return text[-limit:] if limit else ""
    head_len = int(room * head_fraction)
    tail_len = room - head_len
    head = text[:head_len]
    tail = text[len(text) - tail_len :] if tail_len else ""
    newline = head.rfind("\n")
    if newline >= head_len // 2:
        head = head[: newline + 1]
    newline = tail.find("\n")
    if 0 <= newline < tail_len // 2:
        tail = tail[newline + 1 :]
    cut_text = text[len(head) : len(text) - len(tail)]
    result = head + _cut_marker(len(cut_text), cut_text.count("\n")) + tail
    return result if len(result) <= limit else result[len(result) - limit :]


def _cut_marker(chars: int, lines: int) -> str:
    return f"\n[... {chars} chars, {lines} lines cut ...]\n"
