"""A library of Kaggle metrics on sklearn.metrics and scipy.stats, with their directions and valid predictions.

A metric of scope "column" scores one target column (`y_true`, `y_pred` as 1-D arrays); a competition with
several target columns scores each column and averages them (so several 0/1 columns under `logloss` give the
multi-label log loss, under `auc` the mean column-wise ROC AUC). A metric of scope "table" scores all target
columns at once (2-D arrays, one column per target): `multiclass_logloss` over one probability column per class.

Errors: a problem of the answers (one class for AUC, constant answers for R²) is a `CompetitionError`; a problem
of the predictions alone is an `InvalidPrediction` (a CompetitionError too), which grading reports as an invalid
submission.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd

from swarm.competitions.errors import CompetitionError

LOGLOSS_EPS = 1e-15
DEFAULT_MAP_K = 5


class InvalidPrediction(CompetitionError):
    """The predictions (not the answers) cannot be scored by the metric; the message says why."""


@dataclass(frozen=True)
class Metric:
    """A scoring function plus what a valid prediction for it looks like.

    `numeric`: predictions are numbers; `probability`: in [0, 1]; `binary_truth`: answers are 0/1;
    `min_prediction`/`min_inclusive`: a lower bound on predictions; `labels`: predictions are class labels, each
    one of the competition's labels; `ranked`: each prediction is a space-separated ranked list of labels;
    `scope`: "column" (scored per target column, then averaged) or "table" (all target columns at once);
    `class_columns`: the target columns are classes, so answers may be one-hot in them or one label column;
    `params`: the metric's parameters with their defaults (e.g. `{"k": 5}`).
    """

    name: str
    lower_is_better: bool
    fn: Callable[..., float]
    formula: str
    numeric: bool = True
    probability: bool = False
    binary_truth: bool = False
    min_prediction: float | None = None
    min_inclusive: bool = True
    labels: bool = False
    ranked: bool = False
    scope: Literal["column", "table"] = "column"
    class_columns: bool = False
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    aliases: tuple[str, ...] = ()

    def resolve_params(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The defaults overridden by `given`; an unknown name or a bad value is a CompetitionError."""
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.params))
        if unknown:
            takes = ", ".join(sorted(self.params)) or "none"
            raise CompetitionError(
                f"metric {self.name!r} has no parameter(s) {', '.join(map(repr, unknown))} (it takes: {takes})"
            )
        for key, value in given.items():
            check, wanted = PARAM_CHECKS[key]
            if value != self.params[key] and not check(value):
                raise CompetitionError(
                    f"metric {self.name!r}: parameter {key!r} must be {wanted}, not {value!r}"
                )
        return {**self.params, **given}

    def score(self, y_true: Any, y_pred: Any, **params: Any) -> float:
        """The score of one column (scope "column") or of all target columns (scope "table")."""
        y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
        if len(y_true) != len(y_pred):
            raise CompetitionError(f"{self.name}: {len(y_pred)} predictions for {len(y_true)} answers")
        if len(y_true) == 0:
            raise CompetitionError(f"{self.name}: there is nothing to score (0 rows)")
        values = self.resolve_params(params)
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # sklearn/scipy warnings on degenerate input; we check those ourselves
            return float(self.fn(y_true, y_pred, **values))


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _column_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


PARAM_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "k": (_positive_int, "a positive integer"),
    "label_column": (_column_name, "a column name"),
}


# ---- helpers -------------------------------------------------------------------------------------------------


def label_key(value: Any) -> str:
    """What a class label is compared by: a finite number in a canonical form (`1` == `1.0`), else its text."""
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return repr(number) if math.isfinite(number) else text


def label_keys(values: np.ndarray) -> np.ndarray:
    """`label_key` of every value: computed once per distinct text, so a column of few classes is fast."""
    codes, keys = label_codes(values)
    return keys[codes]


def label_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of `values` by `label_key` (in order of first appearance) and the key of each code;
    `label_key` runs once per distinct text."""
    texts = np.asarray(np.ravel(values), dtype=object)
    if (
        pd.api.types.infer_dtype(texts, skipna=False) != "string"
    ):  # numbers, booleans, NaN: as str() writes them
        texts = texts.astype(str)
    text_codes, texts_seen = pd.factorize(texts)
    key_codes, keys = pd.factorize(np.array([label_key(text) for text in texts_seen], dtype=object))
    return key_codes[text_codes], np.asarray(keys, dtype=object)


def _floats(name: str, values: np.ndarray, *, answers: bool) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise _fault(name, answers, "must be numeric") from exc
    if not np.isfinite(array).all():
        raise _fault(name, answers, "must be finite numbers (found NaN or infinity)")
    return array


def _fault(name: str, answers: bool, problem: str) -> CompetitionError:
    """An error blaming the answers (CompetitionError) or the predictions (InvalidPrediction)."""
    if answers:
        return CompetitionError(f"{name}: the answers {problem}")
    return InvalidPrediction(f"{name}: the predictions {problem}")


def _binary_truth(name: str, y_true: np.ndarray) -> np.ndarray:
    keys = set(label_keys(y_true).tolist())
    if not keys <= {"0.0", "1.0"}:
        raise CompetitionError(f"{name}: the answers must be 0/1 labels, found {sorted(keys)[:5]}")
    return (label_keys(y_true) == "1.0").astype(int)


def _two_classes(name: str, labels: np.ndarray) -> None:
    if len(np.unique(labels)) < 2:
        raise CompetitionError(f"{name}: the answers hold a single class, so {name} is undefined")


def _not_constant(name: str, values: np.ndarray, *, answers: bool) -> None:
    if len(values) < 2 or np.all(values == values[0]):
        raise _fault(name, answers, "are constant (or a single row), so the correlation is undefined")


# ---- classification ------------------------------------------------------------------------------------------


def _accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    truth, pred = label_keys(y_true), label_keys(y_pred)
    if len(truth) != len(pred) or not len(truth):
        raise ValueError(
            f"accuracy needs as many predictions as answers (> 0), got {len(pred)} and {len(truth)}"
        )
    return float(np.mean(truth == pred))


def _balanced_accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn.metrics import balanced_accuracy_score

    return float(balanced_accuracy_score(label_keys(y_true), label_keys(y_pred)))


def _f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn.metrics import f1_score

    truth = _binary_truth("f1", y_true)
    keys = label_keys(y_pred)
    bad = sorted(set(keys.tolist()) - {"0.0", "1.0"})
    if bad:
        raise InvalidPrediction(f"f1: predictions must be 0/1 labels, found {bad[:5]}")
    return float(f1_score(truth, (keys == "1.0").astype(int), zero_division=0.0))


def _f1_averaged(average: str) -> Callable[[np.ndarray, np.ndarray], float]:
    def f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
        from sklearn.metrics import f1_score

        return float(f1_score(label_keys(y_true), label_keys(y_pred), average=average, zero_division=0.0))

    return f1


def _whole(name: str, values: np.ndarray, *, answers: bool) -> np.ndarray:
    array = _floats(name, values, answers=answers)
    if not np.all(array == np.round(array)):
        odd = array[array != np.round(array)][0]
        raise _fault(name, answers, f"must be whole-number ratings, found {odd:g}")
    return array.astype(int)


def _qwk(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn.metrics import cohen_kappa_score

    truth = _whole("qwk", y_true, answers=True)
    pred = _whole("qwk", y_pred, answers=False)
    value = float(cohen_kappa_score(truth, pred, weights="quadratic"))
    if not math.isfinite(value):
        raise CompetitionError(
            "qwk: the answers and predictions hold one and the same rating, so kappa is undefined"
        )
    return value


def _auc(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    truth = _binary_truth("auc", y_true)
    _two_classes("auc", truth)
    return float(roc_auc_score(truth, _floats("auc", y_pred, answers=False)))


def _probabilities(name: str, y_pred: np.ndarray) -> np.ndarray:
    pred = _floats(name, y_pred, answers=False)
    if (pred < 0).any() or (pred > 1).any():
        raise InvalidPrediction(f"{name}: predictions must be probabilities in [0, 1]")
    return pred


def _logloss(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn.metrics import log_loss

    truth = _binary_truth("logloss", y_true)
    pred = np.clip(_probabilities("logloss", y_pred), LOGLOSS_EPS, 1 - LOGLOSS_EPS)
    return float(log_loss(truth, pred, labels=[0, 1]))


def _multiclass_logloss(y_true: np.ndarray, y_pred: np.ndarray, label_column: str = "") -> float:
    """`y_true`: one-hot rows (n, C) or class indices (n,); `y_pred`: probabilities (n, C).

    `label_column` only matters when reading the answers (see validation.answer_table).
    """
    from sklearn.metrics import log_loss

    name = "multiclass_logloss"
    pred = _probabilities(name, y_pred)
    if pred.ndim != 2 or pred.shape[1] < 2:
        raise InvalidPrediction(f"{name}: predictions need one probability column per class (2 or more)")
    n_classes = pred.shape[1]
    truth = _floats(name, y_true, answers=True)
    if truth.ndim == 2:
        if truth.shape != pred.shape:
            raise CompetitionError(
                f"{name}: answers of shape {truth.shape} for predictions of shape {pred.shape}"
            )
        if not (np.isin(truth, (0.0, 1.0)).all() and (truth.sum(axis=1) == 1).all()):
            raise CompetitionError(f"{name}: the answers must be one-hot (one 1 per row, 0 elsewhere)")
        indices = truth.argmax(axis=1)
    else:
        indices = truth.astype(int)
        if not (np.all(indices == truth) and indices.min() >= 0 and indices.max() < n_classes):
            raise CompetitionError(f"{name}: the answers must be class indices in 0..{n_classes - 1}")
    # Kaggle's rule: clip to [eps, 1 - eps], then renormalise each row (a row of zeros becomes uniform).
    clipped = np.clip(pred, LOGLOSS_EPS, 1 - LOGLOSS_EPS)
    normalised = clipped / clipped.sum(axis=1, keepdims=True)
    return float(log_loss(indices, normalised, labels=np.arange(n_classes)))


def _map_at_k(y_true: np.ndarray, y_pred: np.ndarray, k: int = DEFAULT_MAP_K) -> float:
    """Kaggle's MAP@k: per row, sum of precision@i at each new hit in the first k, over min(|truth|, k)."""
    scores = []
    for truth, ranked in zip(np.ravel(y_true), np.ravel(y_pred), strict=True):
        actual = set(str(truth).split())
        if not actual:
            raise CompetitionError("map_at_k: an answer is empty")
        predicted = str(ranked).split()[:k]
        hits, total = 0, 0.0
        for i, label in enumerate(predicted):
            if label in actual and label not in predicted[:i]:
                hits += 1
                total += hits / (i + 1)
        scores.append(total / min(len(actual), k))
    return float(np.mean(scores))


# ---- regression ----------------------------------------------------------------------------------------------


def _regression(
    name: str, sklearn_name: str, transform: Callable[[np.ndarray], np.ndarray] | None = None
) -> Callable[[np.ndarray, np.ndarray], float]:
    def score(y_true: np.ndarray, y_pred: np.ndarray) -> float:
        import sklearn.metrics

        truth = _floats(name, y_true, answers=True)
        pred = _floats(name, y_pred, answers=False)
        if transform is not None:
            truth, pred = transform(truth), transform(pred)
        return float(getattr(sklearn.metrics, sklearn_name)(truth, pred))

    return score


def _rmse_log(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if np.any(_floats("rmse_log", y_true, answers=True) <= 0):
        raise CompetitionError("rmse_log: the answers hold values <= 0, whose logarithm is undefined")
    if np.any(_floats("rmse_log", y_pred, answers=False) <= 0):
        raise InvalidPrediction("rmse_log: predictions must be > 0 (their logarithm is taken)")
    return _regression("rmse_log", "root_mean_squared_error", np.log)(y_true, y_pred)


def _rmsle(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if np.any(_floats("rmsle", y_true, answers=True) < 0):
        raise CompetitionError("rmsle: the answers hold negative values")
    if np.any(_floats("rmsle", y_pred, answers=False) < 0):
        raise InvalidPrediction("rmsle: predictions must be >= 0")
    return _regression("rmsle", "root_mean_squared_log_error")(y_true, y_pred)


def _r2(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    truth = _floats("r2", y_true, answers=True)
    if np.all(truth == truth[0]):
        raise CompetitionError("r2: the answers are constant, so R² is undefined")
    return _regression("r2", "r2_score")(y_true, y_pred)


def _correlation(name: str, scipy_name: str) -> Callable[[np.ndarray, np.ndarray], float]:
    def score(y_true: np.ndarray, y_pred: np.ndarray) -> float:
        import scipy.stats

        truth = _floats(name, y_true, answers=True)
        pred = _floats(name, y_pred, answers=False)
        _not_constant(name, truth, answers=True)
        _not_constant(name, pred, answers=False)
        return float(getattr(scipy.stats, scipy_name)(truth, pred)[0])

    return score


def _smape(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Kaggle's SMAPE in percent; a row where both are 0 counts 0 (no library has this formula)."""
    truth = _floats("smape", y_true, answers=True)
    pred = _floats("smape", y_pred, answers=False)
    half_sum = (np.abs(truth) + np.abs(pred)) / 2
    ratio = np.divide(np.abs(pred - truth), half_sum, out=np.zeros_like(half_sum), where=half_sum != 0)
    return float(100 * np.mean(ratio))


# ---- the registry --------------------------------------------------------------------------------------------

_LOGLOSS_FORMULA = "logloss = -(1/N) * sum_i [ y_i log(p_i) + (1 - y_i) log(1 - p_i) ]"
_LIBRARY = (
    Metric(
        "accuracy",
        False,
        _accuracy,
        "accuracy = (number of correct predictions) / N",
        numeric=False,
        labels=True,
        aliases=("acc", "accuracy_score", "categorization_accuracy", "classification_accuracy"),
    ),
    Metric(
        "balanced_accuracy",
        False,
        _balanced_accuracy,
        "balanced accuracy = (1/C) * sum_c (correct predictions of class c) / (rows of class c)",
        numeric=False,
        labels=True,
        aliases=("balanced_accuracy_score", "bacc"),
    ),
    Metric(
        "auc",
        False,
        _auc,
        "ROC AUC = P(score of a random positive > score of a random negative), averaged over target columns",
        probability=True,
        binary_truth=True,
        aliases=(
            "roc_auc",
            "roc_auc_score",
            "auroc",
            "auc_roc",
            "mean_auc",
            "columnwise_auc",
            "column_wise_auc",
        ),
    ),
    Metric(
        "logloss",
        True,
        _logloss,
        _LOGLOSS_FORMULA + ", p clipped to [1e-15, 1-1e-15], averaged over target columns",
        probability=True,
        binary_truth=True,
        aliases=("log_loss", "binary_logloss", "binary_log_loss", "binary_crossentropy", "bce"),
    ),
    Metric(
        "multilabel_logloss",
        True,
        _logloss,
        "mean over target columns j of " + _LOGLOSS_FORMULA.replace("y_i", "y_ij").replace("p_i", "p_ij"),
        probability=True,
        binary_truth=True,
        aliases=("multi_label_logloss", "multilabel_log_loss", "multi_label_log_loss"),
    ),
    Metric(
        "multiclass_logloss",
        True,
        _multiclass_logloss,
        "logloss = -(1/N) * sum_i sum_c y_ic log(p_ic), p clipped to [1e-15, 1-1e-15] and each row renormalised",
        probability=True,
        scope="table",
        class_columns=True,
        params={"label_column": ""},
        aliases=(
            "multi_logloss",
            "mlogloss",
            "multiclass_log_loss",
            "multi_class_logloss",
            "multi_class_log_loss",
            "categorical_crossentropy",
        ),
    ),
    Metric(
        "f1",
        False,
        _f1,
        "F1 = 2 * precision * recall / (precision + recall) of the positive class 1",
        numeric=False,
        labels=True,
        binary_truth=True,
        aliases=("f1_score", "f1_binary", "binary_f1"),
    ),
    Metric(
        "f1_macro",
        False,
        _f1_averaged("macro"),
        "macro F1 = (1/C) * sum_c F1 of class c",
        numeric=False,
        labels=True,
        aliases=("macro_f1", "f1_macro_score"),
    ),
    Metric(
        "f1_micro",
        False,
        _f1_averaged("micro"),
        "micro F1 = F1 of the true/false positives and false negatives counted over all classes",
        numeric=False,
        labels=True,
        aliases=("micro_f1",),
    ),
    Metric(
        "f1_weighted",
        False,
        _f1_averaged("weighted"),
        "weighted F1 = sum_c (rows of class c / N) * F1 of class c",
        numeric=False,
        labels=True,
        aliases=("weighted_f1",),
    ),
    Metric(
        "qwk",
        False,
        _qwk,
        "QWK = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij, w_ij = (i - j)^2 / (C - 1)^2 (Cohen's kappa, quadratic)",
        aliases=("quadratic_weighted_kappa", "kappa", "cohen_kappa", "weighted_kappa", "quadratic_kappa"),
    ),
    Metric(
        "map_at_k",
        False,
        _map_at_k,
        "MAP@k = (1/N) * sum_i (1/min(|y_i|, k)) * sum_{j<=k} precision@j * [p_ij is a new hit]",
        numeric=False,
        ranked=True,
        params={"k": DEFAULT_MAP_K},
        aliases=("map", "mapk", "map@k", "mean_average_precision", "mean_average_precision_at_k"),
    ),
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
        _regression("mcrmse", "root_mean_squared_error"),
        "MCRMSE = (1/M) * sum_j sqrt( (1/N) * sum_i (y_ij - p_ij)^2 ) over the M target columns",
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
)

METRICS: dict[str, Metric] = {m.name: m for m in _LIBRARY}
ALIASES: dict[str, str] = {alias: m.name for m in _LIBRARY for alias in m.aliases}
# `map@3`, `map_at_3`, `map3`, `map_3`: MAP@k with k set.
_MAP_AT = re.compile(r"^map(?:_?at_?|@|_)?(\d+)$")


def _key(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def resolve_metric(name: str) -> tuple[Metric, dict[str, Any]]:
    """The metric called `name` (case-insensitive, aliases accepted) and the parameters the name sets.

    `map@3` gives (map_at_k, {"k": 3}); other names set none. Unknown names raise CompetitionError.
    """
    key = _key(name)
    match = _MAP_AT.match(key)
    if match:
        metric, params = METRICS["map_at_k"], {"k": int(match.group(1))}
        metric.resolve_params(params)
        return metric, params
    key = ALIASES.get(key, key)
    if key not in METRICS:
        raise CompetitionError(f"unknown metric {name!r}; known metrics: {', '.join(sorted(METRICS))}")
    return METRICS[key], {}


def get_metric(name: str) -> Metric:
    """The metric called `name`, its parameter defaults updated by what the name sets (`map@3`: k=3)."""
    metric, params = resolve_metric(name)
    return replace(metric, params={**metric.params, **params}) if params else metric
