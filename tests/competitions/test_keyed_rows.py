"""A sample that keys each row by its id and another column, the id repeating (issue 29, point 3):
uw-madison-gi-tract-image-segmentation's `id`, `class` (a row per slice and organ) and smartphone-decimeter-2022's
`tripId`, `UnixTimeMillis` (a row per trip and second). The key column is matched, not predicted; submissions
are checked and graded row by row on the joined key. The harness splits uw-madison's rows
(tests/layouts/keyed/test_keyed_split.py) and refuses smartphone's, which have no labelled table, in one sentence."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.competitions.grading import grade_submission, score_submission
from swarm.competitions.submission_check import check_submission
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.keyed.miniatures import uw_madison

TRIP = ["2021-01-05-US-A-GooglePixel4"] * 4 + ["2021-03-10-US-B-SamsungS20Ultra"] * 3


def smartphone_rows(root: Path) -> Path:
    """A public dir with a sample of (tripId, UnixTimeMillis, LatitudeDegrees, LongitudeDegrees) rows and the
    answers beside it; the metric `trip_distance_error` grouped by `tripId`."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text(
        "# Smartphone\n\nScored by the mean of p50 and p95 distance errors.\n"
    )
    metric = {"name": "trip_distance_error", "params": {"group_column": "tripId"}}
    (root / "competition.json").write_text(json.dumps({"metric": metric}))
    times = [1_600_000_000_000 + 1000 * k for k in range(4)] + [
        1_610_000_000_000 + 1000 * k for k in range(3)
    ]
    answers = pd.DataFrame(
        {
            "tripId": TRIP,
            "UnixTimeMillis": times,
            "LatitudeDegrees": 37.4,
            "LongitudeDegrees": -122.1 + np.arange(7) * 1e-4,
        }
    )
    answers.to_csv(private / "test.csv", index=False)
    answers.assign(LatitudeDegrees=37.9, LongitudeDegrees=-86.5).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def test_the_column_completing_a_repeated_id_is_a_key_not_a_target(tmp_path: Path) -> None:
    uw = load_competition(str(uw_madison(tmp_path / "uw")), tmp_path / "cache").metric
    assert (uw.id_column, uw.key_columns, uw.target_columns) == ("id", ("class",), ("predicted",))
    phone = load_competition(str(smartphone_rows(tmp_path / "sd")), tmp_path / "cache").metric
    assert (phone.key_columns, phone.target_columns) == (
        ("UnixTimeMillis",),
        ("LatitudeDegrees", "LongitudeDegrees"),
    )


def test_submissions_are_checked_row_by_row_on_the_joined_key(tmp_path: Path) -> None:
    competition = load_competition(str(uw_madison(tmp_path / "uw")), tmp_path / "cache")
    sample, spec = competition.sample_submission, competition.metric
    assert check_submission(sample, sample, spec.id_column, spec) is None  # was: "duplicate id(s) in 'id'"
    frame = pd.read_csv(sample, dtype=str, keep_default_na=False)
    twice = frame.assign(**{"class": frame["class"].iloc[0]})  # every row of a slice names the same organ
    twice.to_csv(tmp_path / "twice.csv", index=False)
    assert "duplicate id(s) in 'id and class'" in check_submission(tmp_path / "twice.csv", sample, "id", spec)
    frame.drop(columns=["class"]).to_csv(tmp_path / "no_class.csv", index=False)
    assert "class" in check_submission(tmp_path / "no_class.csv", sample, "id", spec)


def test_keyed_rows_are_graded_whatever_their_order(tmp_path: Path) -> None:
    competition = load_competition(str(smartphone_rows(tmp_path / "sd")), tmp_path / "cache")
    answers = pd.read_csv(competition.answers, dtype=str)
    answers.iloc[::-1].to_csv(tmp_path / "perfect.csv", index=False)
    assert score_submission(competition, tmp_path / "perfect.csv") == 0.0
    shifted = answers.assign(LatitudeDegrees=(answers["LatitudeDegrees"].astype(float) + 1e-4).astype(str))
    shifted.to_csv(tmp_path / "shifted.csv", index=False)
    assert (
        10 < score_submission(competition, tmp_path / "shifted.csv") < 12
    )  # 1e-4 degrees of latitude: 11.1 m
    report = grade_submission(competition, competition.sample_submission)
    assert report.valid and report.score > 100_000  # Tennessee for California


def test_the_harness_says_why_it_does_not_split_keyed_rows_without_a_labelled_table(tmp_path: Path) -> None:
    """smartphone-decimeter's rows have no train.csv (its labels are a ground_truth.csv per phone)."""
    competition = load_competition(str(smartphone_rows(tmp_path / "phones")), tmp_path / "cache")
    with pytest.raises(
        NoHoldout, match=r"keys each row by tripId and UnixTimeMillis together \(tripId repeats\)"
    ):
        build_holdout(competition, tmp_path / "h", fraction=0.2)


def test_uw_madisons_rows_are_graded_by_dice_and_3d_hausdorff(tmp_path: Path) -> None:
    """The answers carry each row's image size; the sample's mask "1 1 5 2" scores low, the answers 1."""
    root = uw_madison(tmp_path / "uw")
    competition = load_competition(str(root), tmp_path / "cache", metric="dice_hausdorff")
    assert competition.metric.key_columns == ("class",)
    answers = pd.read_csv(competition.answers, dtype=str, keep_default_na=False)
    answers[["id", "class", "predicted"]].sample(frac=1, random_state=0).to_csv(
        tmp_path / "perfect.csv", index=False
    )
    assert score_submission(competition, tmp_path / "perfect.csv") == 1.0
    report = grade_submission(competition, competition.sample_submission)
    assert report.valid and report.score < 0.5
