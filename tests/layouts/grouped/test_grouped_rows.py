"""Test rows grouped under one submission id (issue 29): rsna-breast-cancer-detection's `train.csv` labels each
image, while `test.csv` names each image's breast (`prediction_id` = `<patient_id>_<laterality>`) and the
submission has a row per breast. The run's preflight accepts the test table's id; the harness holds out whole
patients, moves their images' rows to the test table under their breasts' ids and their image folders to
`test_images/`, lists each held-out breast once in the sample, and labels.csv holds each breast's `cancer`."""

from __future__ import annotations

import stat
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import CompetitionError, load_competition_dir
from swarm.competitions.public_files import check_public_files
from swarm.layouts.grouped.detect import grouped_rows
from swarm.layouts.holdout import Holdout, NoHoldout, build_holdout
from tests.layouts.grouped.miniatures import rsna_breast

ID, TARGET, KEYS = "prediction_id", "cancer", ("patient_id", "laterality")
TEST_ONLY = ("cancer", "biopsy", "invasive", "BIRADS", "density", "difficult_negative_case")


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def split(root: Path, tmp_path: Path, **kwargs) -> Holdout:
    return build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0, **kwargs)


def test_the_preflight_accepts_the_grouped_id_and_still_refuses_an_input_column(tmp_path: Path) -> None:
    root = rsna_breast(tmp_path / "rb")
    public = root / "prepared" / "public"
    check_public_files(load_competition_dir(root))
    layout = grouped_rows(public, ID, [TARGET])
    assert layout is not None and layout.keys == KEYS
    read(public / "test.csv").assign(scanner="x").to_csv(public / "test.csv", index=False)
    with pytest.raises(
        CompetitionError, match=r"it has column\(s\) 'prediction_id', 'scanner' that train.csv"
    ):
        check_public_files(load_competition_dir(root))


def test_whole_patients_move_to_the_test_side_with_their_images(tmp_path: Path) -> None:
    root = rsna_breast(tmp_path / "rb")
    public = root / "prepared" / "public"
    holdout = split(root, tmp_path)
    view = holdout.public_dir
    train, full = read(view / "train.csv"), read(public / "train.csv")
    test, sample, labels = (
        read(view / "test.csv"),
        read(view / "sample_submission.csv"),
        read(holdout.labels_path),
    )
    assert holdout.split == "group:patient_id"
    assert list(test.columns) == list(
        read(public / "test.csv").columns
    )  # no label column reaches the test side
    held = test[test[ID].isin(holdout.ids)]
    patients = set(held["patient_id"])  # fresh in the view, as the test's patients are
    own = holdout.own_ids("held")
    own_patients = {own[i].rsplit("_", 1)[0] for i in holdout.ids}
    assert holdout.fresh_ids and patients and len(patients) == len(own_patients) == len(holdout.ids) // 2
    assert not (patients | own_patients) & set(train["patient_id"])
    # Every held-out image is a test row under its breast's id; every one of its images left train.csv.
    originals = full[full["patient_id"].isin(own_patients)]
    assert sorted(held["image_id"]) == sorted(originals["image_id"])
    assert (held[ID] == held["patient_id"] + "_" + held["laterality"]).all()
    assert len(train) + len(held) == len(full)
    # The sample lists each id once, sorted as MLE-bench's; labels.csv holds each breast's cancer.
    assert sample[ID].tolist() == sorted(sample[ID]) and sample[ID].is_unique
    assert set(sample[ID]) == set(test[ID])
    truth = originals.assign(**{ID: originals["patient_id"] + "_" + originals["laterality"]})
    expected = truth.groupby(ID)[TARGET].first()
    assert {own[i]: v for i, v in labels.set_index(ID)[TARGET].items()} == expected.to_dict()
    assert stat.S_IMODE(holdout.labels_path.stat().st_mode) == 0o600
    # The held-out patients' image folders are where the test's are, none left under train_images/.
    for _, row in held.iterrows():
        image = Path("test_images") / row["patient_id"] / f"{row['image_id']}.dcm"
        own_patient = own[row[ID]].rsplit("_", 1)[0]
        assert (view / image).read_bytes() == (
            public / "train_images" / own_patient / f"{row['image_id']}.dcm"
        ).read_bytes()
    assert not {p.name for p in (view / "train_images").iterdir()} & own_patients


def test_an_explicit_split_still_holds_out_whole_ids(tmp_path: Path) -> None:
    root = rsna_breast(tmp_path / "rb")
    holdout = split(root, tmp_path, split="random")
    train, test = read(holdout.public_dir / "train.csv"), read(holdout.public_dir / "test.csv")
    kept_ids = set(train["patient_id"] + "_" + train["laterality"])
    assert holdout.split == "random" and not kept_ids & set(holdout.ids)
    held = test[test[ID].isin(holdout.ids)]
    assert held.groupby(ID).size().eq(2).all()  # both views of each held-out breast


def test_held_out_patients_that_are_test_patients_get_new_keys_and_folders(tmp_path: Path) -> None:
    root = rsna_breast(tmp_path / "rb")
    public = root / "prepared" / "public"
    train, test = read(public / "train.csv"), read(public / "test.csv")
    # As many training patients as there are test patients take their numbers (two patients under one number).
    pairs = zip(sorted(set(train["patient_id"])), sorted(set(test["patient_id"])), strict=False)
    clash = dict(pairs)
    train["patient_id"] = train["patient_id"].map(lambda p: clash.get(p, p))
    train.to_csv(public / "train.csv", index=False)
    images = public / "train_images"
    for old in list(clash):
        (images / old).rename(images / f"{old}.tmp")
    for old, new in clash.items():
        (images / f"{old}.tmp").rename(images / new)
    holdout = split(root, tmp_path)
    assert holdout.rekeyed
    view = holdout.public_dir
    held = read(view / "test.csv").query(f"{ID} in @holdout.ids")
    assert len(held) > 0 and not set(held["patient_id"]) & set(test["patient_id"])
    for _, row in held.iterrows():
        assert (view / "test_images" / row["patient_id"] / f"{row['image_id']}.dcm").is_file()


def test_an_id_whose_rows_disagree_on_its_label_is_refused(tmp_path: Path) -> None:
    root = rsna_breast(tmp_path / "rb")
    public = root / "prepared" / "public"
    train = read(public / "train.csv")
    first = train.index[0]
    train.loc[first, TARGET] = str(1 - int(train.loc[first, TARGET]))  # one view of a breast says otherwise
    train.to_csv(public / "train.csv", index=False)
    with pytest.raises(
        NoHoldout, match=r"the rows of prediction_id '\d+_[LR]' in train.csv carry different cancer"
    ):
        split(root, tmp_path)
