"""Task inference from a competition's files."""

from __future__ import annotations

import pandas as pd
import pytest

from swarm.offline_coder.inference import infer_task_from_frames
from swarm.offline_coder.metric_names import metric_from_description
from swarm.offline_coder.task import infer_task_from_dir


@pytest.mark.parametrize(
    ("text", "metric"),
    [
        ("## Evaluation\nSubmissions are scored on accuracy.", "accuracy"),
        ("Evaluated on area under the ROC curve.", "auc"),
        ("We use the multi-class log loss.", "logloss"),
        ("RMSE between the logarithm of the predicted value and the logarithm of the observed", "rmsle"),
        ("Root Mean Squared Error (RMSE)", "rmse"),
        ("Mean Absolute Error", "mae"),
        ("the F1 score of the positive class", "f1"),
        ("nothing about scoring here", None),
        # whole names before fragments ("logarithmic" alone is not RMSLE)
        ("## Evaluation\nSubmissions are evaluated using multi-class logarithmic loss.", "logloss"),
        ("Evaluated with the Multiclass Log Loss over all species.", "logloss"),
        ("Submissions are evaluated on the log loss between the predicted values and the truth.", "logloss"),
        ("Root Mean Squared Logarithmic Error (RMSLE), log(p + 1) - log(a + 1)", "rmsle"),
        (
            "Root-Mean-Squared-Error (RMSE) between the logarithm of the predicted value and the logarithm",
            "rmsle",
        ),
        ("the root mean-squared error or RMSE. A large RMSE is a large error.", "rmse"),
        ("Submissions are scored using MCRMSE, mean columnwise root mean squared error.", "rmse"),
        ("evaluated on the mean squared error", "rmse"),
        ("Submissions are evaluated on area under the ROC curve.", "auc"),
        ("the mean column-wise ROC AUC of each predicted column", "auc"),
        ("their macro F1 score", "f1"),
        ("the R^2 value, also called the coefficient of determination", "r2"),
        ("Submissions are evaluated on multi-class classification accuracy.", "accuracy"),
        ("Scored on the quadratic weighted kappa.", None),
        # a metric the offline coder lacks is no metric, not a neighbour's or one named later
        ("Submissions are evaluated on area under the precision-recall curve.", None),
        ("Accuracy matters.\n\n## Evaluation\n\nThe mean Dice coefficient.", None),
        ("Evaluated on a modified version of the Laplace Log Likelihood, rewarding accuracy.", None),
        ("We use top-1 classification error as the metric for this competition.", "accuracy"),
        ("Evaluated using micro F1. (In contrast, in macro F1 each class is scored.)", "f1"),
    ],
)
def test_metric_from_description(text, metric):
    assert metric_from_description(text) == metric


def test_evaluation_part_wins_over_earlier_mentions():
    text = "Accuracy matters in life.\n\n## Evaluation\nSubmissions are evaluated with AUC."
    assert metric_from_description(text) == "auc"


def test_evaluation_section_ends_at_the_next_heading():
    text = "# Churn\n\n## Evaluation\n\nScored on accuracy.\n\n## Data\n\nA column `auc` from an old model."
    assert metric_from_description(text) == "accuracy"


def test_bundled_like_competitions(competitions):
    titanic = infer_task_from_dir(str(competitions["titanic"].input_dir))
    assert titanic["id_col"] == "PassengerId" and titanic["metric"] == "accuracy"
    assert titanic["targets"][0]["task"] == "binary" and titanic["targets"][0]["output"] == "label"
    ames = infer_task_from_dir(str(competitions["ames"].input_dir))
    assert ames["metric"] == "rmsle" and ames["lower_is_better"] is True
    assert ames["targets"][0] == {
        "name": "SalePrice", "task": "regression", "output": "value", "positive": None, "columns": None,
        "skewed": True,
    }  # fmt: skip
    churn = infer_task_from_dir(str(competitions["churn"].input_dir))
    assert churn["metric"] == "auc" and churn["targets"][0]["output"] == "proba"
    assert churn["targets"][0]["positive"] == "Yes"


def test_defaults_without_description():
    train = pd.DataFrame({"id": range(6), "x": range(6), "y": [0, 1, 0, 1, 1, 0]})
    test = pd.DataFrame({"id": [10, 11], "x": [1, 2]})
    labels = infer_task_from_frames(train, test, pd.DataFrame({"id": [10, 11], "y": [0, 0]}))
    assert labels["metric"] == "accuracy" and labels["targets"][0]["positive"] == 1
    probas = infer_task_from_frames(train, test, pd.DataFrame({"id": [10, 11], "y": [0.5, 0.5]}))
    assert probas["metric"] == "auc" and probas["targets"][0]["output"] == "proba"
    train["y"] = [1.5, 2.25, 3.0, 10.0, 0.1, 7.7]
    values = infer_task_from_frames(train, test, pd.DataFrame({"id": [10, 11], "y": [0.0, 0.0]}))
    assert values["metric"] == "rmse" and values["targets"][0]["task"] == "regression"


def test_wide_probability_format():
    train = pd.DataFrame({"id": range(6), "x": range(6), "species": ["a", "b", "c", "a", "b", "c"]})
    test = pd.DataFrame({"id": [7], "x": [3]})
    sample = pd.DataFrame({"id": [7], "a": [1 / 3], "b": [1 / 3], "c": [1 / 3]})
    task = infer_task_from_frames(train, test, sample, "Evaluated with multi-class log loss.")
    assert task["metric"] == "logloss"
    assert task["targets"][0]["output"] == "proba_wide"
    assert task["targets"][0]["columns"] == {"a": "a", "b": "b", "c": "c"}


def test_bad_inputs_are_named(tmp_path):
    train = pd.DataFrame({"id": [1], "x": [1]})
    with pytest.raises(ValueError, match="neither train.csv columns"):
        infer_task_from_frames(train, train, pd.DataFrame({"id": [1], "unknown": [0]}))
    with pytest.raises(ValueError, match="at least one target"):
        infer_task_from_frames(train, train, pd.DataFrame({"id": [1]}))
    with pytest.raises(FileNotFoundError, match="sample_submission.csv"):
        infer_task_from_dir(str(tmp_path))


def test_shares_scored_as_classes_are_a_binary_target_from_half_on() -> None:
    """jigsaw-unintended-bias's `target` is the share of raters who found a comment toxic, scored by AUCs of it
    made 0/1 at 0.5: the offline coder models whether the share reaches 0.5, not a class per distinct share; for
    a regression metric it stays a number, and 0/1 targets stay classes."""
    from swarm.offline_coder.inference import _target_spec

    shares = pd.Series([0.0, 0.2, 0.6, 0.75, 0.1, 1.0, 0.4])
    sample = pd.Series([0.0] * 3)
    spec = _target_spec("target", shares, sample, "auc")
    assert (spec["task"], spec["output"], spec["threshold"]) == ("binary", "proba", 0.5)
    assert _target_spec("target", shares, sample, "rmse")["task"] == "regression"
    assert "threshold" not in _target_spec("target", pd.Series([0, 1, 1, 0]), sample, "auc")
