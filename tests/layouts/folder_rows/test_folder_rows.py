"""Rows of a labels table in each example folder, keyed in the sample by the folder and a time
(smartphone-decimeter-2022's `train/<drive>/<phone>/ground_truth.csv`, issue 29): the layout is recognised, the
harness holds out whole drives without their labels tables and scores their rows, and the offline coder's rows
carry each input table's numbers at the row's time."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.evaluation.harness import Harness
from swarm.layouts.folder_rows.reader import example_folders, folder_rows_fields, labelled_rows, with_inputs
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.folder_rows.miniatures import smartphone_tracks


def public_and_sample(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    public = smartphone_tracks(tmp_path / "s", n_drives=8, n_test=2, seconds=6) / "prepared" / "public"
    return public, pd.read_csv(public / "sample_submission.csv", dtype=str, keep_default_na=False)


def test_the_layout_names_the_labels_table_the_inputs_and_how_ids_name_folders(tmp_path: Path) -> None:
    public, sample = public_and_sample(tmp_path)
    assert folder_rows_fields(str(public), sample) == {
        "id": "tripId",
        "keys": ["UnixTimeMillis"],
        "targets": ["LatitudeDegrees", "LongitudeDegrees"],
        "test_dir": "test",
        "train_dir": "train",
        "depth": 2,
        "sep": "-",
        "labels": "ground_truth.csv",
        "inputs": ["device_gnss.csv", "device_imu.csv"],
    }
    assert (
        folder_rows_fields(str(public), sample.drop_duplicates("tripId")) is None
    )  # ids once: no key column


def test_rows_get_each_input_tables_numbers_at_their_time_in_their_own_order(tmp_path: Path) -> None:
    public, sample = public_and_sample(tmp_path)
    fields = folder_rows_fields(str(public), sample)
    shuffled = sample[["tripId", "UnixTimeMillis"]].sample(frac=1, random_state=1).reset_index(drop=True)
    rows = with_inputs(shuffled, example_folders(str(public), fields, "test_dir"), fields)
    assert rows[["tripId", "UnixTimeMillis"]].equals(shuffled)
    trip = shuffled["tripId"].iloc[0]
    drive, phone = trip.rsplit("-", 1)
    gnss = pd.read_csv(public / "test" / drive / phone / "device_gnss.csv")
    row = rows[rows["tripId"] == trip].iloc[0]
    first = gnss[gnss["utcTimeMillis"] == int(row["UnixTimeMillis"])].iloc[
        0
    ]  # the epoch's first satellite row
    assert row["device_gnss_WlsPositionXEcefMeters"] == first["WlsPositionXEcefMeters"]
    assert row["device_gnss_Cn0DbHz"] == first["Cn0DbHz"]
    assert "device_imu_MeasurementX" in rows.columns and "device_gnss_utcTimeMillis" not in rows.columns
    train = labelled_rows(str(public), fields)
    assert list(train.columns) == ["tripId", "UnixTimeMillis", "LatitudeDegrees", "LongitudeDegrees"]
    assert train["tripId"].nunique() == 12  # 6 training drives, 2 phones each


def test_whole_drives_are_held_out_without_their_labels_and_scored_by_their_rows(tmp_path: Path) -> None:
    root = smartphone_tracks(tmp_path / "s", n_drives=8, n_test=2, seconds=6)
    public = root / "prepared" / "public"
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.34)
    view = holdout.public_dir
    trips = sorted(set(holdout.ids))
    drives = {t.rsplit("-", 1)[0] for t in trips}
    assert len(drives) == 2 and len(trips) == 4 and len(holdout.ids) == 4 * 6  # both phones, every second
    for drive in drives:
        assert not (view / "train" / drive).exists()
        for phone in ("GooglePixel4", "SamsungS20Ultra"):
            moved = sorted(p.name for p in (view / "test" / drive / phone).iterdir())
            assert moved == ["device_gnss.csv", "device_imu.csv"]
    assert not [p for p in (view / "test").rglob("ground_truth.csv")]
    sample = pd.read_csv(view / "sample_submission.csv", dtype=str, keep_default_na=False)
    held = sample[sample["tripId"].isin(trips)]
    assert set(held["LatitudeDegrees"]) == {"37.904611315634504"}  # the sample's filler, not the truth
    runs = sample["tripId"][sample["tripId"] != sample["tripId"].shift()]
    assert runs.is_unique  # a trip's rows together

    labels = pd.read_csv(holdout.labels_path, dtype=str, keep_default_na=False)
    truth = pd.concat(
        pd.read_csv(public / "train" / t.rsplit("-", 1)[0] / t.rsplit("-", 1)[1] / "ground_truth.csv").assign(
            tripId=t
        )
        for t in trips
    )
    merged = labels.merge(truth.astype(str), on=["tripId", "UnixTimeMillis"], suffixes=("", "_truth"))
    assert len(merged) == len(labels) == len(holdout.ids)
    assert (merged["LatitudeDegrees"].astype(float) == merged["LatitudeDegrees_truth"].astype(float)).all()

    perfect = sample.merge(labels, on=["tripId", "UnixTimeMillis"], how="left", suffixes=("_", ""))
    for column in ("LatitudeDegrees", "LongitudeDegrees"):
        perfect[column] = perfect[column].fillna(perfect[column + "_"])
    perfect[list(sample.columns)].to_csv(tmp_path / "perfect.csv", index=False)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    assert harness.evaluate(tmp_path / "perfect.csv", tmp_path / "test_part.csv").score == 0.0
    sample.to_csv(tmp_path / "sample.csv", index=False)
    assert harness.evaluate(tmp_path / "sample.csv", tmp_path / "test_part.csv").score > 1_000_000


def test_a_drive_folder_is_the_unit_so_a_single_drive_cannot_be_split(tmp_path: Path) -> None:
    root = smartphone_tracks(tmp_path / "s", n_drives=3, n_test=2, seconds=4)
    competition = load_competition(str(root), tmp_path / "cache")
    with pytest.raises(NoHoldout, match="leaves no rows to hold out or none to train on"):
        build_holdout(competition, tmp_path / "h", fraction=0.5)
