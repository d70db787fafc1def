"""Search policies: which step comes next.

- `aide`: draft until `num_drafts`; with `debug_prob` debug a buggy leaf within `max_debug_depth`; else
  improve the best node.
- `mcts`: UCT over the journal with progressive widening (`swarm.pipeline.mcts`); the modes below do not apply.
- `ga`: AIDE steps while the population fills; once it holds `ga_min_population` good nodes (default
  `population_size`), every epoch is a GA generation whose steps are offspring (`swarm.ga.population`: merge
  with `crossover_rate`, mutate with `mutation_rate`, else improve, parents by tournament), and buggy
  offspring are debugged with `debug_prob` like any buggy leaf.

Steps may run in parallel, so the policy also sees the steps already planned but not finished: a pending
draft counts as a draft, and a buggy leaf already being debugged is not picked twice.

Two modes change the plain policy, and every step they choose says so (`StepChoice.mode`, kept in the node's
`meta.search_mode`):

- `final`: once `ensemble.final_phase_fraction` of the step or time budget is left, AIDE steps stop drafting
  and debugging and improve the `ensemble.final_phase_parents` best nodes in turn (diverse strong members for
  the end-of-run blend); GA generations go on, their tournaments already favour the best.
- `stagnation`: when the best score has not improved for `search.patience` recorded steps, AIDE drafts anew
  (one draft per `patience` such steps) and GA generations mutate at `search.stagnation_mutation_rate` at
  least (crossover giving way).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from swarm.config import Config
from swarm.ga.population import StepChoice, choose_ga_step, population_fitness, rank_nodes
from swarm.journal import Journal
from swarm.pipeline.mcts import choose_mcts_step
from swarm.pipeline.state import RunState, StepPlan

FINAL, STAGNATION = "final", "stagnation"


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


def in_final_phase(cfg: Config, state: RunState | None, elapsed_s: float | None = None) -> bool:
    """Whether `ensemble.final_phase_fraction` (or less) of the step budget, or of the time budget when
    `elapsed_s` is known, is left before the next step."""
    fraction, agent = cfg.ensemble.final_phase_fraction, cfg.agent
    if fraction <= 0 or state is None:
        return False
    if agent.max_steps - state.next_step <= fraction * agent.max_steps:
        return True
    return elapsed_s is not None and agent.time_limit_s - elapsed_s <= fraction * agent.time_limit_s


def steps_since_improvement(journal: Journal) -> int | None:
    """Nodes recorded since the best score last improved; None while no node has a score."""
    best, since = None, None
    for node in journal:
        scored = node.is_good and node.metric is not None and node.metric.value is not None
        if scored and (best is None or node.metric > best):
            best, since = node.metric, 0
        elif since is not None:
            since += 1
    return since


def stagnating(journal: Journal, cfg: Config) -> int | None:
    """The steps without improvement when they reach `search.patience` (None when not, or patience is 0)."""
    since = steps_since_improvement(journal)
    patience = cfg.search.patience
    return since if patience and since is not None and since >= patience else None


def _stagnation_draft(journal: Journal, pending: Sequence[StepPlan], cfg: Config, since: int) -> bool:
    """AIDE's stagnation mode: one new draft per `patience` steps without improvement."""
    window = journal.nodes[len(journal) - since :] if since else []
    drafts = sum(1 for n in window if n.task_type == "draft") + sum(
        1 for p in pending if p.task_type == "draft"
    )
    return drafts < since // cfg.search.patience


def choose_next(
    journal: Journal,
    pending: Sequence[StepPlan],
    cfg: Config,
    rng: random.Random,
    state: RunState | None = None,
    lower_is_better: bool = False,
    elapsed_s: float | None = None,
) -> StepChoice:
    """The next step of the configured policy (AIDE unless the current epoch is a GA generation), in its final
    phase or stagnation mode when they apply."""
    search = cfg.search
    if search.policy == "mcts":
        return choose_mcts_step(journal, pending, cfg, lower_is_better, rng)
    ga_epoch = state is not None and state.generation_epoch == state.epochs_done + 1 and state.population
    since = stagnating(journal, cfg)
    if not ga_epoch:
        if in_final_phase(cfg, state, elapsed_s):
            top = rank_nodes(journal.good_nodes())[: cfg.ensemble.final_phase_parents]
            if top:  # with no good node there is nothing to improve: drafting goes on
                return StepChoice("improve", [top[state.next_step % len(top)].id], mode=FINAL)  # type: ignore[union-attr]
        drafts = len(journal.draft_nodes()) + sum(1 for plan in pending if plan.task_type == "draft")
        if drafts < search.num_drafts:
            return StepChoice("draft", [])
        if since is not None and _stagnation_draft(journal, pending, cfg, since):
            return StepChoice("draft", [], mode=STAGNATION)

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
        crossover, mutation = evolution.crossover_rate, evolution.mutation_rate
        if since is not None:
            mutation = max(mutation, search.stagnation_mutation_rate)
            crossover = min(crossover, 1.0 - mutation)
        choice = choose_ga_step(
            journal,
            fitness,
            tournament_k=evolution.tournament_k,
            crossover_rate=crossover,
            mutation_rate=mutation,
            rng=rng,
        )
        return replace(choice, mode=STAGNATION) if since is not None else choice

    best = journal.best_node(only_good=True)
    if best is None:
        return StepChoice("draft", [])
    return StepChoice("improve", [best.id])
