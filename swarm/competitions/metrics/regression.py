"""Regression metrics on numbers: the squared, absolute and logarithmic errors of sklearn.metrics, R², the
correlations of scipy.stats, SMAPE, MCRMSE over target columns and the grouped log MAE.

A "grouped" metric (`log_mae`) also takes each row's group, the values of the answers' column named by its
parameter `group_column`: `metric.score(y_true, y_pred, groups=...)`. `mcrmse` may name the target columns it
scores (`scored_columns`, where the submission holds more: stanford-covid-vaccine's 3 of 5).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics.base import InvalidPrediction, Metric, fault, floats

LOG_MAE_FLOOR = 1e-9  # log(MAE) of a group predicted exactly would be -inf


def _not_constant(name: str, values: np.ndarray, *, answers: bool) -> None:
    """An error where `values` are constant (or one row), for which a correlation is undefined."""
    if len(values) < 2 or np.all(values == values[0]):
        raise fault(name, answers, "are constant (or a single row), so the correlation is undefined")


def _regression(
    name: str, sklearn_name: str, transform: Callable[[np.ndarray], np.ndarray] | None = None
) -> Callable[[np.ndarray, np.ndarray], float]:
    def score(y_true: np.ndarray, y_pred: np.ndarray) -> float:
        import sklearn.metrics

        truth = floats(name, y_true, answers=True)
        pred = floats(name, y_pred, answers=False)
        if transform is not None:
            truth, pred = transform(truth), transform(pred)
        return float(getattr(sklearn.metrics, sklearn_name)(truth, pred))

    return score


def _rmse_log(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if np.any(floats("rmse_log", y_true, answers=True) <= 0):
        raise CompetitionError("rmse_log: the answers hold values <= 0, whose logarithm is undefined")
    if np.any(floats("rmse_log", y_pred, answers=False) <= 0):
        raise InvalidPrediction("rmse_log: predictions must be > 0 (their logarithm is taken)")
    return _regression("rmse_log", "root_mean_squared_error", np.log)(y_true, y_pred)


def _rmsle(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if np.any(floats("rmsle", y_true, answers=True) < 0):
        raise CompetitionError("rmsle: the answers hold negative values")
    if np.any(floats("rmsle", y_pred, answers=False) < 0):
        raise InvalidPrediction("rmsle: predictions must be >= 0")
    return _regression("rmsle", "root_mean_squared_log_error")(y_true, y_pred)


def _mcrmse(y_true: np.ndarray, y_pred: np.ndarray, scored_columns: Any = ()) -> float:
    """The RMSE of one target column, which `score_frame` averages over the columns: MCRMSE. `scored_columns`
    picks the columns before they get here (`validation.scored_target_columns`: stanford-covid-vaccine's
    submission holds 5 targets, 3 of which are scored)."""
    return _regression("mcrmse", "root_mean_squared_error")(y_true, y_pred)


def _r2(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    truth = floats("r2", y_true, answers=True)
    if np.all(truth == truth[0]):
        raise CompetitionError("r2: the answers are constant, so R² is undefined")
    return _regression("r2", "r2_score")(y_true, y_pred)


def _correlation(name: str, scipy_name: str) -> Callable[[np.ndarray, np.ndarray], float]:
    def score(y_true: np.ndarray, y_pred: np.ndarray) -> float:
        import scipy.stats

        truth = floats(name, y_true, answers=True)
        pred = floats(name, y_pred, answers=False)
        _not_constant(name, truth, answers=True)
        _not_constant(name, pred, answers=False)
        return float(getattr(scipy.stats, scipy_name)(truth, pred)[0])

    return score


def _smape(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Kaggle's SMAPE in percent; a row where both are 0 counts 0 (no library has this formula)."""
    truth = floats("smape", y_true, answers=True)
    pred = floats("smape", y_pred, answers=False)
    half_sum = (np.abs(truth) + np.abs(pred)) / 2
    ratio = np.divide(np.abs(pred - truth), half_sum, out=np.zeros_like(half_sum), where=half_sum != 0)
    return float(100 * np.mean(ratio))


def _log_mae(
    y_true: np.ndarray, y_pred: np.ndarray, groups: np.ndarray | None = None, group_column: str = ""
) -> float:
    """Mean over groups of log(MAE of the group), the MAE floored at 1e-9 (champs-scalar-coupling: the groups
    are the coupling `type`s); without groups, all rows are one group."""
    truth = floats("log_mae", y_true, answers=True)
    pred = floats("log_mae", y_pred, answers=False)
    codes = np.zeros(len(truth), dtype=int) if groups is None else pd.factorize(groups)[0]
    if (codes < 0).any():
        raise CompetitionError(f"log_mae: the answers' group column {group_column!r} has missing values")
    maes = np.bincount(codes, weights=np.abs(truth - pred)) / np.bincount(codes)
    return float(np.mean(np.log(np.maximum(maes, LOG_MAE_FLOOR))))


# ---- the library's entries -----------------------------------------------------------------------------------

ENTRIES: tuple[Metric, ...] = (
    Metric(
        "rmse",
        True,
        _regression("rmse", "root_mean_squared_error"),
        "RMSE = sqrt( (1/N) * sum_i (y_i - p_i)^2 )",
        aliases=("root_mean_squared_error",),
    ),
    Metric(
        "mse",
        True,
        _regression("mse", "mean_squared_error"),
        "MSE = (1/N) * sum_i (y_i - p_i)^2",
        aliases=("mean_squared_error",),
    ),
    Metric(
        "rmsle",
        True,
        _rmsle,
        "RMSLE = sqrt( (1/N) * sum_i (log(1 + p_i) - log(1 + y_i))^2 )",
        min_prediction=0.0,
        aliases=("root_mean_squared_log_error", "root_mean_squared_logarithmic_error"),
    ),
    Metric(
        "rmse_log",
        True,
        _rmse_log,
        "RMSE_log = sqrt( (1/N) * sum_i (log(p_i) - log(y_i))^2 )",
        min_prediction=0.0,
        min_inclusive=False,
        aliases=("rmse_of_log", "log_rmse", "rmse_of_logs"),
    ),
    Metric(
        "mae",
        True,
        _regression("mae", "mean_absolute_error"),
        "MAE = (1/N) * sum_i |y_i - p_i|",
        aliases=("mean_absolute_error",),
    ),
    Metric(
        "r2",
        False,
        _r2,
        "R² = 1 - sum_i (y_i - p_i)^2 / sum_i (y_i - mean(y))^2",
        aliases=("r2_score", "r_squared", "r²"),
    ),
    Metric(
        "mcrmse",
        True,
        _mcrmse,
        "MCRMSE = (1/M) * sum_j sqrt( (1/N) * sum_i (y_ij - p_ij)^2 ) over the M target columns (param "
        "scored_columns: those scored, where the submission holds more; unset: all)",
        params={"scored_columns": ()},
        aliases=("mean_columnwise_rmse", "mean_column_wise_rmse", "columnwise_rmse"),
    ),
    Metric(
        "spearman",
        False,
        _correlation("spearman", "spearmanr"),
        "Spearman's rho = Pearson correlation of the ranks of y and p",
        aliases=("spearmanr", "spearman_correlation", "spearman_rho"),
    ),
    Metric(
        "pearson",
        False,
        _correlation("pearson", "pearsonr"),
        "Pearson r = cov(y, p) / (std(y) * std(p))",
        aliases=("pearsonr", "pearson_correlation", "pearson_r", "correlation"),
    ),
    Metric(
        "smape",
        True,
        _smape,
        "SMAPE = (100/N) * sum_i |p_i - y_i| / ((|y_i| + |p_i|) / 2), a row with y_i = p_i = 0 counting 0",
        aliases=("symmetric_mape", "symmetric_mean_absolute_percentage_error"),
    ),
    Metric(
        "log_mae",
        True,
        _log_mae,
        "log MAE = (1/T) * sum_t log( max(1e-9, (1/n_t) * sum_{i in t} |y_i - p_i|) ) over the T groups of "
        "the answers' column group_column (unset: one group)",
        params={"group_column": ""},
        grouped=True,
        aliases=(
            "grouped_log_mae",
            "group_log_mae",
            "group_mean_log_mae",
            "mean_log_mae",
            "log_mean_absolute_error",
            "lmae",
        ),
    ),
)
