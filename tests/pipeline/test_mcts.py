"""`search.policy=mcts`: UCT over the journal with progressive widening, its statistics derived from the journal
(so a resumed run continues the same tree), and a whole run on it."""

from __future__ import annotations

import random
from pathlib import Path

from swarm.config import load_config
from swarm.ga.fitness import normalise
from swarm.journal import Journal, Node
from swarm.journal.step_record import Review
from swarm.metric import MetricValue
from swarm.pipeline.context import create_run, open_run
from swarm.pipeline.mcts import ROOT, choose_mcts_step, record_tree_stats, tree_stats
from swarm.pipeline.plain import run_epoch, run_to_end
from swarm.pipeline.policy import choose_next
from swarm.pipeline.state import StepPlan
from swarm.protocol import GENE_SECTIONS, section_marker


def node(value: float | None, parent: str | None = None, task: str = "draft", code: str = "") -> Node:
    review = (
        Review(is_buggy=True, bug_reason="boom")
        if value is None
        else Review(is_buggy=False, metric=MetricValue(value, False))
    )
    return Node(code=code, task_type=task, parent_ids=(parent,) if parent else (), review=review)


def sectioned(tag: object, same: tuple[str, ...] = ()) -> str:
    """Code with all seven gene sections; those in `same` are the same whatever the tag."""
    return "\n".join(f"{section_marker(n)}\nx = {0 if n in same else tag!r}\n" for n in GENE_SECTIONS)


def cfg(**search: object):
    settings = {"policy": "mcts", "num_drafts": 2, **search}
    return load_config(overrides=[f"search.{k}={v}" for k, v in settings.items()], env_file=None)


def journal_of(*nodes: Node) -> Journal:
    journal = Journal()
    for n in nodes:
        journal.append(n)
    return journal


def test_visits_and_value_sum_each_subtree_and_count_pending_steps() -> None:
    a, b = node(0.9), node(0.5)
    a1 = node(0.7, a.id, "improve")
    journal = journal_of(a, b, a1)
    stats = tree_stats(journal, [StepPlan(step=3, epoch=1, task_type="improve", parent_ids=[b.id])], False)
    assert stats.visits == {ROOT: 4, a.id: 2, b.id: 2, a1.id: 1}
    # Rewards: the GA's fitness of the good nodes' scores; a subtree's value sums its rewards.
    ra, rb, ra1 = normalise([0.9, 0.5, 0.7], lower_is_better=False)
    assert ra > ra1 > rb and stats.value[a.id] == ra + ra1 and stats.value[b.id] == rb
    assert stats.value[ROOT] == ra + rb + ra1
    assert stats.children[ROOT] == [a.id, b.id] and stats.children[a.id] == [a1.id]


def test_drafts_first_then_the_better_subtree_is_improved() -> None:
    assert choose_mcts_step(Journal(), [], cfg(), False).task_type == "draft"
    a, b = node(0.9), node(0.5)
    journal = journal_of(a, b)
    choice = choose_mcts_step(journal, [], cfg(mcts_widening=0.5, mcts_exploration=0.1), False)
    assert (choice.task_type, choice.parent_ids) == ("improve", [a.id])
    lower = choose_mcts_step(journal, [], cfg(mcts_widening=0.5, mcts_exploration=0.1), True)
    assert lower.parent_ids == [b.id]  # the same scores, lower is better


def test_progressive_widening_lets_the_root_draft_again_as_visits_grow() -> None:
    a = node(0.9)
    chain = [a]
    for _ in range(8):
        chain.append(node(0.8, chain[-1].id, "improve"))
    b = node(0.5)
    journal = journal_of(*chain, b)  # 10 nodes: the root may have ceil(10 ** 0.5) = 4 children, it has 2
    assert choose_mcts_step(journal, [], cfg(), False).task_type == "draft"
    narrow = choose_mcts_step(journal, [], cfg(mcts_widening=0.5, mcts_widening_power=0.2), False)
    assert narrow.task_type != "draft"


def test_a_buggy_node_is_debugged_within_the_depth_and_never_past_it() -> None:
    bug = node(None)
    choice = choose_mcts_step(journal_of(bug), [], cfg(num_drafts=1, mcts_widening=0.5), False)
    assert (choice.task_type, choice.parent_ids) == ("debug", [bug.id])
    d1 = node(None, bug.id, "debug")
    d2 = node(None, d1.id, "debug")  # ends a line of 2 debugs: past max_debug_depth 1
    deep = journal_of(bug, d1, d2, node(0.5))
    step = choose_mcts_step(deep, [], cfg(mcts_widening=0.5, mcts_exploration=5.0, max_debug_depth=1), False)
    assert step.parent_ids != [d2.id] and step.task_type in ("debug", "improve"), step


def test_a_good_node_is_expanded_by_the_ga_operators_at_their_rates() -> None:
    best = node(0.9, code=sectioned("best"))
    mate = node(0.6, code=sectioned("mate"))
    twin = node(0.5, code=sectioned("twin", same=GENE_SECTIONS[1:]))  # one section apart from best: no mate
    journal = journal_of(best, mate, twin)
    settings = cfg(mcts_widening=0.5, mcts_exploration=0.0, mcts_merge_rate=0.3, mcts_mutate_rate=0.3)
    rng = random.Random(7)
    choices = [choose_mcts_step(journal, [], settings, False, rng) for _ in range(300)]
    kinds = {kind: sum(c.task_type == kind for c in choices) for kind in ("merge", "mutate", "improve")}
    expected = {"merge": 90, "mutate": 90, "improve": 120}  # 300 draws at 0.3, 0.3 and the rest
    assert all(abs(kinds[k] - expected[k]) <= 30 for k in kinds), kinds
    for choice in choices:  # every step expands the best subtree
        assert choice.parent_ids[0] == best.id
        assert (choice.crossover_plan is not None) == (choice.task_type == "merge")
        assert (choice.gene in GENE_SECTIONS) == (choice.task_type == "mutate")
    merges = [c.parent_ids[1] for c in choices if c.task_type == "merge"]
    assert set(merges) == {mate.id}  # twin differs from best in one section only
    opaque = journal_of(node(0.9, code="print(1)"), node(0.5))
    assert {choose_mcts_step(opaque, [], settings, False, rng).task_type for _ in range(20)} == {"improve"}


def test_each_node_records_its_visits_and_total_reward_in_the_journal(tmp_path: Path) -> None:
    a, b = node(0.9), node(0.5)
    a1 = node(0.7, a.id, "improve")
    journal = journal_of(a, b, a1)
    record_tree_stats(journal, False)
    stats = tree_stats(journal, [], False)
    assert [(n.visits, n.total_reward) for n in journal] == [
        (2, round(stats.value[a.id], 6)),
        (1, round(stats.value[b.id], 6)),
        (1, round(stats.value[a1.id], 6)),
    ]
    journal.save(tmp_path / "journal.jsonl")
    a2 = journal.append(node(0.95, a1.id, "improve"))
    record_tree_stats(journal, False)  # the ancestors' statistics change after their lines were written
    journal.save(tmp_path / "journal.jsonl")
    loaded = Journal.load(tmp_path / "journal.jsonl")
    assert [(n.visits, n.total_reward) for n in loaded] == [(n.visits, n.total_reward) for n in journal]
    assert loaded.get(a.id).visits == 3 and loaded.get(a2.id).visits == 1
    plain = Journal()
    plain.append(node(0.4))
    assert "visits" not in plain.nodes[0].to_dict()  # other policies' journals do not carry them


def test_the_policy_dispatches_to_mcts() -> None:
    a = node(0.9)
    choice = choose_next(journal_of(a, node(0.4)), [], cfg(mcts_widening=0.5), random.Random(0))
    assert choice.task_type == "improve" and choice.mode is None


def test_a_run_on_mcts_resumes_the_same_tree_and_reports_it(
    tmp_path: Path, base_overrides: list[str]
) -> None:
    overrides = [*base_overrides, "search.policy=mcts", "agent.max_steps=4", "evolution.steps_per_epoch=2"]
    run_dir = create_run(load_config(None, overrides), tmp_path / "run").root
    run_epoch(*open_run(run_dir), epoch=1)
    rc, journal, state = open_run(run_dir)  # as a resumed process sees it: the tree is the journal
    before = tree_stats(journal, [], rc.lower_is_better)
    assert before.visits[ROOT] == 2 and sum(before.value.values()) > 0
    summary = run_to_end(rc)
    journal = Journal.load(run_dir / "journal.jsonl")
    assert len(journal) == 4 and summary["grade"]["valid"]
    assert {n.task_type for n in journal.nodes[2:]} <= {"improve", "debug", "draft", "merge", "mutate"}
    after = tree_stats(journal, [], rc.lower_is_better)
    assert all(after.visits[k] >= v for k, v in before.visits.items())  # the same tree, grown
    assert [n.visits for n in journal] == [after.visits[n.id] for n in journal]  # as recorded in the journal
    report = (run_dir / "report.md").read_text()
    assert f"[visits {after.visits[journal.nodes[0].id]}, value" in report
