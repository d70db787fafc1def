"""A sample submission that copies test columns beside its target (issue 29: detecting-insults-in-social-
commentary's `sample_submission_null.csv` is `Insult,Date,Comment`, test.csv `Date,Comment`, and its grader keys
rows by `Comment`): the id is the column that names each test row once, the copied columns are neither the id
nor targets, and a submission that carries them is valid and graded on the target alone."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from swarm.competitions import load_competition_dir
from swarm.competitions.grading import grade_submission
from swarm.competitions.submission_check import check_submission
from tests.layouts.tables.text_miniatures import insults


def test_the_id_names_each_row_once_and_copied_columns_are_not_targets(tmp_path: Path) -> None:
    competition = load_competition_dir(insults(tmp_path / "insults"))
    spec = competition.metric
    assert spec.id_column == "Comment" and spec.target_columns == ("Insult",)
    assert spec.passthrough_columns == ("Date",)

    public = competition.public_dir
    truth = pd.read_csv(competition.private_dir / "test.csv", dtype=str, keep_default_na=False)
    submission = truth[["Insult", "Date", "Comment"]]  # the sample's shape, Date copied
    path = tmp_path / "submission.csv"
    submission.to_csv(path, index=False)
    assert check_submission(path, public / "sample_submission_null.csv", spec.id_column, spec) is None
    report = grade_submission(competition, path)
    assert report.valid and report.score == 1.0, report
    submission.assign(Insult=1 - submission["Insult"].astype(int)).to_csv(path, index=False)
    assert grade_submission(competition, path).score == 0.0


def test_a_blend_keeps_the_copied_columns(tmp_path: Path) -> None:
    from swarm.evaluation.ensemble import blend_frames

    spec = load_competition_dir(insults(tmp_path / "insults")).metric
    a = pd.DataFrame({"Insult": ["0.2", "0.8"], "Date": ["d1", ""], "Comment": ["x", "y"]})
    b = pd.DataFrame({"Insult": ["0.4", "0.6"], "Date": ["d1", ""], "Comment": ["x", "y"]})
    mixed = blend_frames(spec, {"a": a, "b": b}, {"a": 0.5, "b": 0.5})
    assert list(mixed.columns) == ["Insult", "Date", "Comment"]
    assert mixed["Date"].tolist() == ["d1", ""] and [round(float(v), 6) for v in mixed["Insult"]] == [
        0.3,
        0.7,
    ]


def test_a_target_that_test_csv_also_has_stays_a_target(tmp_path: Path) -> None:
    """osic-pulmonary-fibrosis: test.csv holds each patient's first FVC, the sample predicts FVC per
    Patient_Week (an id test.csv lacks): FVC is a target, not a copied column."""
    root = tmp_path / "osic"
    public = root / "prepared" / "public"
    public.mkdir(parents=True)
    pd.DataFrame({"Patient": ["p1", "p2"], "Weeks": [0, 3], "FVC": [2000, 2500]}).to_csv(public / "test.csv")
    sample = pd.DataFrame({"Patient_Week": ["p1_1", "p2_1"], "FVC": [2000, 2000], "Confidence": [100, 100]})
    sample.to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"Patient": ["p9"] * 3, "Weeks": [0, 1, 2], "FVC": [1, 2, 3]}).to_csv(public / "train.csv")
    (public / "description.md").write_text("# OSIC\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "mae"}}))
    spec = load_competition_dir(root).metric
    assert spec.target_columns == ("FVC", "Confidence") and spec.passthrough_columns == ()


def test_a_test_column_with_other_values_is_not_copied(tmp_path: Path) -> None:
    """The same column in the sample and test.csv, keyed by the id, but with the sample's own filler values:
    a target (what the submission predicts), not a copy."""
    root = insults(tmp_path / "insults")
    public = root / "prepared" / "public"
    sample = pd.read_csv(public / "sample_submission_null.csv", dtype=str, keep_default_na=False)
    sample.assign(Date="0").to_csv(public / "sample_submission_null.csv", index=False)
    spec = load_competition_dir(root).metric
    assert spec.target_columns == ("Insult", "Date") and spec.passthrough_columns == ()


def test_the_harness_splits_it_and_copies_the_held_out_rows_dates(tmp_path: Path) -> None:
    from swarm.evaluation.harness import Harness
    from swarm.layouts.holdout import build_holdout

    root = insults(tmp_path / "insults")
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=0)
    train = pd.read_csv(root / "prepared/public/train.csv", dtype=str, keep_default_na=False)
    labels = pd.read_csv(holdout.labels_path, dtype=str, keep_default_na=False)
    assert list(labels.columns) == ["Comment", "Insult"] and len(labels) == 10
    assert set(labels["Comment"]) <= set(train["Comment"])  # comments never collide with test's: kept
    view = holdout.public_dir
    sample = pd.read_csv(view / "sample_submission_null.csv", dtype=str, keep_default_na=False)
    date_of = dict(zip(train["Comment"], train["Date"], strict=True))
    held = sample[sample["Comment"].isin(set(labels["Comment"]))]
    assert held["Date"].tolist() == [date_of[c] for c in held["Comment"]]
    test = pd.read_csv(view / "test.csv", dtype=str, keep_default_na=False)
    assert (
        list(test.columns) == ["Date", "Comment"] and test["Comment"].tolist() == sample["Comment"].tolist()
    )

    truth = dict(zip(labels["Comment"], labels["Insult"], strict=True))
    path = tmp_path / "submission.csv"
    sample.assign(Insult=[truth.get(c, "0") for c in sample["Comment"]]).to_csv(path, index=False)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    assert harness.evaluate(path, tmp_path / "test_rows.csv").score == 1.0
