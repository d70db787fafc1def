"""A library of Kaggle metrics on sklearn.metrics and scipy.stats, with their directions and valid predictions.

A metric of scope "column" scores one target column (`y_true`, `y_pred` as 1-D arrays); a competition with
several target columns scores each column and averages them (so several 0/1 columns under `logloss` give the
multi-label log loss, under `auc` the mean column-wise ROC AUC). A metric of scope "table" scores all target
columns at once (2-D arrays, one column per target): `multiclass_logloss` over one probability column per class.
A "grouped" metric (`log_mae`) also takes each row's group, the values of the answers' column named by its
parameter `group_column`: `metric.score(y_true, y_pred, groups=...)`; for `masked_mae` that column is a 0/1 mask
of the rows to score. `mcrmse` may name the target columns it scores (`scored_columns`, where the submission
holds more: stanford-covid-vaccine's 3 of 5). The metrics of single MLE-bench competitions are in
`numeric_metrics`.

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

from swarm.competitions import box3d_metrics, box_metrics, sequence_metrics
from swarm.competitions.errors import CompetitionError
from swarm.competitions.numeric_metrics import (
    DEFAULT_PF_BETA,
    JIGSAW_IDENTITIES,
    UW_ROW_COLUMNS,
    dice_hausdorff,
    jigsaw_bias_auc,
    laplace_log_likelihood,
    laplace_scored_rows,
    masked_mae,
    mean_angular_error,
    probabilistic_f1,
    spine_weighted_logloss,
    tpr_weighted_auc,
    trip_distance_error,
)

LOGLOSS_EPS = 1e-15
KL_EPS = 1e-15  # Kaggle's KL divergence metric clips predictions to [eps, 1 - eps]
LOG_MAE_FLOOR = 1e-9  # log(MAE) of a group predicted exactly would be -inf
DEFAULT_MAP_K = 5
DEFAULT_FBETA = 0.5  # vesuvius-challenge-ink-detection's F0.5
# IoU thresholds 0.5, 0.55, ..., 0.95 of tgs-salt-identification-challenge, as its grade.py builds them
IOU_THRESHOLDS = np.arange(0.5, 1.0, 0.05)
EMPTY_MASKS = ("", "-")  # an empty mask: a blank cell, or "-" (google-research-identify-contrails)


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
    `params`: the metric's parameters with their defaults (e.g. `{"k": 5}`);
    `empty_ok`: an empty cell is a valid prediction (no labels, no words, an empty mask), not a missing one;
    `grouped`: the metric also takes each row's group (`score(..., groups=...)`), the values of the answers'
    column named by the parameter `group_column`; without them all rows are one group, unless `group_column`
    is set, which is then an error of the caller;
    `perfect`: the prediction a perfect submission makes for an answer cell where it is not the answer itself
    (kuzushiji's box centres for its boxes), so the harness can check held-out labels are scorable.
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
    empty_ok: bool = False
    grouped: bool = False
    perfect: Callable[[Any], str] | None = field(default=None, compare=False)
    # The answer rows the grader scores, from the answers (text), the id column and the targets: a 0/1 array
    # (osic's rows with an FVC, each patient's three latest weeks); None: every row.
    scored_rows: Callable[[pd.DataFrame, str, tuple[str, ...]], np.ndarray] | None = field(
        default=None, compare=False
    )

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

    def score(self, y_true: Any, y_pred: Any, groups: Any = None, **params: Any) -> float:
        """The score of one column (scope "column") or of all target columns (scope "table").

        `groups`: for a grouped metric, each row's group (the answers' `group_column`), in the rows' order.
        """
        y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
        if len(y_true) != len(y_pred):
            raise CompetitionError(f"{self.name}: {len(y_pred)} predictions for {len(y_true)} answers")
        if len(y_true) == 0:
            raise CompetitionError(f"{self.name}: there is nothing to score (0 rows)")
        values = self.resolve_params(params)
        if self.grouped:
            values["groups"] = self._groups(groups, len(y_true), values)
        elif groups is not None:
            raise CompetitionError(f"{self.name} is not a grouped metric: it takes no groups")
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # sklearn/scipy warnings on degenerate input; we check those ourselves
            return float(self.fn(y_true, y_pred, **values))

    def _groups(self, groups: Any, rows: int, params: dict[str, Any]) -> np.ndarray | None:
        """`groups` checked against the rows; where none are passed, an error if the parameters name the
        answers' group column (`group_column`) or columns (`identity_columns`)."""
        if groups is None:
            single = params.get("group_column") or ""
            key = "identity_columns" if params.get("identity_columns") else "row_columns"
            several = list(params.get(key) or ())
            if single:
                raise CompetitionError(
                    f"{self.name}: no groups were passed, but group_column={single!r} names them: the caller "
                    f"must read the answers' column {single!r} and pass each scored row's value as `groups`"
                )
            if several:
                raise CompetitionError(
                    f"{self.name}: no groups were passed, but {key}={several!r} names them: the caller "
                    f"must read the answers' columns {', '.join(several)} and pass each scored row's values as "
                    "`groups`"
                )
            return None
        # a column of groups, or a row of several (jigsaw's identities)
        groups = np.asarray(groups, dtype=object)
        groups = groups.reshape(-1) if groups.ndim != 2 or groups.shape[1] == 1 else groups
        if len(groups) != rows:
            raise CompetitionError(f"{self.name}: {len(groups)} groups for {rows} rows")
        return groups


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _column_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _column_names(value: Any) -> bool:
    return (
        isinstance(value, list | tuple)
        and all(_column_name(v) for v in value)
        and len(set(value)) == len(value)
    )


def _positive_number(value: Any) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    )


def _open_fraction(value: Any) -> bool:
    return _positive_number(value) and value < 1


PARAM_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "k": (_positive_int, "a positive integer"),
    "label_column": (_column_name, "a column name"),
    "group_column": (_column_name, "a column name"),
    "identity_columns": (_column_names, "a list of distinct column names"),
    "height": (_positive_int, "a positive integer (0: unknown)"),
    "width": (_positive_int, "a positive integer (0: unknown)"),
    "beta": (_positive_number, "a positive number"),
    "iou": (_open_fraction, "a number between 0 and 1"),
    "scored_columns": (_column_names, "a list of distinct target column names (empty: all)"),
    "row_columns": (_column_names, "a list of distinct column names"),
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


def _text(value: Any) -> str:
    """A cell as text; None and NaN (an empty CSV cell read by pandas) are ""."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _label_sets(values: np.ndarray) -> list[set[str]]:
    return [set(_text(cell).split()) for cell in np.ravel(values)]


def _multilabel_f1_micro(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Micro F1 over (row, label) pairs of space-separated label sets, as MLE-bench grades it (sklearn's
    MultiLabelBinarizer whose classes are the answers' labels): a predicted label that no answer holds is
    dropped, not counted as a false positive; repeats in a cell count once."""
    truth, pred = _label_sets(y_true), _label_sets(y_pred)
    classes = set().union(*truth)
    if not classes:
        raise CompetitionError("multilabel_f1_micro: the answers hold no label at all, so F1 is undefined")
    tp = fp = fn = 0
    for actual, predicted in zip(truth, pred, strict=True):
        predicted &= classes
        hits = len(actual & predicted)
        tp, fp, fn = tp + hits, fp + len(predicted) - hits, fn + len(actual) - hits
    return 2 * tp / (2 * tp + fp + fn)


def _word_jaccard(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over rows of |A & B| / |A | B| of the rows' lower-cased word sets (words split on whitespace); a
    row where both are empty counts 0 (sklearn's jaccard_score, as chaii-hindi-and-tamil-question-answering
    grades; tweet-sentiment-extraction's grade.py divides by zero there)."""
    scores = []
    for truth, pred in zip(np.ravel(y_true), np.ravel(y_pred), strict=True):
        a, b = set(_text(pred).lower().split()), set(_text(truth).lower().split())
        union = len(a | b)
        scores.append(len(a & b) / union if union else 0.0)
    return float(np.mean(scores))


def _mcc(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    from sklearn.metrics import matthews_corrcoef

    return float(matthews_corrcoef(label_keys(y_true), label_keys(y_pred)))


def _table(name: str, y_true: np.ndarray, y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(answers, predictions) as float tables of the same shape, one column per class (2 or more)."""
    pred = _floats(name, y_pred, answers=False)
    if pred.ndim != 2 or pred.shape[1] < 2:
        raise InvalidPrediction(f"{name}: predictions need one column per class (2 or more)")
    truth = _floats(name, y_true, answers=True)
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
    _probabilities(name, pred)
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
    pred = _floats(name, y_pred, answers=False)
    if pred.ndim != 2 or pred.shape[1] < 2:
        raise InvalidPrediction(f"{name}: predictions need one score column per label (2 or more)")
    if np.shape(y_true) != pred.shape:
        raise CompetitionError(
            f"{name}: answers of shape {np.shape(y_true)} for predictions of shape {pred.shape}"
        )
    truth = _binary_truth(name, y_true).reshape(pred.shape)
    weights = truth.sum(axis=1)
    rows = weights > 0
    if not rows.any():
        raise CompetitionError(f"{name}: no row of the answers holds a label, so {name} is undefined")
    return float(label_ranking_average_precision_score(truth[rows], pred[rows], sample_weight=weights[rows]))


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


def _mcrmse(y_true: np.ndarray, y_pred: np.ndarray, scored_columns: Any = ()) -> float:
    """The RMSE of one target column, which `score_frame` averages over the columns: MCRMSE. `scored_columns`
    picks the columns before they get here (`validation.scored_target_columns`: stanford-covid-vaccine's
    submission holds 5 targets, 3 of which are scored)."""
    return _regression("mcrmse", "root_mean_squared_error")(y_true, y_pred)


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


def _log_mae(
    y_true: np.ndarray, y_pred: np.ndarray, groups: np.ndarray | None = None, group_column: str = ""
) -> float:
    """Mean over groups of log(MAE of the group), the MAE floored at 1e-9 (champs-scalar-coupling: the groups
    are the coupling `type`s); without groups, all rows are one group."""
    truth = _floats("log_mae", y_true, answers=True)
    pred = _floats("log_mae", y_pred, answers=False)
    codes = np.zeros(len(truth), dtype=int) if groups is None else pd.factorize(groups)[0]
    if (codes < 0).any():
        raise CompetitionError(f"log_mae: the answers' group column {group_column!r} has missing values")
    maes = np.bincount(codes, weights=np.abs(truth - pred)) / np.bincount(codes)
    return float(np.mean(np.log(np.maximum(maes, LOG_MAE_FLOOR))))


# ---- masks as run-length encodings --------------------------------------------------------------------------
# A cell is "start length start length ...": 1-indexed pixel numbers, whichever way the competition numbers
# its pixels (top to bottom then left to right in MLE-bench's rle_decode; vesuvius the other way): the metrics
# compare the sets of pixels, so they need no image size. As MLE-bench's rle_decode: the starts sorted, starts
# and lengths positive, runs not overlapping; a blank cell (or "-") is an empty mask. With the params `height`
# and `width` set, a run past the image's last pixel is invalid (MLE-bench's rle_decode silently cuts it off).


def _runs(name: str, cell: Any, *, answers: bool, pixels: int = 0) -> np.ndarray:
    """The runs of one cell as [first, end) pixel offsets (0-indexed), in order; (0, 2) for an empty mask."""
    text = _text(cell).strip()
    if text in EMPTY_MASKS:
        return np.zeros((0, 2), dtype=np.int64)
    shown = text if len(text) <= 40 else text[:37] + "..."
    try:
        numbers = np.array([int(token) for token in text.split()], dtype=np.int64)
    except (ValueError, OverflowError):
        raise _fault(
            name, answers, f"must be run-length encodings ('start length ...'), found {shown!r}"
        ) from None
    if len(numbers) % 2:
        raise _fault(
            name, answers, f"must hold pairs 'start length', found {len(numbers)} numbers in {shown!r}"
        )
    starts, lengths = numbers[0::2], numbers[1::2]
    if (starts < 1).any() or (lengths < 1).any():
        raise _fault(
            name, answers, f"must hold positive starts (1 is the first pixel) and lengths: {shown!r}"
        )
    ends = starts - 1 + lengths
    if (np.diff(starts) < 0).any():
        raise _fault(name, answers, f"must list runs by increasing start: {shown!r}")
    if (starts[1:] - 1 < ends[:-1]).any():
        raise _fault(name, answers, f"hold overlapping runs: {shown!r}")
    if pixels and ends[-1] > pixels:
        raise _fault(name, answers, f"hold a run past the image's last pixel {pixels}: {shown!r}")
    return np.column_stack([starts - 1, ends])


def _pixels_below(runs: np.ndarray, x: np.ndarray) -> np.ndarray:
    """How many pixels of `runs` (sorted, disjoint) lie below each offset in `x`."""
    if not len(runs):
        return np.zeros(len(x), dtype=np.int64)
    starts, ends = runs[:, 0], runs[:, 1]
    before = np.concatenate([[0], np.cumsum(ends - starts)])
    i = np.searchsorted(starts, x, side="left")  # runs starting below x: all but the last end below it too
    overshoot = np.where(i > 0, np.maximum(ends[np.maximum(i - 1, 0)] - x, 0), 0)
    return before[i] - overshoot


def _mask_counts(
    name: str, y_true: np.ndarray, y_pred: np.ndarray, height: int, width: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: (true pixels, predicted pixels, pixels in both)."""
    pixels = height * width if height and width else 0
    rows = list(zip(np.ravel(y_true), np.ravel(y_pred), strict=True))
    true_n, pred_n, both = (np.zeros(len(rows), dtype=np.int64) for _ in range(3))
    for row, (truth_cell, pred_cell) in enumerate(rows):
        truth = _runs(name, truth_cell, answers=True, pixels=pixels)
        pred = _runs(name, pred_cell, answers=False, pixels=pixels)
        true_n[row] = int((truth[:, 1] - truth[:, 0]).sum())
        pred_n[row] = int((pred[:, 1] - pred[:, 0]).sum())
        inside = _pixels_below(truth, pred[:, 1]) - _pixels_below(truth, pred[:, 0])
        both[row] = int(inside.sum())
    return true_n, pred_n, both


def _rle_dice(y_true: np.ndarray, y_pred: np.ndarray, height: int = 0, width: int = 0) -> float:
    """Mean over rows of 2|X & Y| / (|X| + |Y|), 1 where both masks are empty (hubmap-kidney-segmentation)."""
    t, p, both = _mask_counts("rle_dice", y_true, y_pred, height, width)
    total = t + p
    return float(np.mean(np.divide(2 * both, total, out=np.ones(len(t)), where=total > 0)))


def _rle_dice_global(y_true: np.ndarray, y_pred: np.ndarray, height: int = 0, width: int = 0) -> float:
    """2|X & Y| / (|X| + |Y|) over the pixels of all rows together (google-research-identify-contrails)."""
    t, p, both = _mask_counts("rle_dice_global", y_true, y_pred, height, width)
    if not t.sum():
        raise CompetitionError(
            "rle_dice_global: the answers' masks are all empty, so the global Dice is undefined"
        )
    return float(2 * both.sum() / (t.sum() + p.sum()))


def _rle_iou(y_true: np.ndarray, y_pred: np.ndarray, height: int = 0, width: int = 0) -> float:
    """Mean over rows of |X & Y| / |X | Y|, 1 where both masks are empty."""
    t, p, both = _mask_counts("rle_iou", y_true, y_pred, height, width)
    union = t + p - both
    return float(np.mean(np.divide(both, union, out=np.ones(len(t)), where=union > 0)))


def _rle_iou_map(y_true: np.ndarray, y_pred: np.ndarray, height: int = 0, width: int = 0) -> float:
    """tgs-salt-identification-challenge: per row (one object per mask) the share of IoU thresholds 0.5, 0.55,
    ..., 0.95 that the IoU exceeds; 1 where both masks are empty, 0 where only one is; averaged over rows."""
    t, p, both = _mask_counts("rle_iou_map", y_true, y_pred, height, width)
    union = t + p - both
    iou = np.divide(both, union, out=np.zeros(len(t)), where=union > 0)
    hits = (iou[:, None] > IOU_THRESHOLDS[None, :]).mean(axis=1)
    return float(np.mean(np.where(union == 0, 1.0, hits)))


def _rle_fbeta(
    y_true: np.ndarray, y_pred: np.ndarray, beta: float = DEFAULT_FBETA, height: int = 0, width: int = 0
) -> float:
    """Mean over rows of the pixels' F-beta (vesuvius-challenge-ink-detection: F0.5), 0 where both masks are
    empty (sklearn's fbeta_score)."""
    t, p, both = _mask_counts("rle_fbeta", y_true, y_pred, height, width)
    b2 = float(beta) ** 2
    denominator = (1 + b2) * both + b2 * (t - both) + (p - both)
    return float(
        np.mean(np.divide((1 + b2) * both, denominator, out=np.zeros(len(t)), where=denominator > 0))
    )


# ---- the registry --------------------------------------------------------------------------------------------

_LOGLOSS_FORMULA = "logloss = -(1/N) * sum_i [ y_i log(p_i) + (1 - y_i) log(1 - p_i) ]"


def _mask_metric(
    name: str, fn: Callable[..., float], formula: str, aliases: tuple[str, ...], **params: Any
) -> Metric:
    """A higher-is-better metric over run-length encoded masks: text cells, an empty one an empty mask, and the
    optional image size (`height`, `width`) that bounds the runs."""
    return Metric(
        name,
        False,
        fn,
        formula,
        numeric=False,
        empty_ok=True,
        params={**params, "height": 0, "width": 0},
        aliases=aliases,
    )


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
        "multilabel_f1_micro",
        False,
        _multilabel_f1_micro,
        "micro F1 = 2 TP / (2 TP + FP + FN) over all (row, label) pairs of space-separated label sets; a "
        "predicted label no answer holds is ignored",
        numeric=False,
        empty_ok=True,
        aliases=(
            "f1_micro_multilabel",
            "micro_f1_multilabel",
            "multilabel_micro_f1",
            "multilabel_f1",
            "multi_label_f1",
            "multi_label_f1_micro",
            "f1_micro_label_sets",
            "label_set_f1",
        ),
    ),
    Metric(
        "word_jaccard",
        False,
        _word_jaccard,
        "Jaccard = (1/N) * sum_i |A_i & B_i| / |A_i | B_i| of the lower-cased word sets of prediction and "
        "answer (0 where both are empty)",
        numeric=False,
        empty_ok=True,
        aliases=(
            "jaccard",
            "word_level_jaccard",
            "word_level_jaccard_score",
            "word_jaccard_score",
            "jaccard_score",
            "mean_jaccard",
            "jaccard_similarity",
        ),
    ),
    Metric(
        "kendall_tau",
        False,
        sequence_metrics.kendall_tau,
        "Kendall tau = 1 - 4 * sum_i S_i / sum_i n_i (n_i - 1), S_i the swaps of adjacent ids that sort row i's "
        "predicted order of its n_i space-separated ids into the true order (each prediction lists them all once)",
        numeric=False,
        aliases=(
            "kendall",
            "kendalls_tau",
            "kendall's_tau",
            "kendall_tau_correlation",
            "kendall_rank_correlation",
            "order_kendall_tau",
        ),
    ),
    Metric(
        "mean_levenshtein",
        True,
        sequence_metrics.mean_levenshtein,
        "mean Levenshtein = (1/N) * sum_i Levenshtein(p_i, y_i), the fewest one-character insertions, deletions "
        "and substitutions turning the predicted text into the true one",
        numeric=False,
        empty_ok=True,
        aliases=(
            "levenshtein",
            "levenshtein_distance",
            "mean_levenshtein_distance",
            "average_levenshtein_distance",
            "edit_distance",
            "mean_edit_distance",
        ),
    ),
    Metric(
        "token_error_rate",
        True,
        sequence_metrics.token_error_rate,
        "token error rate = sum_i Levenshtein(P_i, Y_i) / sum_i |Y_i| over sequences of space-separated "
        "whole-number labels, an edit being one whole label (can exceed 1)",
        numeric=False,
        aliases=(
            "sequence_error_rate",
            "levenshtein_error_rate",
            "gesture_error_rate",
            "edit_distance_rate",
            "summed_levenshtein_rate",
        ),
    ),
    Metric(
        "answer_span_f1",
        False,
        sequence_metrics.answer_span_f1,
        "micro F1 = share of rows predicted right: a prediction ('<start>:<end>' token span, YES or NO) is right "
        "where it is one of the row's space-separated true answers, a blank where the row has none "
        "(tensorflow2-question-answering's grade.py)",
        numeric=False,
        empty_ok=True,
        perfect=sequence_metrics.first_answer,
        aliases=("nq_micro_f1", "natural_questions_f1", "answer_f1", "span_micro_f1", "qa_micro_f1"),
    ),
    Metric(
        "voc_box_map",
        False,
        box_metrics.voc_box_map,
        "mAP = mean over the answers' classes of sklearn's average precision of (is true, confidence) pairs: "
        "predicted boxes '<label> <conf> <x_min> <y_min> <x_max> <y_max>' matched by confidence to a true box "
        "with IoU > iou (default 0.5), unmatched true boxes (1, 0), rows with neither (0, 0) "
        "(PASCAL VOC mAP as siim-covid19-detection's grade.py)",
        numeric=False,
        empty_ok=True,
        params={"iou": box_metrics.VOC_IOU},
        aliases=("pascal_voc_map", "voc_map", "box_map", "detection_map", "map_iou_boxes"),
    ),
    Metric(
        "coco_box_map",
        False,
        box_metrics.coco_box_map,
        "COCO mAP at one IoU threshold iou (default 0.4): per class of the answers, precision at 101 recall "
        "points of boxes '<class> <conf> <x_min> <y_min> <x_max> <y_max>' matched greedily by confidence "
        "(IoU >= iou, corners read as COCO's x, y, width, height), averaged "
        "(vinbigdata-chest-xray-abnormalities-detection's grade.py, pycocotools' COCOeval)",
        numeric=False,
        empty_ok=True,
        params={"iou": box_metrics.COCO_IOU},
        aliases=("coco_map", "cocoeval_map", "vinbigdata_map", "coco_map_at_iou"),
    ),
    Metric(
        "lyft_3d_map",
        False,
        box3d_metrics.lyft_3d_map,
        "3-D mAP = mean over rows (samples) and IoU thresholds 0.5, 0.55, ..., 0.95 of the mean over the row's true "
        "classes of the AP of objects '<conf> <x> <y> <z> <width> <length> <height> <yaw> <class>' matched "
        "greedily by confidence (IoU of the boxes' volumes above the threshold) "
        "(3d-object-detection-for-autonomous-vehicles' grade.py and mAP_evaluation.py)",
        numeric=False,
        empty_ok=True,
        perfect=box3d_metrics.with_confidence,
        aliases=("lyft_map", "map_3d", "3d_map", "lyft_3d_object_map", "mean_average_precision_3d"),
    ),
    Metric(
        "point_in_box_f1",
        False,
        sequence_metrics.point_in_box_f1,
        "F1 = 2 TP / (2 TP + FP + FN) over all rows: each true box '<label> x y w h', in order, takes the first "
        "unused predicted point '<label> x y' of its label strictly inside it (x < px < x + w, y < py < y + h)",
        numeric=False,
        empty_ok=True,
        perfect=sequence_metrics.box_centres,
        aliases=(
            "kuzushiji_f1",
            "center_point_f1",
            "centre_point_f1",
            "point_box_f1",
            "points_in_boxes_f1",
        ),
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
    _mask_metric(
        "rle_dice",
        _rle_dice,
        "Dice = (1/N) * sum_i 2|X_i & Y_i| / (|X_i| + |Y_i|) of run-length encoded masks (1 where both are "
        "empty)",
        ("dice", "mean_dice", "dice_coefficient", "mean_dice_coefficient", "sorensen_dice", "dice_rle"),
    ),
    _mask_metric(
        "rle_dice_global",
        _rle_dice_global,
        "global Dice = 2|X & Y| / (|X| + |Y|) of the pixels of all run-length encoded masks together",
        ("global_dice", "dice_global", "global_dice_coefficient"),
    ),
    _mask_metric(
        "rle_iou",
        _rle_iou,
        "IoU = (1/N) * sum_i |X_i & Y_i| / |X_i | Y_i| of run-length encoded masks (1 where both are empty)",
        ("iou", "mean_iou", "intersection_over_union", "iou_rle"),
    ),
    _mask_metric(
        "rle_iou_map",
        _rle_iou_map,
        "IoU mAP = (1/N) * sum_i (1/10) * sum_{t=0.5,0.55,...,0.95} [IoU_i > t] of run-length encoded masks "
        "(1 where both are empty, 0 where one is)",
        ("iou_map", "map_iou", "mean_average_precision_iou", "iou_threshold_map"),
    ),
    _mask_metric(
        "rle_fbeta",
        _rle_fbeta,
        "F-beta = (1/N) * sum_i (1+b^2) TP_i / ((1+b^2) TP_i + b^2 FN_i + FP_i) over the pixels of "
        "run-length encoded masks, b = beta (default 0.5; 0 where both are empty)",
        ("rle_f_beta", "fbeta_rle", "rle_f05", "dice_f05"),
        beta=DEFAULT_FBETA,
    ),
    Metric(
        "jigsaw_bias_auc",
        False,
        jigsaw_bias_auc,
        "0.25 * AUC + 0.25 * sum over {subgroup, BPSN, BNSP} of (mean_i AUC_i^-5)^(-1/5), the AUCs of each identity "
        "i of identity_columns (the answers' columns beside the target), answers, predictions and identities "
        "made 0/1 at 0.5 (jigsaw-unintended-bias's grade.py)",
        probability=True,
        params={"identity_columns": list(JIGSAW_IDENTITIES)},
        grouped=True,
        aliases=("bias_auc", "jigsaw_bias", "unintended_bias_auc", "generalized_mean_bias_auc"),
    ),
    Metric(
        "masked_mae",
        True,
        masked_mae,
        "masked MAE = (1/|S|) * sum_{i in S} |y_i - p_i| over the rows S whose value in the answers' column "
        "group_column is 0 (ventilator: u_out, the inspiratory phase; unset: all rows)",
        params={"group_column": ""},
        grouped=True,
        aliases=(
            "mae_masked",
            "masked_mean_absolute_error",
            "inspiratory_mae",
            "mae_inspiratory",
            "inspiratory_phase_mae",
        ),
    ),
    Metric(
        "tpr_weighted_auc",
        False,
        tpr_weighted_auc,
        "weighted AUC = (2 * A[0, 0.4] + 1 * A[0.4, 1]) / 1.4, A[a, b] = integral over FPR in [0, 1] of "
        "clip(TPR(FPR), a, b) - a, the ROC curve's area between TPR a and b",
        probability=True,
        binary_truth=True,
        aliases=(
            "weighted_auc",
            "alaska_weighted_auc",
            "alaska2_weighted_auc",
            "tpr_band_weighted_auc",
        ),
    ),
    Metric(
        "mean_angular_error",
        True,
        mean_angular_error,
        "mean angular error = (1/N) * sum_i arccos(clip(sin z_i sin q_i cos(a_i - b_i) + cos z_i cos q_i, "
        "-1, 1)) of true (a, z) and predicted (b, q) (azimuth, zenith) in radians, the target columns in that "
        "order",
        scope="table",
        aliases=(
            "angular_error",
            "mean_angular_distance",
            "angular_distance",
            "angular_dist_score",
            "mean_angular_error_radians",
        ),
    ),
    Metric(
        "laplace_log_likelihood",
        False,
        laplace_log_likelihood,
        "Laplace LL = (1/N) * sum_i [ -sqrt(2) * min(|y_i - p_i|, 1000) / s_i - ln(sqrt(2) * s_i) ], "
        "s_i = max(c_i, 70), over the target columns FVC p and Confidence c (in that order), on the answers' rows "
        "with an FVC, each patient's three latest weeks (ids <Patient>_<Week>)",
        scope="table",
        scored_rows=laplace_scored_rows,
        aliases=(
            "modified_laplace_log_likelihood",
            "laplace_ll",
            "laplace_likelihood",
            "osic_laplace_log_likelihood",
            "lll",
        ),
    ),
    Metric(
        "probabilistic_f1",
        False,
        probabilistic_f1,
        "pF-beta = (1+b^2) pP * pR / (b^2 pP + pR), pP = sum_{y=1} p / sum p, pR = sum_{y=1} p / #positives, "
        "b = beta (default 1: pF1; 0 when pP or pR is 0)",
        probability=True,
        binary_truth=True,
        params={"beta": DEFAULT_PF_BETA},
        aliases=(
            "pf1",
            "pfbeta",
            "pf_beta",
            "probabilistic_f1_score",
            "probabilistic_f_score",
            "probabilistic_fbeta",
        ),
    ),
    Metric(
        "spine_weighted_logloss",
        True,
        spine_weighted_logloss,
        "spine weighted log loss = mean over exams e of sum_j w_ej l_ej / sum_j w_ej, over each exam's rows "
        "`<exam>_<label>` (ids from the answers' column group_column, default row_id), l the binary log loss "
        "(p clipped to [1e-15, 1-1e-15]), w 7 (14 when positive) for patient_overall, 1 (2) for C1..C7 "
        "(rsna-2022-cervical-spine-fracture-detection)",
        probability=True,
        binary_truth=True,
        params={"group_column": "row_id"},
        grouped=True,
        aliases=(
            "cervical_spine_logloss",
            "rsna_spine_logloss",
            "spine_fracture_logloss",
            "rsna_2022_weighted_logloss",
        ),
    ),
    Metric(
        "trip_distance_error",
        True,
        trip_distance_error,
        "trip distance error = mean over trips (groups of the answers' column group_column) of (p50 + p95) / 2 of "
        "the haversine distances in metres (R = 6,371 km) between true and predicted (latitude, longitude) in "
        "degrees, the target columns in that order",
        scope="table",
        params={"group_column": ""},
        grouped=True,
        aliases=("gsdc_distance", "smartphone_decimeter", "haversine_p50_p95", "mean_p50_p95_distance_error"),
    ),
    Metric(
        "dice_hausdorff",
        False,
        dice_hausdorff,
        "score = 0.4 * mean over rows of Dice (rows with both masks empty left out) + 0.6 * (1 - mean over scans "
        "of the 3-D Hausdorff distance, scaled to the unit cube, over its diagonal) of run-length encoded masks, "
        "a scan's slices (ids <scan>_slice_<n>) stacked, each row's image size from the answers' row_columns",
        numeric=False,
        empty_ok=True,
        params={"row_columns": list(UW_ROW_COLUMNS)},
        grouped=True,
        aliases=("dice_3d_hausdorff", "uw_madison_metric", "dice_hausdorff_3d", "dice_and_hausdorff"),
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
