"""The solution layer's genetic algorithm: a population of good nodes, elitism, tournament selection, and
the choice of each GA step (merge two parents, mutate one gene, or improve).

The population is a list of node ids kept in the run state. It is renewed at the end of every epoch:

    next = the `elite_size` best of the current population
         + the best good nodes made this epoch (the offspring)
         + the rest of the current population, best first          (only while places are left)

cut to `population_size`. Fitness is the metric normalised over the population (`swarm.ga.fitness`), in [0, 1],
higher is better whatever the metric's direction. All randomness comes from the `random.Random` passed in,
so a seeded run chooses the same parents again.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from swarm.ga.fitness import normalise
from swarm.ga.genes import missing_sections, split_genes
from swarm.journal import Journal, Node
from swarm.protocol import GENE_SECTIONS


@dataclass(frozen=True)
class StepChoice:
    """A search step: its task type, parent ids, the gene (mutate) or crossover plan (merge), the mode."""

    task_type: str
    parent_ids: list[str]
    gene: str | None = None
    crossover_plan: dict[str, int] | None = None
    mode: str | None = (
        None  # set by the policy in its final phase ("final") or when stagnating ("stagnation")
    )


def _metric_value(node: Node) -> float | None:
    return node.metric.value if node.metric is not None else None


def rank_nodes(nodes: Sequence[Node]) -> list[Node]:
    """Good nodes best first (metric direction honoured, a missing metric last); ties keep their order."""
    ranked = [n for n in nodes if n.is_good and n.metric is not None]
    ranked.sort(key=lambda n: n.metric.sort_key())  # type: ignore[union-attr]
    return ranked


def next_generation(
    journal: Journal, population: Sequence[str], offspring: Sequence[str], size: int, elite_size: int
) -> list[str]:
    """The ids of the next population (see the module docstring)."""
    current = rank_nodes([journal.get(i) for i in population if i in journal])
    elites = current[:elite_size]
    children = rank_nodes([journal.get(i) for i in offspring if i in journal])
    chosen: list[str] = []
    for node in [*elites, *children, *current[elite_size:]]:
        if node.id not in chosen:
            chosen.append(node.id)
        if len(chosen) == size:
            break
    return chosen


def population_fitness(
    journal: Journal, population: Sequence[str], lower_is_better: bool
) -> dict[str, float]:
    """Each member's fitness in [0, 1] relative to the others."""
    values = [_metric_value(journal.get(i)) for i in population]
    return dict(zip(population, normalise(values, lower_is_better=lower_is_better), strict=True))


def tournament(fitness: dict[str, float], k: int, rng: random.Random, exclude: Sequence[str] = ()) -> str:
    """The fittest of `k` members drawn at random without replacement (fewer when the population is small)."""
    pool = [node_id for node_id in fitness if node_id not in exclude]
    if not pool:
        raise ValueError("tournament over an empty population")
    entrants = rng.sample(pool, min(k, len(pool)))
    return max(entrants, key=lambda node_id: fitness[node_id])


def differing_sections(a: Node, b: Node) -> list[str]:
    """The gene sections whose code differs between two nodes."""
    genes_a, genes_b = split_genes(a.code), split_genes(b.code)
    return [name for name in GENE_SECTIONS if genes_a.get(name, "").strip() != genes_b.get(name, "").strip()]


def crossover_plan(rng: random.Random, differing: Sequence[str] = GENE_SECTIONS) -> dict[str, int]:
    """Which parent (0 or 1) gives each gene section. Among the sections where the parents differ, each
    parent gives at least one, so the child is a copy of neither; the others come from parent 0."""
    if len(differing) < 2:
        raise ValueError(
            f"a crossover needs parents that differ in two sections or more, not {len(differing)}"
        )
    plan = dict.fromkeys(GENE_SECTIONS, 0)
    while True:
        picks = {name: rng.randrange(2) for name in differing}
        if 0 < sum(picks.values()) < len(picks):
            return {**plan, **picks}


def has_all_genes(node: Node) -> bool:
    """Whether the node's code has all seven gene sections (code without markers is one opaque gene)."""
    return not missing_sections(node.code)


def operator_for(rng: random.Random, crossover_rate: float, mutation_rate: float) -> str:
    """merge with `crossover_rate`, mutate with `mutation_rate` (both scaled down if they sum over 1),
    else improve."""
    total = crossover_rate + mutation_rate
    scale = 1.0 / total if total > 1.0 else 1.0
    draw = rng.random()
    if draw < crossover_rate * scale:
        return "merge"
    if draw < (crossover_rate + mutation_rate) * scale:
        return "mutate"
    return "improve"


def choose_ga_step(
    journal: Journal,
    fitness: dict[str, float],
    *,
    tournament_k: int,
    crossover_rate: float,
    mutation_rate: float,
    rng: random.Random,
) -> StepChoice:
    """The next offspring: tournament-selected parent(s) and the operator applied to them.

    A merge needs two members that both have every gene section and differ in at least two of them (else
    the child could only copy a parent); without such a pair the step mutates instead. A mutation of opaque
    code (no markers) becomes an improve step."""
    operator = operator_for(rng, crossover_rate, mutation_rate)
    if operator == "merge":
        sectioned = [i for i in fitness if has_all_genes(journal.get(i))]
        differs = {
            (a, b): differing_sections(journal.get(a), journal.get(b))
            for a in sectioned
            for b in sectioned
            if a != b
        }
        # The first parent is drawn among the members that have a mate (an elite whose one-gene mutants fill the
        # population has none, though two of the mutants differ in two genes).
        mated = {
            i: fitness[i] for i in sectioned if any(len(differs[i, o]) >= 2 for o in sectioned if o != i)
        }
        if mated:
            first = tournament(mated, tournament_k, rng)
            mates = {i: fitness[i] for i in sectioned if i != first and len(differs[first, i]) >= 2}
            second = tournament(mates, tournament_k, rng)
            plan = crossover_plan(rng, differs[first, second])
            return StepChoice("merge", [first, second], crossover_plan=plan)
        operator = "mutate"
    parent = tournament(fitness, tournament_k, rng)
    if operator == "mutate" and has_all_genes(journal.get(parent)):
        return StepChoice("mutate", [parent], gene=rng.choice(GENE_SECTIONS))
    return StepChoice("improve", [parent])
