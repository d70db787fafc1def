"""jigsaw-unintended-bias-in-toxicity-classification split by the harness (issue 29): its metric
(`jigsaw_bias_auc`) reads each held-out comment's identity columns beside the target, so labels.csv keeps them
(private, as the target), the sandbox's test.csv does not, and the harness scores a submission as grade.py would
score those rows; the blend's library scores alike."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.competitions.metrics.numeric import JIGSAW_IDENTITIES
from swarm.evaluation.blend import Blender
from swarm.evaluation.ensemble import build_library
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.text_miniatures import jigsaw_bias


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_the_identities_stay_private_and_score_the_held_out_rows(tmp_path: Path) -> None:
    root = jigsaw_bias(tmp_path / "jigsaw")
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=0)
    view = holdout.public_dir
    labels = read(holdout.labels_path)
    assert list(labels.columns) == ["id", "prediction", *JIGSAW_IDENTITIES]
    train = read(competition.public_dir / "train.csv").set_index("id")
    held = train.loc[labels["id"].map(holdout.own_ids("held"))]
    assert labels["prediction"].tolist() == held["target"].tolist()
    assert labels["muslim"].tolist() == held["muslim"].tolist()  # blanks kept blank: no identity rating
    assert list(read(view / "test.csv").columns) == ["id", "comment_text"]
    assert not set(read(view / "train.csv")["id"]) & set(holdout.ids)

    harness = Harness(holdout, competition.metric, competition.sample_submission)
    sample = read(view / "sample_submission.csv")
    truth = dict(zip(labels["id"], labels["prediction"], strict=True))
    path = tmp_path / "submission.csv"
    sample.assign(prediction=[truth.get(i, "0.0") for i in sample["id"]]).to_csv(path, index=False)
    perfect = harness.evaluate(path, tmp_path / "test_rows.csv", tmp_path / "heldout.csv")
    assert perfect.score == 1.0, perfect.problem  # every AUC of the true shares is 1
    sample.assign(prediction="0.3").to_csv(path, index=False)
    assert harness.evaluate(path, tmp_path / "test_rows.csv").score == 0.5  # one value: every AUC 0.5
    library = build_library(harness.spec, harness.labels, {"n1": read(tmp_path / "heldout.csv")}, 4)
    assert library.score(Blender(harness.spec), library.predictions[0]) == pytest.approx(1.0)
