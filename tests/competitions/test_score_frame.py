"""`score_frame`: scoring a submission frame against answer rows, for any metric and any subset of ids."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from swarm.competitions import CompetitionError, MetricSpec
from swarm.competitions.grading import score_frame
from swarm.competitions.validation import InvalidSubmission


def spec(name: str, targets: tuple[str, ...] = ("y",), **kwargs) -> MetricSpec:
    return MetricSpec(name=name, lower_is_better=False, id_column="id", target_columns=targets, **kwargs)


def text(data: dict) -> pd.DataFrame:
    """A frame of strings, as `read_submission` returns it."""
    return pd.DataFrame({k: [str(v) for v in values] for k, values in data.items()})


def test_a_subset_of_ids_in_any_order() -> None:
    answers = text({"id": [7, 3], "y": [1.0, 4.0]})
    submission = text({"id": [3, 7], "y": [2.0, 1.0]})
    assert score_frame(submission, answers, spec("rmse")) == pytest.approx(round(math.sqrt(4 / 2), 6))


def test_frames_of_numbers_are_read_as_text() -> None:
    answers = pd.DataFrame({"id": [1, 2], "y": [1.0, 3.0]})
    submission = pd.DataFrame({"id": [2, 1], "y": [2.0, 2.0]})
    assert score_frame(submission, answers, spec("mae")) == 1.0
    with pytest.raises(InvalidSubmission, match="1 missing/NaN value"):
        score_frame(submission.assign(y=[2.0, None]), answers, spec("mae"))


def test_the_score_is_rounded_to_six_digits() -> None:
    answers = text({"id": [1, 2, 3], "y": [0, 0, 1]})
    submission = text({"id": [1, 2, 3], "y": [0, 1, 1]})
    assert score_frame(submission, answers, spec("accuracy")) == 0.666667


@pytest.mark.parametrize(
    ("submission", "reason"),
    [
        ({"id": [1, 2, 3], "y": [0.1, 0.2, 0.3]}, "has 3 rows, expected 2"),
        ({"id": [1, 9], "y": [0.1, 0.2]}, "unknown id(s) in 'id': '9'"),
        ({"id": [1, 2], "y": [0.1, "nan"]}, "1 missing/NaN value(s)"),
        ({"id": [1, 2], "y": [0.1, "x"]}, "must be numeric; found 'x'"),
        ({"id": [1, 2], "y": [0.1, 1.01]}, "probabilities in [0, 1] for auc"),
        ({"id": [1, 2], "p": [0.1, 0.2]}, "missing column(s) 'y'"),
    ],
)
def test_invalid_submissions(submission: dict, reason: str) -> None:
    answers = text({"id": [1, 2], "y": [0, 1]})
    with pytest.raises(InvalidSubmission) as exc:
        score_frame(text(submission), answers, spec("auc"))
    assert reason in str(exc.value)


def test_answers_missing_a_target_column_are_the_competitions_fault() -> None:
    with pytest.raises(CompetitionError, match="lack column\\(s\\) 'y'"):
        score_frame(text({"id": [1], "y": [1]}), text({"id": [1], "z": [1]}), spec("rmse"))


def test_mean_column_wise_auc_and_multilabel_logloss() -> None:
    answers = text({"id": [1, 2, 3, 4], "a": [0, 0, 1, 1], "b": [1, 0, 1, 0]})
    submission = text({"id": [1, 2, 3, 4], "a": [0.1, 0.4, 0.35, 0.8], "b": [0.9, 0.1, 0.6, 0.2]})
    # a: 3 of 4 pairs ranked right; b: all 4 -> mean 0.875
    assert score_frame(submission, answers, spec("auc", ("a", "b"))) == 0.875
    log_a = -(math.log(0.9) + math.log(0.6) + math.log(0.35) + math.log(0.8)) / 4
    log_b = -(math.log(0.9) + math.log(0.9) + math.log(0.6) + math.log(0.8)) / 4
    expected = round((log_a + log_b) / 2, 6)
    assert score_frame(submission, answers, spec("multilabel_logloss", ("a", "b"))) == pytest.approx(expected)


def test_mcrmse() -> None:
    answers = text({"id": [1, 2], "a": [0, 0], "b": [1, 1]})
    submission = text({"id": [1, 2], "a": [3, 4], "b": [1, 3]})
    # a: sqrt((9 + 16) / 2); b: sqrt((0 + 4) / 2)
    expected = (math.sqrt(12.5) + math.sqrt(2)) / 2
    assert score_frame(submission, answers, spec("mcrmse", ("a", "b"))) == pytest.approx(expected, abs=1e-6)


def test_f1_predictions_must_be_binary_labels() -> None:
    answers = text({"id": [1, 2, 3], "y": [1, 0, 1]})
    assert score_frame(text({"id": [1, 2, 3], "y": [1, 1, 1]}), answers, spec("f1")) == 0.8  # P 2/3, R 1
    with pytest.raises(InvalidSubmission, match="must be one of 0, 1; found '0.5'"):
        score_frame(text({"id": [1, 2, 3], "y": [1, 0.5, 1]}), answers, spec("f1"))


def test_unseen_labels_are_rejected_unless_declared() -> None:
    answers = text({"id": [1, 2], "y": ["cat", "dog"]})
    submission = text({"id": [1, 2], "y": ["cat", "bird"]})
    with pytest.raises(InvalidSubmission, match="must be one of cat, dog; found 'bird'"):
        score_frame(submission, answers, spec("f1_macro"))
    declared = spec("f1_macro", labels={"y": ("cat", "dog", "bird")})
    # cat F1 1, dog F1 0, bird F1 0
    assert score_frame(submission, answers, declared) == pytest.approx(round(1 / 3, 6))


def test_qwk_rejects_fractional_ratings() -> None:
    answers = text({"id": [1, 2, 3, 4], "y": [0, 1, 2, 3]})
    assert score_frame(text({"id": [1, 2, 3, 4], "y": [1, 1, 2, 2]}), answers, spec("qwk")) == 0.666667
    with pytest.raises(InvalidSubmission, match="whole-number ratings, found 1.5"):
        score_frame(text({"id": [1, 2, 3, 4], "y": [1, 1.5, 2, 2]}), answers, spec("qwk"))


def test_map_at_k_with_declared_labels_and_params() -> None:
    answers = text({"id": [1, 2], "y": ["a", "b c"]})
    submission = text({"id": [1, 2], "y": ["b a c", "x c b"]})
    # k = 2: row 1 hit at rank 2 -> 1/2; row 2 hit at rank 2 -> (1/2) / min(2, 2)
    assert score_frame(submission, answers, spec("map_at_k", params={"k": 2})) == 0.375
    declared = spec("map@2", labels={"y": ("a", "b", "c")})
    with pytest.raises(InvalidSubmission, match="must be one of a, b, c; found 'x'"):
        score_frame(submission, answers, declared)
    with pytest.raises(InvalidSubmission, match="1 missing/NaN"):
        score_frame(submission.assign(y=["a", " "]), answers, spec("map_at_k"))


def test_wide_multiclass_submission() -> None:
    classes = ("c1", "c2")
    answers = text({"id": [1, 2], "c1": [1, 0], "c2": [0, 1]})
    submission = text({"id": [2, 1], "c1": [0.0, 0.8], "c2": [0.0, 0.2]})  # row 2 sums to 0 -> (1/2, 1/2)
    expected = round(-(math.log(0.8) + math.log(0.5)) / 2, 6)
    assert score_frame(submission, answers, spec("multiclass_logloss", classes)) == pytest.approx(expected)
    long_answers = text({"id": [1, 2], "label": ["c1", "c2"], "other": ["x", "y"]})
    named = spec("multiclass_logloss", classes, params={"label_column": "label"})
    assert score_frame(submission, long_answers, named) == pytest.approx(expected)
    with pytest.raises(CompetitionError, match="name it with the metric param `label_column`"):
        score_frame(submission, long_answers, spec("multiclass_logloss", classes))
    wrong = submission.rename(columns={"c2": "C2"})
    with pytest.raises(InvalidSubmission, match="missing column\\(s\\) 'c2'; unexpected column\\(s\\) 'C2'"):
        score_frame(wrong, answers, spec("multiclass_logloss", classes))


def test_correlation_of_constant_predictions_is_invalid() -> None:
    answers = text({"id": [1, 2, 3], "y": [1, 2, 3]})
    with pytest.raises(InvalidSubmission, match="pearson: the predictions are constant"):
        score_frame(text({"id": [1, 2, 3], "y": [2, 2, 2]}), answers, spec("pearson"))


def test_unknown_metric_in_the_spec() -> None:
    with pytest.raises(CompetitionError, match="unknown metric 'bleu'"):
        score_frame(text({"id": [1], "y": [1]}), text({"id": [1], "y": [1]}), spec("bleu"))
