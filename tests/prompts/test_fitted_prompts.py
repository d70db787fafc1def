"""Code and evolution prompts fitted to a small context: parts cut in their order, down to their minimums."""

from __future__ import annotations

import dataclasses

import pytest

from swarm.agents.experience import AgentStats, ExperienceRecord
from swarm.agents.fitted_prompts import (
    CODE_CUT_ORDER,
    CODE_MINIMUMS,
    EVOLUTION_MINIMUMS,
    fit_code_prompt,
    fit_evolution_prompt,
    minimum_budget,
    smallest_code_prompt,
    smallest_evolution_prompt,
)
from swarm.agents.prompting import ParentView, PromptBudget, PromptBuilder, PromptError
from swarm.agents.store import read_seed_profile
from swarm.llm.base import Message
from swarm.llm.prompt_fit import fit_prompt, message_tokens, prompt_room

AGENT = read_seed_profile("agent_0")
CODE = "".join(f"feature_{i} = frame['col_{i}'] * 2  # line {i}\n" for i in range(600))  # ~28,000 chars
OUTPUT = "".join(f"epoch {i}: loss 0.{i:04d}\n" for i in range(2000))  # ~47,000 chars
MEMORY = "".join(f"- node {i}: tried model {i}, score 0.{i}\n" for i in range(80))  # ~3,000 chars
PREVIEW = "".join(f"col_{i},int,{i}\n" for i in range(1000))
PARENT = ParentView(
    code=CODE, output=OUTPUT, node_id="n1", metric=0.5, metric_name="accuracy", lower_is_better=False
)
INPUTS = {
    "task_desc": "Predict who survived. " * 100,
    "parent": PARENT,
    "memory": MEMORY,
    "data_preview": PREVIEW,
}


@pytest.fixture(scope="module")
def builder() -> PromptBuilder:
    return PromptBuilder()


def user(messages: list[Message]) -> str:
    return messages[1].content


def test_a_code_prompt_is_fitted_to_an_8k_context_beside_a_4096_token_reply(builder):
    room = prompt_room(8192, 4096)
    assert (
        room is not None and message_tokens(builder.build("improve", AGENT, **INPUTS)) > room
    )  # too big as is
    fitted = fit_code_prompt(builder, room, "improve", AGENT, **INPUTS)
    assert fitted.fits and fitted.tokens == message_tokens(fitted.messages)
    assert fitted.tokens + 4096 <= 8192
    assert [layer in user(fitted.messages) for layer in ("# TASK", "# CONTEXT", "# GUIDELINES")] == [True] * 3
    assert "line 0\n" in user(fitted.messages) and "line 599\n" in user(fitted.messages)  # head and tail kept


def test_memory_is_cut_before_the_parent_code(builder):
    room = prompt_room(10_000, 4096)
    fitted = fit_code_prompt(builder, room, "improve", AGENT, **INPUTS)
    sizes = fitted.sizes
    assert fitted.fits and fitted.tokens <= room
    assert sizes["memory"] == CODE_MINIMUMS["memory"]  # first to go, all the way down
    assert sizes["data_preview"] == CODE_MINIMUMS["data_preview"]
    assert sizes["parent_output"] == CODE_MINIMUMS["parent_output"]
    assert (
        CODE_MINIMUMS["parent_code"] < sizes["parent_code"] < PromptBudget().parent_code
    )  # cut, not to the bone
    assert (
        sizes["skills"] == PromptBudget().skills and sizes["task_desc"] == PromptBudget().task_desc
    )  # untouched
    assert "- node 79:" not in user(fitted.messages)  # the memory's tail is gone: it was cut to 100 chars


def test_a_roomy_context_changes_nothing(builder):
    fitted = fit_code_prompt(builder, prompt_room(128_000, 4096), "improve", AGENT, **INPUTS)
    assert fitted.messages == builder.build("improve", AGENT, **INPUTS)
    assert fitted.sizes == {name: getattr(PromptBudget(), name) for name in CODE_CUT_ORDER}


def test_a_context_too_small_leaves_every_part_at_its_minimum(builder):
    fitted = fit_code_prompt(builder, 500, "improve", AGENT, **INPUTS)
    assert not fitted.fits and fitted.tokens > 500
    assert fitted.sizes == {
        name: min(getattr(PromptBudget(), name), CODE_MINIMUMS[name]) for name in CODE_CUT_ORDER
    }


def test_the_smallest_code_prompt_is_the_largest_task_type_at_its_minimums(builder):
    task_type, tokens = smallest_code_prompt(builder, "Predict who survived. " * 500)
    assert task_type == "merge"  # two parents
    small = builder.with_budget(minimum_budget(builder.budget, CODE_MINIMUMS))
    draft = small.build("draft", AGENT, task_desc="Predict who survived. " * 500, memory=MEMORY)
    assert message_tokens(draft) < tokens < message_tokens(builder.build("improve", AGENT, **INPUTS))
    fitted = fit_code_prompt(
        builder,
        tokens,
        "merge",
        AGENT,
        **{**INPUTS, "parent": None},
        parents=(PARENT, PARENT),
        crossover_plan={"DATA": 0},
    )
    assert fitted.fits  # a merge of two long parents fits in what the smallest prompt needs


def test_an_evolution_prompt_is_fitted_and_keeps_the_length_it_asks_for(builder):
    record = ExperienceRecord("agent_0", "improve", "h", 0.9, True, "LightGBM, target encoding. " * 40, "n1")
    stats = AgentStats(count=10, success_rate=0.5, mean_quality=0.4)
    inputs = {
        "task_desc": "Predict who survived. " * 600,
        "stats": stats,
        "elite": AGENT,
        "elite_stats": stats,
        "examples": [record] * 5,
        "failures": [record] * 5,
    }
    full = message_tokens(builder.build_evolution("role", AGENT, **inputs))
    fitted = fit_evolution_prompt(builder, full - 800, "role", AGENT, **inputs)
    assert fitted.fits and fitted.tokens <= full - 800
    assert fitted.sizes["example"] < PromptBudget().example  # examples go first
    assert f"Keep it under {PromptBudget().role} characters" in fitted.messages[0].content
    assert smallest_evolution_prompt(builder, inputs["task_desc"]) < full
    assert set(EVOLUTION_MINIMUMS) <= {f.name for f in dataclasses.fields(PromptBudget)}


def test_budgets_stay_checked_and_with_budget_leaves_the_original_alone(builder):
    with pytest.raises(PromptError, match="PromptBudget.memory"):
        dataclasses.replace(PromptBudget(), memory=50)
    other = builder.with_budget(PromptBudget(memory=100))
    assert other.budget.memory == 100 and builder.budget.memory == PromptBudget().memory
    assert other.skill_index is builder.skill_index


def test_fit_prompt_cuts_in_order_and_searches_the_last_part():
    def render(sizes):
        return [Message("user", "a" * sizes["first"] + "b" * sizes["second"])]

    fitted = fit_prompt(render, {"first": 4000, "second": 4000}, {"first": 400, "second": 400}, 1000)
    assert fitted.fits and fitted.sizes["first"] == 400
    most = (1000 - 4) * 4 - 400  # 4 tokens of overhead per message, 4 chars a token
    assert most - 32 <= fitted.sizes["second"] <= most  # the largest that fits, to within the search's step
    assert fitted.tokens <= 1000
