"""Scoring submissions on the rows the harness holds out: honest, fake and malformed ones."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.miniatures import binary_competition, make_competition, read


@pytest.fixture
def built(tmp_path: Path):
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
    return competition, holdout, Harness(holdout, competition.metric, competition.sample_submission)


def submission(holdout, values: dict[str, str], default: str = "0") -> pd.DataFrame:
    """Predictions for every row the solution sees: `values` for some ids, `default` for the rest."""
    ids = read(holdout.public_dir / "sample_submission.csv")["id"]
    return pd.DataFrame({"id": ids, "y": [values.get(i, default) for i in ids]})


def test_true_labels_score_one_and_test_rows_are_kept_apart(built, tmp_path: Path) -> None:
    competition, holdout, harness = built
    labels = read(holdout.labels_path).set_index("id")["y"].to_dict()
    path = tmp_path / "s.csv"
    submission(holdout, labels).to_csv(path, index=False)
    result = harness.evaluate(path, tmp_path / "test_part.csv")
    assert result.score == 1.0 and result.problem is None
    test_part = read(result.test_submission)
    assert list(test_part["id"]) == list(read(competition.sample_submission)["id"])


def test_a_constant_submission_scores_what_it_is_worth_whatever_it_prints(built, tmp_path: Path) -> None:
    _, holdout, harness = built
    path = tmp_path / "s.csv"
    submission(holdout, {}, default="1").to_csv(path, index=False)
    result = harness.evaluate(path, tmp_path / "t.csv")
    labels = read(holdout.labels_path)
    assert result.score == pytest.approx((labels["y"] == "1").mean(), abs=1e-6)
    assert result.score < 0.5


def test_missing_held_out_rows_are_a_problem_naming_them(built, tmp_path: Path) -> None:
    competition, holdout, harness = built
    view = read(holdout.public_dir / "sample_submission.csv")
    only_test = view[~view["id"].isin(holdout.ids)]
    path = tmp_path / "s.csv"
    only_test.to_csv(path, index=False)
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert result.score is None
    assert "40 of the 40 test rows the harness scores have no prediction" in result.problem
    assert "predict every row of test.csv" in result.problem


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "is empty"),
        ("id,y\n", "have no prediction"),
        ("PassengerId,y\n1,0\n", "no 'id' column"),
    ],
)
def test_garbage_is_a_readable_problem(built, tmp_path: Path, content: str, expected: str) -> None:
    _, _, harness = built
    path = tmp_path / "s.csv"
    path.write_text(content, encoding="utf-8")
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert result.score is None and expected in result.problem


def test_invalid_labels_on_held_out_rows_are_named(built, tmp_path: Path) -> None:
    _, holdout, harness = built
    path = tmp_path / "s.csv"
    submission(holdout, {i: "maybe" for i in holdout.ids}).to_csv(path, index=False)
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert result.score is None and "rows the harness scores are invalid" in result.problem


def test_a_symlinked_submission_is_not_followed(built, tmp_path: Path) -> None:
    _, holdout, harness = built
    # a solution that links its submission to the labels would be scored on them if the link were followed
    link = tmp_path / "s.csv"
    os.symlink(holdout.labels_path, link)
    result = harness.evaluate(link, tmp_path / "t.csv")
    assert result.score is None and "regular file" in result.problem


def test_wide_multiclass_held_out_rows_are_scored_with_log_loss(tmp_path: Path) -> None:
    classes = ["Acer", "Betula", "Quercus"]
    species = np.array(classes * 20)
    train = pd.DataFrame({"id": range(1, 61), "f": np.arange(60), "species": species})
    test = pd.DataFrame({"id": range(100, 110), "f": np.arange(10)})
    sample = pd.DataFrame({"id": range(100, 110), **{c: 1 / 3 for c in classes}})
    root = make_competition(tmp_path / "c", train, test, sample, "multiclass_logloss")
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    seen = read(holdout.public_dir / "sample_submission.csv")
    uniform = seen.assign(**{c: "0.3333333333" for c in classes})
    path = tmp_path / "s.csv"
    uniform.to_csv(path, index=False)
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert result.score == pytest.approx(np.log(3), abs=1e-6)


def test_a_class_that_no_held_out_row_has_is_still_a_valid_prediction(tmp_path: Path) -> None:
    kinds = (
        ["a"] * 60 + ["b"] * 39 + ["rare"]
    )  # the one "rare" row cannot be held out by a 20% stratified split
    train = pd.DataFrame({"id": range(1, 101), "x": range(100), "kind": kinds})
    test = pd.DataFrame({"id": range(200, 210), "x": range(10)})
    sample = pd.DataFrame({"id": range(200, 210), "kind": "a"})
    competition = load_competition_dir(make_competition(tmp_path / "c", train, test, sample, "accuracy"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2)
    assert "rare" not in set(read(holdout.labels_path)["kind"])
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    seen = read(holdout.public_dir / "sample_submission.csv")
    path = tmp_path / "s.csv"
    seen.assign(kind="rare").to_csv(path, index=False)
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert result.problem is None and result.score == 0.0
    seen.assign(kind="unheard-of").to_csv(path, index=False)
    assert "unheard-of" in harness.evaluate(path, tmp_path / "t.csv").problem


def test_keep_copy_takes_a_regular_file_and_refuses_links(tmp_path: Path) -> None:
    from swarm.evaluation.harness import file_sha256, keep_copy

    source = tmp_path / "submission.csv"
    source.write_text("id,y\n1,0\n", encoding="utf-8")
    copy, problem = keep_copy(source, tmp_path / "kept" / "n1.csv")
    assert problem is None and copy.read_text() == "id,y\n1,0\n"
    source.write_text("id,y\n1,1\n", encoding="utf-8")  # a later write by the solution changes nothing kept
    assert copy.read_text() == "id,y\n1,0\n" and file_sha256(copy) != file_sha256(source)
    link = tmp_path / "link.csv"
    os.symlink(source, link)
    copy, problem = keep_copy(link, tmp_path / "kept" / "n2.csv")
    assert copy is None and "regular file" in problem


def test_the_score_comes_with_its_bootstrap_interval(built, tmp_path: Path) -> None:
    _, holdout, harness = built
    labels = read(holdout.labels_path).set_index("id")["y"].to_dict()
    wrong = {i: ("1" if v == "0" else "0") for n, (i, v) in enumerate(labels.items()) if n % 4 == 0}
    path = tmp_path / "s.csv"
    submission(holdout, {**labels, **wrong}).to_csv(path, index=False)
    result = harness.evaluate(path, tmp_path / "t.csv")
    interval = result.interval
    assert result.score == pytest.approx(0.75, abs=0.03)
    assert interval.low < result.score < interval.high and interval.high - interval.low > 0.1  # 40 rows
    assert interval.se == pytest.approx((0.75 * 0.25 / 40) ** 0.5, rel=0.3)
    assert interval.note is None  # every row resampled: the split held out rows
    assert harness.evaluate(path, tmp_path / "t.csv").interval == interval  # seeded: the same again


def test_a_group_split_resamples_whole_groups_read_from_the_view(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    patient = np.repeat(np.arange(40), 6)
    train = pd.DataFrame({"id": range(1, 241), "patient": patient, "x": rng.normal(size=240), "y": 0.0})
    test = pd.DataFrame({"id": range(300, 310), "patient": 99, "x": rng.normal(size=10)})
    sample = pd.DataFrame({"id": range(300, 310), "y": 0.0})
    competition = load_competition_dir(make_competition(tmp_path / "c", train, test, sample, "rmse"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, split="group:patient")
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    own = holdout.own_ids("held")
    groups = {i: int(train.set_index("id").loc[int(own[i]), "patient"]) for i in holdout.ids}
    assert harness.groups == {i: str(g) for i, g in groups.items()}
    error = dict(enumerate(np.random.default_rng(3).normal(size=40)))  # one error a patient: rows alike
    path = tmp_path / "s.csv"
    submission(holdout, {i: str(error[g]) for i, g in groups.items()}, default="0.0").to_csv(
        path, index=False
    )
    result = harness.evaluate(path, tmp_path / "t.csv")
    assert f"whole groups resampled ({len(set(groups.values()))} groups)" in result.interval.note
    harness.groups, harness.groups_note = None, "rows resampled, though the split held out whole groups"
    by_rows = harness.evaluate(path, tmp_path / "t.csv").interval
    assert result.interval.se > 1.5 * by_rows.se  # six alike rows a group: rows understate the spread
    assert by_rows.note == "rows resampled, though the split held out whole groups"


def test_a_group_split_whose_groups_are_not_in_the_view_says_the_interval_understates(tmp_path: Path) -> None:
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
    holdout.split = "group:store"  # a column the view's test table lacks
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    assert harness.groups is None
    assert "the view's test.csv does not hold 'store'" in harness.groups_note
    assert "understates the spread" in harness.groups_note
