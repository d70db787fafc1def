"""The dual-layer swarm end to end on the offline coder: GA epochs make merged and mutated offspring whose
lineage is in the journal, the dispatcher learns per agent and task type, and weak agents are evolved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.competition import CompetitionParams, competition_flow
from swarm.agents.store import AgentStore
from swarm.journal import Journal
from swarm.protocol import GENE_SECTIONS

pytestmark = pytest.mark.usefixtures("prefect_server")

GA = [
    "search.policy=ga",
    "search.num_drafts=2",
    "search.parallel=2",
    "agent.max_steps=9",
    "evolution.steps_per_epoch=3",
    "evolution.population_size=4",
    "evolution.elite_size=1",
    "evolution.ga_min_population=2",
    "evolution.crossover_rate=0.5",
    "evolution.mutation_rate=0.5",
    "evolution.evolution_interval=2",
    "evolution.min_records_for_evolution=4",
]


def test_ga_epochs_merge_mutate_and_evolve_agents(tmp_path: Path, base_overrides: list[str]) -> None:
    run_dir = tmp_path / "run"
    summary = competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=[*base_overrides, *GA]))
    assert summary["grade"]["valid"], summary["grade"]
    journal = Journal.load(run_dir / "journal.jsonl")
    state = json.loads((run_dir / "state.json").read_text())
    assert len(journal) == 9 and state["generation"] == 2  # epochs 2 and 3 were GA generations

    first = [n for n in journal if n.epoch == 1]
    assert all(n.generation == 0 and n.task_type in ("draft", "improve", "debug") for n in first)
    offspring = [n for n in journal if n.epoch > 1]
    assert {n.generation for n in offspring} == {1, 2}
    merges = [n for n in offspring if n.task_type == "merge"]
    mutations = [n for n in offspring if n.task_type == "mutate"]
    assert merges and mutations, [n.task_type for n in offspring]
    for child in merges:  # lineage: two parents from the population, the plan that mixed them
        assert len(set(child.parent_ids)) == 2 and all(p in journal for p in child.parent_ids)
        assert set(child.meta.crossover_plan) == set(GENE_SECTIONS)
        assert all(journal.get(p).epoch < child.epoch for p in child.parent_ids)
    for child in mutations:
        assert len(child.parent_ids) == 1 and child.meta.gene in GENE_SECTIONS
    assert any(not n.is_buggy for n in merges + mutations)

    assert 2 <= len(state["population"]) <= 4
    assert all(journal.get(i).is_good and 0.0 <= journal.get(i).fitness <= 1.0 for i in state["population"])

    dispatcher = json.loads((run_dir / "dispatcher.json").read_text())
    assert {"draft", "merge", "mutate"} <= set(dispatcher["scores"])
    assert sum(sum(c.values()) for c in dispatcher["counts"].values()) == 9

    evolution = json.loads((run_dir / "evolution" / "2.json").read_text())
    assert len(evolution["evolved"]) == 2 and len(evolution["kept"]) == 2
    store = AgentStore(run_dir)
    for agent in evolution["evolved"]:
        assert set(store.current(agent).versions.values()) == {"v2"}
        assert all(e["reason"].startswith("[epoch 2]") for e in store.history() if e["version"] == "v2")
    for agent in evolution["kept"]:
        assert set(store.current(agent).versions.values()) == {"v1"}
    later = [n for n in journal if n.epoch == 3 and n.agent_id in evolution["evolved"]]
    assert all(set(n.meta.agent_versions.values()) == {"v2"} for n in later)  # evolved texts were used
