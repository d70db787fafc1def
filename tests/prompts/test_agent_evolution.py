"""Agent evolution: when it is due, how agents are ranked, and what a round writes (versions, lineage, diffs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarm.agents.evolution import EvolutionReport, evolution_due, evolve_agents, rank_agents, stats_of
from swarm.agents.experience import ExperiencePool, ExperienceRecord
from swarm.agents.prompting import PromptBuilder
from swarm.agents.store import PARTS, AgentStore
from swarm.llm.base import CallContext, LLMError, Message, ToolSpec
from swarm.llm.prompt_fit import message_tokens
from swarm.offline_coder import OfflineClient

AGENTS = ["agent_0", "agent_1", "agent_2", "agent_3"]


class ScriptedClient:
    """An LLMClient whose answers are written by the test; it keeps every request it got."""

    provider, model = "scripted", "scripted"

    def __init__(self, answer) -> None:  # noqa: ANN001 - a function of the call
        self.answer = answer
        self.calls: list[tuple[list[Message], CallContext]] = []

    def complete(self, messages: list[Message], ctx: CallContext) -> str:
        self.calls.append((messages, ctx))
        return self.answer(messages, ctx)

    def call_tool(self, messages: list[Message], tool: ToolSpec, ctx: CallContext) -> dict:
        raise NotImplementedError


def rewrite(messages: list[Message], ctx: CallContext) -> str:
    return f"Rationale.\n\n```markdown\nYou are {ctx.agent_id}, rewritten after epoch {ctx.epoch}.\n```\n"


def record(agent: str, i: int, success: bool, metric: float | None) -> ExperienceRecord:
    return ExperienceRecord(
        agent_id=agent,
        task_type="improve",
        input_hash=f"{agent}-{i}",
        quality=0.5 if success else 0.0,
        success=success,
        strategy_summary=f"{agent} attempt {i}" + ("" if success else ": KeyError in DATA"),
        node_id=f"{agent}-{i}",
        metric=metric,
    )


@pytest.fixture
def run(tmp_path: Path) -> tuple[AgentStore, ExperiencePool]:
    store = AgentStore.seed_run(tmp_path)
    pool = ExperiencePool(tmp_path / "experience.jsonl")
    # higher is better: agent_0 strong, agent_1 good, agent_2 fails half the time, agent_3 weak
    plan = {
        "agent_0": [0.9, 0.88, 0.91],
        "agent_1": [0.8, 0.82, 0.79],
        "agent_2": [0.7, None],
        "agent_3": [0.5, None, None],
    }
    for agent, metrics in plan.items():
        for i, metric in enumerate(metrics):
            pool.add(record(agent, i, metric is not None, metric))
    return store, pool


def test_evolution_is_due_every_interval_once_the_pool_is_large_enough() -> None:
    assert evolution_due(3, 3, 20, 20) is None
    assert "multiple" in evolution_due(4, 3, 50, 20)
    assert "fewer than" in evolution_due(6, 3, 19, 20)
    assert evolution_due(1, 1, 0, 0) is None


def test_agents_rank_by_success_rate_times_mean_quality(run) -> None:
    store, pool = run
    ranked = rank_agents(AGENTS, pool.rescored(lower_is_better=False))
    assert [a for a, _ in ranked] == AGENTS
    assert stats_of([]).count == 0 and rank_agents(["agent_9"], [])[0][1].success_rate == 0.0


def test_a_round_rewrites_every_text_of_the_bottom_agents_only(run) -> None:
    store, pool = run
    client = ScriptedClient(rewrite)
    report = evolve(store, pool, client)

    assert report.kept == ["agent_0", "agent_1"] and report.evolved == ["agent_2", "agent_3"]
    for agent in ("agent_0", "agent_1"):
        assert set(store.current(agent).versions.values()) == {"v1"}
    for agent in ("agent_2", "agent_3"):
        profile = store.current(agent)
        assert set(profile.versions.values()) == {"v2"}
        assert profile.role == f"You are {agent}, rewritten after epoch 3.\n"
        for part in PARTS:
            (entry,) = [v for v in store.lineage(agent)[part]["versions"] if v["version"] == "v2"]
            assert entry["parent"] == "v1" and entry["reason"].startswith("[epoch 3]")
    assert len(client.calls) == 8  # 2 agents x 4 texts
    kinds = {ctx.kind for _, ctx in client.calls}
    assert kinds == {"evolve_role", "evolve_strategy"}
    prompt = client.calls[0][0][1].content
    assert "agent_0" in prompt and "KeyError in DATA" in prompt  # the elite's text and its own worst case
    changed = [c for c in report.changes if c.new_version]
    assert len(changed) == 8 and all(c.diff.startswith("---") and "+You are" in c.diff for c in changed)


def test_a_round_is_not_repeated_for_the_same_epoch(run) -> None:
    store, pool = run
    evolve(store, pool, ScriptedClient(rewrite))
    client = ScriptedClient(rewrite)
    again = evolve(store, pool, client)
    assert again.skipped and not client.calls and not again.evolved


def test_a_bad_reply_keeps_the_text_and_says_why(run) -> None:
    store, pool = run

    def flaky(messages: list[Message], ctx: CallContext) -> str:
        if ctx.kind == "evolve_role":
            return "I would rather not."  # no markdown block
        if ctx.agent_id == "agent_3":
            raise LLMError("the evolution model is down")
        return rewrite(messages, ctx)

    report = evolve(store, pool, ScriptedClient(flaky))
    errors = {(c.agent_id, c.part): c.error for c in report.changes if c.error}
    assert "markdown" in errors[("agent_2", "role")]
    assert "down" in errors[("agent_3", "strategy_merge")]
    assert store.current("agent_2").versions == {"role": "v1", **dict.fromkeys(PARTS[1:], "v2")}
    assert set(store.current("agent_3").versions.values()) == {"v1"}
    assert report.evolved == ["agent_2"]


def test_the_offline_coder_answers_evolution_requests(run) -> None:
    store, pool = run
    report = evolve(store, pool, OfflineClient(seed=0))
    assert report.evolved == ["agent_2", "agent_3"], [c.error for c in report.changes]
    assert "Lessons" in store.current("agent_3").role


def evolve(store: AgentStore, pool: ExperiencePool, client) -> EvolutionReport:  # noqa: ANN001
    return evolve_agents(
        store=store,
        pool=pool,
        builder=PromptBuilder(skills_dir=store.run_dir / "skills"),
        client=client,
        task_desc="Predict who survived the Titanic.",
        epoch=3,
        agent_ids=AGENTS,
        agents_kept=2,
        lower_is_better=False,
    )


def test_a_round_fits_each_prompt_to_the_room_the_context_leaves(run) -> None:
    store, pool = run

    def refuse(messages: list[Message], ctx: CallContext) -> str:
        raise LLMError("not now")  # the texts stay as they are: the next round sees the same prompts

    unfitted, tight = ScriptedClient(refuse), ScriptedClient(rewrite)
    kwargs = {
        "store": store,
        "pool": pool,
        "builder": PromptBuilder(skills_dir=store.run_dir / "skills"),
        "task_desc": "Predict who survived the Titanic. " * 400,
        "epoch": 3,
        "agent_ids": AGENTS,
        "agents_kept": 2,
        "lower_is_better": False,
    }
    evolve_agents(client=unfitted, **kwargs)
    sizes = [message_tokens(messages) for messages, _ in unfitted.calls]
    room = min(sizes) - 150
    report = evolve_agents(client=tight, max_prompt_tokens=room, **kwargs)
    assert len(tight.calls) == len(unfitted.calls) == 8 and report.evolved == ["agent_2", "agent_3"]
    assert all(message_tokens(messages) <= room for messages, _ in tight.calls)
    assert max(sizes) - room > 500  # the largest was cut by far more than the smallest
