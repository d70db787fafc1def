"""The solution layer's GA: generations with elitism, fitness, tournament selection, operators (seeded)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from swarm.ga.population import (
    choose_ga_step,
    crossover_plan,
    next_generation,
    operator_for,
    population_fitness,
    rank_nodes,
    tournament,
)
from swarm.journal import Journal, Node
from swarm.journal.step_record import Review
from swarm.metric import MetricValue
from swarm.protocol import GENE_SECTIONS, section_marker


def sectioned(tag: object = 1, same: tuple[str, ...] = ()) -> str:
    """Code with all seven sections; sections in `same` are identical whatever the tag."""
    return "\n".join(f"{section_marker(n)}\nx = {0 if n in same else tag!r}\n" for n in GENE_SECTIONS)


SECTIONED = sectioned()


def node(value: float | None, lower: bool = True, buggy: bool = False, code: str | None = None) -> Node:
    code = sectioned(value) if code is None else code
    return Node(code=code, review=Review(is_buggy=buggy, metric=MetricValue(value, lower)))


def journal_of(*nodes: Node) -> Journal:
    return Journal(nodes)


def test_rank_nodes_honours_direction_and_skips_buggy() -> None:
    a, b, c, bug = node(0.3), node(0.1), node(0.2), node(0.0, buggy=True)
    assert rank_nodes([a, b, c, bug]) == [b, c, a]
    hi = [node(0.3, lower=False), node(0.9, lower=False)]
    assert rank_nodes(hi) == [hi[1], hi[0]]


def test_next_generation_keeps_elites_then_offspring_then_the_rest() -> None:
    old = [node(v) for v in (0.10, 0.20, 0.30, 0.40)]  # lower is better: 0.10 is the best
    kids = [node(v) for v in (0.50, 0.35, 0.05)] + [node(0.01, buggy=True)]
    journal = journal_of(*old, *kids)
    ids = [n.id for n in old]
    new = next_generation(journal, ids, [k.id for k in kids], size=4, elite_size=2)
    # elites 0.10 and 0.20, then the best good offspring (0.05, 0.35): the buggy child never enters
    assert new == [old[0].id, old[1].id, kids[2].id, kids[1].id]


def test_next_generation_fills_up_while_places_are_left() -> None:
    old = [node(0.2)]
    kids = [node(0.3), node(0.1)]
    journal = journal_of(*old, *kids)
    new = next_generation(journal, [old[0].id], [k.id for k in kids], size=5, elite_size=3)
    assert new == [old[0].id, kids[1].id, kids[0].id]


def test_fitness_is_in_unit_range_and_best_is_highest() -> None:
    members = [node(v, lower=False) for v in (0.70, 0.95, -3.0, 0.80)]  # an outlier below zero
    journal = journal_of(*members)
    fit = population_fitness(journal, [n.id for n in members], lower_is_better=False)
    assert all(0.0 <= f <= 1.0 for f in fit.values())
    assert max(fit, key=fit.get) == members[1].id and min(fit, key=fit.get) == members[2].id


def test_tournament_picks_the_fittest_entrant_seeded() -> None:
    fitness = {f"n{i}": i / 10 for i in range(10)}
    wins = Counter(tournament(fitness, 3, random.Random(seed)) for seed in range(400))
    assert wins.most_common(1)[0][0] == "n9"
    assert "n0" not in wins and "n1" not in wins  # two weaker entrants can never win
    assert tournament(fitness, 3, random.Random(7)) == tournament(fitness, 3, random.Random(7))
    assert tournament({"a": 0.1, "b": 0.2}, 5, random.Random(0)) == "b"  # k larger than the population
    assert tournament(fitness, 10, random.Random(0), exclude=["n9"]) == "n8"
    with pytest.raises(ValueError, match="empty"):
        tournament({}, 3, random.Random(0))


def test_crossover_plan_mixes_both_parents_where_they_differ() -> None:
    for seed in range(50):
        plan = crossover_plan(random.Random(seed))
        assert set(plan) == set(GENE_SECTIONS) and set(plan.values()) == {0, 1}
        narrow = crossover_plan(random.Random(seed), ["MODEL", "LOSS"])
        assert {narrow["MODEL"], narrow["LOSS"]} == {0, 1}
        assert all(narrow[n] == 0 for n in GENE_SECTIONS if n not in ("MODEL", "LOSS"))
    with pytest.raises(ValueError, match="two sections"):
        crossover_plan(random.Random(0), ["MODEL"])


def test_operator_rates() -> None:
    rng = random.Random(0)
    counts = Counter(operator_for(rng, 0.6, 0.3) for _ in range(5000))
    assert counts["merge"] / 5000 == pytest.approx(0.6, abs=0.03)
    assert counts["mutate"] / 5000 == pytest.approx(0.3, abs=0.03)
    assert counts["improve"] / 5000 == pytest.approx(0.1, abs=0.02)
    scaled = Counter(operator_for(rng, 1.0, 1.0) for _ in range(2000))
    assert set(scaled) == {"merge", "mutate"}
    assert {operator_for(rng, 0.0, 0.0) for _ in range(100)} == {"improve"}


def test_ga_step_never_merges_parents_that_differ_in_under_two_sections() -> None:
    twins = [
        node(0.1, code=sectioned("a", same=GENE_SECTIONS[1:])),
        node(0.2, code=sectioned("b", GENE_SECTIONS[1:])),
    ]
    journal = journal_of(*twins)
    fit = population_fitness(journal, [n.id for n in twins], lower_is_better=True)
    for seed in range(20):
        step = choose_ga_step(
            journal, fit, tournament_k=2, crossover_rate=1.0, mutation_rate=0.0, rng=random.Random(seed)
        )
        assert step.task_type == "mutate"  # a merge of parents differing in DATA only would copy one


def test_ga_step_merges_two_distinct_sectioned_parents() -> None:
    members = [node(v) for v in (0.1, 0.2, 0.3)]
    journal = journal_of(*members)
    fit = population_fitness(journal, [n.id for n in members], lower_is_better=True)
    step = choose_ga_step(
        journal, fit, tournament_k=2, crossover_rate=1.0, mutation_rate=0.0, rng=random.Random(3)
    )
    assert step.task_type == "merge" and len(set(step.parent_ids)) == 2
    assert set(step.crossover_plan) == set(GENE_SECTIONS)


def mutant(parent: dict[str, str], section: str, value: str) -> str:
    """Code with `parent`'s sections, `section` set to `value`."""
    return "\n".join(
        f"{section_marker(n)}\nx = {value if n == section else parent[n]!r}\n" for n in GENE_SECTIONS
    )


def test_ga_step_merges_two_mutants_of_an_elite_whatever_the_elite_draws() -> None:
    """A population of an elite and its one-gene mutants: the elite has no mate (one gene apart from each), but
    two mutants of different genes are two apart, so a merge step merges them instead of mutating."""
    elite = {n: "e" for n in GENE_SECTIONS}
    members = [
        node(0.1, code=mutant(elite, "DATA", "e")),  # the elite itself (the best, the likeliest first draw)
        node(0.2, code=mutant(elite, "LOSS", "m1")),
        node(0.3, code=mutant(elite, "MODEL", "m2")),
    ]
    journal = journal_of(*members)
    fit = population_fitness(journal, [n.id for n in members], lower_is_better=True)
    for seed in range(20):
        step = choose_ga_step(
            journal, fit, tournament_k=3, crossover_rate=1.0, mutation_rate=0.0, rng=random.Random(seed)
        )
        assert step.task_type == "merge", seed
        assert set(step.parent_ids) == {members[1].id, members[2].id}
        assert set(step.crossover_plan) == set(GENE_SECTIONS)


def test_ga_step_falls_back_for_opaque_code() -> None:
    opaque = [node(v, code="print('no sections')\n") for v in (0.1, 0.2)]
    journal = journal_of(*opaque)
    fit = population_fitness(journal, [n.id for n in opaque], lower_is_better=True)
    merge = choose_ga_step(
        journal, fit, tournament_k=2, crossover_rate=1.0, mutation_rate=0.0, rng=random.Random(0)
    )
    assert merge.task_type == "improve"  # no two sectioned parents, and opaque code cannot mutate one gene
    members = [node(0.1), node(0.2, code="print(1)\n")]  # one sectioned member: nothing to merge with
    journal = journal_of(*members)
    fit = population_fitness(journal, [n.id for n in members], lower_is_better=True)
    step = choose_ga_step(
        journal, fit, tournament_k=2, crossover_rate=0.0, mutation_rate=1.0, rng=random.Random(1)
    )
    assert step.task_type == "mutate" and step.gene in GENE_SECTIONS and step.parent_ids == [members[0].id]
