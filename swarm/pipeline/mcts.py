"""`search.policy=mcts`: Monte-Carlo tree search over the journal (UCT with progressive widening).

The tree is the journal itself, under a virtual root whose children are the drafts; each node's first parent is
its parent in the tree. Every statistic is derived from the journal, so a resumed run continues the same tree
with no state of its own:

- a node's **reward** is its harness score's fitness among the good nodes' (`swarm.ga.fitness.normalise`: in
  [0, 1], higher for better, the metric's direction applied); a buggy node's is 0;
- its **visits** are the nodes of its subtree (itself included) plus the steps already planned under it (a
  virtual loss, so parallel steps spread out), its **value** the sum of its subtree's rewards.

Each step descends from the root. At a node with `visits`, a new child is expanded while it has fewer than
`ceil(mcts_widening * visits ** mcts_widening_power)` children (progressive widening: drafts, improvements
stay possible however deep the tree); else the search moves to the child with the best UCT score,
`value / visits + mcts_exploration * sqrt(ln(parent visits) / visits)`. Expanding the root is a draft, a buggy
node a debug (within `search.max_debug_depth`; a buggy node past it is never entered), a good node one of the
GA's operators: with `mcts_merge_rate` a merge with a mate drawn by tournament on reward among the good nodes
whose gene sections differ from it in two or more (the child sits under the expanded node), with
`mcts_mutate_rate` a mutation of one gene section, else an improvement; a node without all seven gene sections
is improved.

After every step each node's `visits` and `total_reward` are written to its journal record (`record_tree_stats`),
so the journal file shows the tree as the search saw it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from swarm.config import Config
from swarm.ga.fitness import normalise
from swarm.ga.population import (
    StepChoice,
    crossover_plan,
    differing_sections,
    has_all_genes,
    operator_for,
    tournament,
)
from swarm.journal import Journal, Node
from swarm.pipeline.state import StepPlan
from swarm.protocol import GENE_SECTIONS

ROOT = ""


@dataclass(frozen=True)
class TreeStats:
    """Visits and value of every node (ROOT: the virtual root), from the journal and the pending steps, and
    each good node's own reward."""

    visits: dict[str, int]
    value: dict[str, float]
    children: dict[str, list[str]]
    reward: dict[str, float]


def tree_stats(journal: Journal, pending: Sequence[StepPlan], lower_is_better: bool) -> TreeStats:
    """Each node's reward summed and counted up its line of first parents to the root; each pending step counts
    as a visit of its parent's line (reward 0)."""
    good = journal.good_nodes()
    scores = normalise([n.metric.value if n.metric else None for n in good], lower_is_better=lower_is_better)
    reward = {n.id: s for n, s in zip(good, scores, strict=True)}
    ids = {n.id for n in journal}
    parent = {n.id: (n.parent_ids[0] if n.parent_ids and n.parent_ids[0] in ids else ROOT) for n in journal}
    children: dict[str, list[str]] = {ROOT: []}
    for node in journal:
        children.setdefault(node.id, [])
        children.setdefault(parent[node.id], []).append(node.id)
    visits: dict[str, int] = dict.fromkeys(children, 0)
    value: dict[str, float] = dict.fromkeys(children, 0.0)

    def credit(start: str, gain: float) -> None:
        current: str | None = start
        while current is not None:
            visits[current] = visits.get(current, 0) + 1
            value[current] = value.get(current, 0.0) + gain
            current = None if current == ROOT else parent.get(current, ROOT)

    for node in journal:
        credit(node.id, reward.get(node.id, 0.0))
    for plan in pending:
        first = plan.parent_ids[0] if plan.parent_ids and plan.parent_ids[0] in ids else ROOT
        credit(first, 0.0)
    return TreeStats(visits, value, children, reward)


def record_tree_stats(journal: Journal, lower_is_better: bool) -> None:
    """Write each node's visits and total reward (its subtree's) to its record."""
    stats = tree_stats(journal, [], lower_is_better)
    for node in journal:
        node.visits, node.total_reward = stats.visits[node.id], round(stats.value[node.id], 6)


def choose_mcts_step(
    journal: Journal,
    pending: Sequence[StepPlan],
    cfg: Config,
    lower_is_better: bool,
    rng: random.Random | None = None,
) -> StepChoice:
    """The next step: descend by UCT from the root, expanding where progressive widening allows (`rng` draws
    the operator that expands a good node, and a merge's mate; without it a good node is improved)."""
    search = cfg.search
    if len(journal.draft_nodes()) + _pending_drafts(pending) < search.num_drafts:
        return StepChoice("draft", [])
    stats = tree_stats(journal, pending, lower_is_better)
    current = ROOT
    while True:
        kids = [k for k in stats.children.get(current, []) if _enterable(journal, k, search.max_debug_depth)]
        allowed = math.ceil(
            search.mcts_widening * max(1, stats.visits[current]) ** search.mcts_widening_power
        )
        if len(stats.children.get(current, [])) < allowed or not kids:
            choice = _expand(journal, current, cfg, stats, rng)
            if choice is not None:
                return choice
            if not kids:  # nothing to expand here and nowhere to go: a fresh draft
                return StepChoice("draft", [])
        current = max(kids, key=lambda k: _uct(stats, current, k, search.mcts_exploration))


def _expand(
    journal: Journal, node_id: str, cfg: Config, stats: TreeStats, rng: random.Random | None
) -> StepChoice | None:
    """The step that adds a child to `node_id`: a draft at the root, a GA operator on a good node, a debug of
    a buggy one within the depth; None where none may be added."""
    if node_id == ROOT:
        return StepChoice("draft", [])
    node = journal.get(node_id)
    if node.is_good:
        return _operate(journal, node, cfg, stats, rng)
    if node.is_buggy and journal.debug_depth(node.id) <= cfg.search.max_debug_depth:
        return StepChoice("debug", [node.id])
    return None


def _operate(
    journal: Journal, node: Node, cfg: Config, stats: TreeStats, rng: random.Random | None
) -> StepChoice:
    """Merge, mutate or improve a good node (see the module docstring)."""
    search = cfg.search
    if rng is None or not has_all_genes(node):
        return StepChoice("improve", [node.id])
    operator = operator_for(rng, search.mcts_merge_rate, search.mcts_mutate_rate)
    if operator == "merge":
        differs = {
            other.id: differing_sections(node, other)
            for other in journal.good_nodes()
            if other.id != node.id and has_all_genes(other)
        }
        mates = {i: stats.reward.get(i, 0.0) for i, sections in differs.items() if len(sections) >= 2}
        if mates:
            mate = tournament(mates, cfg.evolution.tournament_k, rng)
            plan = crossover_plan(rng, differs[mate])
            return StepChoice("merge", [node.id, mate], crossover_plan=plan)
        operator = "mutate"  # no mate: the GA mutates instead too
    if operator == "mutate":
        return StepChoice("mutate", [node.id], gene=rng.choice(GENE_SECTIONS))
    return StepChoice("improve", [node.id])


def _enterable(journal: Journal, node_id: str, max_debug_depth: int) -> bool:
    """Whether the descent may enter `node_id`: a good node, or a buggy one that may still be debugged or has
    children to go on from."""
    node: Node = journal.get(node_id)
    if node.is_good:
        return True
    return journal.debug_depth(node.id) <= max_debug_depth or not journal.is_leaf(node.id)


def _uct(stats: TreeStats, parent: str, child: str, exploration: float) -> float:
    visits = max(1, stats.visits[child])
    mean = stats.value[child] / visits
    return mean + exploration * math.sqrt(math.log(max(1, stats.visits[parent])) / visits)


def _pending_drafts(pending: Sequence[StepPlan]) -> int:
    return sum(1 for plan in pending if plan.task_type == "draft")
