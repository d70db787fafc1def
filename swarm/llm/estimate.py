"""Token estimates for endpoints that report no `usage`.

`tiktoken` is not used: it is not installed here and its encodings download at first use, and local models
have their own tokenizers anyway. The estimate is a stated character ratio instead: CHARS_PER_TOKEN
characters per token (OpenAI's rule of thumb for English text and code), plus MESSAGE_OVERHEAD tokens per
message for the chat template. Records built from it are marked `estimated` in the ledger and the report.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

CHARS_PER_TOKEN = 4.0
MESSAGE_OVERHEAD = 4


def estimate_tokens(text: str | None) -> int:
    """Tokens in `text` at CHARS_PER_TOKEN characters each (0 for no text)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def estimate_prompt_tokens(contents: Iterable[str]) -> int:
    """Tokens of a prompt made of these message contents, template overhead included."""
    return sum(estimate_tokens(content) + MESSAGE_OVERHEAD for content in contents)
