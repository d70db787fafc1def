"""Shared fixtures: bundled competitions prepared once per session, and a foreign MLE-bench-style dir."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import list_bundled, prepare_bundled


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache dir holding all bundled competitions, prepared once."""
    cache = tmp_path_factory.mktemp("cache")
    for competition_id in list_bundled():
        prepare_bundled(competition_id, cache)
    return cache


def _make_foreign(root: Path, answers_name: str = "test.csv") -> Path:
    """A dir shaped like `mlebench prepare` output (no competition.json), spaceship-titanic style."""
    public = root / "prepared" / "public"
    private = root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text("# Toy\n\nPredict y.\n")
    pd.DataFrame({"PassengerId": ["a", "b", "c", "d"], "y": [1.0, 2.0, 3.0, 4.0]}).to_csv(
        public / "train.csv", index=False
    )
    pd.DataFrame({"PassengerId": ["e", "f", "g"], "x": [0, 1, 2]}).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"PassengerId": ["e", "f", "g"], "y": [0.0, 0.0, 0.0]}).to_csv(
        public / "sample_submission.csv", index=False
    )
    pd.DataFrame({"PassengerId": ["e", "f", "g"], "x": [0, 1, 2], "y": [1.0, 2.0, 4.0]}).to_csv(
        private / answers_name, index=False
    )
    return root


@pytest.fixture
def make_foreign():
    """A function building a foreign competition dir at a given path."""
    return _make_foreign


@pytest.fixture
def foreign_dir(tmp_path: Path) -> Path:
    return _make_foreign(tmp_path / "toy-competition")
