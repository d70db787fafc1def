"""A run's directory and its persistent state.

Layout of a run dir:

    config.yaml          the config used (no secrets)
    state.json           RunState: counters, the steps planned but not finished, why it stopped
    journal.json         the solution journal (every node)
    experience.jsonl     the shared experience pool
    llm_usage.jsonl      every model call: tokens, latency, cost
    agent_configs/       the run's evolving copies of the agents' texts, every version kept
    skills/              the run's copy of skills/; skills/meta/ holds the agents' lineage and history
    pending/<id>.json    the prompt of a step planned but not recorded yet
    workspace/           input/, nodes/<id>/{working,submission}, best_solution/, archives/
    cache/               persisted Prefect task results (generation and execution caches)
    epochs/<k>/state.json  a snapshot after epoch k
    branches/<name>/     reruns of an epoch, each a run dir of its own
    dispatcher.json      the task dispatcher's EMA scores per agent and task type
    evolution/<k>.json   what agent evolution did after epoch k
    report.md, grade.json

`state.json` is written after `journal.json`, both atomically, after every finished step; a planned step is
recorded before its model call, so a resumed run replays it with the very same prompt and hits the cache.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from swarm.atomic import read_json, write_json_atomic


class StepPlan(BaseModel):
    """One search step decided before it runs: what to do, to which parents, by which agent."""

    step: int
    epoch: int
    node_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    task_type: str
    parent_ids: list[str] = Field(default_factory=list)
    agent_id: str = "agent_0"
    gene: str | None = None
    crossover_plan: dict[str, int] | None = None
    mode: str | None = None  # the policy's mode when it chose this step: "final" phase or "stagnation"
    time_remaining_s: float = 0.0
    steps_remaining: int = 0
    seed: int = 0

    def label(self) -> str:
        return f"{self.agent_id} {self.task_type} {self.node_id[:6]}"


class RunState(BaseModel):
    """Counters and bookkeeping that, with the journal, let a run resume exactly."""

    run_id: str
    competition: str
    branch: str = "main"
    created_at: float = Field(default_factory=time.time)
    next_step: int = 0
    steps_done: int = 0
    epochs_done: int = 0
    elapsed_s: float = 0.0
    pending: list[StepPlan] = Field(default_factory=list)
    population: list[str] = Field(default_factory=list, description="Node ids of the GA population.")
    population_epoch: int = Field(0, description="The last epoch whose end renewed the population.")
    generation: int = Field(0, description="GA generations started (0 while the population fills).")
    generation_epoch: int | None = Field(None, description="The epoch the current GA generation runs in.")
    stopped_reason: str | None = None
    finished: bool = False
    meta: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class RunPaths:
    """Where everything of one run lives."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config.yaml"

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def journal(self) -> Path:
        return self.root / "journal.json"

    @property
    def experience(self) -> Path:
        return self.root / "experience.jsonl"

    @property
    def usage(self) -> Path:
        return self.root / "llm_usage.jsonl"

    @property
    def agents(self) -> Path:
        return self.root / "agents"

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @property
    def report(self) -> Path:
        return self.root / "report.md"

    @property
    def grade(self) -> Path:
        return self.root / "grade.json"

    @property
    def dispatcher(self) -> Path:
        return self.root / "dispatcher.json"

    def epoch_snapshot(self, epoch: int) -> Path:
        return self.root / "epochs" / str(epoch) / "state.json"

    def branch(self, name: str) -> RunPaths:
        return RunPaths(self.root / "branches" / name)


def load_state(paths: RunPaths) -> RunState:
    if not paths.state.is_file():
        raise FileNotFoundError(f"{paths.root} is not a run dir: {paths.state.name} is missing")
    return RunState.model_validate(read_json(paths.state))


def save_state(paths: RunPaths, state: RunState) -> None:
    write_json_atomic(paths.state, state.model_dump(mode="json"))
