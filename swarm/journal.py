"""The solution journal: every tried solution as a node of a DAG.

A `Node` is one solution (code, plan, genes), how it ran and how it was reviewed. A `Journal` holds nodes in
the order they were appended (`step`). Edges are stored once, as each node's `parent_ids` (a tuple: merge
nodes have two parents); children are derived from them. Parents must be appended before their children,
so a journal built with `append` is acyclic; `validate()` checks journals loaded from disk.

JSON format (`to_json`): `{"format": "swarm-journal", "version": 1, "nodes": [<Node.to_dict()>, ...]}`.
The float fields `exec_time` and `fitness` keep non-finite values as the strings "inf", "-inf" and "nan", so
the round trip is lossless. `meta` is JSON data: it must hold JSON-able values, and tuples come back as lists.
A journal is written by one process at a time; `save` replaces the file atomically.
"""

from __future__ import annotations

import functools
import heapq
import json
import math
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from swarm.atomic import write_text_atomic
from swarm.metric import MetricValue, pick_best
from swarm.protocol import GENE_SECTIONS, TASK_TYPES
from swarm.text import trim_middle

JOURNAL_FORMAT = "swarm-journal"
JOURNAL_VERSION = 1

StackFrame = tuple[str, int, str, str | None]


class JournalError(ValueError):
    """A journal or node is malformed; the message says which node and what is wrong."""


def _shorten(text: str | None, limit: int) -> str:
    """`text` on one line, cut to `limit` chars with an ellipsis."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"


_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
_FLOAT_FIELDS = ("exec_time", "fitness")


def _encode_float(value: float | None) -> float | str | None:
    """A float as JSON allows it: non-finite values become "inf", "-inf" or "nan"."""
    if value is None or math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _decode_float(value: Any, name: str, node_id: str) -> float | None:
    """The inverse of `_encode_float`; anything else is a JournalError naming the field."""
    if value is None:
        return None
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise JournalError(
        f"node {node_id}: {name} must be a number, null, 'inf', '-inf' or 'nan', got {value!r}"
    )


@dataclass
class Node:
    """One solution in the journal: what was written, how it ran, how it was judged."""

    code: str = ""
    plan: str = ""
    task_type: str = "draft"
    parent_ids: tuple[str, ...] = ()
    genes: dict[str, str] = field(default_factory=dict)
    agent_id: str | None = None
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    step: int | None = None
    created_at: float = field(default_factory=time.time)
    epoch: int | None = None
    # execution facts
    term_out: str = ""
    exec_time: float | None = None
    exit_code: int | None = None
    timed_out: bool = False
    oom_killed: bool = False
    exc_type: str | None = None
    exc_info: dict[str, Any] | None = None
    exc_stack: list[StackFrame] | None = None
    # review
    analysis: str | None = None
    metric: MetricValue | None = None
    is_buggy: bool | None = None
    bug_reason: str | None = None
    lower_is_better: bool | None = None
    metric_conflict: bool = False
    # genetic algorithm
    generation: int | None = None
    fitness: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # JSON data: saved as JSON, tuples come back as lists

    def __post_init__(self) -> None:
        if self.task_type not in TASK_TYPES:
            raise JournalError(
                f"node {self.id}: task_type {self.task_type!r} is not one of {', '.join(TASK_TYPES)}"
            )
        if isinstance(self.parent_ids, str):
            raise JournalError(f"node {self.id}: parent_ids must be a sequence of ids, not a string")
        self.parent_ids = tuple(self.parent_ids)
        unknown = sorted(set(self.genes) - set(GENE_SECTIONS))
        if unknown:
            raise JournalError(
                f"node {self.id}: unknown gene sections {unknown}; expected some of {', '.join(GENE_SECTIONS)}"
            )
        if self.exc_stack is not None:
            self.exc_stack = [tuple(frame) for frame in self.exc_stack]  # type: ignore[misc]

    @property
    def parent_id(self) -> str | None:
        """The first parent's id, or None for a root (draft) node."""
        return self.parent_ids[0] if self.parent_ids else None

    @property
    def is_evaluated(self) -> bool:
        """True once a review has decided whether the node is buggy."""
        return self.is_buggy is not None

    @property
    def is_good(self) -> bool:
        """Reviewed and not buggy."""
        return self.is_buggy is False

    def term_out_for_prompt(self, max_chars: int = 4000) -> str:
        """The terminal output trimmed for a prompt: head and tail kept, the middle replaced by a marker."""
        return trim_middle(self.term_out, max_chars, head_fraction=0.4)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field (non-finite exec_time/fitness as "inf", "-inf" or "nan")."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["parent_ids"] = list(self.parent_ids)
        data["genes"] = dict(self.genes)
        data["meta"] = dict(self.meta)
        data["metric"] = self.metric.to_dict() if self.metric is not None else None
        data["exc_stack"] = [list(f) for f in self.exc_stack] if self.exc_stack is not None else None
        for name in _FLOAT_FIELDS:
            data[name] = _encode_float(getattr(self, name))
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Node:
        """The inverse of `to_dict`; unknown or missing keys are reported by name."""
        if not isinstance(data, dict):
            raise JournalError(f"a node must be a JSON object, got {type(data).__name__}")
        unknown = sorted(set(data) - _node_field_names())
        node_id = data.get("id", "?")
        if unknown:
            raise JournalError(f"node {node_id}: unknown fields {unknown}")
        if "id" not in data:
            raise JournalError("a node in the journal has no 'id'")
        kwargs = dict(data)
        for name in _FLOAT_FIELDS:
            if name in kwargs:
                kwargs[name] = _decode_float(kwargs[name], name, node_id)
        if kwargs.get("metric") is not None:
            try:
                kwargs["metric"] = MetricValue.from_dict(kwargs["metric"])
            except (TypeError, ValueError) as exc:
                raise JournalError(f"node {node_id}: bad metric: {exc}") from exc
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise JournalError(f"node {node_id}: {exc}") from exc


@functools.cache
def _node_field_names() -> frozenset[str]:
    return frozenset(f.name for f in fields(Node))


class Journal:
    """An append-only DAG of nodes with the queries search policies and prompts need."""

    def __init__(self, nodes: Iterable[Node] = ()) -> None:
        self.nodes: list[Node] = []
        self._by_id: dict[str, Node] = {}
        self._children: dict[str, list[str]] = {}
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

    def best_k(self, k: int, only_good: bool = True) -> list[Node]:
        """Up to `k` nodes with valid metrics, best first (earlier steps first on ties)."""
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        pool = self.good_nodes() if only_good else self.nodes
        scored = [n for n in pool if n.metric is not None and n.metric.is_valid]
        return heapq.nsmallest(k, scored, key=lambda n: (n.metric.sort_key(), n.step))  # type: ignore[union-attr]

    def _node(self, node: Node | str) -> Node:
        return self.get(node) if isinstance(node, str) else node

    # -- prompt memory --------------------------------------------------------------------------------

    def memory_summary(
        self,
        max_chars: int = 6000,
        include_code: bool = False,
        max_code_chars: int = 1500,
        max_text_chars: int = 300,
        num_best: int = 3,
    ) -> str:
        """What has been tried, for a prompt, strictly within `max_chars`.

        One entry per reviewed node: good ones with their metric, buggy ones marked `[BUGGY]` with the bug
        reason. The `num_best` best good nodes come first, then the rest newest first, until the budget is
        spent; a final line counts the entries left out. Only the entries that fit are formatted, so the
        cost does not grow with the length of the journal beyond one pass over it.
        """
        if max_chars < 0:
            raise ValueError(f"max_chars must be >= 0, got {max_chars}")
        reviewed = [n for n in self.nodes if n.is_evaluated]
        if not reviewed:
            return "No solutions have been tried yet."[:max_chars]
        best = self.best_k(num_best) if num_best > 0 else []
        best_ids = {n.id for n in best}
        ordered = best + [n for n in reversed(reviewed) if n.id not in best_ids]

        header = f"{len(reviewed)} solutions tried ({len(best)} best first, then newest first):\n"
        footer_room = len(f"... {len(reviewed)} more entries left out to fit the budget.")
        budget = max_chars - len(header) - footer_room - 1
        if budget <= 0:
            return f"{len(reviewed)} solutions tried."[:max_chars]

        parts: list[str] = []
        used = 0
        for node in ordered:
            entry = self._memory_entry(
                node, include_code, max_code_chars, max_text_chars, node.id in best_ids
            )
            if used + len(entry) > budget and include_code:
                entry = self._memory_entry(node, False, 0, max_text_chars, node.id in best_ids)
            if used + len(entry) > budget:
                break
            parts.append(entry)
            used += len(entry)
        left_out = len(ordered) - len(parts)
        text = header + "".join(parts)
        if left_out:
            text += f"... {left_out} more entries left out to fit the budget."
        return text[:max_chars]

    @staticmethod
    def _memory_entry(node: Node, include_code: bool, max_code: int, max_text: int, is_best: bool) -> str:
        label = f"- Step {node.step} ({node.task_type})"
        if node.is_buggy:
            reason = node.bug_reason or node.exc_type or "no reason recorded"
            lines = [f"{label} [BUGGY]: {_shorten(reason, max_text)}"]
        else:
            metric = str(node.metric) if node.metric is not None else "no metric"
            lines = [f"{label}{' [BEST]' if is_best else ''}: metric {metric}"]
        if node.plan:
            lines.append(f"  Plan: {_shorten(node.plan, max_text)}")
        if node.analysis:
            lines.append(f"  Review: {_shorten(node.analysis, max_text)}")
        if include_code and node.code:
            lines.append(
                "  Code:\n```python\n"
                + trim_middle(node.code, max_code, head_fraction=0.4).rstrip("\n")
                + "\n```"
            )
        return "\n".join(lines) + "\n"

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": JOURNAL_FORMAT,
            "version": JOURNAL_VERSION,
            "nodes": [n.to_dict() for n in self.nodes],
        }

    def to_json(self, indent: int | None = None) -> str:
        """The whole journal as JSON; raises JournalError naming the node whose fields are not JSON-able."""
        data = self.to_dict()
        try:
            return json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):
            for node_data in data["nodes"]:
                try:
                    json.dumps(node_data, allow_nan=False)
                except (TypeError, ValueError) as exc:
                    raise JournalError(f"node {node_data['id']} cannot be written as JSON: {exc}") from exc
            raise

    @classmethod
    def from_dict(cls, data: dict[str, Any], validate: bool = True) -> Journal:
        if not isinstance(data, dict) or data.get("format") != JOURNAL_FORMAT:
            raise JournalError(f"not a swarm journal: expected an object with format={JOURNAL_FORMAT!r}")
        if data.get("version") != JOURNAL_VERSION:
            raise JournalError(
                f"unsupported journal version {data.get('version')!r}; expected {JOURNAL_VERSION}"
            )
        if not isinstance(data.get("nodes"), list):
            raise JournalError("journal 'nodes' must be a list")
        journal = cls()
        for node_data in data["nodes"]:
            node = Node.from_dict(node_data)
            if node.id in journal._by_id:
                raise JournalError(f"duplicate node id {node.id} in the journal file")
            saved_step = node.step
            journal._add(node)
            if saved_step is not None and saved_step != node.step:
                raise JournalError(f"node {node.id} was saved with step {saved_step} but is at {node.step}")
        if validate:
            journal.validate()
        return journal

    @classmethod
    def from_json(cls, text: str, validate: bool = True) -> Journal:
        """Parse `to_json` output; a clear JournalError on malformed input."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise JournalError(f"journal is not valid JSON: {exc}") from exc
        return cls.from_dict(data, validate=validate)

    def save(self, path: str | Path) -> Path:
        """Write the journal atomically and durably (`swarm.atomic`)."""
        path = Path(path)
        write_text_atomic(path, self.to_json())
        return path

    @classmethod
    def load(cls, path: str | Path, validate: bool = True) -> Journal:
        """Read a journal written by `save`."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FileNotFoundError(f"journal file not found: {path}") from None
        try:
            return cls.from_json(text, validate=validate)
        except JournalError as exc:
            raise JournalError(f"{path}: {exc}") from exc
