"""The policy's modes: the final phase stops drafting and improves the best nodes in turn; stagnation makes AIDE
draft anew and the GA mutate more; both are recorded on the steps they choose."""

from __future__ import annotations

import random

from swarm.config import load_config
from swarm.journal import Journal, Node
from swarm.journal.step_record import Review
from swarm.metric import MetricValue
from swarm.pipeline.policy import FINAL, STAGNATION, choose_next, in_final_phase, steps_since_improvement
from swarm.pipeline.state import RunState, StepPlan
from swarm.protocol import GENE_SECTIONS, section_marker


def good(value: float, task: str = "draft") -> Node:
    return Node(task_type=task, review=Review(is_buggy=False, metric=MetricValue(value, False)))


def cfg(*overrides: str):
    return load_config(overrides=["search.debug_prob=0", "agent.max_steps=10", *overrides], env_file=None)


def state(next_step: int) -> RunState:
    return RunState(run_id="r", competition="c", next_step=next_step)


def test_final_phase_starts_at_its_share_of_the_step_or_time_budget() -> None:
    config = cfg("ensemble.final_phase_fraction=0.2", "agent.time_limit_s=100")
    assert not in_final_phase(config, state(7)) and in_final_phase(config, state(8))
    assert in_final_phase(config, state(0), elapsed_s=80.0) and not in_final_phase(config, state(0), 79.0)
    assert not in_final_phase(cfg("ensemble.final_phase_fraction=0"), state(9))


def test_final_phase_stops_drafting_and_improves_the_best_nodes_in_turn() -> None:
    nodes = [good(v) for v in (0.5, 0.9, 0.7, 0.1)]
    journal = Journal(nodes)
    config = cfg("search.num_drafts=10", "ensemble.final_phase_parents=3")
    assert choose_next(journal, [], config, random.Random(0), state(2)).task_type == "draft"
    parents = []
    for step in (8, 9, 10):
        choice = choose_next(journal, [], config, random.Random(0), state(step))
        assert choice.task_type == "improve" and choice.mode == FINAL
        parents.append(choice.parent_ids[0])
    assert sorted(parents) == sorted(n.id for n in nodes[:3])  # the three best, each once


def test_stagnation_drafts_once_per_patience_steps_without_improvement() -> None:
    journal = Journal([good(0.9), *(good(0.5, "improve") for _ in range(2))])
    config = cfg("search.num_drafts=1", "search.patience=3")
    assert steps_since_improvement(journal) == 2
    assert choose_next(journal, [], config, random.Random(0)).task_type == "improve"
    journal.append(good(0.6, "improve"))  # a third step without improvement
    choice = choose_next(journal, [], config, random.Random(0))
    assert (choice.task_type, choice.mode) == ("draft", STAGNATION)
    pending = [StepPlan(step=4, epoch=1, task_type="draft")]
    assert choose_next(journal, pending, config, random.Random(0)).task_type == "improve"  # one per window
    journal.append(good(0.95, "draft"))  # the new draft improves: the mode ends
    assert steps_since_improvement(journal) == 0
    assert (
        choose_next(journal, [], cfg("search.num_drafts=1", "search.patience=0"), random.Random(0)).mode
        is None
    )


def sectioned(value: float, seed: int) -> Node:
    """A good node whose code marks every gene section, each section different from the other nodes'."""
    code = "\n".join(f"{section_marker(name)}\nx_{name.lower()} = {seed}" for name in GENE_SECTIONS)
    node = good(value, "improve")
    node.code = code
    return node


def test_a_stagnating_ga_generation_mutates_more() -> None:
    journal = Journal([sectioned(0.9, 0), *(sectioned(0.5, i) for i in range(1, 5))])
    ga = state(5)
    ga.population, ga.generation_epoch = [n.id for n in journal], 1
    base = [
        "evolution.crossover_rate=1.0",
        "evolution.mutation_rate=0.0",
        "search.stagnation_mutation_rate=1.0",
    ]

    def operators(patience: int) -> set[tuple[str, str | None]]:
        config = cfg(*base, f"search.patience={patience}")
        return {
            (c.task_type, c.mode)
            for c in (choose_next(journal, [], config, random.Random(i), ga) for i in range(20))
        }

    assert operators(0) == {("merge", None)}  # crossover only
    assert operators(3) == {("mutate", STAGNATION)}  # 4 steps without improvement: mutation only
