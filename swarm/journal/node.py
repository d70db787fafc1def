"""A journal's node: one solution (code, plan, genes), how it ran and how it was reviewed, and its JSON form.

How it ran and how it was judged are one value each (`execution`, `review`: `swarm.journal.step_record`), read
through the node as well (`node.exit_code` is `node.execution.exit_code`); the JSON form keeps their keys at the
top level, where they always stood.

The float fields `exec_time` and `fitness` keep non-finite values as the strings "inf", "-inf" and "nan", so the
round trip is lossless. `meta` is a `NodeMeta` (`swarm.journal.node_meta`): typed fields for what the search
steps record, other keys kept in its `extra`; saved as the JSON object of what is set, so a saved node's meta is
written back as it was read.
"""

from __future__ import annotations

import functools
import math
import time
import uuid
from dataclasses import dataclass, field, fields
from typing import Any

from swarm.journal.node_meta import NodeMeta
from swarm.journal.step_record import EXECUTION_KEYS, REVIEW_KEYS, Execution, Review
from swarm.metric import MetricValue
from swarm.protocol import GENE_SECTIONS, TASK_TYPES
from swarm.text import trim_middle


class JournalError(ValueError):
    """A journal or node is malformed; the message says which node and what is wrong."""


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
    execution: Execution = field(default_factory=Execution)  # how the code ran
    review: Review = field(default_factory=Review)  # how it was judged
    # genetic algorithm
    generation: int | None = None
    fitness: float | None = None
    # Monte-Carlo tree search (search.policy=mcts): the nodes of its subtree and the sum of their rewards
    visits: int | None = None
    total_reward: float | None = None
    meta: NodeMeta = field(default_factory=NodeMeta)  # what the step recorded (swarm.journal.node_meta)

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
        if not isinstance(self.meta, NodeMeta):
            raise JournalError(
                f"node {self.id}: meta must be a NodeMeta, got {type(self.meta).__name__} (NodeMeta.from_dict reads a dict)"
            )
        for name, kind in (("execution", Execution), ("review", Review)):
            if not isinstance(getattr(self, name), kind):
                raise JournalError(f"node {self.id}: {name} must be a {kind.__name__}")

    # What the step record holds, read as the node's own (the journal line keeps them as top-level keys).
    term_out = property(lambda self: self.execution.term_out)
    exec_time = property(lambda self: self.execution.exec_time)
    exit_code = property(lambda self: self.execution.exit_code)
    timed_out = property(lambda self: self.execution.timed_out)
    oom_killed = property(lambda self: self.execution.oom_killed)
    exc_type = property(lambda self: self.execution.exc_type)
    exc_info = property(lambda self: self.execution.exc_info)
    exc_stack = property(lambda self: self.execution.exc_stack)
    analysis = property(lambda self: self.review.analysis)
    metric = property(lambda self: self.review.metric)
    is_buggy = property(lambda self: self.review.is_buggy)
    bug_reason = property(lambda self: self.review.bug_reason)
    metric_conflict = property(lambda self: self.review.metric_conflict)

    @property
    def parent_id(self) -> str | None:
        """The first parent's id, or None for a root (draft) node."""
        return self.parent_ids[0] if self.parent_ids else None

    @property
    def lower_is_better(self) -> bool | None:
        """The direction of the node's metric (the run's: the review takes it from the competition's metric), or
        None before a review. Kept in `metric` only; saved beside it as the key `lower_is_better`, as before."""
        return self.metric.lower_is_better if self.metric is not None else None

    @property
    def is_evaluated(self) -> bool:
        """True once a review has decided whether the node is buggy."""
        return self.is_buggy is not None

    @property
    def is_good(self) -> bool:
        """Reviewed and not buggy."""
        return self.is_buggy is False

    @property
    def inconsistent(self) -> bool:
        """Whether the harness found its test predictions unlike its held-out ones (`meta.consistency`): such a
        node is neither delivered nor blended while a good node without the flag exists."""
        found = self.meta.consistency
        return isinstance(found, dict) and found.get("consistent") is False

    def term_out_for_prompt(self, max_chars: int = 4000) -> str:
        """The terminal output trimmed for a prompt: head and tail kept, the middle replaced by a marker."""
        return trim_middle(self.term_out, max_chars, head_fraction=0.4)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field, the step record's as top-level keys where they always stood
        (non-finite exec_time/fitness as "inf", "-inf" or "nan")."""
        data: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "execution":
                data.update((key, getattr(self.execution, key)) for key in EXECUTION_KEYS)
            elif f.name == "review":
                for key in REVIEW_KEYS:
                    data[key] = getattr(self.review, key)
                    if key == "bug_reason":  # where the direction stood, so saved lines keep their key order
                        data["lower_is_better"] = self.lower_is_better
            else:
                data[f.name] = getattr(self, f.name)
        data["parent_ids"] = list(self.parent_ids)
        data["genes"] = dict(self.genes)
        try:
            data["meta"] = self.meta.to_dict()
        except ValueError as exc:
            raise JournalError(f"node {self.id}: {exc}") from exc
        data["metric"] = self.metric.to_dict() if self.metric is not None else None
        data["exc_stack"] = [list(f) for f in self.exc_stack] if self.exc_stack is not None else None
        for name in _FLOAT_FIELDS:
            data[name] = _encode_float(getattr(self, name))
        return omit_unset_tree_stats(data)

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
        direction = kwargs.pop("lower_is_better", None)
        metric = kwargs.get("metric")
        if direction is not None and (metric is None or metric.lower_is_better != direction):
            said = (
                "no metric"
                if metric is None
                else f"a metric whose lower_is_better is {metric.lower_is_better}"
            )
            raise JournalError(f"node {node_id}: lower_is_better is {direction} beside {said}")
        if "meta" in kwargs:
            try:
                kwargs["meta"] = NodeMeta.from_dict(kwargs["meta"])
            except (TypeError, ValueError) as exc:
                raise JournalError(f"node {node_id}: bad meta: {exc}") from exc
        try:
            execution = Execution(**{key: kwargs.pop(key) for key in EXECUTION_KEYS if key in kwargs})
            review = Review(**{key: kwargs.pop(key) for key in REVIEW_KEYS if key in kwargs})
            return cls(**kwargs, execution=execution, review=review)
        except TypeError as exc:
            raise JournalError(f"node {node_id}: {exc}") from exc


# Written only when set (an mcts run): other journals' lines stay as they were.
TREE_STATS = ("visits", "total_reward")


def omit_unset_tree_stats(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without the tree search's statistics where they are unset."""
    for name in TREE_STATS:
        if data.get(name, 0) is None:
            del data[name]
    return data


@functools.cache
def _node_field_names() -> frozenset[str]:
    names = {f.name for f in fields(Node)} - {"execution", "review"}
    return frozenset({*names, *EXECUTION_KEYS, *REVIEW_KEYS, "lower_is_better"})  # the direction: `metric`'s
