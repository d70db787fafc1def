"""Miniatures of tensorflow2-question-answering's questions with annotated answers, a JSON record a line: the
census's (`tensorflow2_qa`) and a larger one for the no-key run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import WORDS, dirs, sentence


def tensorflow2_qa(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """tensorflow2-question-answering: `simplified-nq-train.jsonl` (a record a line: `example_id` as text,
    `question_text`, `document_text`, `long_answer_candidates`, `annotations` with one item: `long_answer`,
    `short_answers`, `yes_no_answer`), `simplified-nq-test.jsonl` without `annotations`, `sample_submission.csv`
    `example_id` (`<id>_short`, `<id>_long` a record), `PredictionString` blank; `private/test.jsonl` the test
    records whole and `private/gold_submission.csv` their first answers, as prepare.py writes them. A question
    that starts with "who" has its answer in the document's first paragraph (tokens 0:10, the short answer
    2:4); one that starts with "is" is answered YES at paragraph 1; the rest have none. The metric:
    `answer_span_f1`."""
    public, private = dirs(
        root, "answer_span_f1", "# TensorFlow 2.0 Question Answering\n\nScored by micro F1.\n"
    )
    rng = np.random.default_rng(171)
    records = []
    for k in range(n_train + n_test):
        kind = ("who", "is", "what")[k % 3]
        first, rest = " ".join(rng.choice(WORDS, 8)), " ".join(rng.choice(WORDS, 300))  # a document is long
        document = f"<P> {first} </P> <P> {rest} </P>"
        candidates = [
            {"start_token": 0, "end_token": 10, "top_level": True},
            {"start_token": 10, "end_token": 312, "top_level": True},
        ]
        long_answer = {"start_token": -1, "end_token": -1, "candidate_index": -1}
        short, yes_no = [], "NONE"
        if kind == "who":
            long_answer, short = (
                {"start_token": 0, "end_token": 10, "candidate_index": 0},
                [{"start_token": 2, "end_token": 4}],
            )
        elif kind == "is":
            long_answer, yes_no = {"start_token": 0, "end_token": 10, "candidate_index": 0}, "YES"
        records.append(
            {
                "example_id": str(-(10**18) + int(rng.integers(0, 10**18))),
                "question_text": f"{kind} {sentence(rng, 4)}",
                "document_text": document,
                "long_answer_candidates": candidates,
                "annotations": [
                    {
                        "annotation_id": k,
                        "long_answer": long_answer,
                        "short_answers": short,
                        "yes_no_answer": yes_no,
                    }
                ],
            }
        )
    train, test = records[:n_train], records[n_train:]
    keep = ("example_id", "question_text", "document_text", "long_answer_candidates")
    for path, group in (
        (public / "simplified-nq-train.jsonl", train),
        (public / "simplified-nq-test.jsonl", [{k: r[k] for k in keep} for r in test]),
        (private / "test.jsonl", test),
    ):
        path.write_text("".join(json.dumps(r) + "\n" for r in group))
    gold = []
    for record in test:
        annotation = record["annotations"][0]
        short = annotation["short_answers"]
        answer = (
            annotation["yes_no_answer"]
            if annotation["yes_no_answer"] != "NONE"
            else (f"{short[0]['start_token']}:{short[0]['end_token']}" if short else "")
        )
        span = annotation["long_answer"]
        long_answer = f"{span['start_token']}:{span['end_token']}" if span["start_token"] != -1 else ""
        gold += [
            {"example_id": f"{record['example_id']}_short", "PredictionString": answer},
            {"example_id": f"{record['example_id']}_long", "PredictionString": long_answer},
        ]
    pd.DataFrame(gold).to_csv(private / "gold_submission.csv", index=False)
    pd.DataFrame(gold).assign(PredictionString="").to_csv(public / "sample_submission.csv", index=False)
    return root


def qa_records_competition(root: Path) -> Path:
    """tensorflow2-question-answering's layout (tensorflow2_qa): a JSON-lines training file of questions with
    annotations, a test file without them, and the sample a row per test question and kind of answer
    (`<id>_long`, `<id>_short`)."""
    return tensorflow2_qa(root, n_train=90, n_test=30)
