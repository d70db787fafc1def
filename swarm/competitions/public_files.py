"""Checks of a competition's public files that a run needs before it starts.

- A train or test file (a top-level entry whose name starts with `train` or `test`) must not be empty: no
  zero-byte file, no CSV with a header and no rows, no directory without files.
- When both `train.csv` and `test.csv` exist: test must have no column that train lacks; when test has the id
  column (the sample submission's first, or the one competition.json names), test and the sample submission
  must hold the same ids; and when competition.json declares the target columns and they are train columns,
  test must have every other train column. (Without declared targets, train-only columns are common and
  allowed: leaf-classification's `species`, siim-isic's `diagnosis`.) A test table with a row per (example,
  class) beside a wide train table (`swarm.layouts.long_classes.detect`: rsna-2022-cervical-spine-fracture-
  detection's `row_id` and `prediction_type`) has those two columns over train's: they are its long keys; a test
  table whose id joins some of its columns and repeats over each group's rows (`swarm.layouts.grouped.detect`:
  rsna-breast-cancer-detection's `prediction_id`) has that one column over train's.

Each problem raises `CompetitionError` with one sentence naming the file and what is wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from swarm.competitions.competition import METADATA_FILE, Competition, find_id_column
from swarm.competitions.errors import CompetitionError
from swarm.layouts.grouped.detect import grouped_rows
from swarm.layouts.long_classes.detect import long_classes

MAX_LISTED = 5
DATA_PREFIXES = ("train", "test")


def check_public_files(competition: Competition) -> None:
    """Raise CompetitionError when the public files cannot make a run (see the module docstring)."""
    public = competition.public_dir
    for entry in sorted(public.iterdir()):
        if entry.name.lower().startswith(DATA_PREFIXES):
            _check_not_empty(entry)
    train, test = public / "train.csv", public / "test.csv"
    if train.is_file() and test.is_file():
        _check_test_columns(train, test, competition)


def _listed(values: list) -> str:
    shown = ", ".join(repr(v) for v in values[:MAX_LISTED])
    return shown + (f" and {len(values) - MAX_LISTED} more" if len(values) > MAX_LISTED else "")


def _check_not_empty(entry: Path) -> None:
    if entry.is_dir():
        if not any(p.is_file() for p in entry.rglob("*")):
            raise CompetitionError(f"{entry} is an empty directory")
        return
    if entry.stat().st_size == 0:
        raise CompetitionError(f"{entry} is empty")
    if entry.suffix.lower() == ".csv" and len(_read(entry, nrows=1)) == 0:
        raise CompetitionError(f"{entry} has a header but no rows")


def _read(path: Path, **kwargs) -> pd.DataFrame:
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False, **kwargs)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise CompetitionError(f"{path} is not a readable CSV: {str(exc).splitlines()[0]}") from None


def _check_test_columns(train: Path, test: Path, competition: Competition) -> None:
    train_columns = list(_read(train, nrows=0).columns)
    test_columns = list(_read(test, nrows=0).columns)
    sample_columns = list(_read(competition.sample_submission, nrows=0).columns)
    meta = _metadata(competition.root)
    spec = competition.metric
    id_column = (
        spec.id_column
        if spec is not None  # found when the competition was loaded (competition.json's, else by matching)
        else meta.get("id_column") or find_id_column(competition.sample_submission, sample_columns)
    )
    extra = [c for c in test_columns if c not in train_columns]
    if extra and not _long_keys(competition, id_column, sample_columns, extra):
        raise CompetitionError(
            f"{test} does not match {train.name}: it has column(s) {_listed(extra)} that {train.name} lacks"
        )
    targets = set(meta.get("target_columns") or [])
    if targets and targets <= set(train_columns):
        missing = [c for c in train_columns if c not in test_columns and c not in targets]
        if missing:
            raise CompetitionError(
                f"{test} does not match {train.name}: it lacks column(s) {_listed(missing)}, which are not "
                f"targets ({_listed(sorted(targets))})"
            )
    if id_column in test_columns:
        _check_ids(test, competition.sample_submission, id_column)


def _long_keys(competition: Competition, id_column: str, sample_columns: list[str], extra: list[str]) -> bool:
    """Whether test's columns that train lacks are the id and class column of a submission with a row per
    (example, class) (`long_classes`), or the id of test rows grouped under one submission id (`grouped_rows`),
    not inputs the training rows lack."""
    passthrough = competition.metric.passthrough_columns if competition.metric is not None else ()
    targets = [c for c in sample_columns if c != id_column and c not in passthrough]
    layout = long_classes(competition.public_dir, id_column, targets)
    if layout is not None:
        return set(extra) <= {layout.id_column, layout.class_column}
    grouped = grouped_rows(competition.public_dir, id_column, targets) if extra == [id_column] else None
    return grouped is not None


def _metadata(root: Path) -> dict:
    """competition.json as a dict ({} when there is none; the loader has checked that it parses)."""
    path = root / METADATA_FILE
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return data if isinstance(data, dict) else {}


def _check_ids(test: Path, sample: Path, id_column: str) -> None:
    test_ids = set(_read(test, usecols=[id_column])[id_column].str.strip())
    sample_ids = set(_read(sample, usecols=[id_column])[id_column].str.strip())
    if test_ids == sample_ids:
        return
    parts = []
    for ids, where in ((test_ids - sample_ids, f"not in {sample.name}"), (sample_ids - test_ids, "missing")):
        if ids:
            examples = ", ".join(repr(i) for i in sorted(ids)[:3])
            parts.append(f"{len(ids)} {where} (e.g. {examples})")
    raise CompetitionError(
        f"the {id_column!r} ids of {test} do not match {sample.name}'s: " + " and ".join(parts)
    )
