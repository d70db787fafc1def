"""Label sets in text lines with the test examples marked `?` (issue 29): mlsp-2013-birds keeps each training
recording's species in `essential_data/rec_labels_test_hidden.txt` (`rec_id,<species>,...`; `rec_id,?` for a test
recording), tells test from training recordings in `CVfolds_2.txt` (`fold` 1 and 0), and the sample has a row
per (recording, species), `Id` = rec_id * 100 + species. The harness holds out whole recordings: their lines read
`?`, their fold is the test fold, their rows join the sample in id order, and labels.csv keeps their 0/1
answers; a perfect submission scores 1.0."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import NoHoldout, build_holdout
from swarm.layouts.label_lines.reader import label_line_rows, label_lines_fields, read_label_lines
from tests.layouts.label_lines.miniatures import mlsp_birds

LABELS = "essential_data/rec_labels_test_hidden.txt"


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def split(tmp_path: Path, **options):
    root = mlsp_birds(tmp_path / "birds")
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", **{"fraction": 0.2, "seed": 0, **options})
    return root / "prepared" / "public", competition, holdout


def test_held_out_recordings_read_as_test_recordings_in_every_table(tmp_path: Path) -> None:
    public, competition, holdout = split(tmp_path)
    view = holdout.public_dir
    before, after = read_label_lines(str(public / LABELS)), read_label_lines(str(view / LABELS))
    assert before is not None and after is not None
    held = sorted({int(i) // 100 for i in holdout.ids})
    assert len(held) == round(24 * 0.2)  # of the 24 labelled recordings
    assert all(before[r] is not None and after[r] is None for r in held)
    assert {r: v for r, v in after.items() if r not in held} == {
        r: v for r, v in before.items() if r not in held
    }
    folds = read(view / "essential_data" / "CVfolds_2.txt").set_index("rec_id")["fold"]
    assert all(folds[str(r)] == "1" for r in held)
    assert set(folds[folds == "1"].index) == {str(r) for r, v in after.items() if v is None}
    # the sample: every test and held-out recording's 19 rows, in id order
    sample = read(view / "sample_submission.csv")
    ids = sample["Id"].astype(int)
    assert ids.is_monotonic_increasing and set(ids // 100) == {r for r, v in after.items() if v is None}
    assert (ids.groupby(ids // 100).count() == 19).all()
    # the other files keyed by recording stay as they were
    assert (view / "essential_data" / "rec_id2filename.txt").read_text() == (
        public / "essential_data" / "rec_id2filename.txt"
    ).read_text()


def test_labels_hold_the_held_out_species_and_a_perfect_submission_scores_1(tmp_path: Path) -> None:
    public, competition, holdout = split(tmp_path)
    before = read_label_lines(str(public / LABELS)) or {}
    labels = read(holdout.labels_path)
    expected = {str(r * 100 + s): str(int(s in (before[r] or []))) for r in before for s in range(19)}
    assert dict(zip(labels["Id"], labels["Probability"], strict=True)) == {
        i: expected[i] for i in labels["Id"]
    }
    sample = read(holdout.public_dir / "sample_submission.csv")
    truth = dict(zip(labels["Id"], labels["Probability"], strict=True))
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    sample.assign(Probability=[truth.get(i, "0") for i in sample["Id"]]).to_csv(
        tmp_path / "s.csv", index=False
    )
    assert harness.evaluate(tmp_path / "s.csv", tmp_path / "t.csv").score == 1.0
    flipped = [str(1 - int(truth[i])) if i in truth else "0" for i in sample["Id"]]
    sample.assign(Probability=flipped).to_csv(tmp_path / "s.csv", index=False)
    assert harness.evaluate(tmp_path / "s.csv", tmp_path / "t.csv").score == 0.0


def test_a_split_other_than_random_is_refused_in_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(NoHoldout, match="whole examples are"):
        split(tmp_path, split="time:rec_id")


def test_rows_per_example_and_class_with_the_histograms_as_features(tmp_path: Path) -> None:
    public = mlsp_birds(tmp_path / "birds") / "prepared" / "public"
    sample = read(public / "sample_submission.csv")
    fields = label_lines_fields(str(public), sample["Id"].tolist(), ["Probability"])
    assert fields == {"labels_file": LABELS, "multiplier": 100, "classes": 19}
    train = label_line_rows(str(public), fields, "Id", "Probability", labelled=True)
    test = label_line_rows(str(public), fields, "Id", "Probability", labelled=False)
    assert sorted(test["Id"].astype(str)) == sorted(sample["Id"])
    labels = read_label_lines(str(public / LABELS)) or {}
    assert len(train) == 19 * sum(v is not None for v in labels.values())
    positives = train[train["Probability"] == 1]
    assert all(
        int(c) in (labels[int(i) // 100] or [])
        for i, c in zip(positives["Id"], positives["class"], strict=True)
    )
    assert positives.shape[0] == sum(len(v) for v in labels.values() if v)
    # the histogram's three numbers per recording are features; CVfolds_2.txt's fold (0/1) is not
    assert [c for c in train.columns if c.startswith("histogram_of_segments_")] == [
        f"histogram_of_segments_{k}" for k in range(3)
    ]
    assert not [c for c in train.columns if c.startswith("CVfolds")]
    # not this layout: ids that are not <example> * 100 + <class> over the `?` examples
    assert label_lines_fields(str(public), [str(int(i) + 1) for i in sample["Id"]], ["Probability"]) is None


def test_whole_number_ids_past_64_bits_are_no_label_lines_and_no_crash(tmp_path: Path) -> None:
    """Every layout's detection asks this detector first of the ids; ids of 26 digits (beyond int64) had crashed
    it (numpy's divmod on an object array), so no such competition could split."""
    public = mlsp_birds(tmp_path / "birds") / "prepared" / "public"
    wide = [str(10**25 + k) for k in range(40)]
    assert label_lines_fields(str(public), wide, ["Probability"]) is None
