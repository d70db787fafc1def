"""What every variant of the conformance suite must do: load, split on the harness, and pass the offline coder's
preflight on the sandbox's view; or be refused before the first step in one sentence naming the file and what is
wrong with it."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from swarm.competitions import load_competition
from swarm.competitions.competition import Competition
from swarm.evaluation.holdout_record import Holdout, SplitRequest
from swarm.evaluation.table_io import read_csv_as_text
from swarm.formats.columns import resolve_file
from swarm.layouts.holdout import NoHoldout, build_holdout, harness_probe
from swarm.layouts.registry import find_layout
from swarm.offline_coder.task import find_data_files, infer_task_from_dir, read_examples
from tests.evaluation.census_miniatures import METRICS, MINIATURES, PROGRAMS
from tests.layouts.test_registry import census_layouts

# As the census test streams them (tests/evaluation/test_census_rows.py): tables over the size limit.
MAX_TRAIN_MB = {"new-york-city-taxi-fare-prediction": 0.001, "icecube-neutrinos-in-deep-ice": 0.0001}


@dataclass
class Split:
    """A variant that split: the competition as loaded, the harness's split, the coder's task of its view."""

    competition: Competition
    holdout: Holdout
    task: dict[str, Any]


def build_miniature(competition_id: str, tmp_path: Path) -> Path:
    """The census miniature of `competition_id` built under `tmp_path` (skipped where it needs a program)."""
    program = PROGRAMS.get(competition_id)
    if program and shutil.which(program) is None:
        pytest.skip(f"{competition_id}'s miniature needs {program} on PATH")
    return MINIATURES[competition_id](tmp_path / competition_id)


def miniatures_of(*layouts: str) -> list[str]:
    """The census's miniatures whose layout is one of `layouts` ("table": the plain labelled table)."""
    rows = census_layouts()
    return sorted(c for c in MINIATURES if rows.get(c) in layouts)


def split_variant(root: Path, tmp_path: Path, metric: str | None = None, competition_id: str = "") -> Split:
    """Load the competition at `root`, split it as a run does (fraction 0.2, seed 0) and read the sandbox's view
    as the no-key run's preflight does; the coder must find a target to predict."""
    competition = load_competition(
        str(root), tmp_path / "cache", metric=metric or METRICS.get(competition_id)
    )
    limit = {"max_train_mb": MAX_TRAIN_MB[competition_id]} if competition_id in MAX_TRAIN_MB else {}
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.2, seed=0, **limit)
    task = infer_task_from_dir(str(holdout.public_dir))
    assert task["targets"], task
    check_files_found(str(holdout.public_dir), task)
    return Split(competition, holdout, task)


def check_files_found(view: str, task: dict[str, Any]) -> None:
    """Every file a column of the coder's examples names is found in the view, as a solution looks it up (its
    features come from the file)."""
    named = {c: info for c, info in task["columns"].items() if info.get("kind") == "file"}
    if not named:
        return
    sample = read_csv_as_text(Path(view) / task["files"]["sample"])
    train, test = read_examples(view, find_data_files(view), sample)
    for column, info in named.items():
        values = [v for frame in (train, test) if column in frame for v in frame[column].dropna().astype(str)]
        lost = [v for v in values if resolve_file(v, info, view) is None]
        assert not lost, (
            f"{len(lost)} of {len(values)} files {column} names are not found, such as {lost[0]!r}"
        )


def layout_found(split: Split, tmp_path: Path) -> str:
    """The layout the harness finds in the variant (as tests/layouts/test_registry.py asks), "table" if none."""
    competition = split.competition
    assert competition.metric is not None
    sample = read_csv_as_text(competition.sample_submission)
    request = SplitRequest(competition, competition.metric, tmp_path / "probe", sample, 0.2, "auto", 0)
    found = find_layout(harness_probe(request))
    return found[0].name if found else "table"


def refusal(root: Path, tmp_path: Path, metric: str | None = None, competition_id: str = "") -> str:
    """The one sentence a variant the harness or the coder cannot take is refused with, before any step: a
    NoHoldout or a ValueError (a CompetitionError is one), never another exception or a crash later."""
    with pytest.raises((NoHoldout, ValueError)) as refused:
        split_variant(root, tmp_path, metric, competition_id)
    message = str(refused.value)
    assert message and "\n" not in message.strip(), message
    return message
