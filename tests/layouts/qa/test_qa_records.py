"""Questions with annotated answers, a JSON record a line (tensorflow2-question-answering): each record's true
answers are read as its grade.py reads them, the harness streams held-out records from the training file into the
test file without their annotations, and scores them by the metric's answer cells."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from swarm.competitions import load_competition
from swarm.competitions.grading import score_submission
from swarm.competitions.metrics import get_metric
from swarm.layouts.holdout import NoHoldout, build_holdout
from swarm.layouts.qa.reader import answer_cells, qa_fields
from tests.layouts.qa.miniatures import tensorflow2_qa


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_records_answers_are_every_true_span_and_yes_or_no() -> None:
    def record(long_start: int, shorts: list, yes_no: str) -> dict:
        long_answer = {"start_token": long_start, "end_token": long_start + 30 if long_start >= 0 else -1}
        short_answers = [{"start_token": s, "end_token": s + 2} for s in shorts]
        return {
            "annotations": [
                {"long_answer": long_answer, "short_answers": short_answers, "yes_no_answer": yes_no}
            ]
        }

    assert answer_cells(record(10, [12, 20], "NONE")) == {"long": "10:40", "short": "12:14 20:22"}
    assert answer_cells(record(10, [], "NO")) == {"long": "10:40", "short": "NO"}
    assert answer_cells(record(-1, [], "NONE")) == {"long": "", "short": ""}
    # grade.py: a short answer is right where it is any of the true spans, a blank right where there is none
    score = get_metric("answer_span_f1").score
    truth = [
        answer_cells(record(10, [12, 20], "NONE"))["short"],
        answer_cells(record(-1, [], "NONE"))["short"],
    ]
    assert score(pd.Series(truth).to_numpy(), pd.Series(["20:22", ""]).to_numpy()) == 1.0
    assert score(pd.Series(truth).to_numpy(), pd.Series(["14:16", "1:2"]).to_numpy()) == 0.0


def test_the_layout_needs_long_and_short_ids_and_annotated_training_records(tmp_path: Path) -> None:
    public = tensorflow2_qa(tmp_path / "q") / "prepared" / "public"
    sample = pd.read_csv(public / "sample_submission.csv", dtype=str, keep_default_na=False)
    names = sorted(p.name for p in public.iterdir())
    assert qa_fields(str(public), names, sample) == {
        "train": "simplified-nq-train.jsonl",
        "test": "simplified-nq-test.jsonl",
        "id_field": "example_id",
        "target": "PredictionString",
        "texts": ["question_text"],  # the document (long text in general) is not a feature
    }
    longs = sample[sample["example_id"].str.endswith("_long")]
    assert qa_fields(str(public), names, longs) is None


def test_held_out_records_join_the_test_file_without_their_annotations(tmp_path: Path) -> None:
    root = tensorflow2_qa(tmp_path / "q", n_train=40, n_test=10)
    public = root / "prepared" / "public"
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, seed=2
    )
    view = holdout.public_dir
    originals = {r["example_id"]: r for r in _records(public / "simplified-nq-train.jsonl")}
    kept = _records(view / "simplified-nq-train.jsonl")
    tests = {r["example_id"]: r for r in _records(view / "simplified-nq-test.jsonl")}
    labels = pd.read_csv(holdout.root / "labels.csv", dtype=str, keep_default_na=False).set_index(
        "example_id"
    )
    held = {i.rsplit("_", 1)[0] for i in labels.index}
    rows = {**holdout.own_ids("test"), **holdout.own_ids("held")}
    own = {view.rsplit("_", 1)[0]: mine.rsplit("_", 1)[0] for view, mine in rows.items()}
    assert (
        len(held) == 10 and len(kept) == 30 and not {own[i] for i in held} & {r["example_id"] for r in kept}
    )
    assert len(tests) == 20 and held < set(tests)
    # Every test record and held-out record has a fresh id like the test's (a signed number): none its own.
    assert holdout.fresh_ids and set(own) == set(tests) and not set(tests) & {*originals, *own.values()}
    assert all(re.fullmatch(r"-?[1-9]\d*", i) for i in tests)
    for example in held:
        assert "annotations" not in tests[example]  # the test records' fields only
        assert tests[example]["question_text"] == originals[own[example]]["question_text"]
        cells = answer_cells(originals[own[example]])
        assert labels.loc[f"{example}_long", "PredictionString"] == cells["long"]
        assert labels.loc[f"{example}_short", "PredictionString"] == cells["short"]
    sample = pd.read_csv(view / "sample_submission.csv", dtype=str, keep_default_na=False).set_index(
        "example_id"
    )
    assert (
        set(labels.index) < set(sample.index) and (sample.loc[labels.index, "PredictionString"] == "").all()
    )


def test_a_held_out_id_that_is_also_a_test_id_is_refused(tmp_path: Path) -> None:
    root = tensorflow2_qa(tmp_path / "q", n_train=10, n_test=4)
    public = root / "prepared" / "public"
    train = _records(public / "simplified-nq-train.jsonl")
    tests = _records(public / "simplified-nq-test.jsonl")
    for record in train:  # every training record shares the first test record's id
        record["example_id"] = tests[0]["example_id"]
    (public / "simplified-nq-train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in train))
    try:
        build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)
    except NoHoldout as exc:
        assert "is also a test record" in str(exc)
    else:
        raise AssertionError("a held-out record sharing a test id was split")


def test_the_final_grade_reads_every_true_answer_of_the_private_records(tmp_path: Path) -> None:
    """MLE-bench's private `test.jsonl` holds the test records whole; its `gold_submission.csv` keeps the first
    short answer only. A short answer that is the record's second true span is right, as grade.py scores it."""
    root = tensorflow2_qa(tmp_path / "q", n_train=6, n_test=6)
    private = root / "prepared" / "private"
    records = _records(private / "test.jsonl")
    for record in records:  # a second true short answer beside the first
        annotation = record["annotations"][0]
        if annotation["short_answers"]:
            annotation["short_answers"].append({"start_token": 5, "end_token": 7})
    (private / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    competition = load_competition(str(root), tmp_path / "cache")
    assert competition.answers == private / "test.jsonl"
    truth = {r["example_id"]: answer_cells(r) for r in records}
    rows = [
        (f"{i}_{kind}", cells[kind].split()[-1] if cells[kind] else "")
        for i, cells in truth.items()
        for kind in ("long", "short")
    ]
    pd.DataFrame(rows, columns=["example_id", "PredictionString"]).to_csv(tmp_path / "last.csv", index=False)
    assert any(" " in c["short"] for c in truth.values())  # some record has two true short answers
    assert score_submission(competition, tmp_path / "last.csv") == 1.0
