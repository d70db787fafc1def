"""Inputs in JSON tables linked by tokens (3d-object-detection-for-autonomous-vehicles' nuScenes-style
`train_data/*.json`, swarm/layouts/token_tables/split.py, issue 29): whole scenes are held out with their records and
files, the labels stay out, and where no such tables hold the test's inputs the split is refused in one sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.token_tables.miniatures import lyft_3d


def records(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def test_whole_scenes_move_with_their_records_and_files_and_without_their_annotations(tmp_path: Path) -> None:
    root = lyft_3d(tmp_path / "l", n_scenes=6, n_test=1)
    public = root / "prepared" / "public"
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2)
    view, own = holdout.public_dir, holdout.own_ids("held")  # each held-out sample's fresh token -> its own
    shown, held = set(own), set(own.values())
    assert holdout.fresh_ids and shown == set(holdout.ids) and not shown & held
    samples = {r["token"]: r for r in records(public / "train_data" / "sample.json")}
    scenes = {samples[i]["scene_token"] for i in held}
    assert len(scenes) == 1 and held == {t for t, r in samples.items() if r["scene_token"] in scenes}
    moved = {r["token"] for r in records(view / "test_data" / "sample.json")}
    assert shown <= moved and not held & {r["token"] for r in records(view / "train_data" / "sample.json")}
    data = [r for r in records(view / "test_data" / "sample_data.json") if r["sample_token"] in shown]
    assert len(data) == len(held)
    # No table of the view names a sample by the token it had (the test's own samples are renamed too), and the
    # test tables' links hold under the fresh tokens: each sweep names a sample of sample.json, each sample a scene.
    tokens = {*held, *(r["token"] for r in records(public / "test_data" / "sample.json"))}
    text = (
        " ".join(p.read_text() for p in view.rglob("*.json")) + (view / "sample_submission.csv").read_text()
    )
    assert not [t for t in tokens if t in text]
    sample_ids = set(pd.read_csv(view / "sample_submission.csv", dtype=str)["Id"])
    assert (
        {r["sample_token"] for r in records(view / "test_data" / "sample_data.json")} <= moved == sample_ids
    )
    scene_ids = {r["token"] for r in records(view / "test_data" / "scene.json")}
    assert {r["scene_token"] for r in records(view / "test_data" / "sample.json")} <= scene_ids
    for datum in data:  # each held-out sweep's file where the test's are, none left on the training side
        name = Path(datum["filename"]).name
        assert (view / "test_lidar" / name).is_file() and not (view / "train_lidar" / name).exists()
    assert {r["token"] for r in records(view / "test_data" / "scene.json")} >= scenes
    logs = {r["log_token"] for r in records(public / "train_data" / "scene.json") if r["token"] in scenes}
    assert logs <= {
        r["token"] for r in records(view / "test_data" / "log.json")
    }  # what the scene names, copied
    annotations = records(view / "train_data" / "sample_annotation.json")
    assert (
        not {r["sample_token"] for r in annotations} & held
        and not (view / "test_data" / "sample_annotation.json").exists()
    )
    assert holdout.hidden_side_files == ["sample_annotation.json"]
    train = pd.read_csv(view / "train.csv", dtype=str)
    assert not set(train["Id"]) & held
    sample = pd.read_csv(view / "sample_submission.csv", dtype=str, keep_default_na=False)
    assert shown <= set(sample["Id"]) and set(sample["PredictionString"]) == {""}
    # the labels are train.csv's objects, without a confidence, and scored as the answers
    labels = pd.read_csv(holdout.labels_path, dtype=str, keep_default_na=False)
    original = pd.read_csv(public / "train.csv", dtype=str).set_index("Id")
    assert all(
        original.loc[own[i], "PredictionString"] == s
        for i, s in zip(labels["Id"], labels["PredictionString"], strict=True)
    )
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    assert harness.evaluate(view / "sample_submission.csv", tmp_path / "test_part.csv").score == 0.0


def test_without_tables_naming_the_test_ids_a_split_is_refused_in_one_sentence(tmp_path: Path) -> None:
    root = lyft_3d(tmp_path / "l", n_scenes=6, n_test=1)
    (root / "prepared" / "public" / "test_data" / "sample.json").unlink()
    competition = load_competition(str(root), tmp_path / "cache")
    with pytest.raises(NoHoldout) as refused:
        build_holdout(competition, tmp_path / "h", fraction=0.2)
    assert str(refused.value) == (
        "train.csv holds only ids and labels, there is no test table and the ids name no files, so a held-out example "
        "would have no input in the sandbox (the test's inputs seem to be records in test_data/sample_data.json "
        "naming the test ids, which the harness does not move)"
    )
