"""Numeric metrics of single MLE-bench competitions, each following the competition's own grade.py.

- `masked_mae`: the MAE over the rows whose mask column is 0 (ventilator-pressure-prediction scores only the
  inspiratory phase, `u_out == 0`); a grouped metric, so the mask column reaches it as the answers' column
  named by its param `group_column`.
- `jigsaw_bias_auc`: the overall ROC AUC with power means of per-identity subgroup, BPSN and BNSP AUCs
  (jigsaw-unintended-bias-in-toxicity-classification); a grouped metric whose groups are the answers' identity
  columns (its param `identity_columns`), a column each.
- `tpr_weighted_auc`: the ROC AUC with the TPR band 0-0.4 weighted 2 and 0.4-1 weighted 1, normalised
  (alaska2-image-steganalysis).
- `mean_angular_error`: the mean angle between predicted and true (azimuth, zenith) directions
  (icecube-neutrinos-in-deep-ice).
- `laplace_log_likelihood`: the modified Laplace log likelihood of (FVC, Confidence)
  (osic-pulmonary-fibrosis-progression).
- `probabilistic_f1`: the probabilistic F-beta (pF1 with beta 1) of probabilities against 0/1 answers
  (rsna-breast-cancer-detection).
- `trip_distance_error`: per trip, the mean of the 50th and 95th percentile haversine distances between
  predicted and true positions, averaged over trips (smartphone-decimeter-2022); a grouped metric whose groups
  are the trips (the answers' column named by `group_column`, `tripId`).
- `dice_hausdorff`: 0.4 x the mean 2-D Dice of the rows' run-length encoded masks + 0.6 x (1 - the mean 3-D
  Hausdorff distance of each scan's stacked slices), as uw-madison-gi-tract-image-segmentation's grade.py; a grouped
  metric whose per-row values are the answers' slice id and image size (its param `row_columns`).
- `spine_weighted_logloss`: the weighted log loss of rsna-2022-cervical-spine-fracture-detection, whose
  submission has a row per (exam, label), `<StudyInstanceUID>_<label>`: each row weighted by its label and its
  answer, averaged per exam, then over exams; a grouped metric whose groups are the row ids themselves.

The library (`swarm.competitions.metrics`) lists them as `Metric` entries; it imports this module, so the
shared helpers and `InvalidPrediction` are read from it when a metric is called, not at import.
"""

from __future__ import annotations

import math
import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from swarm.competitions.errors import CompetitionError

# alaska2-image-steganalysis: (low TPR, high TPR, weight) of each band of the ROC curve
TPR_BANDS: tuple[tuple[float, float, float], ...] = ((0.0, 0.4, 2.0), (0.4, 1.0, 1.0))
# osic-pulmonary-fibrosis-progression: the confidence (sigma) floor and the error cap, in ml
LAPLACE_SIGMA_FLOOR = 70.0
LAPLACE_DELTA_CAP = 1000.0
LAPLACE_SCORED_WEEKS = 3  # grade.py scores each patient's three latest measured weeks
DEFAULT_PF_BETA = 1.0  # rsna-breast-cancer-detection's pF1
MASK_SCORED = 0.0  # a masked metric scores the rows whose mask value is this (ventilator: u_out == 0)
# The masked metrics: their `group_column` names a 0/1 mask column rather than groups to average over.
MASKED_METRICS = frozenset({"masked_mae"})
# rsna-2022-cervical-spine-fracture-detection: each label's weight for a negative and a positive answer (the
# "any" label `patient_overall` weighs 7 times a vertebra's, a positive twice a negative: grade.py's
# `competition_weights`), and the column whose values are the rows' `<StudyInstanceUID>_<label>` ids.
SPINE_LABEL_WEIGHTS: dict[str, tuple[float, float]] = {
    "patient_overall": (7.0, 14.0),
    **{f"C{k}": (1.0, 2.0) for k in range(1, 8)},
}
SPINE_ID_COLUMN = "row_id"
# jigsaw-unintended-bias-in-toxicity-classification's grade.py: the identities whose bias AUCs count, the power
# of their generalized mean, and the weight of the overall AUC and of each of the three means.
JIGSAW_IDENTITIES = (
    "male",
    "female",
    "homosexual_gay_or_lesbian",
    "christian",
    "jewish",
    "muslim",
    "black",
    "white",
    "psychiatric_or_mental_illness",
)
JIGSAW_POWER = -5
JIGSAW_WEIGHT = 0.25


def _library() -> ModuleType:
    """swarm.competitions.metrics, read at call time (it imports this module to list these metrics)."""
    from swarm.competitions import metrics

    return metrics


def _invalid(name: str, problem: str) -> CompetitionError:
    """The predictions' fault: an InvalidPrediction, which grading reports as an invalid submission."""
    return _library().InvalidPrediction(f"{name}: the predictions {problem}")


def _numbers(name: str, values: np.ndarray, *, answers: bool) -> np.ndarray:
    """`values` as finite floats; else an error blaming the answers or the predictions."""
    return _library()._floats(name, values, answers=answers)


def _columns(name: str, values: np.ndarray, wanted: str, *, answers: bool) -> np.ndarray:
    """A float table of two columns (`wanted` says which, in the sample's order)."""
    table = _numbers(name, values, answers=answers)
    if table.ndim != 2 or table.shape[1] != 2:
        shape = "x".join(map(str, table.shape))
        problem = f"need two columns, {wanted} (the sample submission's order), got shape {shape}"
        if answers:
            raise CompetitionError(f"{name}: the answers {problem}")
        raise _invalid(name, problem)
    return table


# ---- ventilator-pressure-prediction ------------------------------------------------------------------------


def masked_mae(
    y_true: np.ndarray, y_pred: np.ndarray, groups: np.ndarray | None = None, group_column: str = ""
) -> float:
    """Mean absolute error over the rows whose mask value (`groups`, the answers' column `group_column`) is 0;
    without a mask, over all rows. ventilator-pressure-prediction: the mask is `u_out`, and only the
    inspiratory phase (`u_out == 0`) is scored."""
    name = "masked_mae"
    truth = _numbers(name, y_true, answers=True)
    pred = _numbers(name, y_pred, answers=False)
    if groups is None:
        return float(np.mean(np.abs(truth - pred)))
    cells = pd.Series(np.asarray(groups, dtype=object))
    mask = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float)
    if cells.isna().any():
        raise CompetitionError(f"{name}: the answers' mask column {group_column!r} has missing values")
    if np.isnan(mask).any():
        odd = cells[np.isnan(mask)].iloc[0]
        raise CompetitionError(
            f"{name}: the answers' mask column {group_column!r} must hold numbers (0: scored), found {odd!r}"
        )
    scored = mask == MASK_SCORED
    if not scored.any():
        raise CompetitionError(
            f"{name}: no row has {group_column or 'the mask'} == 0, so there is nothing to score"
        )
    return float(np.mean(np.abs(truth[scored] - pred[scored])))


# ---- jigsaw-unintended-bias-in-toxicity-classification ---------------------------------------------------


def jigsaw_bias_auc(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    groups: np.ndarray | None = None,
    identity_columns: tuple[str, ...] = JIGSAW_IDENTITIES,
) -> float:
    """jigsaw-unintended-bias's final metric, as its grade.py computes it: toxicity, predictions and each
    identity (`groups`, the answers' `identity_columns`, a column each) are made 0/1 at 0.5 (a blank identity is
    0); then 0.25 * overall AUC + 0.25 * M_p(subgroup AUCs) + 0.25 * M_p(BPSN AUCs) + 0.25 * M_p(BNSP AUCs), M_p
    the power mean with p = -5 over the identities. Subgroup: the rows mentioning the identity; BPSN: its
    non-toxic rows and the toxic rows not mentioning it; BNSP: its toxic rows and the non-toxic rows not
    mentioning it. An AUC over a single class is undefined (grade.py raises): the answers' fault."""
    name = "jigsaw_bias_auc"
    from sklearn.metrics import roc_auc_score

    truth = _numbers(name, y_true, answers=True).reshape(-1) >= 0.5
    pred = (_numbers(name, y_pred, answers=False).reshape(-1) >= 0.5).astype(int)
    if groups is None:
        raise CompetitionError(
            f"{name}: no identity columns were passed ({', '.join(identity_columns)}): the caller must read them "
            "from the answers"
        )
    cells = np.asarray(groups, dtype=object).reshape(len(truth), -1)
    if cells.shape[1] != len(identity_columns):
        raise CompetitionError(f"{name}: {cells.shape[1]} identity columns for {len(identity_columns)} names")
    identities = pd.DataFrame(cells).apply(pd.to_numeric, errors="coerce").fillna(0.0).to_numpy() >= 0.5

    def auc(rows: np.ndarray, what: str) -> float:
        if len(set(truth[rows])) < 2:
            raise CompetitionError(f"{name}: the {what} rows hold one class only, so their AUC is undefined")
        return float(roc_auc_score(truth[rows], pred[rows]))

    overall = auc(np.ones(len(truth), dtype=bool), "answers'")
    kinds: list[list[float]] = [[], [], []]
    for k, column in enumerate(identity_columns):
        member = identities[:, k]
        kinds[0].append(auc(member, f"{column!r} subgroup"))
        kinds[1].append(auc((member & ~truth) | (~member & truth), f"{column!r} BPSN"))
        kinds[2].append(auc((member & truth) | (~member & ~truth), f"{column!r} BNSP"))
    means = [_power_mean(aucs, JIGSAW_POWER) for aucs in kinds]
    return JIGSAW_WEIGHT * overall + sum(JIGSAW_WEIGHT * m for m in means)


def _power_mean(values: list[float], power: float) -> float:
    """(mean of v ** power) ** (1 / power) for a negative power; 0 where a value is 0 (its limit: grade.py
    divides by zero there)."""
    if min(values) <= 0:
        return 0.0
    return (sum(v**power for v in values) / len(values)) ** (1 / power)


# ---- alaska2-image-steganalysis ----------------------------------------------------------------------------


def _with_levels(
    fpr: np.ndarray, tpr: np.ndarray, levels: tuple[float, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """The ROC curve's points plus the points where its linear pieces cross each TPR level, in curve order
    (both coordinates never decrease along the curve, so sorting by (FPR, TPR) keeps that order)."""
    xs, ys = [fpr], [tpr]
    for level in levels:
        crossing = np.flatnonzero((tpr[:-1] < level) & (tpr[1:] > level))
        if len(crossing):
            i = crossing[0]
            share = (level - tpr[i]) / (tpr[i + 1] - tpr[i])
            xs.append(np.array([fpr[i] + share * (fpr[i + 1] - fpr[i])]))
            ys.append(np.array([level]))
    x, y = np.concatenate(xs), np.concatenate(ys)
    order = np.lexsort((y, x))
    return x[order], y[order]


def tpr_weighted_auc(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """alaska2-image-steganalysis's weighted AUC: the area under the ROC curve sliced horizontally into the
    TPR bands of `TPR_BANDS` (0-0.4 weighted 2, 0.4-1 weighted 1), each band's area counted with its weight,
    the sum divided by sum(weight * band height) = 1.4, so a perfect ranking scores 1."""
    from sklearn.metrics import roc_curve

    name = "tpr_weighted_auc"
    library = _library()
    truth = library._binary_truth(name, y_true)
    library._two_classes(name, truth)
    pred = library._probabilities(name, y_pred)
    fpr, tpr, _ = roc_curve(truth, pred)
    levels = tuple(sorted({level for low, high, _ in TPR_BANDS for level in (low, high)}))
    x, y = _with_levels(fpr, tpr, levels)
    total = 0.0
    for low, high, weight in TPR_BANDS:
        # within a linear piece between added crossings, the clipped height is linear: the trapezoid is exact
        height = np.clip(y, low, high) - low
        total += weight * float(np.sum((x[1:] - x[:-1]) * (height[1:] + height[:-1]) / 2))
    return total / sum(weight * (high - low) for low, high, weight in TPR_BANDS)


# ---- icecube-neutrinos-in-deep-ice -------------------------------------------------------------------------


def mean_angular_error(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over rows of the angle (radians) between the true and predicted directions, each given as
    (azimuth, zenith) in radians: arccos of the unit vectors' dot product, the dot product clipped to [-1, 1]
    against rounding (as icecube-neutrinos-in-deep-ice's grade.py computes it)."""
    name = "mean_angular_error"
    truth = _columns(name, y_true, "azimuth then zenith", answers=True)
    pred = _columns(name, y_pred, "azimuth then zenith", answers=False)
    (az_true, zen_true), (az_pred, zen_pred) = truth.T, pred.T
    # (x, y, z) = (sin zen cos az, sin zen sin az, cos zen); their dot product, grouped as grade.py groups it
    dot = np.sin(zen_true) * np.sin(zen_pred) * (
        np.cos(az_true) * np.cos(az_pred) + np.sin(az_true) * np.sin(az_pred)
    ) + np.cos(zen_true) * np.cos(zen_pred)
    return float(np.mean(np.arccos(np.clip(dot, -1.0, 1.0))))


# ---- smartphone-decimeter-2022 -----------------------------------------------------------------------------

HAVERSINE_RADIUS_M = 6_371_000  # the Earth's radius in the scoring notebook of smartphone-decimeter-2022


def trip_distance_error(
    y_true: np.ndarray, y_pred: np.ndarray, groups: np.ndarray | None = None, group_column: str = ""
) -> float:
    """Per trip (the rows' groups; without groups, all rows are one trip), the mean of the 50th and 95th
    percentiles (numpy's linear interpolation) of the haversine distances in metres between the true and the
    predicted (latitude, longitude) in degrees; the mean over trips (smartphone-decimeter-2022's grade.py and its
    notebook's calc_score)."""
    name = "trip_distance_error"
    truth = np.deg2rad(_columns(name, y_true, "latitude then longitude", answers=True))
    pred = np.deg2rad(_columns(name, y_pred, "latitude then longitude", answers=False))
    (lat_true, lng_true), (lat_pred, lng_pred) = truth.T, pred.T
    half = (
        np.sin((lat_true - lat_pred) / 2) ** 2
        + np.cos(lat_pred) * np.cos(lat_true) * np.sin((lng_true - lng_pred) / 2) ** 2
    )
    distance = 2 * HAVERSINE_RADIUS_M * np.arcsin(np.sqrt(half))
    codes = np.zeros(len(distance), dtype=int) if groups is None else pd.factorize(groups)[0]
    if (codes < 0).any():
        raise CompetitionError(f"{name}: the answers' trip column {group_column!r} has missing values")
    trips = [distance[codes == code] for code in np.unique(codes)]
    return float(np.mean([(np.quantile(d, 0.5) + np.quantile(d, 0.95)) / 2 for d in trips]))


# ---- uw-madison-gi-tract-image-segmentation ---------------------------------------------------------------

DICE_WEIGHT, HAUSDORFF_WEIGHT = 0.4, 0.6
UW_ROW_COLUMNS = ("id", "image_height", "image_width")
SLICE_SEPARATOR = "_slice_"  # `case123_day20_slice_0001`: the scan is `case123_day20`


def _decoded(name: str, cell: Any, height: int, width: int, *, answers: bool) -> np.ndarray:
    """A run-length encoded mask (pixels numbered down each column, MLE-bench's rle_decode) as a height x width
    boolean array."""
    runs = _library()._runs(name, cell, answers=answers, pixels=height * width)
    flat = np.zeros(height * width, dtype=bool)
    for start, end in runs:
        flat[start:end] = True
    return flat.reshape(width, height).T


def _hausdorff(pred: np.ndarray, truth: np.ndarray) -> float:
    """grade.py's 3-D Hausdorff distance of two stacked masks: NaN where both are empty, 0 where equal, 1 where
    one is empty or the prediction has over ten times the true pixels, else the symmetric Hausdorff distance of
    the pixels' coordinates scaled to the unit cube by the true mask's shape, divided by its diagonal."""
    from scipy.spatial.distance import directed_hausdorff  # imported here: only this metric needs it

    if not pred.any() and not truth.any():
        return float("nan")
    if np.array_equal(pred, truth):
        return 0.0
    if not pred.any() or not truth.any() or pred.sum() > 10 * truth.sum():
        return 1.0
    true_points = np.argwhere(truth) / truth.shape
    pred_points = np.argwhere(pred) / truth.shape
    distance = max(
        directed_hausdorff(true_points, pred_points)[0], directed_hausdorff(pred_points, true_points)[0]
    )
    return float(distance / math.sqrt(3))


def dice_hausdorff(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    groups: np.ndarray | None = None,
    row_columns: Any = UW_ROW_COLUMNS,
) -> float:
    """0.4 x the mean over rows of the Dice of the true and predicted masks (rows where both are empty left out)
    + 0.6 x (1 - the mean over scans of the 3-D Hausdorff distance, `_hausdorff`): each row's mask decoded at its
    image size, a slice's masks (one a class) joined, a scan's slices stacked in id order, as
    uw-madison-gi-tract-image-segmentation's grade.py. `groups`: each row's (slice id, image height, image width),
    the answers' `row_columns`."""
    name = "dice_hausdorff"
    if groups is None or np.asarray(groups).ndim != 2 or np.asarray(groups).shape[1] != 3:
        raise CompetitionError(
            f"{name}: each row needs its slice id, image height and width: the answers' columns {list(row_columns)}"
        )
    rows = np.asarray(groups, dtype=object)
    try:
        sizes = rows[:, 1:].astype(float).astype(int)
    except (TypeError, ValueError):
        raise CompetitionError(
            f"{name}: the answers' image heights and widths must be whole numbers"
        ) from None
    truths = [
        _decoded(name, cell, h, w, answers=True) for cell, (h, w) in zip(np.ravel(y_true), sizes, strict=True)
    ]
    preds = [
        _decoded(name, cell, h, w, answers=False)
        for cell, (h, w) in zip(np.ravel(y_pred), sizes, strict=True)
    ]
    dices = []
    for pred, truth in zip(preds, truths, strict=True):
        total = int(pred.sum()) + int(truth.sum())
        dices.append(2 * int((pred & truth).sum()) / total if total else float("nan"))
    slices: dict[str, dict[str, list[int]]] = {}
    for row in sorted(range(len(rows)), key=lambda k: str(rows[k, 0])):
        slice_id = str(rows[row, 0])
        slices.setdefault(slice_id.split(SLICE_SEPARATOR)[0], {}).setdefault(slice_id, []).append(row)
    distances = []
    for scan in slices.values():
        stacked = [
            np.stack([np.logical_or.reduce([masks[k] for k in members]) for members in scan.values()])
            for masks in (preds, truths)
        ]
        distances.append(_hausdorff(*stacked))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a mean of no rows (every mask empty) is NaN
        return float(DICE_WEIGHT * np.nanmean(dices) + HAUSDORFF_WEIGHT * (1 - np.nanmean(distances)))


# ---- osic-pulmonary-fibrosis-progression -------------------------------------------------------------------


def laplace_log_likelihood(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """The modified Laplace log likelihood, averaged over rows: with sigma = max(Confidence, 70) and
    delta = min(|FVC_true - FVC_pred|, 1000), -sqrt(2) * delta / sigma - ln(sqrt(2) * sigma).

    `y_pred` holds the columns FVC and Confidence (the sample's order); `y_true` the answers' FVC first (their
    second column, the sample's Confidence, is not used). Every row given is scored: grading first keeps the
    rows MLE-bench's grade.py scores (`laplace_scored_rows`).
    """
    name = "laplace_log_likelihood"
    truth = _numbers(name, y_true, answers=True)
    if truth.ndim != 2 or truth.shape[1] < 1:
        raise CompetitionError(f"{name}: the answers need the FVC column first, got shape {truth.shape}")
    pred = _columns(name, y_pred, "FVC then Confidence", answers=False)
    sigma = np.maximum(pred[:, 1], LAPLACE_SIGMA_FLOOR)
    delta = np.minimum(np.abs(truth[:, 0] - pred[:, 0]), LAPLACE_DELTA_CAP)
    return float(np.mean(-math.sqrt(2) * delta / sigma - np.log(math.sqrt(2) * sigma)))


def laplace_scored_rows(answers: pd.DataFrame, id_column: str, targets: tuple[str, ...]) -> np.ndarray:
    """The answer rows osic-pulmonary-fibrosis-progression's grade.py scores: those with an FVC (the first
    target; prepare.py's dummy weeks have none), and of those each patient's three latest weeks, the patient and
    the week read from the id `<Patient>_<Week>` as grade.py reads the week (its `Patient` column is the same
    prefix). Where an id holds no whole-number week, every row with an FVC."""
    fvc = answers[targets[0]].astype(str).str.strip()
    measured = (~fvc.str.lower().isin(("", "nan"))).to_numpy()
    parts = answers[id_column].astype(str).str.strip().str.rsplit("_", n=1)
    weeks = pd.to_numeric(parts.str[-1], errors="coerce")
    if parts.str.len().lt(2).any() or weeks.isna().any():
        return measured
    rows = pd.DataFrame({"patient": parts.str[0].to_numpy(), "week": weeks.to_numpy()})[measured]
    latest = rows.sort_values("week", kind="stable").groupby("patient").tail(LAPLACE_SCORED_WEEKS).index
    return np.isin(np.arange(len(answers)), latest.to_numpy())


# ---- rsna-breast-cancer-detection --------------------------------------------------------------------------


def probabilistic_f1(y_true: np.ndarray, y_pred: np.ndarray, beta: float = DEFAULT_PF_BETA) -> float:
    """The probabilistic F-beta (rsna-breast-cancer-detection: pF1, beta 1): with pTP the sum of the
    probabilities of the positive rows and pFP that of the negative rows, pPrecision = pTP / (pTP + pFP),
    pRecall = pTP / (number of positives), and the F-beta of the two; 0 when either is 0 (all probabilities
    0 included, where pPrecision is 0/0)."""
    name = "probabilistic_f1"
    library = _library()
    truth = library._binary_truth(name, y_true)
    pred = library._probabilities(name, y_pred)
    positives = int(truth.sum())
    if not positives:
        raise CompetitionError(f"{name}: the answers hold no positive (1), so the recall is undefined")
    true_positive = float(pred[truth == 1].sum())
    false_positive = float(pred[truth == 0].sum())
    if true_positive <= 0:
        return 0.0
    precision = true_positive / (true_positive + false_positive)
    recall = true_positive / positives
    b2 = float(beta) ** 2
    return (1 + b2) * precision * recall / (b2 * precision + recall)


# ---- rsna-2022-cervical-spine-fracture-detection ----------------------------------------------------------


def spine_weighted_logloss(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    groups: np.ndarray | None = None,
    group_column: str = SPINE_ID_COLUMN,
) -> float:
    """rsna-2022-cervical-spine-fracture-detection's weighted multi-label log loss. Each row is one label of one
    exam, its id (`groups`, the answers' column `group_column`: the id column `row_id`) `<exam>_<label>`, the
    label one of `SPINE_LABEL_WEIGHTS`. A row's binary log loss (p clipped to [1e-15, 1 - 1e-15]) is weighted
    by its label and its answer (patient_overall 7, or 14 when positive; C1..C7 1, or 2); each exam's loss is
    the sum of its rows' weighted losses over the sum of their weights, and the score is the mean over exams,
    as grade.py unmelts the rows into an exam per row and computes `custom_comp_weighted_loss`. The label is
    the id's suffix after `_` (grade.py splits at the first `_`: the same for its ids, whose exam ids hold
    none)."""
    name = "spine_weighted_logloss"
    library = _library()
    truth = library._binary_truth(name, y_true)
    pred = library._probabilities(name, y_pred)
    if groups is None:
        raise CompetitionError(
            f"{name}: it needs each row's id (`<exam>_<label>`), the answers' {group_column!r}"
        )
    exams, labels = _exams_and_labels(name, groups, group_column)
    negative = np.array([SPINE_LABEL_WEIGHTS[label][0] for label in labels])
    positive = np.array([SPINE_LABEL_WEIGHTS[label][1] for label in labels])
    weights = np.where(truth == 1, positive, negative)
    eps = library.LOGLOSS_EPS
    clipped = np.clip(pred, eps, 1 - eps)
    loss = -(truth * np.log(clipped) + (1 - truth) * np.log(1 - clipped)) * weights
    codes = pd.factorize(np.asarray(exams, dtype=object))[0]
    per_exam = np.bincount(codes, weights=loss) / np.bincount(codes, weights=weights)
    return float(np.mean(per_exam))


def _exams_and_labels(name: str, ids: np.ndarray, column: str) -> tuple[list[str], list[str]]:
    """Each row id's exam and label: `<exam>_<label>`, the label one of `SPINE_LABEL_WEIGHTS` (the longest that
    ends the id); a CompetitionError naming an id that ends in none (the ids are the answers')."""
    labels = sorted(SPINE_LABEL_WEIGHTS, key=len, reverse=True)
    exams, found = [], []
    for cell in np.asarray(ids, dtype=object).reshape(-1):
        text = "" if cell is None else str(cell).strip()
        label = next((lab for lab in labels if text.endswith(f"_{lab}") and len(text) > len(lab) + 1), None)
        if label is None:
            raise CompetitionError(
                f"{name}: the answers' {column!r} value {text!r} is not `<exam>_<label>` with a label of "
                f"{', '.join(SPINE_LABEL_WEIGHTS)}, so its weight is unknown"
            )
        exams.append(text[: -len(label) - 1])
        found.append(label)
    return exams, found
