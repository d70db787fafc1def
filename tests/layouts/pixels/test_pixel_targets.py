"""Targets that are images, a submission row per pixel (denoising-dirty-documents; issue 29, point 3): the
harness holds out whole training images, moves each to `test/`, every test and held-out image under a fresh
name, leaves its clean image out of
the view, lists its pixels in the sample as a test image's, and scores them against the clean image."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.pixels.miniatures import denoising


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_whole_images_are_held_out_and_scored_by_their_clean_pixels(tmp_path: Path) -> None:
    root = denoising(tmp_path / "d")
    public = root / "prepared" / "public"
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=3)
    view = holdout.public_dir

    images = {p.stem for p in (public / "train").iterdir()}
    held_images = sorted({i.rsplit("_", 2)[0] for i in holdout.ids})
    own_rows = {**holdout.own_ids("test"), **holdout.own_ids("held")}
    own = {view_id.rsplit("_", 2)[0]: mine.rsplit("_", 2)[0] for view_id, mine in own_rows.items()}
    assert len(held_images) == 3 and {own[n] for n in held_images} <= images
    assert "train_cleaned/ (3 images, a row per pixel <image>_<row>_<col>)" in holdout.describe()
    for name in held_images:
        assert (view / "test" / f"{name}.png").read_bytes() == (
            public / "train" / f"{own[name]}.png"
        ).read_bytes()
        assert not (view / "train" / f"{own[name]}.png").exists()
        assert not (
            view / "train_cleaned" / f"{own[name]}.png"
        ).exists()  # the answers are nowhere in the view
    assert len(list((view / "train_cleaned").iterdir())) == 9
    # Every test and held-out image has a fresh name (none a training or test image's own), copied with a test
    # image's mtime: no gap in train/'s numbers names a held-out image.
    tests = sorted((view / "test").iterdir())
    assert holdout.fresh_ids and {p.stem for p in tests} == set(own) and len(tests) == 6
    assert not {p.stem for p in tests} & images and all(p.stem.isdigit() for p in tests)
    assert all(p.stat().st_nlink == 1 for p in tests)
    assert {p.stat().st_mtime_ns for p in tests} <= {
        p.stat().st_mtime_ns for p in (public / "test").iterdir()
    }

    labels = read(holdout.labels_path)
    assert list(labels.columns) == ["id", "value"] and len(labels) == 3 * 12
    clean = {
        name: np.asarray(Image.open(public / "train_cleaned" / f"{own[name]}.png"), dtype=float) / 255
        for name in held_images
    }
    for pixel, value in zip(labels["id"], labels["value"], strict=True):
        name, row, col = pixel.rsplit("_", 2)
        assert float(value) == pytest.approx(clean[name][int(row) - 1, int(col) - 1])

    sample = read(view / "sampleSubmission.csv")
    assert len(sample) == 6 * 12 and set(labels["id"]) <= set(sample["id"])
    blocks = sample["id"].str.rsplit("_", n=2).str[0]
    assert blocks.tolist() == sorted(blocks, key=str)  # images in the order of their names, as MLE-bench's

    harness = Harness(holdout, competition.metric, competition.sample_submission)
    truth = dict(zip(labels["id"], labels["value"], strict=True))
    submitted = tmp_path / "submission.csv"
    sample.assign(value=sample["id"].map(truth).fillna("1")).to_csv(submitted, index=False)
    assert harness.evaluate(submitted, tmp_path / "rows.csv").score == pytest.approx(0.0)
    sample.to_csv(submitted, index=False)  # every pixel white
    expected = float(np.sqrt(np.mean([(1 - clean[n]) ** 2 for n in held_images])))
    assert harness.evaluate(submitted, tmp_path / "rows.csv").score == pytest.approx(expected)


def test_a_split_by_column_is_refused_in_one_sentence(tmp_path: Path) -> None:
    competition = load_competition_dir(denoising(tmp_path / "d"))
    with pytest.raises(NoHoldout) as refused:
        build_holdout(competition, tmp_path / "h", fraction=0.25, split="stratified")
    assert "\n" not in str(refused.value) and "whole images" in str(refused.value)
