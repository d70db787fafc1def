"""Which metric a run optimises, and where that choice came from.

`resolve_metric` decides, highest precedence first: `--metric NAME` / `data.metric`, the competition's
competition.json (bundled or not), then description.md, read by a model (`model`, a `MetricReader`: the run's
code model through a forced `choose_metric` call, `swarm.pipeline.metric_model`) or by the rules
(`swarm.competitions.metric_wording`) when there is no model or its reading fails. Nothing defaults: when no
source names a metric, `MetricUnknown` says how to name one. A grouped metric gets its groups (or mask, or scored
columns) from the description and the tables. Metric names are the library's
(`swarm.competitions.metrics.METRICS`), read at call time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from swarm.competitions import metrics as metric_lib
from swarm.competitions.competition import METADATA_FILE, Competition, scored_by
from swarm.competitions.errors import CompetitionError
from swarm.competitions.metric_wording import (
    GAP,
    NOT_SCORED,
    evaluation_section,
    infer_metric_rules,
    lacking_metric,
    one_line,
)
from swarm.competitions.metrics.numeric import MASKED_METRICS
from swarm.competitions.scored_columns import scored_columns_named

SOURCE_OVERRIDE = "--metric / data.metric"
SOURCE_COMPETITION_JSON = "competition.json"
SOURCE_BUNDLED = "bundled competition"
SOURCE_MODEL = "description.md (model)"
SOURCE_RULES = "description.md (rules)"
SOURCES = (SOURCE_OVERRIDE, SOURCE_COMPETITION_JSON, SOURCE_BUNDLED, SOURCE_MODEL, SOURCE_RULES)

_FIELDS = ("name", "lower_is_better", "source", "reason", "params")


class MetricUnknown(CompetitionError):
    """No source names the competition's metric; the message says how to name one."""


def library_names() -> list[str]:
    """The metric library's names, sorted (read now: the library may grow)."""
    return sorted(metric_lib.METRICS)


def describe_direction(lower_is_better: bool) -> str:
    return "lower is better" if lower_is_better else "higher is better"


def _params_problem(name: str, params: Any) -> str | None:
    """What is wrong with `params` for the library metric `name` (its own parameter checks), or None."""
    if not isinstance(params, dict):
        return f"params must be an object, got {type(params).__name__}"
    if any(not isinstance(key, str) for key in params):
        return f"params keys must be strings, got {sorted(map(repr, params))}"
    try:
        metric_lib.METRICS[name].resolve_params(params)
    except (CompetitionError, KeyError, TypeError) as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class MetricChoice:
    """The metric a run optimises: a library `name`, its direction, where it came from and why."""

    name: str
    lower_is_better: bool
    source: str
    reason: str
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or self.name not in metric_lib.METRICS:
            raise ValueError(
                f"metric choice: unknown metric {self.name!r}; known metrics: {', '.join(library_names())}"
            )
        if not isinstance(self.lower_is_better, bool):
            raise ValueError(
                f"metric choice: lower_is_better must be true or false, got {self.lower_is_better!r}"
            )
        if self.source not in SOURCES:
            raise ValueError(f"metric choice: unknown source {self.source!r}; sources: {', '.join(SOURCES)}")
        if not isinstance(self.reason, str):
            raise ValueError(f"metric choice: reason must be a string, got {type(self.reason).__name__}")
        problem = _params_problem(self.name, self.params)
        if problem:
            raise ValueError(f"metric choice: {problem}")
        object.__setattr__(self, "reason", one_line(self.reason))
        object.__setattr__(self, "params", dict(self.params))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (`from_dict` reads it back)."""
        return {
            "name": self.name,
            "lower_is_better": self.lower_is_better,
            "source": self.source,
            "reason": self.reason,
            "params": dict(self.params),
        }

    @classmethod
    def from_dict(cls, data: Any) -> MetricChoice:
        """The choice saved by `to_dict`; ValueError naming the problem for anything else."""
        if not isinstance(data, dict):
            raise ValueError(f"metric choice: expected an object, got {type(data).__name__}")
        missing = [key for key in _FIELDS[:4] if key not in data]
        if missing:
            raise ValueError(f"metric choice: missing {', '.join(missing)}")
        unknown = sorted(str(key) for key in data if key not in _FIELDS)
        if unknown:
            raise ValueError(f"metric choice: unknown field(s) {', '.join(unknown)}")
        return cls(
            name=data["name"],
            lower_is_better=data["lower_is_better"],
            source=data["source"],
            reason=data["reason"],
            params=data.get("params", {}),
        )

    def describe(self) -> str:
        """One line for the run's start: the metric, its direction, its source and how to override it."""
        params = ", ".join(f"{key}={value}" for key, value in sorted(self.params.items()))
        shown = f"{self.name} ({params})" if params else self.name
        return (
            f"metric: {shown} ({describe_direction(self.lower_is_better)}), from {self.source}: {self.reason}; "
            "override with --metric NAME"
        )


# Reads description.md and names its metric (a model's reading); raises ValueError when it cannot.
MetricReader = Callable[[str], "MetricChoice"]


def scored_by_choice(competition: Competition, choice: MetricChoice) -> Competition:
    """`competition` (loaded with `data.metric`, if set) scored by the run's chosen metric: as it is where the
    choice is its competition.json's or the bundled one's; else by the chosen name, with the choice's params
    beyond what the name carries (log_mae's group_column read from the description)."""
    if choice.source in (SOURCE_COMPETITION_JSON, SOURCE_BUNDLED):
        return competition
    competition = scored_by(competition, metric_argument(choice))
    spec = competition.metric
    if choice.params and spec is not None and spec.name == choice.name:
        competition = replace(competition, metric=replace(spec, params={**spec.params, **choice.params}))
    return competition


def metric_argument(choice: MetricChoice) -> str:
    """The metric as `load_competition` takes it: its name, with MAP@k's k (`map@5`)."""
    k = choice.params.get("k")
    return f"map@{k}" if k is not None and choice.name == "map_at_k" else choice.name


# -- the groups of a grouped metric -------------------------------------------------------------------------------

# Words that say a score is computed per group of a column and then averaged: "calculated for each scalar
# coupling type, and then averaged across types" (champs-scalar-coupling); up to three words may stand between
# them and the column's name.
_PER_GROUP = (
    rf"\b(?:for{GAP}(?:each|every)|per|across|over|within|grouped{GAP}by)"
    rf"(?:{GAP}(?:all|the|each|every))?(?:{GAP}[a-z0-9]+){{0,3}}?{GAP}"
)


def _csv_header(path: Path) -> list[str]:
    """The column names of a CSV, [] when it is missing or unreadable."""
    try:
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return []


def infer_group_column(competition: Competition) -> tuple[str, str] | None:
    """(column, the words that name it) when description.md says the score is computed per group of a column
    that `train.csv` and `test.csv` share (not one of the sample submission's): champs's "for each scalar
    coupling type" and its column `type`. Read in the Evaluation section (the whole text when there is none);
    None when no such column is named, or when several are (ambiguous)."""
    public = competition.public_dir
    train, test = _csv_header(public / "train.csv"), _csv_header(public / "test.csv")
    submitted = set(_csv_header(competition.sample_submission))
    description = competition.description or ""
    section = evaluation_section(description)
    scope = section if section and section.strip() else description
    found: dict[str, str] = {}
    for column in dict.fromkeys(c for c in train if c in test and c not in submitted):
        words = [re.escape(w) for w in re.split(r"[\s_-]+", column.strip()) if w]
        name = r"[`'\"*]*" + GAP.join(words) + r"s?\b"  # the name, maybe quoted as code or bold
        match = re.search(_PER_GROUP + name, scope, re.IGNORECASE) if words else None
        if match:
            found[column] = match.group(0)
    return next(iter(found.items())) if len(found) == 1 else None


# How many of train.csv's rows show whether a column holds only 0 and 1 (a masked metric's mask).
MASK_SAMPLE_ROWS = 100_000


def _line_naming(column: str, text: str) -> str | None:
    """The first line of `text` that names `column` as a whole word (case as written), list marks and code
    quotes left out; None when no line does."""
    found = re.search(rf"^.*(?<![\w]){re.escape(column)}(?![\w]).*$", text, re.MULTILINE)
    return " ".join(found.group(0).replace("`", "").lstrip(" \t-*+>").split()) if found else None


def _zero_one(values: pd.Series) -> bool:
    """Whether a column's cells are the numbers 0 and 1, both present and nothing else."""
    numbers = pd.to_numeric(values.str.strip(), errors="coerce")
    return bool(numbers.notna().all() and set(numbers.unique()) == {0.0, 1.0})


def infer_mask_column(competition: Competition) -> tuple[str, str] | None:
    """(column, the description's line naming it) for a masked metric (`masked_mae`, which scores the rows
    whose mask is 0): the one column that `train.csv` and `test.csv` share (not one of the sample
    submission's), that holds only 0 and 1 in train.csv's first MASK_SAMPLE_ROWS rows, and that description.md
    names: ventilator-pressure-prediction's `u_out`, "the control input for the exploratory solenoid valve.
    Either 0 or 1.". None when there is no such column, or when there are several (ambiguous)."""
    public = competition.public_dir
    train, test = _csv_header(public / "train.csv"), _csv_header(public / "test.csv")
    submitted = set(_csv_header(competition.sample_submission))
    description = competition.description or ""
    named: dict[str, str] = {}
    for column in dict.fromkeys(c for c in train if c in test and c not in submitted):
        line = _line_naming(column, description)
        if line:
            named[column] = line
    if not named:
        return None
    try:
        rows = pd.read_csv(
            public / "train.csv",
            usecols=list(named),
            dtype=str,
            keep_default_na=False,
            nrows=MASK_SAMPLE_ROWS,
        )
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    found = {column: line for column, line in named.items() if _zero_one(rows[column])}
    return next(iter(found.items())) if len(found) == 1 else None


def with_scored_columns(choice: MetricChoice, competition: Competition) -> MetricChoice:
    """`choice` with `scored_columns` set where its metric takes them (`mcrmse`), none are set, and the
    description says only some of the sample's target columns are scored (`scored_columns_named`)."""
    if "scored_columns" not in metric_lib.METRICS[choice.name].params or choice.params.get("scored_columns"):
        return choice
    spec = competition.metric
    targets = (
        list(spec.target_columns) if spec is not None else _csv_header(competition.sample_submission)[1:]
    )
    found = scored_columns_named(competition.description or "", targets)
    if found is None:
        return choice
    columns, sentence = found
    reason = f'{choice.reason}; scored on {", ".join(columns)} only: "{one_line(sentence, 160)}"'
    return replace(choice, reason=reason, params={**choice.params, "scored_columns": columns})


def with_groups(choice: MetricChoice, competition: Competition) -> MetricChoice:
    """`choice` with its grouped metric's `group_column` set from the description when it names none: for
    `log_mae` the column whose groups the score is averaged over (`infer_group_column`; without it all rows
    are one group, the log of the overall MAE), for a masked metric (`masked_mae`) its 0/1 mask column
    (`infer_mask_column`; without it every row is scored). Also the scored columns (`with_scored_columns`)."""
    choice = with_scored_columns(choice, competition)
    metric = metric_lib.METRICS[choice.name]
    # a metric whose groups its default names (spine_weighted_logloss: the row ids; jigsaw's identity columns)
    # keeps them
    named = ("group_column", "identity_columns", "row_columns")
    if not metric.grouped or any(choice.params.get(k) or metric.params.get(k) for k in named):
        return choice
    if choice.name in MASKED_METRICS:
        mask = infer_mask_column(competition)
        if mask is None:
            return choice
        column, line = mask
        sentence = re.search(rf"[^.\n]*{NOT_SCORED}", competition.description or "", re.IGNORECASE)
        said = f' ("{one_line(sentence.group(0), 80)}")' if sentence else ""
        reason = (
            f"{choice.reason}; scored where {column!r} is 0{said}, the 0/1 column train.csv and test.csv share "
            f'that description.md names ("{one_line(line, 80)}")'
        )
        return replace(choice, reason=reason, params={**choice.params, "group_column": column})
    found = infer_group_column(competition)
    if found is None:
        return choice
    column, words = found
    reason = (
        f'{choice.reason}; grouped by {column!r}: description.md says "{one_line(words, 80)}", and train.csv '
        "and test.csv have the column"
    )
    return replace(choice, reason=reason, params={**choice.params, "group_column": column})


# -- precedence ---------------------------------------------------------------------------------------------------


def _declared_metric(competition: Competition) -> dict[str, Any]:
    """The `metric` object of competition.json, or {} when it cannot be read."""
    try:
        data = json.loads((competition.root / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    metric = data.get("metric") if isinstance(data, dict) else None
    return metric if isinstance(metric, dict) else {}


def _declared_params(declared: dict[str, Any], name: str) -> dict[str, Any] | None:
    """competition.json's parameters for `name` (`map@5`, `"k": 5`), or None when it names another metric."""
    try:
        metric, params = metric_lib.resolve_metric(str(declared.get("name")))
    except CompetitionError:
        return None
    if metric.name != name:
        return None
    return {**params, **{key: value for key, value in declared.items() if key in metric.params}}


def _from_competition_json(competition: Competition, bundled: bool) -> MetricChoice:
    spec = competition.metric
    assert spec is not None
    declared = _declared_metric(competition)
    found = _declared_params(declared, spec.name)
    params: dict[str, Any] = dict(getattr(spec, "params", None) or found or {})
    where = "the bundled competition's competition.json" if bundled else METADATA_FILE
    reason = f"{where} names {spec.name!r}"
    if found is not None and isinstance(declared.get("lower_is_better"), bool):
        reason += f" and declares {describe_direction(spec.lower_is_better)}"
    source = SOURCE_BUNDLED if bundled else SOURCE_COMPETITION_JSON
    return MetricChoice(spec.name, spec.lower_is_better, source, reason, params)


def resolve_metric(
    competition: Competition,
    *,
    override: str | None,
    model: MetricReader | None,
    bundled: bool,
) -> MetricChoice:
    """The run's metric: `override` > competition.json > description.md (`model`'s reading, else the rules).

    An unknown `override` raises CompetitionError naming the known metrics; no source at all raises
    MetricUnknown. Nothing defaults to a direction silently.
    """
    if override is not None and override.strip():
        metric, params = metric_lib.resolve_metric(override)  # `map@5` sets k
        spec = competition.metric
        if spec is not None and spec.name == metric.name:  # competition.json's params of the same metric
            params = {**spec.params, **params}
        reason = f"named {override.strip()!r}"
        choice = MetricChoice(metric.name, metric.lower_is_better, SOURCE_OVERRIDE, reason, params)
        return with_groups(choice, competition)
    if competition.metric is not None:
        return _from_competition_json(competition, bundled)
    failure = ""
    if model is not None:
        try:
            chosen = model(competition.description)
        except ValueError as exc:
            failure = f" (the model call failed: {one_line(str(exc), 160)})"
        else:
            return with_groups(chosen, competition)
    found = infer_metric_rules(competition.description)
    if found is not None:
        lower = metric_lib.METRICS[found.name].lower_is_better
        choice = MetricChoice(found.name, lower, SOURCE_RULES, found.reason + failure, found.params)
        return with_groups(choice, competition)
    lacking = lacking_metric(competition.description)
    raise MetricUnknown(
        f"competition {competition.id!r}: no metric could be found in competition.json or description.md"
        f"{' (nor by the model)' if model is not None else ''}{f' ({lacking})' if lacking else ''}; "
        f"pass --metric NAME (one of: {', '.join(library_names())})"
    )
