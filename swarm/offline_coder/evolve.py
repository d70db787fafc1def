"""Agent evolution offline: the current role/strategy text plus concrete lessons drawn from the stats."""

from __future__ import annotations

import json
from typing import Any

BLOCK_START = "<!-- offline-coder lessons: start -->"
BLOCK_END = "<!-- offline-coder lessons: end -->"

GENERAL_LESSONS = {
    "evolve_role": (
        "Keep the seven gene sections and the shared variable names intact so sections stay swappable.",
        "Change one thing per improvement and say which section changed and why.",
        "Always print the SWARM_METRIC line and write submission/submission.csv, even for a weak model.",
    ),
    "evolve_strategy": (
        "Prefer gradient-boosted trees (LightGBM) with a lower learning rate and more rounds once a draft works.",
        "Use k-fold validation and average the fold models; it is steadier than one holdout split.",
        "For skewed non-negative regression targets (prices, counts), fit on log1p(target).",
        "When a run fails, fall back to the safest choices first, then improve again.",
    ),
}


def _flatten(stats: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(stats, dict):
        items: list[tuple[str, Any]] = []
        for key, value in stats.items():
            items += _flatten(value, f"{prefix}{key}.")
        return items
    return [(prefix.rstrip("."), stats)]


def lessons_from_stats(stats: Any) -> list[str]:
    """Concrete observations from a stats mapping (rates, best/worst cases); unknown shapes are quoted."""
    if not stats:
        return ["No statistics yet: keep the current approach and collect results."]
    if not isinstance(stats, dict):
        return [f"Observed: {json.dumps(stats, default=str)[:400]}"]
    lessons = []
    for key, value in _flatten(stats):
        lowered = key.lower()
        if isinstance(value, bool) or not isinstance(value, int | float):
            if any(word in lowered for word in ("best", "worst")):
                lessons.append(f"{key}: {json.dumps(value, default=str)[:300]}")
            continue
        if any(word in lowered for word in ("bug", "fail", "error")) and 0 <= value <= 1 and value > 0.3:
            lessons.append(f"{key} is {value:.0%}: favour safer, simpler code before bigger models.")
        elif "improve" in lowered and 0 <= value <= 1 and value < 0.3:
            lessons.append(f"{key} is only {value:.0%}: make bolder single changes (model family, k-fold).")
        else:
            lessons.append(f"{key} = {value:g}")
    return lessons[:12] or ["The statistics held nothing numeric; keep the current approach."]


def _strip_block(text: str) -> str:
    start, end = text.find(BLOCK_START), text.find(BLOCK_END)
    if start >= 0 and end > start:
        return (text[:start] + text[end + len(BLOCK_END) :]).strip()
    return text.strip()


def evolve_text(kind: str, current_text: str, elite_text: str | None, stats: Any) -> str:
    """`current_text` plus a marked block of lessons; a previous offline block is replaced, not stacked."""
    base = _strip_block(current_text or "")
    lines = [BLOCK_START, "## Lessons (written by the offline coder, not by a language model)"]
    lines += [f"- {lesson}" for lesson in lessons_from_stats(stats)]
    lines += [f"- {lesson}" for lesson in GENERAL_LESSONS.get(kind, GENERAL_LESSONS["evolve_strategy"])]
    if elite_text:
        extra = [
            ln.strip()
            for ln in _strip_block(elite_text).splitlines()
            if ln.strip() and ln.strip() not in base
        ]
        if extra:
            lines.append("- Borrowed from the best agent: " + " / ".join(extra[:5]))
    lines.append(BLOCK_END)
    return (base + "\n\n" if base else "") + "\n".join(lines) + "\n"
