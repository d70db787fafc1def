"""Masks as images in a folder per example, encoded along each row (vesuvius-challenge-ink-detection): the layout
is recognised with the encoding its own files use, the harness holds out one of the two fragments without its
labels or the photo they were drawn on and scores it against the fragment's own encoding, and the offline coder's
pixel model, validated on a band of rows where there are too few examples to hold whole ones out, predicts a large
fragment on a grid."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.competitions.grading import score_submission
from swarm.layouts.holdout import NoHoldout, build_holdout
from swarm.layouts.masks import reader as mask_folders
from swarm.layouts.masks.reader import mask_fields, mask_predictions, read_mask, rle_string
from tests.layouts.masks.miniatures import vesuvius_fragments

LABEL_FILES = {"inklabels.png", "inklabels_rle.csv", "ir.png"}


def public_and_sample(tmp_path: Path, layers: int = 20) -> tuple[Path, pd.DataFrame]:
    public = vesuvius_fragments(tmp_path / "v", layers=layers) / "prepared" / "public"
    return public, pd.read_csv(public / "sample_submission.csv", dtype=str, keep_default_na=False)


def test_masks_can_be_encoded_along_each_row() -> None:
    mask = np.array([[0, 1, 1], [0, 1, 0], [1, 0, 0]], dtype=bool)
    # row-major pixel numbers: row 0 holds 1..3, row 1 holds 4..6, row 2 holds 7..9
    assert rle_string(mask, "rows") == "2 2 5 1 7 1"
    assert rle_string(mask) == "3 3 7 1"  # down each column, as before


def test_the_layout_finds_the_ink_labels_the_slices_and_the_order_of_the_own_encoding(tmp_path: Path) -> None:
    public, sample = public_and_sample(tmp_path)
    fields = mask_fields(str(public), sample)
    assert fields is not None
    assert (fields["test_dir"], fields["train_dir"], fields["mask"], fields["target"]) == (
        "test",
        "train",
        "inklabels.png",
        "Predicted",
    )
    assert fields["order"] == "rows"  # inklabels_rle.csv numbers the pixels along each row
    # 21 inputs (mask.png and 20 slices): 16 of them read, evenly spaced, the first and the last among them
    assert len(fields["inputs"]) == mask_folders.MASK_INPUT_FILES
    assert fields["inputs"][0] == "mask.png" and fields["inputs"][-1] == "surface_volume/19.tif"
    assert not LABEL_FILES & set(fields["inputs"])
    assert read_mask(str(public / "train" / "1" / "inklabels.png")).dtype == bool


def test_encodings_down_each_column_are_recognised_as_such(tmp_path: Path) -> None:
    public, sample = public_and_sample(tmp_path, layers=4)
    for fragment in ("1", "2"):
        folder = public / "train" / fragment
        mask = read_mask(str(folder / "inklabels.png"))
        pd.DataFrame({"Id": [fragment], "Predicted": [rle_string(mask)]}).to_csv(
            folder / "inklabels_rle.csv", index=False
        )
    assert mask_fields(str(public), sample)["order"] == "columns"


def test_one_fragment_is_held_out_without_its_labels_and_scored_by_its_own_encoding(tmp_path: Path) -> None:
    root = vesuvius_fragments(tmp_path / "v", layers=6)
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
    public, view = competition.public_dir, holdout.public_dir
    assert len(holdout.ids) == 1 and holdout.n_train == 1
    shown = holdout.ids[0]  # the held-out fragment's name in the view
    held = holdout.own_ids("held")[shown]
    kept = ({"1", "2"} - {held}).pop()
    labels = pd.read_csv(holdout.labels_path, dtype=str)
    own = pd.read_csv(public / "train" / held / "inklabels_rle.csv", dtype=str)
    assert labels["Predicted"].tolist() == own["Predicted"].tolist()  # what grade.py's answers hold
    assert not (view / "train" / held).exists() and (view / "train" / kept / "inklabels.png").is_file()
    seen = {
        p.relative_to(view / "test" / shown).as_posix()
        for p in (view / "test" / shown).rglob("*")
        if p.is_file()
    }
    assert seen == {"mask.png", *(f"surface_volume/{k:02d}.tif" for k in range(6))}
    assert not [p for p in (view / "test").rglob("*") if p.name in LABEL_FILES], (
        "a label file reached the test side"
    )
    # Both test fragments are named as the test's own (`a`): a letter, neither a training fragment's number.
    names = pd.read_csv(view / "sample_submission.csv", dtype=str)["Id"].tolist()
    assert holdout.fresh_ids and shown in names and len(set(names)) == 2
    assert all(len(n) == 1 and n.islower() for n in names), names
    assert sorted(p.name for p in (view / "test").iterdir()) == sorted(names)


def test_the_answers_score_one_and_the_sample_zero(tmp_path: Path) -> None:
    root = vesuvius_fragments(tmp_path / "v", layers=4)
    competition = load_competition(str(root), tmp_path / "cache")
    assert score_submission(competition, root / "prepared" / "private" / "answers.csv") == 1.0
    assert score_submission(competition, competition.sample_submission) == 0.0


def test_the_pixel_model_is_validated_on_a_band_of_rows_and_predicts_a_large_fragment_on_a_grid(
    tmp_path: Path, monkeypatch
) -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    public, sample = public_and_sample(tmp_path)
    fields = mask_fields(str(public), sample)
    monkeypatch.setattr(
        mask_folders, "MASK_PREDICTED_PIXELS", 600
    )  # the 40 x 56 test fragment: every 2nd pixel
    strings, dice = mask_predictions(
        str(public),
        fields,
        ["1", "2"],
        ["a"],
        lambda: make_pipeline(StandardScaler(), LogisticRegression()),
        0,
    )
    assert (
        0.5 < dice <= 1.0
    )  # measured on the bottom fifth of both fragments' rows, which it was not fitted on
    answer = pd.read_csv(public.parent / "private" / "answers.csv", dtype=str)["Predicted"][0]
    truth = np.zeros(40 * 56, dtype=bool)
    numbers = [int(n) for n in answer.split()]
    for start, length in zip(numbers[0::2], numbers[1::2], strict=True):
        truth[start - 1 : start - 1 + length] = True
    found = np.zeros(40 * 56, dtype=bool)
    numbers = [int(n) for n in strings[0].split()]
    for start, length in zip(numbers[0::2], numbers[1::2], strict=True):
        found[start - 1 : start - 1 + length] = True
    both = (found & truth).sum()
    assert 2 * both / (found.sum() + truth.sum()) > 0.5  # along each row, as the answers are
    blocks = found.reshape(40, 56)
    assert (blocks[0::2, 0::2] == blocks[1::2, 1::2]).all()  # each grid point stands for its 2 x 2 block


def test_label_files_no_rule_reads_are_named_in_the_refusal(tmp_path: Path) -> None:
    """Each fragment's labels as JSON (no mask array or image): the one sentence names them."""
    root = vesuvius_fragments(tmp_path / "v", layers=2)
    public = root / "prepared" / "public"
    for fragment in ("1", "2"):
        for name in LABEL_FILES:
            (public / "train" / fragment / name).unlink()
        (public / "train" / fragment / "inklabels.json").write_text("[]")
    competition = load_competition(str(root), tmp_path / "cache")
    with pytest.raises(
        NoHoldout,
        match=r"the labels seem to be the inklabels\.json, .* in each of 2 example folders of train/",
    ):
        build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
