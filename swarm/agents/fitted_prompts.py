"""Code and evolution prompts fitted to the model's context, and the smallest each can be.

A prompt's parts are trimmed to `PromptBudget`'s character limits; where the model's context is known and the
prompt does not fit in it beside the reply, these limits are cut (`swarm.llm.prompt_fit.fit_prompt`) in the
order of `CODE_CUT_ORDER`: the journal's memory first, then the data preview, the parent's output, the parent's
code, the skills, the experience examples, the task description, and last the agent's own texts, each down to
its `CODE_MINIMUMS` at most. Evolution prompts cut their examples, the task description and the texts being
rewritten (`EVOLUTION_CUT_ORDER`); the role and strategy limits stay, since they tell the model how long its
new text may be. The budgets stay `PromptBudget`s, checked as every budget is.

`smallest_code_prompt` renders each task type's prompt with every part at its minimum and long inputs, the
most a fitted prompt can need, so a run can say before its first step that a context is too small.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from swarm.agents.experience import AgentStats, ExperienceRecord
from swarm.agents.prompting import ParentView, PromptBudget, PromptBuilder
from swarm.agents.store import PARTS, AgentProfile
from swarm.llm.base import Message
from swarm.llm.prompt_fit import Fitted, fit_prompt, message_tokens
from swarm.protocol import GENE_SECTIONS

# PromptBudget fields a code prompt gives up, first cut first, and the least each keeps (chars; examples: a count).
CODE_CUT_ORDER: tuple[str, ...] = (
    "memory",
    "data_preview",
    "parent_output",
    "parent_code",
    "skills",
    "example",
    "max_examples",
    "task_desc",
    "packages",
    "bug_reason",
    "strategy",
    "role",
)
CODE_MINIMUMS: dict[str, int] = {
    "memory": 100,
    "data_preview": 600,
    "parent_output": 600,
    "parent_code": 2000,
    "skills": 600,
    "example": 150,
    "max_examples": 1,
    "task_desc": 1000,
    "packages": 200,
    "bug_reason": 200,
    "strategy": 800,
    "role": 800,
}
EVOLUTION_CUT_ORDER: tuple[str, ...] = ("example", "max_examples", "task_desc", "evolution_text")
EVOLUTION_MINIMUMS: dict[str, int] = {
    "example": 150,
    "max_examples": 1,
    "task_desc": 2000,  # the evolution prompt shows half of it
    "evolution_text": 1000,
}
# Long enough to fill every budget: stands for a large parent, memory, preview or description.
_FILLER = "lorem ipsum " * 4000


def fit_code_prompt(
    builder: PromptBuilder, room: int, task_type: str, agent: AgentProfile, **inputs: Any
) -> Fitted:
    """`builder.build(task_type, agent, **inputs)` with budgets cut until it takes at most `room` tokens."""
    return _fit(builder, CODE_CUT_ORDER, CODE_MINIMUMS, room, lambda b: b.build(task_type, agent, **inputs))


def fit_evolution_prompt(
    builder: PromptBuilder, room: int, part: str, agent: AgentProfile, **inputs: Any
) -> Fitted:
    """`builder.build_evolution(part, agent, **inputs)` with budgets cut until it takes at most `room` tokens."""
    return _fit(
        builder,
        EVOLUTION_CUT_ORDER,
        EVOLUTION_MINIMUMS,
        room,
        lambda b: b.build_evolution(part, agent, **inputs),
    )


def minimum_budget(budget: PromptBudget, minimums: Mapping[str, int]) -> PromptBudget:
    """`budget` with every field named in `minimums` lowered to its minimum (never raised)."""
    return dataclasses.replace(
        budget, **{name: min(getattr(budget, name), least) for name, least in minimums.items()}
    )


def smallest_code_prompt(builder: PromptBuilder, task_desc: str) -> tuple[str, int]:
    """(task type, estimated tokens) of the largest code prompt a fitted step can send: each task type with
    long inputs and every part at its minimum (a merge's two parents usually make it the largest)."""
    small = builder.with_budget(minimum_budget(builder.budget, CODE_MINIMUMS))
    agent = AgentProfile("agent_0", dict.fromkeys(PARTS, _FILLER), dict.fromkeys(PARTS, "v1"))
    parent = ParentView(
        code=_FILLER, output=_FILLER, metric=0.5, metric_name="score", lower_is_better=False, summary=_FILLER
    )
    buggy = dataclasses.replace(parent, is_buggy=True, bug_reason=_FILLER, metric=None)
    examples = [
        ExperienceRecord("agent_0", "improve", "hash", 0.9, True, _FILLER, f"n{i}")
        for i in range(small.budget.max_examples)
    ]
    common: dict[str, Any] = {
        "task_desc": task_desc or _FILLER,
        "memory": _FILLER,
        "data_preview": _FILLER,
        "examples": examples,
        "packages": [_FILLER],
        "metric_name": "score",
        "lower_is_better": False,
        "time_remaining_s": 3600.0,
        "steps_remaining": 100,
        "cpus": 4.0,
        "memory_mb": 8192,
        "timeout_s": 3600.0,
        "harness_scored": True,
    }
    by_task: dict[str, dict[str, Any]] = {
        "draft": {},
        "improve": {"parent": parent},
        "debug": {"parent": buggy},
        "merge": {"parents": (parent, parent), "crossover_plan": dict.fromkeys(GENE_SECTIONS, _FILLER)},
        "mutate": {"parent": parent, "gene": GENE_SECTIONS[0]},
    }
    sizes = {
        task_type: message_tokens(small.build(task_type, agent, **common, **extra))
        for task_type, extra in by_task.items()
    }
    largest = max(sizes, key=lambda task_type: sizes[task_type])
    return largest, sizes[largest]


def smallest_evolution_prompt(builder: PromptBuilder, task_desc: str) -> int:
    """Estimated tokens of the largest evolution prompt a fitted round can send (long texts, parts at minimum)."""
    small = builder.with_budget(minimum_budget(builder.budget, EVOLUTION_MINIMUMS))
    agent = AgentProfile("agent_0", dict.fromkeys(PARTS, _FILLER), dict.fromkeys(PARTS, "v1"))
    stats = AgentStats(count=10, success_rate=0.5, mean_quality=0.5)
    records = [
        ExperienceRecord("agent_0", "improve", "hash", 0.5, True, _FILLER, f"n{i}")
        for i in range(small.budget.max_examples)
    ]
    return max(
        message_tokens(
            small.build_evolution(
                part,
                agent,
                task_desc=task_desc or _FILLER,
                stats=stats,
                elite=agent,
                elite_stats=stats,
                examples=records,
                failures=records,
            )
        )
        for part in PARTS
    )


def _fit(
    builder: PromptBuilder,
    order: tuple[str, ...],
    minimums: Mapping[str, int],
    room: int,
    build: Callable[[PromptBuilder], list[Message]],
) -> Fitted:
    base = builder.budget

    def render(sizes: Mapping[str, int]) -> list[Message]:
        return build(builder.with_budget(dataclasses.replace(base, **sizes)))

    return fit_prompt(render, {name: getattr(base, name) for name in order}, minimums, room)
