"""Reading a competition laid out the MLE-bench way.

    <root>/competition.json          optional: our metadata (id, metric, columns, leaderboard)
    <root>/leaderboard.csv           optional: a best-first leaderboard with a `score` column
    <root>/prepared/public/          description.md, sample_submission.csv, train/test files
    <root>/prepared/private/         the hidden answers (test.csv, answers.csv, gold_submission.csv, ...)

`load_competition_dir` accepts the root, the `prepared/` dir or `prepared/public/`, and also a public-only dir
(what MLE-bench mounts at /home/data: description.md and the public files, no `prepared/`, no answers), which
can be solved but not graded here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics import Metric, resolve_metric

METADATA_FILE = "competition.json"
LEADERBOARD_FILE = "leaderboard.csv"
# Names mlebench's preparers give the answers file, most common first.
ANSWER_FILE_NAMES = (
    "answers.csv",
    "test.csv",
    "gold_submission.csv",
    "test_answer.csv",
    "test_answers.csv",
    "solution.csv",
    "test_labels.csv",
)
SAMPLE_SUBMISSION_NAMES = ("sample_submission.csv", "sampleSubmission.csv", "sample_submission_null.csv")


@dataclass(frozen=True)
class MetricSpec:
    """How a competition is scored."""

    name: str
    lower_is_better: bool
    id_column: str
    target_columns: tuple[str, ...]
    # Declared class labels per target column (competition.json `labels`); empty: taken from the answers.
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Metric parameters (competition.json `metric.params`, or set by the name: `map@3` is k=3); empty: defaults.
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Competition:
    """One competition on disk. `metric` is None when neither metadata nor the caller named it."""

    id: str
    root: Path
    public_dir: Path
    private_dir: Path
    description: str
    sample_submission: Path
    answers: Path | None
    metric: MetricSpec | None
    leaderboard: Path | None = None
    name: str | None = None

    @property
    def prepared_dir(self) -> Path:
        return self.public_dir.parent

    @property
    def public_only(self) -> bool:
        """True for a dir holding only the public files (no `prepared/`): nothing to grade with."""
        return self.public_dir == self.root


def _find_root(path: Path) -> Path:
    path = path.expanduser().resolve()
    if not path.exists():
        raise CompetitionError(f"{path} does not exist")
    if not path.is_dir():
        raise CompetitionError(f"{path} is not a directory")
    if path.name == "public" and path.parent.name == "prepared":
        return path.parent.parent
    if path.name == "prepared" and (path / "public").is_dir():
        return path.parent
    if (path / "prepared").is_dir() or _is_public_only(path):
        return path
    raise CompetitionError(
        f"{path}/prepared is missing: expected an MLE-bench competition dir holding prepared/public and "
        "prepared/private (or the prepared/ dir itself), or a public-only dir holding description.md"
    )


def _is_public_only(path: Path) -> bool:
    """A dir laid out like MLE-bench's /home/data: description.md beside the data, no `prepared/`."""
    return not (path / "prepared").exists() and (path / "description.md").is_file()


def _first_existing(folder: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        if (folder / name).is_file():
            return folder / name
    return None


def _read_metadata(root: Path) -> dict:
    path = root / METADATA_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CompetitionError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise CompetitionError(f"{path} must hold a JSON object")
    return data


def _find_answers(private: Path, meta: dict) -> Path | None:
    if not private.is_dir():
        return None
    named = meta.get("answers")
    if named:
        path = private / named
        if not path.is_file():
            raise CompetitionError(f"{path} is missing (named by {METADATA_FILE})")
        return path
    found = _first_existing(private, ANSWER_FILE_NAMES)
    if found is None:
        csvs = sorted(private.glob("*.csv"))
        found = csvs[0] if len(csvs) == 1 else None
    return found


def _sample_columns(sample: Path) -> list[str]:
    try:
        return list(pd.read_csv(sample, nrows=0).columns)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CompetitionError(f"{sample} is not a readable CSV: {exc}") from exc


def _metric_spec(meta: dict, metric: str | None, sample: Path) -> MetricSpec | None:
    columns = _sample_columns(sample)
    if len(columns) < 2:
        raise CompetitionError(f"{sample} must have an id column and at least one target column")
    meta_metric = meta.get("metric") or {}
    if isinstance(meta_metric, str):
        meta_metric = {"name": meta_metric}
    if not isinstance(meta_metric, dict):
        raise CompetitionError(f'{METADATA_FILE} `metric` must be an object: {{"name": ..., "params": ...}}')
    name = metric or meta_metric.get("name")
    if not name:
        return None
    known, params = resolve_metric(name)
    lower = meta_metric.get("lower_is_better") if not metric else None
    id_column = meta.get("id_column") or columns[0]
    targets = tuple(meta.get("target_columns") or [c for c in columns if c != id_column])
    missing = [c for c in (id_column, *targets) if c not in columns]
    if missing:
        raise CompetitionError(f"{sample} lacks column(s) {', '.join(missing)} named by {METADATA_FILE}")
    return MetricSpec(
        name=known.name,
        lower_is_better=known.lower_is_better if lower is None else bool(lower),
        id_column=id_column,
        target_columns=targets,
        labels=_declared_labels(meta, targets),
        params=_metric_params(meta_metric, metric, known, params),
    )


def _metric_params(
    meta_metric: dict, metric: str | None, known: Metric, from_name: dict[str, Any]
) -> dict[str, Any]:
    """competition.json `metric.params` (kept when the caller's `metric` is the same metric) and the name's."""
    declared = meta_metric.get("params") or {}
    if not isinstance(declared, dict):
        raise CompetitionError(f'{METADATA_FILE} `metric.params` must be an object, e.g. {{"k": 3}}')
    if metric and not _names_metric(meta_metric.get("name"), known):
        declared = {}
    # The caller's name wins over the file's params; the file's params win over the file's name (`map@3`).
    params = {**declared, **from_name} if metric else {**from_name, **declared}
    try:
        known.resolve_params(params)
    except CompetitionError as exc:
        raise CompetitionError(f"{METADATA_FILE} `metric.params`: {exc}") from None
    return params


def _names_metric(name: object, known: Metric) -> bool:
    try:
        return bool(name) and resolve_metric(str(name))[0].name == known.name
    except CompetitionError:
        return False


def _declared_labels(meta: dict, targets: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """competition.json `labels`: {target column: [label, ...]}, labels kept as text."""
    declared = meta.get("labels") or {}
    if not isinstance(declared, dict):
        raise CompetitionError(f"{METADATA_FILE} `labels` must map target columns to lists of labels")
    labels = {}
    for column, values in declared.items():
        if column not in targets:
            raise CompetitionError(f"{METADATA_FILE} `labels` names {column!r}, which is not a target column")
        if not isinstance(values, list) or not values:
            raise CompetitionError(f"{METADATA_FILE} `labels.{column}` must be a non-empty list")
        labels[column] = tuple(str(v).strip() for v in values)
    return labels


def _leaderboard_path(root: Path, meta: dict) -> Path | None:
    bundled = meta.get("bundled_leaderboard")
    if bundled:
        path = Path(__file__).parent / "leaderboards" / f"{bundled}.csv"
        return path if path.is_file() else None
    named = meta.get("leaderboard")
    if named:
        path = (root / named).resolve()
        if not path.is_file():
            raise CompetitionError(f"{path} is missing (named by {METADATA_FILE})")
        return path
    path = root / LEADERBOARD_FILE
    return path if path.is_file() else None


def load_competition_dir(path: str | Path, metric: str | None = None) -> Competition:
    """Read the competition at `path`; `metric` overrides (or supplies) the metric name."""
    root = _find_root(Path(path))
    public_only = _is_public_only(root)
    public = root if public_only else root / "prepared" / "public"
    # A public-only dir has no answers; `private_dir` then names where they would be and never exists.
    private = root / "prepared" / "private"
    if not public.is_dir():
        raise CompetitionError(f"{public} is missing")
    description_path = public / "description.md"
    if not description_path.is_file():
        raise CompetitionError(f"{description_path} is missing")
    sample = _first_existing(public, SAMPLE_SUBMISSION_NAMES)
    if sample is None:
        raise CompetitionError(f"{public / 'sample_submission.csv'} is missing")
    meta = _read_metadata(root)
    return Competition(
        id=str(meta.get("id") or root.name),
        root=root,
        public_dir=public,
        private_dir=private,
        description=description_path.read_text(encoding="utf-8"),
        sample_submission=sample,
        answers=None if public_only else _find_answers(private, meta),
        metric=_metric_spec(meta, metric, sample),
        leaderboard=_leaderboard_path(root, meta),
        name=meta.get("name"),
    )
