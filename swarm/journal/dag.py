"""The journal as a DAG of nodes: appended in step order, each edge stored once as a node's `parent_ids` (a
tuple: merge nodes have two parents), children derived from them. Parents must be appended before their
children, so a journal built with `append` is acyclic; `validate()` checks journals loaded from disk. The
queries search policies need live here; saving and loading come from `swarm.journal.store.StoredJournal`.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from typing import Any

from swarm.journal.node import JournalError, Node
from swarm.journal.store import StoredJournal, _JournalFile
from swarm.journal.ties import pick_within_noise
from swarm.metric import pick_best


class Journal(StoredJournal):
    """An append-only DAG of nodes with the queries search policies and prompts need."""

    def __init__(self, nodes: Iterable[Node] = ()) -> None:
        self.nodes: list[Node] = []
        self._by_id: dict[str, Node] = {}
        self._children: dict[str, list[str]] = {}
        self._line_values: list[tuple[Any, ...]] = []  # MUTABLE_FIELDS as in each saved node's line
        self._file: _JournalFile | None = None  # the file `save` appends to
        self._overrides_cache: tuple[list[tuple[Any, ...]], dict[str, dict[str, Any]]] | None = None
        for node in nodes:
            self.append(node)

    # -- building -------------------------------------------------------------------------------------

    def append(self, node: Node) -> Node:
        """Add `node` as the next step. Its parents must already be in the journal."""
        if node.id in self._by_id:
            raise JournalError(f"node {node.id} is already in the journal (step {self._by_id[node.id].step})")
        missing = [pid for pid in node.parent_ids if pid not in self._by_id]
        if missing:
            raise JournalError(f"node {node.id}: parents {missing} are not in the journal; append them first")
        self._add(node)
        return node

    def _add(self, node: Node) -> None:
        node.step = len(self.nodes)
        self.nodes.append(node)
        self._by_id[node.id] = node
        for pid in dict.fromkeys(node.parent_ids):
            self._children.setdefault(pid, []).append(node.id)

    def _add_saved(self, data: dict[str, Any]) -> Node:
        """Add a node read from a journal file: its id must be new and its saved step its position."""
        node = Node.from_dict(data)
        if node.id in self._by_id:
            raise JournalError(f"duplicate node id {node.id} in the journal file")
        saved_step = node.step
        self._add(node)
        if saved_step is not None and saved_step != node.step:
            raise JournalError(f"node {node.id} was saved with step {saved_step} but is at {node.step}")
        return node

    # -- access ---------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._by_id

    def __getitem__(self, node_id: str) -> Node:
        return self.get(node_id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Journal) and self.nodes == other.nodes

    def get(self, node_id: str) -> Node:
        """The node with this id; KeyError naming the id when there is none."""
        try:
            return self._by_id[node_id]
        except KeyError:
            raise KeyError(f"no node with id {node_id!r} in the journal") from None

    def draft_nodes(self) -> list[Node]:
        """Nodes written from scratch (task_type draft), in step order."""
        return [n for n in self.nodes if n.task_type == "draft"]

    def buggy_nodes(self) -> list[Node]:
        """Nodes a review found buggy."""
        return [n for n in self.nodes if n.is_buggy is True]

    def good_nodes(self) -> list[Node]:
        """Nodes a review found not buggy (unreviewed nodes are in neither list)."""
        return [n for n in self.nodes if n.is_buggy is False]

    def parents(self, node: Node | str) -> list[Node]:
        """The node's parents in `parent_ids` order (unknown ids skipped)."""
        node = self._node(node)
        return [self._by_id[pid] for pid in node.parent_ids if pid in self._by_id]

    def children(self, node: Node | str) -> list[Node]:
        """Nodes that name this node as a parent, in step order."""
        node = self._node(node)
        return [self._by_id[cid] for cid in self._children.get(node.id, [])]

    def siblings(self, node: Node | str) -> list[Node]:
        """Other children of this node's parents; for a root node, the other root nodes."""
        node = self._node(node)
        if not node.parent_ids:
            return [n for n in self.nodes if not n.parent_ids and n.id != node.id]
        seen: dict[str, Node] = {}
        for parent_id in node.parent_ids:
            for child_id in self._children.get(parent_id, []):
                if child_id != node.id:
                    seen.setdefault(child_id, self._by_id[child_id])
        return sorted(seen.values(), key=lambda n: n.step or 0)

    def is_leaf(self, node: Node | str) -> bool:
        """True when no node has this one as a parent."""
        return not self._children.get(self._node(node).id)

    def debug_depth(self, node: Node | str) -> int:
        """How many consecutive debug nodes end here (following first parents); 0 for a non-debug node."""
        current: Node | None = self._node(node)
        depth = 0
        seen: set[str] = set()
        while current is not None and current.task_type == "debug" and current.id not in seen:
            seen.add(current.id)
            depth += 1
            pid = current.parent_id
            current = self._by_id.get(pid) if pid is not None else None
        return depth

    def best_node(self, only_good: bool = True) -> Node | None:
        """The node with the best valid metric (earliest on ties), or None."""
        pool = self.good_nodes() if only_good else self.nodes
        return pick_best(pool, key=lambda n: n.metric)

    def deliverable_nodes(self) -> list[Node]:
        """Good nodes not flagged `inconsistent` (their test predictions unlike their held-out ones), or every
        good node where each is flagged: what the end of a run may deliver or blend."""
        good = self.good_nodes()
        return [n for n in good if not n.inconsistent] or good

    def best_deliverable(self, ties_within_noise: bool = False) -> Node | None:
        """The best of `deliverable_nodes` (earliest on ties), or None; with `ties_within_noise`, the simplest
        of those whose score is within one standard error of the best's (`swarm.journal.ties`)."""
        if ties_within_noise:
            return pick_within_noise(self.deliverable_nodes())[0]
        return pick_best(self.deliverable_nodes(), key=lambda n: n.metric)

    def best_k(self, k: int, only_good: bool = True) -> list[Node]:
        """Up to `k` nodes with valid metrics, best first (earlier steps first on ties)."""
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        pool = self.good_nodes() if only_good else self.nodes
        scored = [n for n in pool if n.metric is not None and n.metric.is_valid]
        return heapq.nsmallest(k, scored, key=lambda n: (n.metric.sort_key(), n.step))  # type: ignore[union-attr]

    def _node(self, node: Node | str) -> Node:
        return self.get(node) if isinstance(node, str) else node

    # -- checking and persistence ---------------------------------------------------------------------

    def validate(self) -> None:
        """Raise JournalError listing every problem: duplicate ids, wrong steps, unknown parents, cycles."""
        problems: list[str] = []
        seen: set[str] = set()
        for index, node in enumerate(self.nodes):
            if node.id in seen:
                problems.append(f"duplicate node id {node.id}")
            seen.add(node.id)
            if node.step != index:
                problems.append(f"node {node.id} has step {node.step} but is at position {index}")
            for pid in node.parent_ids:
                if pid == node.id:
                    problems.append(f"node {node.id} is its own parent")
                elif pid not in self._by_id:
                    problems.append(f"node {node.id} has unknown parent {pid}")
            if len(set(node.parent_ids)) != len(node.parent_ids):
                problems.append(f"node {node.id} lists a parent twice: {list(node.parent_ids)}")
        cycle = self._find_cycle()
        if cycle:
            problems.append("cycle: " + " -> ".join(cycle))
        if problems:
            raise JournalError(f"journal is invalid ({len(problems)} problems): " + "; ".join(problems))

    def _find_cycle(self) -> list[str] | None:
        """One cycle (as ids, following parent edges) or None; iterative DFS."""
        state: dict[str, int] = {}  # 1 = on the current path, 2 = done
        for start in self.nodes:
            if start.id in state:
                continue
            path: list[str] = []
            stack: list[tuple[str, Iterator[str]]] = [(start.id, iter(self._by_id[start.id].parent_ids))]
            state[start.id] = 1
            path.append(start.id)
            while stack:
                node_id, parents = stack[-1]
                advanced = False
                for pid in parents:
                    if pid not in self._by_id:
                        continue
                    if state.get(pid) == 1:
                        return path[path.index(pid) :] + [pid]
                    if pid not in state:
                        state[pid] = 1
                        path.append(pid)
                        stack.append((pid, iter(self._by_id[pid].parent_ids)))
                        advanced = True
                        break
                if not advanced:
                    state[node_id] = 2
                    path.pop()
                    stack.pop()
        return None
