"""Masks as `.npy` files in a folder per example, run-length encoded in the sample
(google-research-identify-contrails-reduce-global-warming): the layout is recognised, the harness holds out whole
example folders without their masks and scores them as prepare.py writes the answers, and the offline coder's
pixel model finds the masks."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.competitions.grading import score_submission
from swarm.layouts.holdout import build_holdout
from swarm.layouts.masks.reader import mask_fields, mask_predictions, read_mask, rle_string
from tests.layouts.masks.miniatures import contrails


def test_masks_are_encoded_down_each_column_from_pixel_one() -> None:
    mask = np.array([[0, 1, 1], [0, 1, 0], [1, 0, 0]], dtype=bool)
    # column-major pixel numbers: column 0 holds 1..3, column 1 holds 4..6, column 2 holds 7..9; a run goes on
    # from the foot of a column to the head of the next (pixels 3, 4, 5), as MLE-bench's rle_encode runs
    assert rle_string(mask) == "3 3 7 1"
    assert rle_string(np.ones((2, 2), dtype=bool)) == "1 4"
    assert rle_string(np.zeros((4, 4), dtype=bool)) == "-"


def test_a_mask_file_is_read_without_its_axes_of_length_one(tmp_path: Path) -> None:
    np.save(tmp_path / "m.npy", np.array([[[1], [0]], [[0], [3]]], dtype=np.int32))
    assert read_mask(str(tmp_path / "m.npy")).tolist() == [[True, False], [False, True]]
    np.save(tmp_path / "cube.npy", np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="2-D"):
        read_mask(str(tmp_path / "cube.npy"))


def test_the_layout_names_the_pixel_masks_the_bands_and_the_encoded_column(tmp_path: Path) -> None:
    public = contrails(tmp_path / "c") / "prepared" / "public"
    sample = pd.read_csv(public / "sample_submission.csv", dtype=str, keep_default_na=False)
    fields = mask_fields(str(public), sample)
    assert fields == {
        "test_dir": "test",
        "train_dir": "train",
        "mask": "human_pixel_masks.npy",  # not the annotators' masks, which have one axis more
        "inputs": [f"band_{b:02d}.npy" for b in range(8, 17)],
        "target": "encoded_pixels",
        "order": "columns",  # no encoding file in the folders: MLE-bench's rle_encode, down each column
    }
    assert mask_fields(str(public), sample.assign(encoded_pixels="cloud")) is None  # not run-length encoded


def test_held_out_folders_reach_the_test_side_without_their_masks(tmp_path: Path) -> None:
    root = contrails(tmp_path / "c", n_train=20, n_test=4)
    competition = load_competition(str(root), tmp_path / "cache")
    assert competition.metric.target_columns == ("encoded_pixels",)
    assert competition.metric.passthrough_columns == ("height", "width")  # the size, given, not predicted
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=3)
    public, view = competition.public_dir, holdout.public_dir
    labels = pd.read_csv(holdout.root / "labels.csv", dtype=str, keep_default_na=False)
    assert len(labels) == 5 and holdout.n_train == 15
    own = holdout.own_ids(
        "held"
    )  # every example folder has a fresh id in the view; the harness keeps its own
    assert holdout.fresh_ids and set(own) == set(labels["record_id"])
    for record, encoded in zip(labels["record_id"], labels["encoded_pixels"], strict=True):
        assert not (view / "train" / own[record]).exists()
        assert sorted(p.name for p in (view / "test" / record).iterdir()) == [
            f"band_{b:02d}.npy" for b in range(8, 17)
        ]
        assert (view / "test" / record / "band_08.npy").read_bytes() == (
            public / "train" / own[record] / "band_08.npy"
        ).read_bytes()
        assert encoded == rle_string(
            np.load(public / "train" / own[record] / "human_pixel_masks.npy")[..., 0] > 0
        )
    assert not list((view / "test").rglob("human_*")), "a held-out mask reached the test side"
    metadata = {r["record_id"] for r in json.loads((view / "train_metadata.json").read_text())}
    assert metadata.isdisjoint(own.values()) and len(metadata) == 15
    sample = pd.read_csv(view / "sample_submission.csv", dtype=str)
    held = sample[sample["record_id"].isin(labels["record_id"])]
    assert len(held) == 5 and set(held["height"]) == set(held["width"]) == {"16"}


def test_the_competitions_own_answers_score_as_prepare_py_wrote_them(tmp_path: Path) -> None:
    """A perfect submission (the answers) scores 1; the sample's placeholders score near 0."""
    root = contrails(tmp_path / "c", n_train=8, n_test=8)
    competition = load_competition(str(root), tmp_path / "cache")
    answers = pd.read_csv(root / "prepared" / "private" / "answers.csv", dtype=str)
    answers.to_csv(tmp_path / "perfect.csv", index=False)
    assert score_submission(competition, tmp_path / "perfect.csv") == 1.0
    assert score_submission(competition, competition.sample_submission) < 0.2


def test_the_pixel_model_finds_the_masks_of_unseen_examples(tmp_path: Path) -> None:
    from sklearn.linear_model import LogisticRegression

    public = contrails(tmp_path / "c", n_train=30, n_test=6) / "prepared" / "public"
    sample = pd.read_csv(public / "sample_submission.csv", dtype=str, keep_default_na=False)
    fields = mask_fields(str(public), sample)
    train_ids = sorted(p.name for p in (public / "train").iterdir())
    strings, dice = mask_predictions(
        str(public),
        fields,
        train_ids,
        sample["record_id"].tolist(),
        lambda: LogisticRegression(max_iter=500),
        0,
    )
    answers = pd.read_csv(public.parent / "private" / "answers.csv", dtype=str)
    with_contrail = answers.loc[answers["encoded_pixels"] != "-", "record_id"]
    found = dict(zip(sample["record_id"], strings, strict=True))
    assert dice > 0.5
    assert all(found[record] != "-" for record in with_contrail), found  # every contrail is seen
