"""The harness reads past what MLE-bench's graders read past (extra columns, numeric ids spelled as other
numbers), scoring such a submission as the clean one and saying so, and writes the test rows it delivers in the
sample's form, which every grader reads alike; what the graders refuse it refuses."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.competitions.submission_check import check_submission
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.miniatures import binary_competition, read


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
