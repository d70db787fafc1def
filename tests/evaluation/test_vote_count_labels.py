"""Labels that are counts (hms-harmful-brain-activity-classification: experts' votes per class, scored by KL
divergence against predicted probabilities; issue 29). The harness's check that the held-out labels are
scorable reads them as a perfect submission would state them (each row's shares), so the split goes ahead, and
a submission is scored against the votes as the grader scores it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.tabular_miniatures import HMS_VOTES, hms


def test_vote_counts_are_split_and_scored_as_shares(tmp_path: Path) -> None:
    competition = load_competition_dir(hms(tmp_path / "hms"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
    labels = pd.read_csv(holdout.labels_path, dtype=str)
    assert list(labels.columns) == ["eeg_id", *HMS_VOTES] and len(labels) == 12
    counts = labels[HMS_VOTES].astype(float)
    assert (counts.sum(axis=1) > 1).any()  # the private labels are the votes themselves

    sample = pd.read_csv(holdout.public_dir / "sample_submission.csv", dtype=str)
    shares = counts.div(counts.sum(axis=1), axis=0)
    by_id = dict(zip(labels["eeg_id"], shares.to_numpy(), strict=True))
    rows = [by_id.get(i, np.full(len(HMS_VOTES), 1 / 6)) for i in sample["eeg_id"]]
    submission = tmp_path / "submission.csv"
    sample.assign(**{c: [f"{r[k]:.12f}" for r in rows] for k, c in enumerate(HMS_VOTES)}).to_csv(
        submission, index=False
    )
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    assert harness.evaluate(submission, tmp_path / "test_rows.csv").score < 1e-6
    sample.to_csv(submission, index=False)  # the uniform sample itself
    assert harness.evaluate(submission, tmp_path / "test_rows.csv").score > 0.05


def test_windows_of_one_eeg_stay_on_one_side_with_their_file(tmp_path: Path) -> None:
    """hms's train.csv has several labelled windows per `eeg_id`, whose input is `train_eegs/<eeg_id>.parquet`:
    the split keeps each EEG's windows together (a group split on the repeated id), so no kept window shares a
    held-out one's EEG, every kept window keeps its file, and each held-out window gets its EEG on the test side."""
    root = hms(tmp_path / "hms")
    public = root / "prepared" / "public"
    train = pd.read_csv(public / "train.csv")
    train["eeg_id"] = 1000 + train.index // 3  # 20 EEGs of 3 windows each
    train.to_csv(public / "train.csv", index=False)
    for folder, ids in (("train_eegs", train["eeg_id"].unique()), ("test_eegs", range(5000, 5012))):
        (public / folder).mkdir()
        for i in ids:
            (public / folder / f"{i}.parquet").write_bytes(f"{folder} {i}".encode())

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2, seed=0)
    assert holdout.split == "group:eeg_id" and holdout.rekeyed
    view = holdout.public_dir
    kept = pd.read_csv(view / "train.csv")
    left = {p.stem for p in (view / "train_eegs").iterdir()}
    assert {str(i) for i in kept["eeg_id"]} == left  # every kept window has its EEG, no other EEG is left
    moved = [(view / "test_eegs" / f"{i}.parquet").read_bytes().decode() for i in holdout.ids]
    assert all(text.startswith("train_eegs ") for text in moved) and len(moved) == len(holdout.ids)
    assert not {text.split()[1] for text in moved} & left


def test_each_held_out_window_finds_its_spectrogram_where_the_test_ones_are(tmp_path: Path) -> None:
    """hms's test.csv names each row's `spectrogram_id` as well, whose file is `test_spectrograms/<id>.parquet`
    for the test rows and `train_spectrograms/<id>.parquet` for the labelled ones: each held-out row's
    spectrogram is linked among the test spectrograms, and leaves the training side unless a kept row names it."""
    root = hms(tmp_path / "hms")
    public = root / "prepared" / "public"
    train = pd.read_csv(public / "train.csv")
    train["eeg_id"] = 1000 + train.index // 3  # 20 EEGs of 3 windows each
    train["spectrogram_id"] = 700 + train.index // 6  # a spectrogram spans two EEGs
    train.to_csv(public / "train.csv", index=False)
    test = pd.read_csv(public / "test.csv").assign(spectrogram_id=range(900, 912))
    test[["spectrogram_id", "eeg_id", "patient_id"]].to_csv(public / "test.csv", index=False)
    for folder, ids in (
        ("train_spectrograms", train["spectrogram_id"].unique()),
        ("test_spectrograms", test["spectrogram_id"]),
    ):
        (public / folder).mkdir()
        for i in ids:
            (public / folder / f"{i}.parquet").write_bytes(f"{folder} {i}".encode())

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2, seed=0)
    view = holdout.public_dir
    assert {"test_spectrograms", "train_spectrograms"} <= set(holdout.file_dirs)
    rows = pd.read_csv(view / "test.csv")
    held = rows[rows["eeg_id"].astype(str).isin(holdout.ids)]
    assert len(held) == len(holdout.ids) > 0
    for value in held["spectrogram_id"]:
        text = (view / "test_spectrograms" / f"{value}.parquet").read_bytes().decode()
        assert text == f"train_spectrograms {value}"
    assert len(test) == 12
    for value in test["spectrogram_id"]:  # the test's own are as they were
        assert (view / "test_spectrograms" / f"{value}.parquet").read_bytes().decode().startswith("test_")
    kept = pd.read_csv(view / "train.csv")
    left = {int(p.stem) for p in (view / "train_spectrograms").iterdir()}
    assert set(kept["spectrogram_id"]) == left  # kept rows keep theirs; one only held-out rows named is gone
