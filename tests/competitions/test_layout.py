"""Reading competition dirs: our bundled ones, a foreign mlebench-style one, and broken ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from swarm.competitions import CompetitionError, grade_submission, load_competition, load_competition_dir


def test_bundled_competition_fields(cache_dir: Path) -> None:
    comp = load_competition("titanic", cache_dir)
    assert comp.id == "titanic"
    assert comp.root == (cache_dir / "competitions" / "titanic").resolve()
    assert comp.public_dir == comp.root / "prepared" / "public"
    assert comp.private_dir == comp.root / "prepared" / "private"
    assert comp.answers == comp.private_dir / "answers.csv"
    assert comp.sample_submission.name == "sample_submission.csv"
    assert "## Evaluation" in comp.description
    assert comp.metric is not None and comp.metric.name == "accuracy" and not comp.metric.lower_is_better
    assert comp.metric.id_column == "PassengerId" and comp.metric.target_columns == ("Survived",)
    assert comp.metric.labels == {"Survived": ("0", "1")}
    assert comp.leaderboard is not None and comp.leaderboard.name == "titanic.csv"


@pytest.mark.parametrize("handed", ["root", "prepared", "public"])
def test_foreign_dir_accepted_at_three_levels(foreign_dir: Path, handed: str) -> None:
    path = {
        "root": foreign_dir,
        "prepared": foreign_dir / "prepared",
        "public": foreign_dir / "prepared/public",
    }
    comp = load_competition_dir(path[handed], metric="rmse")
    assert comp.id == "toy-competition"
    assert comp.answers.name == "test.csv"
    assert comp.metric.id_column == "PassengerId" and comp.metric.target_columns == ("y",)
    assert comp.metric.lower_is_better and comp.leaderboard is None


def test_foreign_dir_without_metric_cannot_be_graded(foreign_dir: Path) -> None:
    comp = load_competition(str(foreign_dir), cache_dir=foreign_dir)
    assert comp.metric is None
    with pytest.raises(CompetitionError, match="pass one explicitly.*--metric rmse"):
        grade_submission(comp, comp.sample_submission)


def test_foreign_dir_graded_with_explicit_metric(foreign_dir: Path) -> None:
    comp = load_competition(str(foreign_dir), cache_dir=foreign_dir, metric="mae")
    report = grade_submission(comp, comp.sample_submission)
    assert report.valid and report.score == pytest.approx((1 + 2 + 4) / 3)
    assert report.medal is None and report.gold_threshold is None


@pytest.mark.parametrize("name", ["answers.csv", "gold_submission.csv", "test_answer.csv", "whatever.csv"])
def test_answer_file_names(tmp_path: Path, name: str, make_foreign) -> None:
    comp = load_competition_dir(make_foreign(tmp_path / "c", answers_name=name), metric="rmse")
    assert comp.answers is not None and comp.answers.name == name


def test_of_several_answer_files_the_one_with_the_samples_columns_is_read(
    tmp_path: Path, make_foreign
) -> None:
    """vinbigdata's private dir: answers.csv holds the test's box rows, gold_submission.csv the submission's
    columns, which the grader reads; where both have the sample's columns, answers.csv is read as before."""
    root = make_foreign(tmp_path / "c", answers_name="answers.csv")
    private = root / "prepared" / "private"
    answers = (private / "answers.csv").read_text()
    (private / "gold_submission.csv").write_text(answers)
    assert load_competition_dir(root, metric="rmse").answers.name == "answers.csv"
    (private / "answers.csv").write_text("PassengerId,class_id,x_min\n1,3,0.5\n")
    assert load_competition_dir(root, metric="rmse").answers.name == "gold_submission.csv"


def test_foreign_leaderboard_beside_prepared(foreign_dir: Path) -> None:
    (foreign_dir / "leaderboard.csv").write_text("teamName,score\na,0.1\nb,0.5\nc,0.9\nd,2.0\n")
    comp = load_competition_dir(foreign_dir, metric="mae")
    report = grade_submission(comp, comp.sample_submission)
    assert report.num_teams == 4 and report.gold_threshold == 0.1 and report.medal is None
    assert report.rank == 5  # all four teams beat an MAE of 7/3


def test_missing_description(foreign_dir: Path) -> None:
    (foreign_dir / "prepared/public/description.md").unlink()
    with pytest.raises(CompetitionError, match=r"prepared/public/description.md is missing"):
        load_competition_dir(foreign_dir)


def test_missing_sample_submission(foreign_dir: Path) -> None:
    (foreign_dir / "prepared/public/sample_submission.csv").unlink()
    with pytest.raises(CompetitionError, match=r"prepared/public/sample_submission.csv is missing"):
        load_competition_dir(foreign_dir)


def test_missing_public_dir(foreign_dir: Path) -> None:
    shutil.rmtree(foreign_dir / "prepared/public")
    with pytest.raises(CompetitionError, match=r"prepared/public is missing"):
        load_competition_dir(foreign_dir)


def test_dir_without_prepared(tmp_path: Path) -> None:
    with pytest.raises(CompetitionError, match=r"prepared is missing"):
        load_competition_dir(tmp_path)


def test_nonexistent_path_and_unknown_id(tmp_path: Path) -> None:
    with pytest.raises(CompetitionError, match="does not exist"):
        load_competition_dir(tmp_path / "nope")
    with pytest.raises(CompetitionError, match="neither a bundled competition.*titanic"):
        load_competition("not-a-competition", tmp_path)


def test_bad_competition_json(foreign_dir: Path) -> None:
    (foreign_dir / "competition.json").write_text("{not json")
    with pytest.raises(CompetitionError, match="competition.json is not valid JSON"):
        load_competition_dir(foreign_dir)
    (foreign_dir / "competition.json").write_text(
        json.dumps({"metric": {"name": "rmse"}, "id_column": "nope"})
    )
    with pytest.raises(CompetitionError, match="lacks column"):
        load_competition_dir(foreign_dir)


def test_missing_answers_reported_when_grading(foreign_dir: Path) -> None:
    (foreign_dir / "prepared/private/test.csv").unlink()
    comp = load_competition_dir(foreign_dir, metric="rmse")
    assert comp.answers is None
    with pytest.raises(CompetitionError, match="no answers file"):
        grade_submission(comp, comp.sample_submission)
