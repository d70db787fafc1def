"""The task dispatcher: EMA updates and epsilon-greedy choice (seeded)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from swarm.agents.dispatcher import Dispatcher

AGENTS = ["agent_0", "agent_1", "agent_2", "agent_3"]


def test_ema_update() -> None:
    d = Dispatcher(AGENTS, epsilon=0.3, learning_rate=0.3)
    assert d.score("agent_1", "draft") is None
    assert d.update("agent_1", "draft", 0.5) == 0.5  # the first observation is the score
    assert d.update("agent_1", "draft", 1.0) == pytest.approx(0.7 * 0.5 + 0.3 * 1.0)
    assert d.update("agent_1", "draft", 0.0) == pytest.approx(0.7 * 0.65)
    assert d.score("agent_1", "improve") is None  # per task type
    assert d.counts["draft"]["agent_1"] == 3
    with pytest.raises(ValueError, match="quality"):
        d.update("agent_1", "draft", 1.5)


def test_untried_agents_come_first_then_busy_ones_are_avoided() -> None:
    d = Dispatcher(AGENTS, epsilon=0.0)
    rng = random.Random(0)
    assert d.choose("merge", rng) == "agent_0"
    d.update("agent_0", "merge", 0.9)
    assert d.choose("merge", rng) == "agent_1"
    assert d.choose("merge", rng, busy=["agent_1"]) == "agent_2"


def test_greedy_choice_and_epsilon_exploration_seeded() -> None:
    d = Dispatcher(AGENTS, epsilon=0.0)
    for agent, quality in zip(AGENTS, (0.2, 0.9, 0.5, 0.1), strict=True):
        d.update(agent, "improve", quality)
    assert {d.choose("improve", random.Random(s)) for s in range(20)} == {"agent_1"}
    d.epsilon = 0.3
    picks = Counter(d.choose("improve", random.Random(s)) for s in range(2000))
    # greedy 70% + a quarter of the 30% random picks
    assert picks["agent_1"] / 2000 == pytest.approx(0.7 + 0.3 / 4, abs=0.03)
    assert all(picks[a] > 0 for a in AGENTS)
    assert d.choose("improve", random.Random(5)) == d.choose("improve", random.Random(5))


def test_scores_follow_a_changing_agent() -> None:
    d = Dispatcher(AGENTS[:2], epsilon=0.0, learning_rate=0.3)
    d.update("agent_0", "draft", 0.8)
    d.update("agent_1", "draft", 0.6)
    for _ in range(3):
        d.update("agent_0", "draft", 0.0)  # agent_0 starts failing
    assert d.choose("draft", random.Random(0)) == "agent_1"


def test_round_trip_and_table_rows() -> None:
    d = Dispatcher(AGENTS, epsilon=0.2, learning_rate=0.5)
    d.update("agent_2", "mutate", 0.4)
    again = Dispatcher.from_dict(d.to_dict())
    assert again == d
    rows = {r["agent"]: r for r in d.rows()}
    assert rows["agent_2"]["mutate"] == 0.4 and rows["agent_2"]["mutate n"] == 1
    assert rows["agent_0"]["mutate"] is None
    with pytest.raises(ValueError, match="epsilon"):
        Dispatcher(AGENTS, epsilon=1.5)
    with pytest.raises(ValueError, match="at least one agent"):
        Dispatcher([])
