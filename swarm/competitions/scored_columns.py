"""Which of a submission's target columns its description says are scored, where it says only some are.

stanford-covid-vaccine's submission holds 5 targets, but "While the submission format requires all 5 to be
predicted, only the following are scored: `reactivity`, `deg_Mg_pH10`, and `deg_Mg_50C`." (its grade.py scores
those 3). `scored_columns_named` finds such a sentence, so that a metric averaged over columns (`mcrmse`, param
`scored_columns`) scores the same columns; `metric_choice.with_groups` sets the param from it.
"""

from __future__ import annotations

import re

# A sentence: up to its full stop (one followed by a space or a line's end) or a blank line.
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s+|$)|\n[ \t]*\n")
_ONLY = re.compile(r"\bonly\b", re.IGNORECASE)
_SCORED = re.compile(r"\b(?:scored|evaluated|graded)\b", re.IGNORECASE)


def scored_columns_named(description: str, targets: list[str]) -> tuple[list[str], str] | None:
    """(the scored columns in `targets`' order, the sentence naming them) where a sentence of `description` says
    that only some of the target columns are scored ("only", "scored"/"evaluated", and each column's name as a
    whole word); None when no sentence names some but not all of them."""
    for sentence in _SENTENCE_END.split(description or ""):
        if not (_ONLY.search(sentence) and _SCORED.search(sentence)):
            continue
        named = [c for c in targets if re.search(rf"(?<![\w]){re.escape(c)}(?![\w])", sentence)]
        if 0 < len(named) < len(targets):
            return named, " ".join(sentence.split())
    return None
