"""The agent layer's task dispatcher: which agent takes a step of a given task type.

Per (agent, task type) it keeps an exponential moving average of the quality of that agent's output
(`score <- (1 - learning_rate) * score + learning_rate * quality`, quality in [0, 1], 0 for a buggy node).
Choice is epsilon-greedy: a pair never tried is tried first; otherwise with probability `epsilon` a random
agent, else the best-scoring one (the lowest agent id on ties). Its matrix is plain JSON, saved with the run.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Dispatcher:
    """EMA scores per agent and task type, and epsilon-greedy choice over them."""

    agent_ids: list[str]
    epsilon: float = 0.3
    learning_rate: float = 0.3
    scores: dict[str, dict[str, float]] = field(default_factory=dict)  # task type -> agent -> EMA
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # task type -> agent -> updates

    def __post_init__(self) -> None:
        if not self.agent_ids:
            raise ValueError("a dispatcher needs at least one agent")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if not 0.0 < self.learning_rate <= 1.0:
            raise ValueError(f"learning_rate must be in (0, 1], got {self.learning_rate}")

    def score(self, agent_id: str, task_type: str) -> float | None:
        """The EMA score of a pair, or None when the agent never did this task type."""
        return self.scores.get(task_type, {}).get(agent_id)

    def choose(self, task_type: str, rng: random.Random, busy: Sequence[str] = ()) -> str:
        """The agent for the next `task_type` step (an untried agent first; agents in `busy` last)."""
        candidates = [a for a in self.agent_ids if a not in busy] or list(self.agent_ids)
        untried = [a for a in candidates if self.score(a, task_type) is None]
        if untried:
            return untried[0]
        if rng.random() < self.epsilon:
            return rng.choice(candidates)
        return max(candidates, key=lambda a: (self.score(a, task_type), -self.agent_ids.index(a)))

    def update(self, agent_id: str, task_type: str, quality: float) -> float:
        """Fold one output's quality into the pair's EMA; returns the new score."""
        if not 0.0 <= quality <= 1.0:
            raise ValueError(f"quality must be in [0, 1], got {quality}")
        old = self.score(agent_id, task_type)
        new = quality if old is None else (1 - self.learning_rate) * old + self.learning_rate * quality
        self.scores.setdefault(task_type, {})[agent_id] = new
        counts = self.counts.setdefault(task_type, {})
        counts[agent_id] = counts.get(agent_id, 0) + 1
        return new

    def rows(self) -> list[dict[str, Any]]:
        """The matrix as table rows: one per agent, a column per task type (score and updates)."""
        task_types = sorted(self.scores)
        rows = []
        for agent in self.agent_ids:
            row: dict[str, Any] = {"agent": agent}
            for task_type in task_types:
                value = self.score(agent, task_type)
                row[task_type] = None if value is None else round(value, 4)
                row[f"{task_type} n"] = self.counts.get(task_type, {}).get(agent, 0)
            rows.append(row)
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent_ids": self.agent_ids,
            "epsilon": self.epsilon,
            "learning_rate": self.learning_rate,
            "scores": self.scores,
            "counts": self.counts,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Dispatcher:
        return cls(
            agent_ids=list(data["agent_ids"]),
            epsilon=float(data["epsilon"]),
            learning_rate=float(data["learning_rate"]),
            scores={t: dict(s) for t, s in data.get("scores", {}).items()},
            counts={t: dict(c) for t, c in data.get("counts", {}).items()},
        )
