"""The harness split of versions of one image in folders (alaska2-image-steganalysis's layout, issue 29): a
held-out image leaves every training folder, and one of its versions joins the test folder under a new id."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.layouts.file_labels.reader import find_file_labels
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.variants.miniatures import ALASKA_ALGORITHMS, alaska2

FOLDERS = ("Cover", *ALASKA_ALGORITHMS)


def test_every_version_of_a_held_out_image_leaves_and_one_joins_the_test(tmp_path: Path) -> None:
    competition = load_competition_dir(alaska2(tmp_path / "c", n_train=40))
    public = competition.public_dir
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=5)
    view = holdout.public_dir
    labels = pd.read_csv(holdout.labels_path, dtype=str)
    assert holdout.split == "group:file name" and len(labels) == 10

    kept = {folder: sorted(p.name for p in (view / folder).iterdir()) for folder in FOLDERS}
    assert all(names == kept["Cover"] for names in kept.values()) and len(kept["Cover"]) == 30
    gone = sorted({p.name for p in (public / "Cover").iterdir()} - set(kept["Cover"]))
    assert len(gone) == 10 and holdout.n_train == 4 * 30
    # each held-out id is one version of a held-out image, its label 1 where that version is altered
    versions = {(public / folder / name).read_bytes(): (folder, name) for folder in FOLDERS for name in gone}
    drawn = []
    for held_id, label in zip(labels["Id"], labels["Label"], strict=True):
        folder, name = versions[(view / "Test" / held_id).read_bytes()]
        assert label == str(int(folder != "Cover"))
        drawn.append(name)
    assert sorted(drawn) == gone
    assert {"0", "1"} <= set(labels["Label"])
    # every test and held-out image has a fresh id like the test's (4 digits, .jpg); the sample lists them all
    test_ids = set(pd.read_csv(public / "sample_submission.csv", dtype=str)["Id"])
    own_test = holdout.own_ids("test")
    assert holdout.fresh_ids and set(own_test.values()) == test_ids
    assert all(len(i) == 8 and i.endswith(".jpg") for i in [*labels["Id"], *own_test])
    sample = pd.read_csv(view / "sample_submission.csv", dtype=str)
    assert sorted(sample["Id"]) == sorted(set(own_test) | set(labels["Id"]))
    assert sorted(p.name for p in (view / "Test").iterdir()) == sorted(sample["Id"])
    assert own_test
    for view_id, own in own_test.items():  # a test image under its fresh id
        assert (view / "Test" / view_id).read_bytes() == (public / "Test" / own).read_bytes()


def test_a_split_that_would_part_an_images_versions_is_refused(tmp_path: Path) -> None:
    competition = load_competition_dir(alaska2(tmp_path / "c"))
    with pytest.raises(NoHoldout, match="would part the versions of one image"):
        build_holdout(competition, tmp_path / "h", fraction=0.25, split="stratified")


def test_versions_need_a_folder_of_originals(tmp_path: Path) -> None:
    public = alaska2(tmp_path / "c") / "prepared" / "public"
    ids = pd.read_csv(public / "sample_submission.csv", dtype=str)["Id"].tolist()
    layout = find_file_labels(str(public), ids, "Label", ["0"] * len(ids))
    assert layout is not None and layout["kind"] == "variants" and layout["negative"] == "Cover"
    assert layout["folders"] == list(FOLDERS)
    shutil.move(public / "Cover", public / "Plain")  # no folder says it holds the originals
    assert find_file_labels(str(public), ids, "Label", ["0"] * len(ids)) is None
