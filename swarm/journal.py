"""The solution journal: every tried solution as a node of a DAG.

A `Node` is one solution (code, plan, genes), how it ran and how it was reviewed. A `Journal` holds nodes in
the order they were appended (`step`). Edges are stored once, as each node's `parent_ids` (a tuple: merge
nodes have two parents); children are derived from them. Parents must be appended before their children,
so a journal built with `append` is acyclic; `validate()` checks journals loaded from disk.

On disk a journal is append-only (`save`, `load`), so saving after a step writes that step's node, not the
whole journal:

- `journal.jsonl`: JSON Lines. The first line is the header `{"format": "swarm-journal", "version": 2,
  "id": <token>, "fields": {...}}`; every other line is one node (`Node.to_dict()`) as it was recorded, in
  step order. A save appends the nodes added since the last one in one write and fsyncs it. A kill
  mid-append leaves a torn last line, which `load` drops with a warning (and the next `save` cuts off).
- `journal.fields.json` (`fields_path`), the sidecar: the `MUTABLE_FIELDS` (GA fitness and generation) of
  the nodes whose values changed after their line was written, `{"format": "swarm-journal-fields",
  "version": 1, "journal": <token>, "nodes": {<id>: {"fitness": ..., "generation": ...}}}`, replaced
  atomically when it changes (at an epoch's end, when the population's fitness is set again). It applies
  only to the journal file whose header has its token; without one the header's `fields` apply (a whole
  rewrite puts them there, so it is one atomic write). Lines never change once written, so the first N
  lines plus the field values of a moment rebuild the journal as it was then (`field_overrides`,
  `write_journal_prefix`: epoch snapshots and rerun branches).

Every other field is fixed once a node is saved: later changes to them are not written. The float fields
`exec_time` and `fitness` keep non-finite values as the strings "inf", "-inf" and "nan", so the round trip is
lossless. `meta` is JSON data: it must hold JSON-able values, and tuples come back as lists. A journal file
is written by one process at a time; readers in other processes may read it while it grows.

`to_json`/`from_json` are the whole journal as one JSON document (format version 1:
`{"format": "swarm-journal", "version": 1, "nodes": [...]}`), the `journal.json` runs kept before the
append-only file; `load` reads that format too.
"""

from __future__ import annotations

import functools
import heapq
import json
import logging
import math
import operator
import os
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from swarm.atomic import append_bytes_durable, read_json, write_bytes_atomic, write_text_atomic

try:
    import orjson
except ImportError:  # pragma: no cover - Prefect depends on it; the standard library parses alone
    orjson = None  # type: ignore[assignment]
from swarm.metric import MetricValue, pick_best
from swarm.protocol import GENE_SECTIONS, TASK_TYPES
from swarm.text import trim_middle

log = logging.getLogger(__name__)

JOURNAL_FORMAT = "swarm-journal"
JOURNAL_VERSION = 1  # the whole journal as one JSON document (`to_json`; a run's journal.json before)
LINES_VERSION = 2  # the append-only JSON Lines file (`save`)
FIELDS_FORMAT = "swarm-journal-fields"
FIELDS_VERSION = 1
MUTABLE_FIELDS = ("fitness", "generation")  # the fields that may change after a node is saved
_mutable_values = operator.attrgetter(*MUTABLE_FIELDS)

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
            journal._add_saved(node_data)
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

    # -- the append-only file ---------------------------------------------------------------------------

    def field_overrides(self) -> dict[str, dict[str, Any]]:
        """The `MUTABLE_FIELDS` of saved nodes whose values differ from their line, by node id (JSON-ready:
        what the sidecar holds). One pass over the journal, no serialisation."""
        values = list(map(_mutable_values, self.nodes[: len(self._line_values)]))
        cached = self._overrides_cache
        if cached is not None and values == cached[0]:  # nothing changed since: a comparison in C
            return dict(cached[1])
        changed: dict[str, dict[str, Any]] = {}
        for node, current, saved in zip(self.nodes, values, self._line_values, strict=False):
            if current != saved and not _same_values(current, saved):
                changed[node.id] = _encode_fields(current)
        self._overrides_cache = (values, changed)
        return dict(changed)

    def save(self, path: str | Path) -> Path:
        """Persist the journal at `path` (see the module docstring): append the nodes added since the last
        save to the file this journal was loaded from or last saved to, and replace the sidecar when a
        mutable field changed; any other file (new, someone else's, or changed since) is written whole,
        atomically. Either way the file is complete and loadable after a kill at any moment."""
        path = Path(path)
        current = self._file
        if current is not None and current.path == path.resolve() and current.matches():
            self._append(current)
        else:
            if current is not None and current.path == path.resolve():
                log.warning("%s changed since this journal last read or wrote it; writing it whole", path)
            self._write_whole(path)
        return path

    def _append(self, target: _JournalFile) -> None:
        new = self.nodes[len(self._line_values) :]
        if new:
            data = b"".join(_node_line(node) for node in new)  # serialised first: a bad node writes nothing
            cut = None if target.size == target.on_disk else target.size
            target.on_disk = target.size = append_bytes_durable(target.path, data, cut_to=cut)
            self._line_values.extend(_mutable_values(node) for node in new)
            self._overrides_cache = None
        overrides = self.field_overrides()
        if overrides != target.fields:
            sidecar = {
                "format": FIELDS_FORMAT,
                "version": FIELDS_VERSION,
                "journal": target.token,
                "nodes": overrides,
            }
            write_text_atomic(fields_path(target.path), _dumps(sidecar))
            target.fields = overrides

    def _write_whole(self, path: Path) -> None:
        """Header and every node's line as recorded (later field values in the header), atomically."""
        lines = [_node_line(node) for node in self.nodes]  # serialised first: a bad node writes nothing
        for index, saved in enumerate(self._line_values):
            node = self.nodes[index]
            if _mutable_values(node) != saved:  # a saved node's line keeps the values it was recorded with
                data = node.to_dict()
                data.update(_encode_fields(saved))
                lines[index] = _dumps(data, node.id).encode("utf-8") + b"\n"
        before = self._line_values
        self._line_values = before + [_mutable_values(node) for node in self.nodes[len(before) :]]
        self._overrides_cache = None
        try:
            overrides = self.field_overrides()
            token = uuid.uuid4().hex
            header = {"format": JOURNAL_FORMAT, "version": LINES_VERSION, "id": token, "fields": overrides}
            write_bytes_atomic(path, _dumps(header).encode("utf-8") + b"\n" + b"".join(lines))
        except BaseException:
            self._line_values = before
            raise
        fields_path(path).unlink(missing_ok=True)  # a stale sidecar (another token) would be ignored anyway
        self._file = _JournalFile.of(path, token, path.stat().st_size, overrides)

    @classmethod
    def load(cls, path: str | Path, validate: bool = True) -> Journal:
        """Read a journal written by `save` (or a version 1 document, `to_json`). A torn last line (a kill
        mid-append, or a writer still appending) is dropped with a warning; the journal stays bound to the
        file, so its next `save` appends there."""
        path = Path(path)
        try:
            handle = path.open("rb")
        except FileNotFoundError:
            raise FileNotFoundError(f"journal file not found: {path}") from None
        try:
            with handle:
                journal = cls._read(path, handle)
            if validate:
                journal.validate()
        except JournalError as exc:
            raise JournalError(f"{path}: {exc}") from exc
        return journal

    @classmethod
    def _read(cls, path: Path, handle: Any) -> Journal:
        lines = _lines(handle)
        first, _ = next(lines, (b"", False))
        header = _loads(first)
        if header is None:
            handle.seek(0)
            return cls.from_json(handle.read().decode("utf-8"), validate=False)  # an indented document
        if isinstance(header, dict) and "nodes" in header:
            return cls.from_dict(header, validate=False)
        if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
            raise JournalError(f"not a swarm journal: expected a header with format={JOURNAL_FORMAT!r}")
        if header.get("version") != LINES_VERSION:
            raise JournalError(
                f"unsupported journal version {header.get('version')!r}; expected {LINES_VERSION}"
            )
        journal = cls()
        size = len(first) + 1
        for number, (raw, complete) in enumerate(lines, start=2):
            data = _loads(raw) if complete else None
            if not isinstance(data, dict):
                torn = len(raw) + complete
                for more, more_complete in lines:
                    if more.strip(b"\0 \t\r"):
                        raise JournalError(
                            f"line {number} is not a complete JSON record and more lines follow it"
                        )
                    torn += len(more) + more_complete
                if torn:
                    log.warning(
                        "%s: dropped a torn last line (%d bytes: a kill mid-append, or a save in progress)",
                        path,
                        torn,
                    )
                break
            node = journal._add_saved(data)
            journal._line_values.append(_mutable_values(node))
            size += len(raw) + 1
        token = header.get("id")
        overrides = header.get("fields") or {}
        sidecar = fields_path(path)
        if sidecar.is_file():
            saved = read_json(sidecar)
            if not isinstance(saved, dict) or saved.get("format") != FIELDS_FORMAT:
                raise JournalError(f"{sidecar.name} is not a journal's fields file")
            if saved.get("journal") == token:  # else a whole rewrite of the journal left it stale
                overrides = saved.get("nodes") or {}
        if not isinstance(overrides, dict) or not all(isinstance(v, dict) for v in overrides.values()):
            raise JournalError("the journal's fields must map node ids to objects")
        journal._apply(overrides)
        journal._file = _JournalFile.of(path, token, size, overrides, os.fstat(handle.fileno()))
        return journal

    def _apply(self, overrides: dict[str, dict[str, Any]]) -> None:
        for node_id, values in overrides.items():
            node = self._by_id.get(node_id)
            if node is None:
                log.warning("the journal's fields name node %s, which is not in it; ignored", node_id)
                continue
            for name, value in values.items():
                if name not in MUTABLE_FIELDS:
                    raise JournalError(f"node {node_id}: field {name!r} is not one of {MUTABLE_FIELDS}")
                setattr(node, name, _decode_float(value, name, node_id) if name in _FLOAT_FIELDS else value)


@dataclass
class _JournalFile:
    """The file a journal appends to: where, its token, how many bytes are its records, and the sidecar's
    content as last written."""

    path: Path
    token: str | None
    size: int  # bytes of the header and complete node lines
    on_disk: int  # the file's size when last seen (larger than `size` by a torn tail)
    identity: tuple[int, int]  # (st_dev, st_ino): a file replaced since is written whole
    fields: dict[str, dict[str, Any]]

    @classmethod
    def of(
        cls,
        path: Path,
        token: str | None,
        size: int,
        fields: dict[str, dict[str, Any]],
        stat: os.stat_result | None = None,
    ) -> _JournalFile:
        stat = stat or path.stat()
        return cls(path.resolve(), token, size, stat.st_size, (stat.st_dev, stat.st_ino), fields)

    def matches(self) -> bool:
        """True when the file is still the one this journal knows: same inode, and the size it last saw."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return False
        return (stat.st_dev, stat.st_ino) == self.identity and stat.st_size == self.on_disk


def fields_path(journal_path: str | Path) -> Path:
    """The sidecar of a journal file: `journal.jsonl` -> `journal.fields.json`."""
    path = Path(journal_path)
    return path.with_name(f"{path.stem}.fields.json")


def write_journal_prefix(source: str | Path, dest: str | Path, nodes: int, overrides: dict[str, Any]) -> None:
    """Write at `dest`, atomically, the journal `source` held when it had `nodes` nodes and these
    `field_overrides`: its header (a new token, `overrides` as its fields) and first `nodes` lines, copied
    as they are (lines never change once written)."""
    source = Path(source)
    lines: list[bytes] = []
    with source.open("rb") as handle:
        header = _parse_line(handle.readline())
        if not header or header.get("format") != JOURNAL_FORMAT or header.get("version") != LINES_VERSION:
            raise JournalError(f"{source} is not an append-only journal (version {LINES_VERSION})")
        for raw in handle:
            if len(lines) >= nodes or not raw.endswith(b"\n"):
                break
            lines.append(raw)
    if len(lines) < nodes:
        raise JournalError(f"{source} holds {len(lines)} complete nodes, fewer than the {nodes} asked for")
    header = {"format": JOURNAL_FORMAT, "version": LINES_VERSION, "id": uuid.uuid4().hex, "fields": overrides}
    write_bytes_atomic(Path(dest), _dumps(header).encode() + b"\n" + b"".join(lines))
    fields_path(dest).unlink(missing_ok=True)


def _parse_line(raw: bytes) -> dict[str, Any] | None:
    """A complete line's JSON object, or None for a torn one (no newline, or not a JSON object)."""
    data = _loads(raw) if raw.endswith(b"\n") else None
    return data if isinstance(data, dict) else None


def _loads(raw: bytes) -> Any:
    """The JSON value of `raw`, or None when it is not JSON. orjson when it is there (Prefect brings it; about
    twice as fast on a journal's long lines), the standard library for what orjson refuses."""
    if orjson is not None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _lines(handle: Any, block: int = 1 << 24) -> Iterator[tuple[bytes, bool]]:
    """The lines of a binary file without their newline, each with whether it had one (only the last may
    not), read in large blocks (iterating a file line by line is slow on lines of 50 kB)."""
    rest: list[bytes] = []  # the start of a line that began in an earlier block
    while chunk := handle.read(block):
        parts = chunk.split(b"\n")
        if len(parts) > 1:
            yield b"".join([*rest, parts[0]]), True
            rest = []
            for part in parts[1:-1]:
                yield part, True
        rest.append(parts[-1])
    tail = b"".join(rest)
    if tail:
        yield tail, False


def _dumps(data: Any, node_id: str | None = None) -> str:
    try:
        return json.dumps(data, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        if node_id is None:
            raise
        raise JournalError(f"node {node_id} cannot be written as JSON: {exc}") from exc


def _node_line(node: Node) -> bytes:
    return _dumps(node.to_dict(), node.id).encode("utf-8") + b"\n"


def _encode_fields(values: tuple[Any, ...]) -> dict[str, Any]:
    return {
        name: _encode_float(value) if name in _FLOAT_FIELDS else value
        for name, value in zip(MUTABLE_FIELDS, values, strict=True)
    }


def _same_values(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Equal, counting NaN equal to NaN."""
    return all(x == y or (x != x and y != y) for x, y in zip(a, b, strict=True))
