"""tensorflow2-question-answering's micro F1 (`answer_span_f1`), checked against a transcription of its grade.py
(openai/mle-bench @783b15a: `prepare_for_metric`, then sklearn's `f1_score(average="micro")`) and by hand.

The library keeps a row's true answers in one cell (space-separated spans `<start>:<end>`, `YES`, `NO`; blank:
none), where grade.py reads them from the example's first annotation: the long answer's span, or the short
answers' spans and its yes/no answer.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from swarm.competitions import CompetitionError, MetricSpec
from swarm.competitions.grading import score_frame
from swarm.competitions.metrics import get_metric
from swarm.competitions.metrics.base import InvalidPrediction
from swarm.competitions.metrics.sequences import answer_span_f1, first_answer


def graders_f1(truth: list[str], pred: list[str]) -> float:
    """grade.py's rules on the library's cells: y_pred 1 for any prediction; y_true 1 where the prediction is
    a true answer, or where no prediction faces a true answer."""
    y_true, y_pred = [], []
    for answers, guess in zip(truth, pred, strict=True):
        valid = []
        for token in answers.split():
            valid.append(token if token in ("YES", "NO") else tuple(int(v) for v in token.split(":")))
        guess = guess.strip()
        y_pred.append(1 if guess else 0)
        if ":" in guess and len(guess.split(":")) == 2:
            start, end = guess.split(":")
            guess = (int(start), int(end))
        if guess:
            y_true.append(1 if guess in valid else 0)
        else:
            y_true.append(1 if valid else 0)
    return f1_score(y_true=y_true, y_pred=y_pred, average="micro")


def cells(values: list[str]) -> np.ndarray:
    return np.array(values, dtype=object)


def test_by_hand():
    truth = ["3:9", "", "12:15 20:24 YES", "", "7:8"]
    pred = ["3:9", "", "20:24", "1:2", ""]
    # right: an exact span, a blank facing none, one of several true answers; wrong: a span where none applies,
    # a blank facing an answer
    assert answer_span_f1(cells(truth), cells(pred)) == pytest.approx(3 / 5)
    assert graders_f1(truth, pred) == pytest.approx(3 / 5)
    assert answer_span_f1(cells(["YES"]), cells(["NO"])) == 0.0
    assert (
        answer_span_f1(cells(["03:09"]), cells(["3:9"])) == 1.0
    )  # spans are whole numbers, as int() reads them


def test_agrees_with_the_graders_rules_on_seeded_cases():
    rng = np.random.default_rng(7)
    spans = [f"{s}:{s + w}" for s in range(0, 60, 7) for w in (1, 3)]
    for _ in range(40):
        n = int(rng.integers(2, 30))
        truth, pred = [], []
        for _ in range(n):
            answers = list(rng.choice(spans, int(rng.integers(0, 4)), replace=False))
            if rng.random() < 0.2:
                answers.append(str(rng.choice(["YES", "NO"])))
            truth.append(" ".join(answers))
            options = [*answers, *rng.choice(spans, 2), "YES", "NO", "", ""]
            pred.append(str(rng.choice(options)))
        assert answer_span_f1(cells(truth), cells(pred)) == pytest.approx(graders_f1(truth, pred), abs=1e-12)


def test_a_prediction_the_grader_refuses_is_invalid():
    for bad in ("3:9 10:12", "yes", "a:b", "3-9"):
        with pytest.raises(InvalidPrediction, match="token spans"):
            answer_span_f1(cells(["3:9"]), cells([bad]))
    with pytest.raises(CompetitionError, match="the answers"):
        answer_span_f1(cells(["maybe"]), cells([""]))


def test_a_perfect_submission_scores_one_through_score_frame():
    spec = MetricSpec("answer_span_f1", False, "example_id", ("PredictionString",))
    answers = pd.DataFrame(
        {
            "example_id": ["1_long", "1_short", "2_long", "2_short"],
            "PredictionString": ["4:90", "5:7 9:11", "", "NO"],
        }
    )
    perfect = answers.assign(PredictionString=answers["PredictionString"].map(first_answer))
    assert list(perfect["PredictionString"]) == ["4:90", "5:7", "", "NO"]
    assert score_frame(perfect.iloc[::-1], answers, spec) == 1.0
    blank = answers.assign(PredictionString="")
    assert score_frame(blank, answers, spec) == pytest.approx(1 / 4)
    assert get_metric("answer_span_f1").perfect is first_answer
