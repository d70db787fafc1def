"""The harness's validation split: which rows it holds out, what the sandbox then sees, and what stays hidden."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation.new_ids import new_ids
from swarm.layouts.holdout import NoHoldout, build_holdout, check_split
from tests.layouts.tables.miniatures import binary_competition, make_competition, read


def test_held_out_rows_leave_train_and_join_test_without_their_labels(tmp_path: Path) -> None:
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=3)

    public = holdout.public_dir
    train, test, sample = (
        read(public / "train.csv"),
        read(public / "test.csv"),
        read(public / "sample_submission.csv"),
    )
    labels = read(holdout.labels_path)
    assert len(holdout.ids) == 40 and len(train) == 160 and holdout.n_train == 160
    assert set(holdout.ids).isdisjoint(train["id"])
    assert "y" not in test.columns
    assert set(holdout.ids) <= set(test["id"]) and len(test) == 90
    assert list(test["id"]) == list(sample["id"])  # the sample lists the test rows in the same order
    assert list(labels.columns) == ["id", "y"] and sorted(labels["id"]) == sorted(holdout.ids)
    original = read(competition.public_dir / "train.csv").set_index("id")
    own = holdout.own_ids("held")  # every row has a fresh id in the view; the harness keeps each row's own
    assert (labels.set_index("id")["y"] == original.loc[labels["id"].map(own), "y"].to_numpy()).all()
    # fresh ids in the test ids' range (1001-1050), as dense: 1001-1090 for the 50 test and 40 held-out rows,
    # ascending down the (shuffled) rows; test_ids.csv maps the test rows' back to their own
    assert holdout.fresh_ids and [int(i) for i in test["id"]] == list(range(1001, 1091))
    assert sorted(holdout.own_ids("test").values(), key=int) == [str(i) for i in range(1001, 1051)]
    assert set(own.values()) <= set(original.index) and set(own) == set(holdout.ids)
    # shuffled in: the held-out rows are not simply appended after the real test rows
    positions = [i for i, v in enumerate(test["id"]) if v in set(holdout.ids)]
    assert positions != list(range(50, 90))
    # stratified: the 3:1 class balance of train holds in the held-out rows
    assert (labels["y"] == "1").sum() == 10
    assert holdout.split == "stratified"


def test_labels_and_split_record_are_private_and_public_files_readable(tmp_path: Path) -> None:
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2)
    for secret in (holdout.labels_path, holdout.root / "holdout.json"):
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert stat.S_IMODE(holdout.root.stat().st_mode) == 0o711
    shown = list(holdout.public_dir.iterdir())
    assert {"train.csv", "test.csv", "sample_submission.csv"} <= {p.name for p in shown}
    for public in shown:
        assert stat.S_IMODE(public.stat().st_mode) & 0o004, public
    assert not any(holdout.public_dir.rglob("labels*"))


def test_same_seed_same_split_other_seed_other_split(tmp_path: Path) -> None:
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    first = build_holdout(competition, tmp_path / "a", fraction=0.2, seed=1)
    again = build_holdout(competition, tmp_path / "b", fraction=0.2, seed=1)
    other = build_holdout(competition, tmp_path / "o", fraction=0.2, seed=2)
    assert first.ids == again.ids
    assert sorted(first.ids) != sorted(other.ids)


def test_colliding_ids_are_rekeyed_in_the_test_ids_format(tmp_path: Path) -> None:
    competition = load_competition_dir(binary_competition(tmp_path / "c", first_test_id=150))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2)
    assert holdout.rekeyed
    assert all(int(i) > 200 for i in holdout.ids)  # past every train (1-200) and test (150-199) id
    test = read(holdout.public_dir / "test.csv")
    assert test["id"].is_unique


def test_new_ids_follow_prefixed_and_hex_formats() -> None:
    rng = np.random.default_rng(0)
    prefixed = new_ids(3, ["img_0007", "img_0012"], {"img_0007", "img_0012", "img_0100"}, rng)
    assert prefixed == ["img_0101", "img_0102", "img_0103"]
    hexed = new_ids(2, ["0a1b2c3d", "ffee0011"], {"0a1b2c3d", "ffee0011"}, rng)
    assert all(len(i) == 8 and int(i, 16) >= 0 for i in hexed) and len(set(hexed)) == 2


def test_new_ids_take_the_shape_of_uuids() -> None:
    """iwildcam-2020's image ids are UUIDs: new ones are UUIDs too, each position drawn from the characters the
    test ids hold there (a dash where they all have one), none of them taken."""
    rng = np.random.default_rng(0)
    uuids = [
        "8b02698a-21bc-11ea-a13a-137349068a90",
        "905b1a20-21bc-11ea-a13a-137349068a90",
        "e9f5c94e-21bc-11ea-a13a-ff0349e7b2c1",
        "1c1e6d04-21bc-11ea-a13a-137349068a90",
    ]
    made = new_ids(50, uuids, set(uuids), rng)
    pattern = r"[0-9a-f]{8}-21bc-11ea-a13a-[0-9a-f]{12}"
    assert all(re.fullmatch(pattern, i) for i in made), made[:3]
    assert len(set(made)) == 50 and not set(made) & set(uuids)


def test_regression_target_gets_a_random_split(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    train = pd.DataFrame(
        {"Id": range(1, 101), "a": rng.normal(size=100), "price": rng.uniform(1, 9, size=100)}
    )
    test = pd.DataFrame({"Id": range(101, 121), "a": rng.normal(size=20)})
    sample = pd.DataFrame({"Id": range(101, 121), "price": 1.0})
    competition = load_competition_dir(make_competition(tmp_path / "c", train, test, sample, "rmse"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25)
    assert holdout.split == "random" and len(holdout.ids) == 25


def test_time_split_holds_out_the_latest_rows_when_test_lies_after_train(tmp_path: Path) -> None:
    hours = pd.date_range("2011-01-01", periods=120, freq="h")
    train = pd.DataFrame(
        {"datetime": hours[:100].astype(str), "temp": np.arange(100), "count": np.arange(100)}
    )
    test = pd.DataFrame({"datetime": hours[100:].astype(str), "temp": np.arange(20)})
    sample = pd.DataFrame({"datetime": hours[100:].astype(str), "count": 0})
    competition = load_competition_dir(make_competition(tmp_path / "c", train, test, sample, "rmsle"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2)
    assert holdout.split == "time:datetime"
    assert sorted(holdout.ids) == list(hours[80:100].astype(str))
    kept = read(holdout.public_dir / "train.csv")
    assert kept["datetime"].max() < min(holdout.ids)


def test_group_split_keeps_each_group_on_one_side(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    train = pd.DataFrame(
        {
            "id": range(1, 121),
            "patient": np.repeat(np.arange(20), 6),
            "x": rng.normal(size=120),
            "y": rng.normal(size=120),
        }
    )
    test = pd.DataFrame({"id": range(200, 210), "patient": 99, "x": rng.normal(size=10)})
    sample = pd.DataFrame({"id": range(200, 210), "y": 0.0})
    competition = load_competition_dir(make_competition(tmp_path / "c", train, test, sample, "rmse"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, split="group:patient")
    own = holdout.own_ids("held")
    held_groups = set(train.set_index("id").loc[[int(own[i]) for i in holdout.ids], "patient"])
    kept_groups = set(read(holdout.public_dir / "train.csv")["patient"].astype(int))
    assert held_groups and held_groups.isdisjoint(kept_groups)


def test_split_hint_of_competition_json_is_used(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    train = pd.DataFrame(
        {"id": range(1, 101), "g": np.repeat(np.arange(10), 10), "y": rng.integers(0, 2, 100)}
    )
    test = pd.DataFrame({"id": range(101, 111), "g": 50})
    sample = pd.DataFrame({"id": range(101, 111), "y": 0})
    root = make_competition(tmp_path / "c", train, test, sample, "accuracy", {"split": "group:g"})
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    assert holdout.split == "group:g" and "competition.json" in holdout.split_reason


def test_wide_multiclass_labels_are_one_hot_in_the_submission_columns(tmp_path: Path) -> None:
    species = np.array(["Acer", "Betula", "Quercus"] * 20)
    train = pd.DataFrame({"id": range(1, 61), "f": np.arange(60), "species": species})
    test = pd.DataFrame({"id": range(100, 110), "f": np.arange(10)})
    sample = pd.DataFrame({"id": range(100, 110), "Acer": 1 / 3, "Betula": 1 / 3, "Quercus": 1 / 3})
    root = make_competition(tmp_path / "c", train, test, sample, "multiclass_logloss")
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    labels = read(holdout.labels_path)
    assert list(labels.columns) == ["id", "Acer", "Betula", "Quercus"]
    assert (labels[["Acer", "Betula", "Quercus"]].astype(int).sum(axis=1) == 1).all()
    truth = (
        train.set_index("id").loc[labels["id"].map(holdout.own_ids("held")).astype(int), "species"].to_numpy()
    )
    assert (
        labels[["Acer", "Betula", "Quercus"]].astype(int).to_numpy().argmax(axis=1)
        == pd.Categorical(truth, categories=["Acer", "Betula", "Quercus"]).codes
    ).all()
    assert "species" not in read(holdout.public_dir / "test.csv").columns
    assert holdout.split == "stratified"


def test_files_keyed_by_ids_move_with_their_rows(tmp_path: Path) -> None:
    train = pd.DataFrame({"id": [f"img_{i:03d}" for i in range(1, 41)], "label": [0, 1] * 20})
    test_ids = [f"img_{i:03d}" for i in range(1, 11)]  # the same names as train's: they collide
    test = pd.DataFrame({"id": test_ids})
    sample = pd.DataFrame({"id": test_ids, "label": 0})
    root = make_competition(tmp_path / "c", train, test, sample, "accuracy")
    public = root / "prepared" / "public"
    for folder, ids in (("train_images", train["id"]), ("test_images", test_ids)):
        (public / folder).mkdir()
        for name in ids:
            (public / folder / f"{name}.png").write_bytes(f"{folder}/{name}".encode())
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25)

    assert holdout.rekeyed and sorted(holdout.file_dirs) == ["test_images", "train_images"]
    mapping = dict(zip(train.set_index("id").index, range(40), strict=True))
    kept = set(read(holdout.public_dir / "train.csv")["id"])
    visible_train = {p.stem for p in (holdout.public_dir / "train_images").iterdir()}
    assert visible_train == kept  # held-out rows' images left the train folder
    test_folder = holdout.public_dir / "test_images"
    view_ids = read(holdout.public_dir / "test.csv")["id"]
    assert {p.stem for p in test_folder.iterdir()} == set(view_ids) and set(holdout.ids) <= set(view_ids)
    labels = read(holdout.labels_path)
    # each file under its row's fresh id: a held-out row's is its training image, a test row's its test image
    own_held, own_test = holdout.own_ids("held"), holdout.own_ids("test")
    for path in test_folder.iterdir():
        expected = (
            f"train_images/{own_held[path.stem]}"
            if path.stem in own_held
            else f"test_images/{own_test[path.stem]}"
        )
        assert path.read_bytes().decode() == expected
        assert path.stat().st_nlink == 1  # copied, not linked
    assert len(mapping) == 40 and len(labels) == 10


def test_no_holdout_when_it_cannot_be_scored(tmp_path: Path) -> None:
    train = pd.DataFrame({"id": range(1, 51), "x": range(50)})  # no target column
    test = pd.DataFrame({"id": range(51, 61), "x": range(10)})
    sample = pd.DataFrame({"id": range(51, 61), "y": 0})
    root = make_competition(tmp_path / "c", train, test, sample, "accuracy")
    with pytest.raises(NoHoldout, match="not in train.csv"):
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    with pytest.raises(NoHoldout, match="holdout_fraction is 0"):
        build_holdout(load_competition_dir(binary_competition(tmp_path / "b")), tmp_path / "h2", fraction=0.0)
    os.remove(tmp_path / "b" / "prepared" / "public" / "train.csv")
    with pytest.raises(NoHoldout, match="no train.csv"):
        build_holdout(load_competition_dir(tmp_path / "b"), tmp_path / "h3", fraction=0.2)


def test_a_table_not_in_utf8_is_refused_naming_it(tmp_path: Path) -> None:
    """A train.csv with Latin-1 bytes past its first row (which the public files' check reads): the split stops
    with a NoHoldout naming the file, not pandas' UnicodeDecodeError, which names none and no run catches."""
    root = binary_competition(tmp_path / "c")
    train = root / "prepared" / "public" / "train.csv"
    train.write_bytes(train.read_bytes() + "9999,0.5,caf\u00e9\n".encode("latin-1"))
    with pytest.raises(NoHoldout, match=r"^train\.csv is not UTF-8 text \(byte 0xe9") as refused:
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    # a ValueError too: a side table that cannot be read is still skipped, as before
    assert isinstance(refused.value, ValueError)


def test_check_split_names_the_choices() -> None:
    assert check_split("time:date") == "time:date"
    with pytest.raises(ValueError, match="auto, stratified, random"):
        check_split("kfold")
    with pytest.raises(ValueError):
        check_split("group:")
