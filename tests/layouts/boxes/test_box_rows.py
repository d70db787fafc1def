"""Labelled boxes a row (vinbigdata-chest-xray-abnormalities-detection): the layout recognised, each example's
boxes written as MLE-bench's prepare.py writes its answers, and the harness split holding out whole images
(issue 29)."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.competitions.grading import score_frame
from swarm.layouts.boxes.reader import box_groups, box_labels, box_row_fields, box_strings
from swarm.layouts.holdout import build_holdout
from swarm.offline_coder.task import infer_task_from_dir
from tests.layouts.boxes.miniatures import vinbigdata

ROWS = """image_id,class_name,class_id,rad_id,x_min,y_min,x_max,y_max
a,No finding,14,R1,,,,
a,No finding,14,R2,,,,
b,Aortic enlargement,0,R3,691.0,1375.0,1653.0,1831.0
b,Aortic enlargement,0,R4,690.0,1370.0,1650.0,1830.0
b,Cardiomegaly,3,R4,10.0,20.0,30.0,40.0
"""
SAMPLE = pd.Series(["14 1 0 0 1 1", "14 1 0 0 1 1"])


def as_text(rows: str = ROWS) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(rows), dtype=str, keep_default_na=False)


def test_the_layout_is_found_with_the_class_column_the_sample_names_classes_by() -> None:
    fields = box_row_fields(as_text(), "image_id", ["PredictionString"], SAMPLE)
    assert fields == {
        "corners": ["x_min", "y_min", "x_max", "y_max"],
        "class": "class_id",
        "annotator": "rad_id",
    }
    named = box_row_fields(as_text(), "image_id", ["PredictionString"], pd.Series(["Cardiomegaly 1 0 0 1 1"]))
    assert named is not None and named["class"] == "class_name"


@pytest.mark.parametrize(
    ("targets", "sample", "drop"),
    [
        (["PredictionString"], pd.Series(["14 1 0 0 1"]), None),  # five tokens: no box string
        (["PredictionString"], pd.Series(["U+003F 1 1 U+FF2F 2 2"]), None),  # kuzushiji's points
        (["PredictionString"], SAMPLE, "x_max"),  # no corner column
        (["PredictionString", "other"], SAMPLE, None),  # two targets
        (["class_id"], SAMPLE, None),  # the table holds the target
    ],
)
def test_other_tables_are_not_box_rows(targets: list[str], sample: pd.Series, drop: str | None) -> None:
    head = as_text().drop(columns=[drop] if drop else [])
    assert box_row_fields(head, "image_id", targets, sample) is None


def test_each_examples_boxes_are_written_as_prepare_py_writes_the_answers() -> None:
    """The first box of each (image, class) where readers are named; no corners: 0 0 1 1; read as text or with
    pandas' own types alike."""
    fields = box_row_fields(as_text(), "image_id", ["PredictionString"], SAMPLE)
    want = [
        {"image_id": "a", "PredictionString": "14 1.0 0 0 1 1"},
        {"image_id": "b", "PredictionString": "0 1.0 691.0 1375.0 1653.0 1831.0 3 1.0 10.0 20.0 30.0 40.0"},
    ]
    assert box_strings(as_text(), fields, "image_id", "PredictionString").to_dict("records") == want
    typed = pd.read_csv(io.StringIO(ROWS))
    assert box_strings(typed, fields, "image_id", "PredictionString").to_dict("records") == want
    every = box_strings(as_text(), {**fields, "annotator": None}, "image_id", "PredictionString")
    assert every["PredictionString"].str.split().str.len().tolist() == [12, 18]  # no readers: every box kept
    assert box_groups(want[1]["PredictionString"]) == [
        ("0", [691.0, 1375.0, 1653.0, 1831.0]),
        ("3", [10.0, 20.0, 30.0, 40.0]),
    ]
    assert box_labels(pd.Series([want[1]["PredictionString"], ""])) == ["0", "3"]


def test_the_harness_holds_out_whole_images_and_scores_their_boxes(tmp_path: Path) -> None:
    root = vinbigdata(tmp_path / "vin", n_train=40, n_test=10)
    competition = load_competition(str(root), tmp_path / "cache")
    public = competition.public_dir
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.2, seed=3)
    view = holdout.public_dir
    assert holdout.split == "group:image_id" and 5 <= len(holdout.ids) <= 11  # whole images, about a fifth

    train = pd.read_csv(public / "train.csv", dtype=str, keep_default_na=False)
    own = holdout.own_ids("held")  # every image has a fresh id in the view; the harness keeps each one's own
    held = train[train["image_id"].isin(own.values())]
    kept = pd.read_csv(view / "train.csv", dtype=str, keep_default_na=False)
    assert set(held["image_id"]) == set(own.values()) and not set(kept["image_id"]) & set(own.values())
    assert set(own) == set(holdout.ids)
    assert len(kept) + len(held) == len(train)  # every box row of a kept image stays, in its columns
    assert list(kept.columns) == list(train.columns)

    # prepare.py's answers: the first annotation per (image, class), fillna(0), x_max = y_max = 1 for class 14
    typed = pd.read_csv(public / "train.csv")
    answers = (
        typed[typed["image_id"].isin(own.values())].groupby(["image_id", "class_id"]).first().reset_index()
    )
    answers = answers.fillna(0)
    answers.loc[answers["class_id"] == 14, ["x_max", "y_max"]] = 1.0
    labels = pd.read_csv(holdout.labels_path, dtype=str)
    assert holdout.ids and sorted(labels["image_id"]) == sorted(holdout.ids)
    for image, string in zip(labels["image_id"], labels["PredictionString"], strict=True):
        rows = answers[answers["image_id"] == own[image]]
        want = sorted((str(r.class_id), (r.x_min, r.y_min, r.x_max, r.y_max)) for r in rows.itertuples())
        assert sorted((c, tuple(b)) for c, b in box_groups(string)) == want

    sample = pd.read_csv(view / "sample_submission.csv", dtype=str)
    assert set(holdout.ids) <= set(sample["image_id"]) and len(sample) == 10 + len(holdout.ids)
    for image in holdout.ids:  # the input where the test's are, not on the training side
        assert (view / "test" / f"{image}.dicom").read_bytes() == (
            public / "train" / f"{own[image]}.dicom"
        ).read_bytes()
        assert not (view / "train" / f"{own[image]}.dicom").exists()
    assert "PredictionString" not in kept.columns
    assert score_frame(labels, labels, competition.metric) > 0.5  # the grader's own quirks keep it under 1


def test_the_offline_coder_models_boxes_from_the_view(tmp_path: Path) -> None:
    root = vinbigdata(tmp_path / "vin")
    holdout = build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)
    task = infer_task_from_dir(str(holdout.public_dir))
    assert task["files"]["boxes"]["class"] == "class_id"
    assert [(t["name"], t["task"]) for t in task["targets"]] == [("PredictionString", "boxes")]
