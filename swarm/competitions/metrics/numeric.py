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
- `spine_weighted_logloss`: the weighted log loss of rsna-2022-cervical-spine-fracture-detection, whose
  submission has a row per (exam, label), `<StudyInstanceUID>_<label>`: each row weighted by its label and its
  answer, averaged per exam, then over exams; a grouped metric whose groups are the row ids themselves.

uw-madison-gi-tract-image-segmentation's Dice with 3-D Hausdorff distances is in `masks_3d`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics.base import (
    LOGLOSS_EPS,
    Metric,
    binary_answers,
    fault,
    floats,
    probabilities,
    two_classes,
)

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


def _columns(name: str, values: np.ndarray, wanted: str, *, answers: bool) -> np.ndarray:
    """A float table of two columns (`wanted` says which, in the sample's order)."""
    table = floats(name, values, answers=answers)
    if table.ndim != 2 or table.shape[1] != 2:
        shape = "x".join(map(str, table.shape))
        problem = f"need two columns, {wanted} (the sample submission's order), got shape {shape}"
        raise fault(name, answers, problem)
    return table


# ---- ventilator-pressure-prediction --------------------------------------------------------------------------


def masked_mae(
    y_true: np.ndarray, y_pred: np.ndarray, groups: np.ndarray | None = None, group_column: str = ""
) -> float:
    """Mean absolute error over the rows whose mask value (`groups`, the answers' column `group_column`) is 0;
    without a mask, over all rows. ventilator-pressure-prediction: the mask is `u_out`, and only the
    inspiratory phase (`u_out == 0`) is scored."""
    name = "masked_mae"
    truth = floats(name, y_true, answers=True)
    pred = floats(name, y_pred, answers=False)
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


# ---- jigsaw-unintended-bias-in-toxicity-classification -------------------------------------------------------


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

    truth = floats(name, y_true, answers=True).reshape(-1) >= 0.5
    pred = (floats(name, y_pred, answers=False).reshape(-1) >= 0.5).astype(int)
    identities = _identities(name, groups, identity_columns, len(truth))

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


def _identities(
    name: str, groups: np.ndarray | None, identity_columns: tuple[str, ...], rows: int
) -> np.ndarray:
    """Whether each row mentions each identity (a row per row, a column per identity): the answers' identity
    columns made 0/1 at 0.5, a blank or non-numeric cell 0."""
    if groups is None:
        raise CompetitionError(
            f"{name}: no identity columns were passed ({', '.join(identity_columns)}): the caller must read them "
            "from the answers"
        )
    cells = np.asarray(groups, dtype=object).reshape(rows, -1)
    if cells.shape[1] != len(identity_columns):
        raise CompetitionError(f"{name}: {cells.shape[1]} identity columns for {len(identity_columns)} names")
    return pd.DataFrame(cells).apply(pd.to_numeric, errors="coerce").fillna(0.0).to_numpy() >= 0.5


def _power_mean(values: list[float], power: float) -> float:
    """(mean of v ** power) ** (1 / power) for a negative power; 0 where a value is 0 (its limit: grade.py
    divides by zero there)."""
    if min(values) <= 0:
        return 0.0
    return (sum(v**power for v in values) / len(values)) ** (1 / power)


# ---- alaska2-image-steganalysis ------------------------------------------------------------------------------


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
    truth = binary_answers(name, y_true)
    two_classes(name, truth)
    pred = probabilities(name, y_pred)
    fpr, tpr, _ = roc_curve(truth, pred)
    levels = tuple(sorted({level for low, high, _ in TPR_BANDS for level in (low, high)}))
    x, y = _with_levels(fpr, tpr, levels)
    total = 0.0
    for low, high, weight in TPR_BANDS:
        # within a linear piece between added crossings, the clipped height is linear: the trapezoid is exact
        height = np.clip(y, low, high) - low
        total += weight * float(np.sum((x[1:] - x[:-1]) * (height[1:] + height[:-1]) / 2))
    return total / sum(weight * (high - low) for low, high, weight in TPR_BANDS)


# ---- icecube-neutrinos-in-deep-ice ---------------------------------------------------------------------------


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


# ---- smartphone-decimeter-2022 -------------------------------------------------------------------------------

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


# ---- osic-pulmonary-fibrosis-progression ---------------------------------------------------------------------


def laplace_log_likelihood(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """The modified Laplace log likelihood, averaged over rows: with sigma = max(Confidence, 70) and
    delta = min(|FVC_true - FVC_pred|, 1000), -sqrt(2) * delta / sigma - ln(sqrt(2) * sigma).

    `y_pred` holds the columns FVC and Confidence (the sample's order); `y_true` the answers' FVC first (their
    second column, the sample's Confidence, is not used). Every row given is scored: grading first keeps the
    rows MLE-bench's grade.py scores (`laplace_scored_rows`).
    """
    name = "laplace_log_likelihood"
    truth = floats(name, y_true, answers=True)
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


# ---- rsna-breast-cancer-detection ----------------------------------------------------------------------------


def probabilistic_f1(y_true: np.ndarray, y_pred: np.ndarray, beta: float = DEFAULT_PF_BETA) -> float:
    """The probabilistic F-beta (rsna-breast-cancer-detection: pF1, beta 1): with pTP the sum of the
    probabilities of the positive rows and pFP that of the negative rows, pPrecision = pTP / (pTP + pFP),
    pRecall = pTP / (number of positives), and the F-beta of the two; 0 when either is 0 (all probabilities
    0 included, where pPrecision is 0/0)."""
    name = "probabilistic_f1"
    truth = binary_answers(name, y_true)
    pred = probabilities(name, y_pred)
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


# ---- rsna-2022-cervical-spine-fracture-detection -------------------------------------------------------------


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
    truth = binary_answers(name, y_true)
    pred = probabilities(name, y_pred)
    if groups is None:
        raise CompetitionError(
            f"{name}: it needs each row's id (`<exam>_<label>`), the answers' {group_column!r}"
        )
    exams, labels = _exams_and_labels(name, groups, group_column)
    negative = np.array([SPINE_LABEL_WEIGHTS[label][0] for label in labels])
    positive = np.array([SPINE_LABEL_WEIGHTS[label][1] for label in labels])
    weights = np.where(truth == 1, positive, negative)
    eps = LOGLOSS_EPS
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


# ---- the library's entries -----------------------------------------------------------------------------------

ENTRIES: tuple[Metric, ...] = (
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
        blank_fills={"Confidence": "0"},
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
)
