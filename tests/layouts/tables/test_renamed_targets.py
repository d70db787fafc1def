"""A submission column that names the target otherwise than the labelled table (issue 29, points 2 and 3): chaii's
sample asks for `PredictionString`, which is train.csv's `answer_text` (test.csv lacks it and `answer_start`);
hubmap's asks for `predicted`, train.csv's `encoding` (no test table: the inputs are images). The harness takes
the one train column known only for labelled rows and of the metric's kind for the target, says so in the
split's description, and scores the held-out rows against it; where no single column fits it refuses in one
sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.tables.text_miniatures import question_answering


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def dirs(root: Path) -> tuple[Path, Path]:
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    return public, private


def metric(root: Path, name: str) -> None:
    (root / "competition.json").write_text(json.dumps({"metric": {"name": name}}))


def test_the_renamed_answer_column_is_the_target_and_stays_private(tmp_path: Path) -> None:
    root = question_answering(tmp_path / "qa")
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=2)

    assert holdout.table == "train.csv (answer_text as PredictionString)"
    assert "train.csv (answer_text as PredictionString)" in holdout.describe()
    view, held = holdout.public_dir, set(holdout.ids)
    train = read(root / "prepared/public/train.csv").set_index("id")
    labels = read(holdout.labels_path)
    assert list(labels.columns) == ["id", "PredictionString"] and len(labels) == 10
    assert (
        dict(zip(labels["id"], labels["PredictionString"], strict=True))
        == {i: train.loc[own, "answer_text"] for i, own in holdout.own_ids("held").items()}
        and set(holdout.own_ids("held")) == held
    )
    # The held-out rows join test.csv with its columns only: their answers are nowhere in the view.
    test = read(view / "test.csv")
    assert list(test.columns) == ["id", "context", "question", "language"]
    assert held <= set(test["id"]) and not held & set(read(view / "train.csv")["id"])

    harness = Harness(holdout, competition.metric, competition.sample_submission)
    sample = read(view / "sample_submission.csv")
    truth = dict(zip(labels["id"], labels["PredictionString"], strict=True))
    submitted = tmp_path / "submission.csv"
    sample.assign(PredictionString=sample["id"].map(truth).fillna("x")).to_csv(submitted, index=False)
    assert harness.evaluate(submitted, tmp_path / "rows.csv").score == 1.0
    sample.assign(PredictionString="nothing matches").to_csv(submitted, index=False)
    assert harness.evaluate(submitted, tmp_path / "rows.csv").score == 0.0


def test_a_mask_column_renamed_with_images_and_no_test_table(tmp_path: Path) -> None:
    """hubmap's layout: train.csv `id,encoding`, images `train/<id>.tiff`, `test/<id>.tiff`, sample `predicted`."""
    root = tmp_path / "masks"
    public, _ = dirs(root)
    for folder in ("train", "test"):
        (public / folder).mkdir()
    train_ids, test_ids = [f"k{i:02d}" for i in range(20)], [f"t{i:02d}" for i in range(4)]
    for folder, ids in (("train", train_ids), ("test", test_ids)):
        for name in ids:
            (public / folder / f"{name}.tiff").write_bytes(f"{folder}/{name}".encode())
    encodings = [f"{1 + i} {2 + i % 3}" for i in range(20)]
    pd.DataFrame({"id": train_ids, "encoding": encodings}).to_csv(public / "train.csv", index=False)
    pd.DataFrame({"id": test_ids, "predicted": ""}).to_csv(public / "sample_submission.csv", index=False)
    (public / "description.md").write_text("# Kidney\n\nMean Dice of run-length encoded masks.\n")
    metric(root, "rle_dice")

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)
    assert holdout.table == "train.csv (encoding as predicted)"
    labels = read(holdout.labels_path)
    truth = dict(zip(train_ids, encodings, strict=True))
    assert len(labels) == 5
    own = holdout.own_ids("held")
    assert dict(zip(labels["id"], labels["predicted"], strict=True)) == {
        i: truth[own[i]] for i in holdout.ids
    }
    # Each held-out image sits among the test images under its id; none is left under train/.
    names = {p.stem for p in (holdout.public_dir / "test").iterdir()}
    assert set(holdout.ids) <= names and len(names) == 4 + 5
    assert len(list((holdout.public_dir / "train").iterdir())) == 15


def tabular(root: Path, extra: dict[str, list[float]]) -> Path:
    """A numeric target the sample calls `prediction`, with train-only numeric columns `extra`."""
    public, _ = dirs(root)
    n = 30
    train = pd.DataFrame({"id": range(n), "text": [f"t{i}" for i in range(n)], **extra})
    train.to_csv(public / "train.csv", index=False)
    pd.DataFrame({"id": range(100, 106), "text": "t"}).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": range(100, 106), "prediction": 0.5}).to_csv(
        public / "sample_submission.csv", index=False
    )
    (public / "description.md").write_text("# Toxicity\n\nScored by RMSE.\n")
    metric(root, "rmse")
    return root


def test_of_several_label_only_columns_the_one_named_target(tmp_path: Path) -> None:
    values = [i / 30 for i in range(30)]
    root = tabular(tmp_path / "j", {"target": values, "insult": values[::-1], "obscene": values})
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2, seed=1)
    assert holdout.table == "train.csv (target as prediction)"
    labels = read(holdout.labels_path)
    train = read(root / "prepared/public/train.csv").set_index("id")
    assert [train.loc[i, "target"] for i in labels["id"]] == list(labels["prediction"])


@pytest.mark.parametrize(
    "extra",
    [
        {"insult": [0.1] * 15 + [0.9] * 15, "obscene": [0.2] * 30},  # two numbers, neither named as labels
        {},  # no column known only for labelled rows
    ],
)
def test_no_single_column_for_the_renamed_target_is_refused_in_one_sentence(tmp_path: Path, extra) -> None:
    root = tabular(tmp_path / "j", extra)
    with pytest.raises(NoHoldout) as refused:
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    message = str(refused.value)
    assert "\n" not in message and "'prediction'" not in message
    assert "target column(s) prediction are not in train.csv" in message
    assert "stands for them under another name" in message


def test_a_text_column_of_numbers_is_not_taken_for_a_numeric_metric(tmp_path: Path) -> None:
    """The metric's kind narrows the choice: RMSE wants numbers, so the words column is not the target."""
    root = tabular(tmp_path / "j", {"score": [float(i) for i in range(30)]})
    train = read(root / "prepared/public/train.csv").assign(comment=[f"w{i}" for i in range(30)])
    train.to_csv(root / "prepared/public/train.csv", index=False)
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2, seed=1)
    assert holdout.table == "train.csv (score as prediction)"
