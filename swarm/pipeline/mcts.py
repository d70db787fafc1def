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
`value / visits + mcts_exploration * sqrt(ln(parent visits) / visits)`. Expanding the root is a draft, a good node
an improvement, a buggy node a debug (within `search.max_debug_depth`; a buggy node past it is never entered).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from swarm.config import Config
from swarm.ga.fitness import normalise
from swarm.ga.population import StepChoice
from swarm.journal import Journal, Node
from swarm.pipeline.state import StepPlan

ROOT = ""


@dataclass(frozen=True)
class TreeStats:
    """Visits and value of every node (ROOT: the virtual root), from the journal and the pending steps."""

    visits: dict[str, int]
    value: dict[str, float]
    children: dict[str, list[str]]


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
    return TreeStats(visits, value, children)


def choose_mcts_step(
    journal: Journal, pending: Sequence[StepPlan], cfg: Config, lower_is_better: bool
) -> StepChoice:
    """The next step: descend by UCT from the root, expanding where progressive widening allows."""
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
            choice = _expand(journal, current, search.max_debug_depth)
            if choice is not None:
                return choice
            if not kids:  # nothing to expand here and nowhere to go: a fresh draft
                return StepChoice("draft", [])
        current = max(kids, key=lambda k: _uct(stats, current, k, search.mcts_exploration))


def _expand(journal: Journal, node_id: str, max_debug_depth: int) -> StepChoice | None:
    """The step that adds a child to `node_id`: a draft at the root, an improvement of a good node, a debug of a
    buggy one within the depth; None where none may be added."""
    if node_id == ROOT:
        return StepChoice("draft", [])
    node = journal.get(node_id)
    if node.is_good:
        return StepChoice("improve", [node.id])
    if node.is_buggy and journal.debug_depth(node.id) <= max_debug_depth:
        return StepChoice("debug", [node.id])
    return None


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
