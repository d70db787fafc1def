"""Search policies: which step comes next.

- `aide`: draft until `num_drafts`; with `debug_prob` debug a buggy leaf within `max_debug_depth`; else
  improve the best node.
- `ga`: AIDE steps while the population fills; once it holds `ga_min_population` good nodes (default
  `population_size`), every epoch is a GA generation whose steps are offspring (`swarm.population`: merge
  with `crossover_rate`, mutate with `mutation_rate`, else improve, parents by tournament), and buggy
  offspring are debugged with `debug_prob` like any buggy leaf.

Steps may run in parallel, so the policy also sees the steps already planned but not finished: a pending
draft counts as a draft, and a buggy leaf already being debugged is not picked twice.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from swarm.config import Config
from swarm.journal import Journal
from swarm.pipeline.state import RunState, StepPlan
from swarm.population import StepChoice, choose_ga_step, population_fitness


def ga_threshold(cfg: Config) -> int:
    """Good nodes the population needs before GA epochs start."""
    evolution = cfg.evolution
    return min(evolution.ga_min_population or evolution.population_size, evolution.population_size)


def begin_epoch(state: RunState, epoch: int, cfg: Config, resumed: bool) -> bool:
    """Start a GA generation in `epoch` when the policy is `ga` and the population is ready; True when
    `epoch` is a GA epoch. A `resumed` epoch (it has steps already) keeps the decision made when it started."""
    if state.generation_epoch == epoch:
        return True
    if resumed:
        return False
    if cfg.search.policy == "ga" and len(state.population) >= ga_threshold(cfg):
        state.generation += 1
        state.generation_epoch = epoch
        return True
    return False


def choose_next(
    journal: Journal,
    pending: Sequence[StepPlan],
    cfg: Config,
    rng: random.Random,
    state: RunState | None = None,
    lower_is_better: bool = False,
) -> StepChoice:
    """The next step of the configured policy (AIDE unless the current epoch is a GA generation)."""
    search = cfg.search
    ga_epoch = state is not None and state.generation_epoch == state.epochs_done + 1 and state.population
    if not ga_epoch:
        drafts = len(journal.draft_nodes()) + sum(1 for plan in pending if plan.task_type == "draft")
        if drafts < search.num_drafts:
            return StepChoice("draft", [])

    busy = {pid for plan in pending for pid in plan.parent_ids}
    if rng.random() < search.debug_prob:
        debuggable = [
            node
            for node in journal.buggy_nodes()
            if journal.is_leaf(node.id)
            and journal.debug_depth(node.id) <= search.max_debug_depth
            and node.id not in busy
        ]
        if debuggable:
            return StepChoice("debug", [rng.choice(debuggable).id])

    if ga_epoch:
        evolution = cfg.evolution
        fitness = population_fitness(journal, state.population, lower_is_better)
        return choose_ga_step(
            journal,
            fitness,
            tournament_k=evolution.tournament_k,
            crossover_rate=evolution.crossover_rate,
            mutation_rate=evolution.mutation_rate,
            rng=rng,
        )

    best = journal.best_node(only_good=True)
    if best is None:
        return StepChoice("draft", [])
    return StepChoice("improve", [best.id])
