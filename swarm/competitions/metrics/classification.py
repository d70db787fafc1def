"""Classification metrics: class labels (accuracy, F1, MCC, QWK), probabilities of 0/1 answers (ROC AUC, log
loss) and tables of one column per class (multi-class log loss, KL divergence, lwlrap), on sklearn.metrics.

A "column" metric scores one target column; a competition with several target columns scores each and averages
them, so several 0/1 columns under `logloss` give the multi-label log loss, under `auc` the mean column-wise ROC
AUC. A "table" metric scores all target columns at once: `multiclass_logloss` over one probability column per
class.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics.base import (
    LOGLOSS_EPS,
    InvalidPrediction,
    Metric,
    binary_answers,
    fault,
    floats,
    label_keys,
    probabilities,
    two_classes,
)

KL_EPS = 1e-15  # Kaggle's KL divergence metric clips predictions to [eps, 1 - eps]


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

    truth = binary_answers("f1", y_true)
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
    array = floats(name, values, answers=answers)
    if not np.all(array == np.round(array)):
        odd = array[array != np.round(array)][0]
        raise fault(name, answers, f"must be whole-number ratings, found {odd:g}")
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

    truth = binary_answers("auc", y_true)
    two_classes("auc", truth)
    return float(roc_auc_score(truth, floats("auc", y_pred, answers=False)))


def _logloss(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn.metrics import log_loss

    truth = binary_answers("logloss", y_true)
    pred = np.clip(probabilities("logloss", y_pred), LOGLOSS_EPS, 1 - LOGLOSS_EPS)
    return float(log_loss(truth, pred, labels=[0, 1]))


def _multiclass_logloss(y_true: np.ndarray, y_pred: np.ndarray, label_column: str = "") -> float:
    """`y_true`: one-hot rows (n, C) or class indices (n,); `y_pred`: probabilities (n, C).

    `label_column` only matters when reading the answers (see validation.answer_table).
    """
    from sklearn.metrics import log_loss

    name = "multiclass_logloss"
    pred = probabilities(name, y_pred)
    if pred.ndim != 2 or pred.shape[1] < 2:
        raise InvalidPrediction(f"{name}: predictions need one probability column per class (2 or more)")
    n_classes = pred.shape[1]
    truth = floats(name, y_true, answers=True)
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


def _mcc(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn.metrics import matthews_corrcoef

    return float(matthews_corrcoef(label_keys(y_true), label_keys(y_pred)))


def _table(name: str, y_true: np.ndarray, y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(answers, predictions) as float tables of the same shape, one column per class (2 or more)."""
    pred = floats(name, y_pred, answers=False)
    if pred.ndim != 2 or pred.shape[1] < 2:
        raise InvalidPrediction(f"{name}: predictions need one column per class (2 or more)")
    truth = floats(name, y_true, answers=True)
    if truth.shape != pred.shape:
        raise CompetitionError(
            f"{name}: answers of shape {truth.shape} for predictions of shape {pred.shape}"
        )
    return truth, pred


def _kl_divergence(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Kaggle's KL divergence (hms-harmful-brain-activity-classification): the answers (votes) normalised to
    sum 1 per row, predictions that sum to 1 per row clipped to [eps, 1 - eps], sum_c y log(y / p) over the
    classes with y > 0, averaged over rows."""
    name = "kl_divergence"
    truth, pred = _table(name, y_true, y_pred)
    probabilities(name, pred)
    if (truth < 0).any():
        raise CompetitionError(f"{name}: the answers must be votes or probabilities (>= 0)")
    totals = truth.sum(axis=1, keepdims=True)
    if (totals <= 0).any():
        raise CompetitionError(f"{name}: a row of the answers sums to 0, so it is no distribution")
    truth = truth / totals
    sums = pred.sum(axis=1)
    off = [float(total) for total in sums if round(float(total), 5) != 1]
    if off:
        raise InvalidPrediction(
            f"{name}: each row's probabilities must sum to 1 (to 5 decimals); {len(off)} row(s) do not, "
            f"e.g. one sums to {off[0]:.6g}"
        )
    clipped = np.clip(pred, KL_EPS, 1 - KL_EPS)
    positive = truth > 0
    terms = np.zeros_like(truth)
    terms[positive] = truth[positive] * np.log(truth[positive] / clipped[positive])
    return float(terms.sum(axis=1).mean())


def _lwlrap(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Label-weighted label-ranking average precision (freesound-audio-tagging-2019): sklearn's LRAP with each
    row weighted by its number of true labels; rows without a true label are left out."""
    from sklearn.metrics import label_ranking_average_precision_score

    name = "lwlrap"
    pred = floats(name, y_pred, answers=False)
    if pred.ndim != 2 or pred.shape[1] < 2:
        raise InvalidPrediction(f"{name}: predictions need one score column per label (2 or more)")
    if np.shape(y_true) != pred.shape:
        raise CompetitionError(
            f"{name}: answers of shape {np.shape(y_true)} for predictions of shape {pred.shape}"
        )
    truth = binary_answers(name, y_true).reshape(pred.shape)
    weights = truth.sum(axis=1)
    rows = weights > 0
    if not rows.any():
        raise CompetitionError(f"{name}: no row of the answers holds a label, so {name} is undefined")
    return float(label_ranking_average_precision_score(truth[rows], pred[rows], sample_weight=weights[rows]))


# ---- the library's entries -----------------------------------------------------------------------------------

_LOGLOSS_FORMULA = "logloss = -(1/N) * sum_i [ y_i log(p_i) + (1 - y_i) log(1 - p_i) ]"

ENTRIES: tuple[Metric, ...] = (
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
        "kl_divergence",
        True,
        _kl_divergence,
        "KL = (1/N) * sum_i sum_c y_ic log(y_ic / p_ic) over y_ic > 0, each answer row normalised to sum 1, "
        "each prediction row summing to 1 and clipped to [1e-15, 1-1e-15]",
        probability=True,
        scope="table",
        aliases=(
            "kl",
            "kl_div",
            "kld",
            "kullback_leibler",
            "kullback_leibler_divergence",
            "kullback_liebler",
            "kullback_liebler_divergence",
        ),
    ),
    Metric(
        "mcc",
        False,
        _mcc,
        "MCC = (TP*TN - FP*FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)) (Matthews; 0 when undefined)",
        numeric=False,
        labels=True,
        aliases=(
            "matthews_corrcoef",
            "matthews_correlation",
            "matthews_correlation_coefficient",
            "phi_coefficient",
        ),
    ),
    Metric(
        "lwlrap",
        False,
        _lwlrap,
        "lwlrap = label ranking average precision with each row weighted by its number of true labels, over "
        "one score column per label",
        binary_truth=True,
        scope="table",
        aliases=(
            "label_weighted_lrap",
            "label_weighted_label_ranking_average_precision",
        ),
    ),
)
