"""Labelled examples as JSON records (issue 29, point 2): random-acts-of-pizza's `train.json` and `test.json`.
The harness splits the records, writes the sandbox's view in the same form (a JSON list, or a line each), moves
the held-out records to the test file with the test records' fields only (no target, nothing known only after
the fact) under new ids, and scores them; labels stay private."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.formats.records import read_records, records_frame
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.tables.records_miniatures import TARGET, pizza_competition


@pytest.mark.parametrize("lines", [False, True])
def test_json_records_are_split_in_their_own_form(tmp_path: Path, lines: bool) -> None:
    root = pizza_competition(tmp_path / "pizza", lines=lines)
    public = root / "prepared" / "public"
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=2)

    assert holdout.table == "train.json" and holdout.split == "stratified"
    view = holdout.public_dir
    as_list = (view / "train.json").read_text().lstrip().startswith("[")
    assert as_list is not lines and (view / "test.json").read_text().lstrip().startswith("[") is not lines
    train, test = read_records(str(view / "train.json")), read_records(str(view / "test.json"))
    original = {r["request_id"]: r for r in read_records(str(public / "train.json"))}
    held = set(holdout.ids)
    assert len(held) == 30 and len(train) == 90 and len(test) == 70
    assert not held & {r["request_id"] for r in train}
    # Held-out records sit among the test records, with exactly the test records' fields.
    test_fields = set(read_records(str(public / "test.json"))[0])
    assert all(set(r) == test_fields for r in test)
    assert not any(TARGET in r or "requester_upvotes_at_retrieval" in r for r in test)
    moved = [r for r in test if r["request_id"] in held]
    own = holdout.own_ids("held")  # every record has a fresh id; the harness keeps each one's own
    assert len(moved) == 30 and set(own.values()) <= set(original) and set(own) == held
    assert all(
        original[own[r["request_id"]]]["request_text_edit_aware"] == r["request_text_edit_aware"]
        for r in moved
    )
    # The sample submission lists them in the test file's order; the labels are the harness's own (1/0).
    sample = pd.read_csv(view / "sampleSubmission.csv", dtype=str)
    assert list(sample["request_id"]) == [r["request_id"] for r in test]
    labels = pd.read_csv(holdout.labels_path, dtype=str)
    assert dict(zip(labels["request_id"], labels[TARGET], strict=True)) == {
        i: "1" if original[own[i]][TARGET] else "0" for i in held
    }
    assert oct(holdout.labels_path.stat().st_mode & 0o777) == "0o600"

    harness = Harness(holdout, competition.metric, competition.sample_submission)
    truth = dict(zip(labels["request_id"], labels[TARGET], strict=True))
    submitted = tmp_path / "submission.csv"
    sample.assign(**{TARGET: [truth.get(i, "0.5") for i in sample["request_id"]]}).to_csv(
        submitted, index=False
    )
    assert harness.evaluate(submitted, tmp_path / "test_rows.csv").score == 1.0
    flipped = [str(1 - int(truth[i])) if i in truth else "0.5" for i in sample["request_id"]]
    sample.assign(**{TARGET: flipped}).to_csv(submitted, index=False)
    assert harness.evaluate(submitted, tmp_path / "test_rows.csv").score == 0.0


def test_records_read_as_text_with_booleans_as_numbers() -> None:
    frame = records_frame([{"a": True, "b": [1, 2], "c": None}, {"a": False, "d": 2.5}])
    assert list(frame.columns) == ["a", "b", "c", "d"]
    assert frame.to_dict("list") == {"a": ["1", "0"], "b": ["[1, 2]", ""], "c": ["", ""], "d": ["", "2.5"]}


def test_a_records_file_that_is_not_records_is_refused_in_one_sentence(tmp_path: Path) -> None:
    root = pizza_competition(tmp_path / "pizza")
    (root / "prepared" / "public" / "train.json").write_text(json.dumps({"not": "a list"}))
    with pytest.raises(NoHoldout):
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25)
