"""Accuracy on free text (text normalization's `after`: hundreds of thousands of spoken forms): a prediction no
answer has is wrong, not malformed, so it scores lower instead of making the submission invalid. A closed set of
classes (at most CLOSED_LABEL_SET distinct answers) still refuses a label outside it, which catches a format
slip such as `1.0` for `1`."""

from __future__ import annotations

import pandas as pd
import pytest

from swarm.competitions.competition import MetricSpec
from swarm.competitions.grading import score_frame
from swarm.competitions.validation import CLOSED_LABEL_SET, InvalidSubmission

SPEC = MetricSpec("accuracy", False, "id", ("after",))


def frames(distinct: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = [str(i) for i in range(2 * distinct)]
    answers = pd.DataFrame({"id": ids, "after": [f"word {i % distinct}" for i in range(len(ids))]})
    return answers.copy(), answers


def test_free_text_answers_score_an_unseen_prediction_as_wrong() -> None:
    submission, answers = frames(CLOSED_LABEL_SET + 1)
    submission.loc[0, "after"] = "a form no answer has"
    assert score_frame(submission, answers, SPEC) == pytest.approx(1 - 1 / len(answers), abs=1e-6)


@pytest.mark.parametrize("label", ["word 7", ""])
def test_a_closed_set_of_classes_refuses_a_label_outside_it_or_an_empty_one(label: str) -> None:
    submission, answers = frames(3)
    submission.loc[0, "after"] = label
    with pytest.raises(InvalidSubmission):
        score_frame(submission, answers, SPEC)


def test_an_empty_free_text_answer_is_a_prediction_like_any_other() -> None:
    """Text normalization's answers hold empty cells (MLE-bench's pandas reads the token "NA" as missing): an
    empty prediction of an empty answer is right, of another answer wrong, never an invalid submission."""
    submission, answers = frames(CLOSED_LABEL_SET + 1)
    answers.loc[0, "after"] = ""
    submission.loc[0, "after"] = ""
    submission.loc[1, "after"] = ""
    assert score_frame(submission, answers, SPEC) == pytest.approx(1 - 1 / len(answers), abs=1e-6)


def test_a_column_known_to_be_free_text_is_open_however_few_answers_are_scored() -> None:
    """The scored rows (a harness's held-out tokens, a small hidden test) may hold few distinct answers of a column
    whose labelled table holds many: `free_text` says so, and an answer none of them has is then wrong."""
    submission, answers = frames(3)
    submission.loc[0, "after"] = "a form no answer has"
    with pytest.raises(InvalidSubmission):
        score_frame(submission, answers, SPEC)
    free = MetricSpec("accuracy", False, "id", ("after",), free_text=("after",))
    assert score_frame(submission, answers, free) == pytest.approx(1 - 1 / len(answers), abs=1e-6)
