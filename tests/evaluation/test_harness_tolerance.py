"""The harness reads past what MLE-bench's graders read past (extra columns, numeric ids spelled as other
numbers), scoring such a submission as the clean one and saying so, and writes the test rows it delivers in the
sample's form, which every grader reads alike; what the graders refuse it refuses."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.competitions.submission_check import check_submission
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.miniatures import binary_competition, make_competition, read


@pytest.fixture
def built(tmp_path: Path):
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
    return competition, holdout, Harness(holdout, competition.metric, competition.sample_submission)


def predictions(holdout) -> pd.DataFrame:
    """Every row of the view: half the held-out labels right, the rest '1'."""
    ids = read(holdout.public_dir / "sample_submission.csv")["id"]
    labels = read(holdout.labels_path).set_index("id")["y"].to_dict()
    kept = dict(list(labels.items())[: len(labels) // 2])
    return pd.DataFrame({"id": ids, "y": [kept.get(i, "1") for i in ids]})


def evaluate(harness: Harness, frame: pd.DataFrame, tmp_path: Path):
    path = tmp_path / "submission.csv"
    frame.to_csv(path, index=False)
    return harness.evaluate(path, tmp_path / "test_rows.csv")


def test_extra_columns_and_respelled_ids_score_as_the_clean_file(built, tmp_path: Path) -> None:
    competition, holdout, harness = built
    clean = evaluate(harness, predictions(holdout), tmp_path)
    assert clean.problem is None and clean.note is None and 0 < clean.score < 1
    loose = predictions(holdout).assign(proba="0.9", id=lambda f: f["id"] + ".0")[["proba", "y", "id"]]
    result = evaluate(harness, loose, tmp_path)
    assert result.problem is None and result.score == clean.score
    note = str(result.note)
    assert "extra column(s) 'proba' were ignored" in note and "spelled as other numbers" in note, note
    # The test rows delivered: the sample's columns, order and ids, which the check passes.
    sample = read(competition.sample_submission)
    rows = read(result.test_submission)
    assert list(rows.columns) == list(sample.columns) and list(rows["id"]) == list(sample["id"])
    spec = competition.metric
    assert check_submission(result.test_submission, competition.sample_submission, "id", metric=spec) is None


def test_forms_the_graders_refuse_are_still_refused(built, tmp_path: Path) -> None:
    _, holdout, harness = built
    renamed = evaluate(harness, predictions(holdout).rename(columns={"y": "Y"}), tmp_path)
    assert renamed.score is None and "missing column(s) 'y'; unexpected column(s) 'Y'" in str(renamed.problem)
    text_ids = predictions(holdout).assign(id=lambda f: "#" + f["id"])
    assert "have no prediction" in str(evaluate(harness, text_ids, tmp_path).problem)
    blank = predictions(holdout)
    blank.loc[blank["id"].isin(holdout.ids), "y"] = ""
    assert "missing/NaN value(s)" in str(evaluate(harness, blank, tmp_path).problem)


def test_probability_rows_not_summing_to_one_are_delivered_renormalised_as_scored(tmp_path: Path) -> None:
    """A multi-class log loss renormalises each row (Kaggle's rule), so the harness scores rows summing to 1/2 as
    their doubles; some graders (spooky's, dog-breed's) refuse such rows, so the delivered test rows carry the
    renormalised values, and the note says so."""
    rng = np.random.default_rng(1)
    classes = ["EAP", "HPL", "MWS"]
    train = pd.DataFrame({"id": [f"id{i:04d}" for i in range(90)], "x": rng.normal(size=90)})
    train["author"] = [classes[i % 3] for i in range(90)]
    test_ids = [f"id{i:04d}" for i in range(90, 120)]
    test = pd.DataFrame({"id": test_ids, "x": rng.normal(size=30)})
    sample = pd.DataFrame({"id": test_ids, **{c: 1 / 3 for c in classes}})
    competition = load_competition_dir(make_competition(tmp_path / "c", train, test, sample, "multi_logloss"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    ids = read(holdout.public_dir / "sample_submission.csv")["id"]
    weights = rng.uniform(0.1, 1.0, size=(len(ids), 3))
    clean = pd.DataFrame(
        {"id": ids, **{c: weights[:, k] / weights.sum(axis=1) for k, c in enumerate(classes)}}
    )
    halved = clean.assign(**{c: clean[c] * 0.5 for c in classes})  # rows summing to one half
    scored_clean = evaluate(harness, clean, tmp_path)
    scored_halved = evaluate(harness, halved, tmp_path)
    assert scored_clean.note is None and scored_halved.problem is None, scored_halved.problem
    assert scored_halved.score == pytest.approx(scored_clean.score, abs=1e-9)
    assert "renormalised as multiclass_logloss reads them" in str(scored_halved.note), scored_halved.note
    rows = pd.read_csv(scored_halved.test_submission)
    assert len(rows) == 30 and np.allclose(rows[classes].sum(axis=1), 1.0)
