"""What a journal node records about the step that made it: `NodeMeta`, a node's `meta`.

Its fields are the keys the search steps write (`swarm.pipeline.steps`: `make_node`, `update_population`).
Saved, a node's meta is the JSON object of the fields that are set, in the order they were first set, then
`extra`: the keys NodeMeta does not know (a journal from an older version, a test's own keys), kept as they
were read and written back. So a saved node's meta is written back as it was read, nulls included:

- a field is set when the constructor got a value other than None for it, or when it is assigned after
  (None included: `meta.submission_path = None` saves a null, as a step whose run left no submission does);
- `from_dict` sets every key it reads (a null too), and puts the ones that are not fields in `extra`.

Values must be JSON data (a set fails the journal's save, naming the node); tuples come back as lists.
`validation_source` is saved as its string ("harness", "solution") and read back as a `ValidationSource`; the
other fields are saved and read as they are, their types not checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from swarm.metric import ValidationSource


@dataclass(eq=False)
class NodeMeta:
    """A node's record of its step: who ran it, its submission files, where its score came from, why the policy
    chose it, what its generation went through. Equal when saved alike (`to_dict`)."""

    agent_versions: dict[str, str] | None = None  # agent id -> version of its texts the step used
    plan_step: int | None = None  # the step number the plan was made for
    worker: str | None = None  # "host:pid" that ran the step
    submission_path: str | None = None  # what is promoted and graded: the harness's copy of its test rows
    solution_submission_path: str | None = None  # the solution's own file, when the harness kept a copy
    submission_sha256: str | None = None  # of submission_path's file when it was reviewed
    sandbox: str | None = None  # the backend that ran the code: docker, bwrap, local
    validation_source: ValidationSource | None = None  # who computed the metric; saved as its string
    claimed_metric: float | None = None  # the metric the solution printed (an unverified claim)
    gene: str | None = None  # the section a mutate step changed
    search_mode: str | None = None  # why the policy chose the step: the final phase or stagnation
    crossover_plan: dict[str, int] | None = None  # section -> parent index of a merge
    parse_error: str | None = None  # why the model's reply could not be read
    reply_head: str | None = None  # the start of a reply that had no code (the whole one: exchanges/)
    reasked: bool | None = None  # the first reply had no code and the model was asked once more
    thinking: str | None = None  # the model's thinking trace, for people to read; prompts never show it
    missing_genes: list[str] | None = None  # gene sections the code did not mark
    metric_conflict: dict[str, Any] | None = None  # the metric used and the one the model claimed
    submission_problem: str | None = None  # what is wrong with the submission file
    review_error: str | None = None  # why the review call failed (the outcome then rests on the facts)
    review_overruled: bool | None = None  # the reviewer said the run was fine; the facts made it buggy
    consistency: dict[str, Any] | None = None  # held-out vs test agreement with a reference
    prompt_assets_hash: str | None = None  # of the prompts, skills and agent texts the run used
    # The harness score's uncertainty (`swarm.competitions.score_interval`): its 95% bootstrap interval [low,
    # high] and standard error; a note on how it was drawn or why there is none; a sentence where the held-out
    # rows are too few for the metric. A journal written before them loads without them (None).
    score_interval: list[float] | None = None
    score_se: float | None = None
    score_interval_note: str | None = None
    score_warning: str | None = None
    timings: dict[str, float] | None = None  # seconds by phase of the step (`swarm.pipeline.step_timing`)
    extra: dict[str, Any] = field(default_factory=dict)  # keys that are no field, kept and written back

    def __post_init__(self) -> None:
        # the set fields, in the order they were set (a dict as an ordered set)
        object.__setattr__(self, "_set", {name: None for name in _KEYS if getattr(self, name) is not None})

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name in _KEY_SET and "_set" in self.__dict__:  # not while the constructor runs
            self._set.setdefault(name)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NodeMeta:
        """A saved meta object: its keys that are fields set (nulls too), the others in `extra`. TypeError for
        anything but a dict, ValueError for a `validation_source` that is not one."""
        if not isinstance(data, dict):
            raise TypeError(f"meta must be a JSON object, got {type(data).__name__}")
        known: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in data.items():
            (known if key in _KEY_SET else extra)[key] = value
        source = known.get("validation_source")
        if source is not None:
            try:
                known["validation_source"] = _SOURCES[source]
            except (KeyError, TypeError):
                raise ValueError(
                    f"validation_source must be one of {', '.join(ValidationSource)}, got {source!r}"
                ) from None
        meta = cls.__new__(cls)  # its state set at once: a journal's load reads thousands
        state = meta.__dict__
        state.update(_UNSET)
        state.update(known)
        state["extra"] = extra
        state["_set"] = dict.fromkeys(known)
        return meta

    def to_dict(self) -> dict[str, Any]:
        """The JSON object saved: the set fields in the order they were set, then `extra` (ValueError when
        `extra` holds a field's name)."""
        data = self._saved()
        if self.extra and not self.extra.keys().isdisjoint(_KEY_SET):
            clash = sorted(self.extra.keys() & _KEY_SET)
            raise ValueError(f"meta.extra holds {clash}, which are NodeMeta fields: set them as attributes")
        if isinstance(data.get("validation_source"), ValidationSource):
            data["validation_source"] = data["validation_source"].value
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NodeMeta):
            return NotImplemented
        return self._saved() == other._saved()

    def __repr__(self) -> str:
        return f"NodeMeta({self._saved()!r})"

    def _saved(self) -> dict[str, Any]:
        """The set fields and `extra` as they are: `to_dict` without its check and its string for the enum."""
        values = self.__dict__
        return {name: values[name] for name in self._set} | self.extra


_KEYS = tuple(f.name for f in fields(NodeMeta) if f.name != "extra")
_KEY_SET = frozenset(_KEYS)
_UNSET = dict.fromkeys(_KEYS)
_SOURCES = {source.value: source for source in ValidationSource}
