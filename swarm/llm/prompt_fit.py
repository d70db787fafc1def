"""Fitting a prompt to a model's context: shrink its parts, least important first, until it fits.

A prompt is rendered from parts with size limits (characters, or a count such as examples shown). `fit_prompt`
renders it with the given limits; while its estimated tokens (`swarm.llm.estimate`) exceed the room, it cuts
the first part to its minimum, and if that is enough, searches for the largest limit of that part that still
fits; if not, it keeps that part at its minimum and goes on with the next. The room is the context less the
reply's `max_tokens` and a margin (`prompt_room`): the estimate is 4 characters a token, and the margin absorbs
tokenizers that count more and the chat template's own tokens.

    room = prompt_room(context_tokens=8192, reply_tokens=4096)       # 3968
    fitted = fit_prompt(render, {"memory": 3000, "code": 14000}, {"memory": 100, "code": 2000}, room)
    fitted.messages, fitted.sizes, fitted.tokens, fitted.fits
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from swarm.llm.base import Message, ToolSpec
from swarm.llm.estimate import estimate_prompt_tokens
from swarm.llm.json_tools import repair_messages

MIN_MARGIN_TOKENS = 64
MARGIN_FRACTION = 1 / 64  # of the context: 128 tokens of an 8,192-token context
REPLAYED_REPLY_CHARS = 4000  # a repair round replays the unusable reply up to this many characters
PROBLEM_CHARS = 600  # and says what was wrong with it in about this many
# The least `max_tokens` a request sends where the context leaves less (the server then says it is too long).
REPLY_FLOOR = 256
_FINE = 32  # a char limit is searched to within this many characters (8 tokens)

Render = Callable[[Mapping[str, int]], list[Message]]


@dataclass(frozen=True)
class Fitted:
    """A rendered prompt, the part limits it was rendered with, its estimated tokens, and whether it fits."""

    messages: list[Message]
    sizes: dict[str, int]
    tokens: int
    fits: bool


def margin_tokens(context_tokens: int) -> int:
    """Tokens kept free of a context beside the prompt and the reply (see the module docstring)."""
    return max(MIN_MARGIN_TOKENS, int(context_tokens * MARGIN_FRACTION))


def prompt_room(context_tokens: int | None, reply_tokens: int) -> int | None:
    """Tokens a prompt may take beside a reply of `reply_tokens` (None: the context is not known)."""
    if context_tokens is None:
        return None
    return context_tokens - reply_tokens - margin_tokens(context_tokens)


def message_tokens(messages: list[Message]) -> int:
    """The estimated tokens of a prompt (its contents plus the chat template's overhead per message)."""
    return estimate_prompt_tokens(m.content for m in messages)


def tool_tokens(tool: ToolSpec) -> int:
    """What a tool's definition adds to a request, estimated as the provider estimates it."""
    return estimate_prompt_tokens([json.dumps(tool.json_schema()) + tool.description])


def repair_tokens(tool: ToolSpec) -> int:
    """What one repair round adds to a tool call's conversation: the replayed reply and the ask in JSON."""
    turns = repair_messages("x" * REPLAYED_REPLY_CHARS, "x" * PROBLEM_CHARS, tool, as_json=True)
    return message_tokens(turns)


def shortfall(
    stage: str, what: str, prompt_tokens: int, reply_tokens: int, context_tokens: int, source: str
) -> str | None:
    """One sentence when `what` (a prompt at its smallest, `prompt_tokens`) and a reply of `reply_tokens`
    (`llm.<stage>.max_tokens`) do not fit in the context, saying by how much and what to change; else None."""
    margin = margin_tokens(context_tokens)
    left = context_tokens - prompt_tokens - margin
    if left >= reply_tokens:
        return None
    needs = f"llm.{stage}: {what} needs about {prompt_tokens:,} tokens even at its smallest"
    context = f"the model's context of {context_tokens:,} tokens (from {source})"
    longer = "give the model a longer context (llama.cpp's -c, vLLM's --max-model-len)"
    if left < REPLY_FLOOR:
        short = REPLY_FLOOR - left
        return (
            f"{needs}, {short:,} more than {context} holds with a reply of at least {REPLY_FLOOR}; {longer}"
        )
    return (
        f"{needs}, and with a reply of up to {reply_tokens:,} (llm.{stage}.max_tokens) {reply_tokens - left:,} "
        f"more than {context} holds; {longer} or lower llm.{stage}.max_tokens to {left:,} (until then replies "
        "are cut to what is left)"
    )


def fit_prompt(render: Render, sizes: Mapping[str, int], minimums: Mapping[str, int], room: int) -> Fitted:
    """The prompt `render(sizes)`, its parts cut in the order of `sizes` (first cut first), down to their
    `minimums` at most, until its estimated tokens are within `room`; `fits` False when even that is not
    enough (then every part in `sizes` is at its minimum)."""
    current = dict(sizes)
    messages = render(current)
    tokens = message_tokens(messages)
    if tokens <= room:
        return Fitted(messages, current, tokens, True)
    for name in sizes:
        high, low = current[name], min(minimums.get(name, current[name]), current[name])
        if high <= low:
            continue
        current[name] = low
        messages = render(current)
        tokens = message_tokens(messages)
        if tokens > room:
            continue  # this part at its minimum is not enough: cut the next one too
        fine = 1 if high - low <= 4 * _FINE else _FINE
        while high - low > fine:  # the largest limit of this part that still fits, to within `fine`
            middle = (low + high) // 2
            current[name] = middle
            tried = render(current)
            tried_tokens = message_tokens(tried)
            if tried_tokens <= room:
                low, messages, tokens = middle, tried, tried_tokens
            else:
                high = middle
        current[name] = low
        return Fitted(messages, current, tokens, True)
    return Fitted(messages, current, tokens, False)
