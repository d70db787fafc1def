"""Masks of images keyed by the id and a class (uw-madison-gi-tract-image-segmentation's row per slice and organ),
as the offline coder reads them (swarm/layouts/keyed/reader.py): the layout is found by the detector the harness
splits it by, the class is copied from the test rows rather than predicted, and the pixel model finds each organ's
mask on unseen slices."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from swarm.competitions import load_competition
from swarm.competitions.grading import score_frame
from swarm.formats.probe import probe_dir
from swarm.layouts.keyed.reader import find_keyed, rle_mask, slice_mask_predictions
from swarm.layouts.masks.reader import rle_string
from swarm.offline_coder.task import infer_task_from_dir
from tests.layouts.keyed.miniatures import uw_madison_images


def test_an_encoding_decodes_down_each_column_back_to_its_mask() -> None:
    mask = np.array([[0, 1, 1, 0], [0, 1, 0, 0], [1, 0, 0, 1]], dtype=bool)  # 3 high, 4 wide
    assert rle_mask(rle_string(mask), 3, 4).tolist() == mask.tolist()
    assert not rle_mask("", 3, 4).any() and not rle_mask(float("nan"), 3, 4).any()


def test_the_layout_and_the_task_name_the_class_a_key_and_the_mask_the_target(tmp_path: Path) -> None:
    public = uw_madison_images(tmp_path / "uw") / "prepared" / "public"
    sample = pd.read_csv(public / "sample_submission.csv", dtype=str, keep_default_na=False)
    fields = find_keyed(probe_dir(str(public), sample))
    assert fields == {
        "train": "train.csv",
        "id": "id",
        "keys": ["class"],
        "target": "predicted",
        "source": "segmentation",
        "test_dir": "test",
        "train_dir": "train",
    }
    task = infer_task_from_dir(str(public))
    assert [(t["name"], t["task"], t.get("column")) for t in task["targets"]] == [
        ("segmentation", "mask", "predicted")
    ]  # `class` is copied from the test rows, not predicted
    assert task["files"]["keyed"] == fields
    assert find_keyed(probe_dir(str(public), sample.drop(columns=["class"]))) is None  # ids repeat: no key


def test_the_pixel_model_finds_each_organ_on_unseen_slices(tmp_path: Path) -> None:
    root = uw_madison_images(tmp_path / "uw")
    public = root / "prepared" / "public"
    sample = pd.read_csv(public / "sample_submission.csv", dtype=str, keep_default_na=False)
    train = pd.read_csv(public / "train.csv", dtype=str, keep_default_na=False)
    fields = find_keyed(probe_dir(str(public), sample))
    strings, dice = slice_mask_predictions(
        str(public), fields, train, sample, lambda: DecisionTreeClassifier(max_depth=6, random_state=0), 0
    )
    assert dice > 0.8
    competition = load_competition(str(root), tmp_path / "cache")
    answers = pd.read_csv(competition.answers, dtype=str, keep_default_na=False)
    assert score_frame(sample.assign(predicted=strings), answers, competition.metric) > 0.8
    assert score_frame(sample, answers, competition.metric) < 0.4  # the sample's "1 1 5 2" everywhere


def test_a_large_slice_is_predicted_on_a_grid_each_prediction_standing_for_its_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from swarm.layouts.keyed import reader as keyed_rows

    class Counting:
        rows = 0

        def predict_proba(self, features: np.ndarray) -> np.ndarray:
            Counting.rows += len(features)
            right = features[:, 3] >= 0.5  # the pixel's column as a share of the width
            return np.column_stack([1.0 - right, right.astype(float)])

        classes_ = np.array([0, 1])

    monkeypatch.setattr(keyed_rows, "SLICE_PREDICTED_PIXELS", 100)
    image = np.zeros((31, 40), dtype=np.float32)
    proba = keyed_rows._slice_probabilities(Counting(), image).reshape(31, 40)
    assert Counting.rows == 8 * 10  # every 4th pixel (ceil(sqrt(31 x 40 / 100))) of 31 rows and 40 columns
    assert (proba[:, :20] == 0).all() and (proba[:, 20:] == 1).all()  # each prediction fills its 4 x 4 block
    Counting.rows = 0
    small = keyed_rows._slice_probabilities(Counting(), np.zeros((9, 10), dtype=np.float32))
    assert Counting.rows == 90 and small.shape == (90,)  # under the limit: every pixel
