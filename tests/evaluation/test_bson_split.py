"""BSON documents a product (cdiscount-image-classification-challenge): the harness streams train.bson, moving
drawn documents into test.bson without their category, byte for byte otherwise, and out of train_example.bson;
where the disk has no room for the view's copies it refuses in one sentence."""

from __future__ import annotations

import shutil
from collections import namedtuple
from pathlib import Path

import pandas as pd
import pytest

from swarm.bson_records import documents, scalars, without_fields
from swarm.competitions import load_competition
from swarm.evaluation.holdout import NoHoldout, build_holdout
from tests.evaluation.census_builders import cdiscount


def _by_id(path: Path) -> dict[str, bytes]:
    return {str(scalars(d)["_id"]): d for d in documents(path)}


def test_held_out_documents_join_the_test_file_without_their_category(tmp_path: Path) -> None:
    root = cdiscount(tmp_path / "c", n_train=60, n_test=10)
    public = root / "prepared" / "public"
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, seed=4
    )
    view = holdout.public_dir
    labels = pd.read_csv(holdout.root / "labels.csv", dtype=str).set_index("_id")
    originals, kept, tests = (
        _by_id(public / "train.bson"),
        _by_id(view / "train.bson"),
        _by_id(view / "test.bson"),
    )
    held = set(labels.index)
    assert held and len(held) + len(kept) == 60 and not held & set(kept)
    assert set(tests) == held | set(_by_id(public / "test.bson"))
    for example in held:
        assert tests[example] == without_fields(
            originals[example], {"category_id"}
        )  # its pictures as they were
        assert labels.loc[example, "category_id"] == str(scalars(originals[example])["category_id"])
    assert all(kept[k] == originals[k] for k in kept)
    assert not held & set(_by_id(view / "train_example.bson"))
    assert holdout.hidden_side_files == ["train_example.bson"]
    sample = pd.read_csv(view / "sample_submission.csv", dtype=str)
    assert held < set(sample["_id"]) and len(sample) == 10 + len(held)
    assert not (holdout.root / "held.bson").exists()


def test_no_room_for_the_copies_is_refused_in_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = cdiscount(tmp_path / "c")
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9, 100))
    with pytest.raises(NoHoldout, match=r"needs copies of train.bson and test.bson .* has 0.0 GB free"):
        build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)


def test_bson_documents_without_a_test_file_of_documents_are_named_in_the_refusal(tmp_path: Path) -> None:
    root = cdiscount(tmp_path / "c")
    (root / "prepared" / "public" / "test.bson").unlink()
    with pytest.raises(NoHoldout, match="the labelled examples seem to be the BSON documents of train.bson"):
        build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)
