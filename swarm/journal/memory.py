"""What a prompt shows of a journal (its memory): the tried solutions, best first, within a character budget.

`memory_summary(journal, max_chars)` gives one entry per reviewed node (its metric, or `[BUGGY]` and why; its
plan and review, optionally its code), formatting only the entries that fit, so a long journal costs one pass.
"""

from __future__ import annotations

from swarm.journal.dag import Journal
from swarm.journal.node import Node
from swarm.text import trim_middle


def memory_summary(
    journal: Journal,
    max_chars: int = 6000,
    include_code: bool = False,
    max_code_chars: int = 1500,
    max_text_chars: int = 300,
    num_best: int = 3,
) -> str:
    """What has been tried in `journal`, for a prompt, strictly within `max_chars`.

    One entry per reviewed node: good ones with their metric, buggy ones marked `[BUGGY]` with the bug
    reason. The `num_best` best good nodes come first, then the rest newest first, until the budget is
    spent; a final line counts the entries left out. Only the entries that fit are formatted, so the
    cost does not grow with the length of the journal beyond one pass over it.
    """
    if max_chars < 0:
        raise ValueError(f"max_chars must be >= 0, got {max_chars}")
    reviewed = [n for n in journal.nodes if n.is_evaluated]
    if not reviewed:
        return "No solutions have been tried yet."[:max_chars]
    best = journal.best_k(num_best) if num_best > 0 else []
    best_ids = {n.id for n in best}
    ordered = best + [n for n in reversed(reviewed) if n.id not in best_ids]

    header = f"{len(reviewed)} solutions tried ({len(best)} best first, then newest first):\n"
    footer_room = len(f"... {len(reviewed)} more entries left out to fit the budget.")
    budget = max_chars - len(header) - footer_room - 1
    if budget <= 0:
        return f"{len(reviewed)} solutions tried."[:max_chars]

    parts: list[str] = []
    used = 0
    for node in ordered:
        entry = _memory_entry(node, include_code, max_code_chars, max_text_chars, node.id in best_ids)
        if used + len(entry) > budget and include_code:
            entry = _memory_entry(node, False, 0, max_text_chars, node.id in best_ids)
        if used + len(entry) > budget:
            break
        parts.append(entry)
        used += len(entry)
    left_out = len(ordered) - len(parts)
    text = header + "".join(parts)
    if left_out:
        text += f"... {left_out} more entries left out to fit the budget."
    return text[:max_chars]


def _memory_entry(node: Node, include_code: bool, max_code: int, max_text: int, is_best: bool) -> str:
    label = f"- Step {node.step} ({node.task_type})"
    if node.is_buggy:
        reason = node.bug_reason or node.exc_type or "no reason recorded"
        lines = [f"{label} [BUGGY]: {_shorten(reason, max_text)}"]
    else:
        metric = str(node.metric) if node.metric is not None else "no metric"
        lines = [f"{label}{' [BEST]' if is_best else ''}: metric {metric}"]
    if node.plan:
        lines.append(f"  Plan: {_shorten(node.plan, max_text)}")
    if node.analysis:
        lines.append(f"  Review: {_shorten(node.analysis, max_text)}")
    if include_code and node.code:
        lines.append(
            "  Code:\n```python\n"
            + trim_middle(node.code, max_code, head_fraction=0.4).rstrip("\n")
            + "\n```"
        )
    return "\n".join(lines) + "\n"


def _shorten(text: str | None, limit: int) -> str:
    """`text` on one line, cut to `limit` chars with an ellipsis."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"
