"""A public-only dir (MLE-bench's /home/data: description.md and the public files, no prepared/, no answers)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swarm.competitions import CompetitionError, grade_submission, load_competition, load_competition_dir


def _public_only(cache_dir: Path, dest: Path) -> Path:
    """The bundled titanic's public files copied flat into `dest`, as MLE-bench mounts them."""
    shutil.copytree(load_competition("titanic", cache_dir).public_dir, dest)
    return dest


def test_public_only_dir_is_accepted_without_answers(cache_dir: Path, tmp_path: Path) -> None:
    data = _public_only(cache_dir, tmp_path / "data")
    comp = load_competition(str(data), cache_dir=tmp_path)
    assert comp.public_only
    assert comp.root == comp.public_dir == data.resolve()
    assert comp.answers is None and comp.metric is None and comp.leaderboard is None
    assert not comp.private_dir.exists()
    assert comp.sample_submission == data.resolve() / "sample_submission.csv"
    assert "## Evaluation" in comp.description


def test_public_only_dir_cannot_be_graded(cache_dir: Path, tmp_path: Path) -> None:
    comp = load_competition_dir(_public_only(cache_dir, tmp_path / "data"), metric="accuracy")
    assert comp.metric is not None and comp.metric.id_column == "PassengerId"
    with pytest.raises(CompetitionError, match="no answers file"):
        grade_submission(comp, comp.sample_submission)


def test_prepared_layout_is_not_public_only(cache_dir: Path) -> None:
    comp = load_competition("titanic", cache_dir)
    assert not comp.public_only and comp.answers is not None
    assert not load_competition_dir(comp.public_dir).public_only


def test_flat_dir_without_description_is_refused(cache_dir: Path, tmp_path: Path) -> None:
    data = _public_only(cache_dir, tmp_path / "data")
    (data / "description.md").unlink()
    with pytest.raises(
        CompetitionError, match=r"prepared is missing.*public-only dir holding description.md"
    ):
        load_competition_dir(data)


def test_flat_dir_without_sample_submission_is_refused(cache_dir: Path, tmp_path: Path) -> None:
    data = _public_only(cache_dir, tmp_path / "data")
    (data / "sample_submission.csv").unlink()
    with pytest.raises(CompetitionError, match=r"data/sample_submission.csv is missing"):
        load_competition_dir(data)
