"""jigsaw-unintended-bias-in-toxicity-classification's metric (`jigsaw_bias_auc`), checked as
test_numeric_metrics.py checks the others: a case worked by hand, and a transcription of the competition's
grade.py (openai/mle-bench @783b15a) on data frames, which the library must agree with to 1e-9; then the answers'
identity columns through `score_frame` and the harness's private labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from swarm.competitions import CompetitionError, MetricSpec
from swarm.competitions.grading import score_frame
from swarm.competitions.metrics import get_metric
from swarm.competitions.metrics.numeric import JIGSAW_IDENTITIES

METRIC = get_metric("jigsaw_bias_auc")


def grade_py(submission: pd.DataFrame, answers: pd.DataFrame, identities: list[str]) -> float:
    """grade.py's `grade`, step by step (prepare_for_metric, the three filters, the generalized mean)."""
    submission, answers = submission.sort_values("id").copy(), answers.sort_values("id").copy()
    submission["toxicity"] = submission["prediction"].apply(lambda x: 1 if x >= 0.5 else 0)
    answers["toxicity"] = answers["toxicity"].apply(lambda x: 1 if x >= 0.5 else 0)
    for column in identities:
        answers[column] = answers[column].apply(lambda x: 1 if x >= 0.5 else 0)

    def auc(kept: pd.DataFrame) -> float:
        rows = submission[submission["id"].isin(kept["id"])]
        return roc_auc_score(kept["toxicity"], rows["toxicity"])

    bias = []
    for column in identities:
        member, toxic = answers[column] == 1, answers["toxicity"] == 1
        bias.append([auc(answers[member]), auc(answers[~toxic & member | toxic & ~member]),
                     auc(answers[toxic & member | ~toxic & ~member])])  # fmt: skip
    means = [(sum(b[i] ** -5 for b in bias) / len(identities)) ** (1 / -5) for i in range(3)]
    return 0.25 * roc_auc_score(answers["toxicity"], submission["toxicity"]) + sum(0.25 * m for m in means)


def library(submission: pd.DataFrame, answers: pd.DataFrame, identities: list[str]) -> float:
    groups = answers[identities].to_numpy(dtype=object)
    return METRIC.score(
        answers["toxicity"], submission["prediction"], groups=groups, identity_columns=identities
    )


def test_a_case_by_hand() -> None:
    # Rows (toxicity, prediction, a, b); predictions made 0/1 at 0.5: 1, 0, 0, 0, 1, 0.
    answers = pd.DataFrame(
        {
            "id": range(6),
            "toxicity": [0.8, 0.6, 0.2, 0.0, 0.9, 0.4],
            "a": [1, 0, 1, 0, 0, 0],
            "b": [0, 1, 0, 1, 0, 0],
        }
    )
    submission = pd.DataFrame({"id": range(6), "prediction": [0.9, 0.2, 0.1, 0.4, 0.8, 0.3]})
    # Overall: toxic rows predict 1, 0, 1; the others 0, 0, 0: (3 + 1.5 + 3) / 9 pairs.
    # a: subgroup 1 (its toxic row 1, its other 0); BPSN: toxic non-a rows 0, 1 against a's non-toxic 0: 0.75;
    #    BNSP: a's toxic 1 against non-a non-toxic 0, 0: 1.
    # b: subgroup 0 against 0: 0.5; BPSN: toxic non-b 1, 1 against b's non-toxic 0: 1; BNSP: 0 against 0, 0: 0.5.
    mean = lambda x, y: ((x**-5 + y**-5) / 2) ** (-1 / 5)  # noqa: E731
    hand = 0.25 * (7.5 / 9) + 0.25 * (mean(1, 0.5) + mean(0.75, 1) + mean(1, 0.5))
    assert library(submission, answers, ["a", "b"]) == pytest.approx(hand, abs=1e-9)
    assert grade_py(submission, answers, ["a", "b"]) == pytest.approx(hand, abs=1e-9)


def test_agrees_with_grade_py_on_nine_identities() -> None:
    rng = np.random.default_rng(7)
    n = 600
    answers = pd.DataFrame({"id": rng.permutation(n), "toxicity": rng.random(n)})
    for column in JIGSAW_IDENTITIES:
        shares = rng.random(n) * (rng.random(n) < 0.3)
        answers[column] = np.where(rng.random(n) < 0.2, np.nan, shares)  # most comments name no identity
    noise = rng.normal(0, 0.35, n)
    submission = pd.DataFrame({"id": answers["id"], "prediction": np.clip(answers["toxicity"] + noise, 0, 1)})
    identities = list(JIGSAW_IDENTITIES)
    expected = grade_py(submission, answers.fillna(0.0), identities)  # grade.py: NaN >= 0.5 is False
    assert library(submission, answers, identities) == pytest.approx(expected, abs=1e-9)
    assert 0.5 < expected < 1.0


def test_the_identity_columns_reach_it_through_score_frame_and_are_required() -> None:
    spec = MetricSpec(
        "jigsaw_bias_auc", False, "id", ("prediction",), params={"identity_columns": ["a", "b"]}
    )
    answers = pd.DataFrame(
        {"id": [str(i) for i in range(6)], "prediction": ["0.8", "0.6", "0.2", "0.0", "0.9", "0.4"],
         "a": ["1", "0", "1", "0", "0", ""], "b": ["0", "1", "0", "1", "0", "0"]}
    )  # fmt: skip
    submission = pd.DataFrame({"id": answers["id"], "prediction": ["0.9", "0.2", "0.1", "0.4", "0.8", "0.3"]})
    mean = lambda x, y: ((x**-5 + y**-5) / 2) ** (-1 / 5)  # noqa: E731
    hand = 0.25 * (7.5 / 9) + 0.25 * (mean(1, 0.5) + mean(0.75, 1) + mean(1, 0.5))
    assert score_frame(submission, answers, spec) == pytest.approx(hand, abs=1e-6)  # a blank identity is 0
    with pytest.raises(
        CompetitionError, match=r"no groups were passed, but identity_columns=\['a', 'b'\] names them"
    ):
        score_frame(submission, answers.drop(columns="b"), spec)


def test_an_auc_of_zero_gives_a_mean_of_zero_and_one_class_is_the_answers_fault() -> None:
    answers = pd.DataFrame({"id": range(4), "toxicity": [1.0, 0.0, 1.0, 0.0], "a": [1, 1, 0, 0]})
    worst = pd.DataFrame({"id": range(4), "prediction": [0.0, 1.0, 0.0, 1.0]})  # every AUC is 0
    assert library(worst, answers, ["a"]) == 0.0
    with pytest.raises(CompetitionError, match="'a' subgroup rows hold one class only"):
        library(worst, answers.assign(a=[1, 0, 0, 0]), ["a"])
