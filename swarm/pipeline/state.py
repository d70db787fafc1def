"""A run's directory and its persistent state.

Layout of a run dir:

    config.yaml          the config used (no secrets)
    state.json           RunState: counters, the steps planned but not finished, why it stopped
    journal.jsonl        the solution journal, append-only: a header, then one node per line (`swarm.journal`)
    journal.fields.json  the journal's fields that change after a node is saved (GA fitness, generation)
    journal.v1.json      a run made before journal.jsonl: its journal.json, kept after it was migrated
    experience.jsonl     the shared experience pool
    llm_usage.jsonl      every model call: tokens, latency, cost
    exchanges/<id>.jsonl every model call's messages, settings and raw reply, per node (run.jsonl: no node)
    llm_endpoints.json   what each stage's client learned of its endpoint (tools, JSON schema honoured)
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

After every finished step the journal gets the step's node appended (fsynced), then `state.json` is replaced
atomically; what a step writes does not grow with the run (benchmarks/README.md, "Scale"). A planned step is
recorded before its model call, so a resumed run replays it with the very same prompt and hits the cache.
A run dir from before the append-only journal (`journal.json`) is migrated once when it is opened
(`migrate_journal`).
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from swarm.atomic import fsync_dir, read_json, write_json_atomic
from swarm.journal import Journal, fields_path
from swarm.llm.endpoint_facts import ENDPOINTS_FILE

log = logging.getLogger(__name__)


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
        return self.root / "journal.jsonl"

    @property
    def llm_endpoints(self) -> Path:
        """What the LLM clients learned of their endpoints (`swarm.llm.endpoint_facts`)."""
        return self.root / ENDPOINTS_FILE

    @property
    def journal_fields(self) -> Path:
        return fields_path(self.journal)

    @property
    def legacy_journal(self) -> Path:
        """The whole-document journal of a run made before `journal.jsonl` (read, then migrated)."""
        return self.root / "journal.json"

    @property
    def migrated_journal(self) -> Path:
        """Where a migrated run keeps its old `journal.json`."""
        return self.root / "journal.v1.json"

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


def load_journal(paths: RunPaths, validate: bool = True) -> Journal:
    """The run's journal: `journal.jsonl`, or the `journal.json` of a run made before it (read as it is; a
    resume migrates it, `migrate_journal`)."""
    if not paths.journal.is_file() and paths.legacy_journal.is_file():
        return Journal.load(paths.legacy_journal, validate=validate)
    return Journal.load(paths.journal, validate=validate)


def migrate_journal(paths: RunPaths) -> bool:
    """Give a run dir made before the append-only journal its `journal.jsonl`, once: written whole from
    `journal.json`, which is then renamed `journal.v1.json` (nothing is lost; a kill between the two leaves
    both, and the next call only renames). True when there was an old journal."""
    legacy = paths.legacy_journal
    if not legacy.is_file():
        return False
    if not paths.journal.is_file():
        journal = Journal.load(legacy)
        journal.save(paths.journal)
        log.info("migrated %s (%d nodes) to %s", legacy, len(journal), paths.journal.name)
    legacy.replace(paths.migrated_journal)
    fsync_dir(paths.root)
    return True
