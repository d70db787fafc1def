"""A small library of Kaggle metrics with their directions and the value checks they need.

Every metric scores one target column (`y_true`, `y_pred` as 1-D numpy arrays); a competition with several
target columns scores each column and averages them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from swarm.competitions.errors import CompetitionError

LOGLOSS_EPS = 1e-15


@dataclass(frozen=True)
class Metric:
    """A scoring function plus what a valid prediction for it looks like."""

    name: str
    lower_is_better: bool
    fn: Callable[[np.ndarray, np.ndarray], float]
    formula: str
    numeric: bool = True
    probability: bool = False
    binary_truth: bool = False
    min_prediction: float | None = None
    min_inclusive: bool = True
    # Predictions are class labels: each must be one of the competition's labels (declared or in the answers).
    labels: bool = False

    def score(self, y_true: np.ndarray, y_pred: np.ndarray) -> float:
        """The score of one column of predictions."""
        if len(y_true) != len(y_pred):
            raise CompetitionError(f"{self.name}: {len(y_pred)} predictions for {len(y_true)} answers")
        if len(y_true) == 0:
            raise CompetitionError(f"{self.name}: there is nothing to score (0 rows)")
        return float(self.fn(y_true, y_pred))


def _accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    try:
        equal = np.asarray(y_true, dtype=float) == np.asarray(y_pred, dtype=float)
    except (TypeError, ValueError):
        equal = np.array([str(a).strip() == str(b).strip() for a, b in zip(y_true, y_pred, strict=True)])
    return float(np.mean(equal))


def _rmse(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return math.sqrt(float(np.mean((y_true - y_pred) ** 2)))


def _mae(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.mean(np.abs(y_true - y_pred)))


def _rmse_log(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if np.any(y_true <= 0):
        raise CompetitionError("rmse_log: the answers hold values <= 0, whose logarithm is undefined")
    return _rmse(np.log(y_true), np.log(y_pred))


def _rmsle(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if np.any(y_true < 0):
        raise CompetitionError("rmsle: the answers hold negative values")
    return _rmse(np.log1p(y_true), np.log1p(y_pred))


def _check_binary(name: str, y_true: np.ndarray) -> np.ndarray:
    values = set(np.unique(y_true).tolist())
    if not values <= {0, 1}:
        raise CompetitionError(f"{name}: the answers must be 0/1 labels, found {sorted(values)[:5]}")
    return y_true.astype(int)


def _auc(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    labels = _check_binary("auc", y_true)
    if len(set(labels.tolist())) < 2:
        raise CompetitionError("auc: the answers hold a single class, so ROC AUC is undefined")
    from sklearn.metrics import roc_auc_score  # imported lazily: sklearn costs ~1.5 s at CLI start-up

    return float(roc_auc_score(labels, y_pred))


def _logloss(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    labels = _check_binary("logloss", y_true)
    p = np.clip(y_pred.astype(float), LOGLOSS_EPS, 1 - LOGLOSS_EPS)
    return float(-np.mean(labels * np.log(p) + (1 - labels) * np.log(1 - p)))


def _f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    labels = _check_binary("f1", y_true)
    preds = np.asarray(y_pred, dtype=float)
    if not set(np.unique(preds).tolist()) <= {0.0, 1.0}:
        raise CompetitionError("f1: predictions must be 0/1 labels")
    from sklearn.metrics import f1_score

    return float(f1_score(labels, preds.astype(int), zero_division=0.0))


def _r2(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    total = float(np.sum((y_true - np.mean(y_true)) ** 2))
    if total == 0.0:
        raise CompetitionError("r2: the answers are constant, so R² is undefined")
    return 1.0 - float(np.sum((y_true - y_pred) ** 2)) / total


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric(
            "accuracy",
            False,
            _accuracy,
            "accuracy = (number of correct predictions) / N",
            numeric=False,
            labels=True,
        ),
        Metric("rmse", True, _rmse, "RMSE = sqrt( (1/N) * sum_i (y_i - p_i)^2 )"),
        Metric("mse", True, lambda t, p: _rmse(t, p) ** 2, "MSE = (1/N) * sum_i (y_i - p_i)^2"),
        Metric("mae", True, _mae, "MAE = (1/N) * sum_i |y_i - p_i|"),
        Metric(
            "rmse_log",
            True,
            _rmse_log,
            "RMSE_log = sqrt( (1/N) * sum_i (log(p_i) - log(y_i))^2 )",
            min_prediction=0.0,
            min_inclusive=False,
        ),
        Metric(
            "rmsle",
            True,
            _rmsle,
            "RMSLE = sqrt( (1/N) * sum_i (log(1 + p_i) - log(1 + y_i))^2 )",
            min_prediction=0.0,
        ),
        Metric(
            "auc",
            False,
            _auc,
            "ROC AUC = P(score of a random positive > score of a random negative)",
            probability=True,
            binary_truth=True,
        ),
        Metric(
            "logloss",
            True,
            _logloss,
            "logloss = -(1/N) * sum_i [ y_i log(p_i) + (1 - y_i) log(1 - p_i) ]",
            probability=True,
            binary_truth=True,
        ),
        Metric("f1", False, _f1, "F1 = 2 * precision * recall / (precision + recall)", binary_truth=True),
        Metric("r2", False, _r2, "R² = 1 - sum_i (y_i - p_i)^2 / sum_i (y_i - mean(y))^2"),
    )
}

ALIASES = {"roc_auc": "auc", "log_loss": "logloss", "rmse_of_log": "rmse_log", "acc": "accuracy"}


def get_metric(name: str) -> Metric:
    """The metric called `name` (case-insensitive; a few common aliases accepted)."""
    key = name.strip().lower().replace("-", "_")
    key = ALIASES.get(key, key)
    if key not in METRICS:
        raise CompetitionError(f"unknown metric {name!r}; known metrics: {', '.join(sorted(METRICS))}")
    return METRICS[key]
