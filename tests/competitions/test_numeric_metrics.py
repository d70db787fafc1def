"""The numeric metrics of single MLE-bench competitions (`swarm.competitions.metrics.numeric` and `masks_3d`),
checked against each competition's own grade.py.

As in test_mlebench_metrics.py: every case is worked out by hand (the arithmetic in a comment) and scored three
ways that must agree to 1e-9: the library, the hand value, and a small re-implementation that follows the
competition's grade.py (openai/mle-bench @783b15a, `mlebench/competitions/<id>/grade.py`) step by step on data
frames. Where the library differs from a grade.py on purpose, a test shows the difference and says why. Then:
invalid input, `score_frame`, the metric choice's rules on the real descriptions' wording, and for the masked
MAE its mask column from description.md to the harness's private labels.
"""

from __future__ import annotations

import math
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from swarm.competitions import CompetitionError, MetricSpec, grade_submission, load_competition_dir
from swarm.competitions.grading import score_frame
from swarm.competitions.metric_wording import COARSE_METRIC, infer_metric_rules, lacking_metric
from swarm.competitions.metrics import METRICS, get_metric
from swarm.competitions.metrics.base import InvalidPrediction
from swarm.competitions.validation import InvalidSubmission
from swarm.evaluation.blend import Blender
from swarm.evaluation.ensemble import build_library
from swarm.evaluation.harness import Harness
from swarm.evaluation.metric_choice import (
    SOURCE_MODEL,
    SOURCE_OVERRIDE,
    SOURCE_RULES,
    infer_mask_column,
    resolve_metric,
)
from swarm.layouts.holdout import build_holdout
from swarm.offline_coder import OfflineClient
from swarm.offline_coder.metric_names import metric_from_description
from swarm.pipeline.metric_model import infer_metric_with_model, metric_messages, metric_reader, metric_tool
from tests.competitions.scripted_client import ScriptedClient
from tests.layouts.tables.ventilator import (
    DESCRIPTION,
    MASK,
    MASK_LINE,
    MASKED,
    MASKED_METRIC,
    TARGET,
    offset_predictions,
    ventilator_competition,
)

TOL = 1e-9
SQRT2 = math.sqrt(2)


def agree(*values: float) -> None:
    assert all(abs(v - values[0]) <= TOL for v in values), values


def score(name: str, y_true: Any, y_pred: Any, **kwargs: Any) -> float:
    return get_metric(name).score(np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float), **kwargs)


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


# ---- 1. MAE over the inspiratory rows: ventilator-pressure-prediction --------------------------------------


def ref_ventilator(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """ventilator-pressure-prediction/grade.py: sorted by id, the answers' rows with u_out == 0, the
    submission's rows of their ids, sklearn's mean_absolute_error."""
    submission = submission.sort_values(by="id").reset_index(drop=True)
    answers = answers.sort_values(by="id").reset_index(drop=True)
    assert (submission["id"].values == answers["id"].values).all()
    answers = answers[answers["u_out"] == 0]
    submission = submission[submission["id"].isin(answers["id"])]
    submission = submission.sort_values(by="id").reset_index(drop=True)
    answers = answers.sort_values(by="id").reset_index(drop=True)
    return float(skm.mean_absolute_error(answers["pressure"].values, submission["pressure"].values))


def ventilator_frames(
    u_out: list[int], truth: list[float], pred: list[float]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(submission, answers) as MLE-bench holds them: the answers with every column of the test rows (u_out
    among them), the submission id and pressure, its rows in reverse order."""
    ids = list(range(1, len(truth) + 1))
    answers = pd.DataFrame({"id": ids, "breath_id": 7, "u_out": u_out, "pressure": truth})
    submission = pd.DataFrame({"id": ids[::-1], "pressure": pred[::-1]})
    return submission, answers


U_OUT = [0, 0, 0, 1, 1, 0]
PRESSURE = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
MASKED_CASES = [
    # scored rows 0, 1, 2, 5: |11-10| + |18-20| + 0 + |57-60| = 6, over 4 rows: 1.5 (all 6 rows: 96/6 = 16)
    ([11.0, 18.0, 30.0, 0.0, 0.0, 57.0], 1.5),
    ([10.0, 20.0, 30.0, -99.0, 999.0, 60.0], 0.0),  # exact where scored; the expiratory rows do not count
    ([12.5, 22.5, 32.5, 42.5, 52.5, 62.5], 2.5),  # all off by 2.5
]


@pytest.mark.parametrize(("pred", "expected"), MASKED_CASES)
def test_masked_mae_matches_the_grader(pred, expected) -> None:
    value = score("masked_mae", PRESSURE, pred, groups=[str(u) for u in U_OUT], group_column="u_out")
    agree(value, expected, ref_ventilator(*ventilator_frames(U_OUT, PRESSURE, pred)))


def test_masked_mae_without_a_mask_is_the_mae_of_all_rows() -> None:
    pred = MASKED_CASES[0][0]
    assert score("masked_mae", PRESSURE, pred) == pytest.approx(16.0, abs=TOL)
    assert score("masked_mae", PRESSURE, pred) == pytest.approx(score("mae", PRESSURE, pred), abs=TOL)
    # a mask written as floats is the same mask
    floats = ["0.0", "0", "0", "1.0", "1", "0.0"]
    assert score("masked_mae", PRESSURE, pred, groups=floats) == pytest.approx(1.5, abs=TOL)


@pytest.mark.parametrize(
    ("groups", "error", "message"),
    [
        (None, CompetitionError, "no groups were passed, but group_column='u_out' names them"),
        (["0", "0", None, "1", "1", "0"], CompetitionError, "mask column 'u_out' has missing values"),
        (["0", "0", "in", "1", "1", "0"], CompetitionError, r"must hold numbers \(0: scored\), found 'in'"),
        (["1"] * 6, CompetitionError, "no row has u_out == 0, so there is nothing to score"),
        (["0", "1"], CompetitionError, "2 groups for 6 rows"),
    ],
)
def test_masked_mae_refuses_a_bad_mask(groups, error, message) -> None:
    with pytest.raises(error, match=message):
        score("masked_mae", PRESSURE, PRESSURE, groups=groups, group_column="u_out")


def test_masked_mae_refuses_bad_predictions() -> None:
    metric = get_metric("masked_mae")
    with pytest.raises(InvalidPrediction, match="masked_mae: the predictions must be finite numbers"):
        metric.score(np.array(PRESSURE), np.array([1.0, math.nan, 1, 1, 1, 1]), groups=U_OUT)
    with pytest.raises(InvalidPrediction, match="masked_mae: the predictions must be numeric"):
        metric.score(np.array(PRESSURE), np.array(["x"] * 6, dtype=object), groups=U_OUT)


def test_masked_mae_through_score_frame_takes_the_answers_mask() -> None:
    """score_frame passes the answers' u_out as the mask, in the answers' row order (the submission lists the
    rows in reverse); without group_column every row is scored; answers lacking the column stop the score."""
    frames = ventilator_frames(U_OUT, PRESSURE, MASKED_CASES[0][0])
    submission, answers = (frame.astype(str) for frame in frames)
    masked = MetricSpec("masked_mae", True, "id", ("pressure",), params={"group_column": "u_out"})
    assert score_frame(submission, answers, masked) == 1.5
    assert score_frame(submission, answers, MetricSpec("masked_mae", True, "id", ("pressure",))) == 16.0
    with pytest.raises(CompetitionError, match="the caller must read the answers' column 'u_out'"):
        score_frame(submission, answers.drop(columns=["u_out"]), masked)
    blank = submission.assign(pressure=["1"] * 5 + [""])
    with pytest.raises(InvalidSubmission, match="pressure"):
        score_frame(blank, answers, masked)


# ---- 2. weighted AUC: alaska2-image-steganalysis -----------------------------------------------------------


def ref_alaska(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """alaska2-image-steganalysis/grade.py: sorted by Id; sklearn's ROC curve with the TPR thresholds 0, 0.4, 1
    inserted (FPR interpolated); per band, the points whose TPR lies in it plus (1, top of the band), lifted
    down to 0 and sklearn's auc; the weighted sum over sum(band height * weight)."""
    submission, answers = submission.sort_values("Id"), answers.sort_values("Id")
    assert (submission["Id"].values == answers["Id"].values).all()
    y_true = np.array(answers["Label"].astype(float))
    y_pred = np.array(submission["Label"].astype(float))
    tpr_thresholds, weights = [0.0, 0.4, 1.0], [2, 1]
    fpr, tpr, _ = skm.roc_curve(y_true, y_pred, pos_label=1)
    fpr_, tpr_ = fpr.tolist(), tpr.tolist()
    for threshold in tpr_thresholds:
        if threshold not in tpr_:
            for i, tpr_val in enumerate(tpr_):
                if tpr_val > threshold:
                    new_fpr = fpr_[i - 1] + (fpr_[i] - fpr_[i - 1]) * (threshold - tpr_[i - 1]) / (
                        tpr_[i] - tpr_[i - 1]
                    )
                    tpr_.insert(i, threshold)
                    fpr_.insert(i, new_fpr)
                    break
    fpr, tpr = np.array(fpr_), np.array(tpr_)
    areas = np.array(tpr_thresholds[1:]) - np.array(tpr_thresholds[:-1])
    total = 0.0
    for idx, weight in enumerate(weights):
        y_min, y_max = tpr_thresholds[idx], tpr_thresholds[idx + 1]
        mask = (y_min <= tpr) & (tpr <= y_max)
        if mask.sum() == 0:
            continue
        xs = np.concatenate([fpr[mask], [1]])
        ys = np.concatenate([tpr[mask], [y_max]]) - y_min
        total += skm.auc(xs, ys) * weight
    return float(total / np.dot(areas, weights))


def alaska_frames(truth: list[int], pred: list[float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = [f"{i + 1:04d}.jpg" for i in range(len(truth))]
    answers = pd.DataFrame({"Id": ids, "Label": truth})
    submission = pd.DataFrame({"Id": ids[::-1], "Label": pred[::-1]})
    return submission, answers


WEIGHTED_AUC_CASES = [
    # ROC: up to (0, .5), across to (.5, .5), up to (.5, 1), across to (1, 1).
    # band 0-0.4: TPR >= .4 from FPR 0: area .4, weighted .8; band 0.4-1: .1 * .5 + .6 * .5 = .35
    # (.8 + .35) / (2 * .4 + 1 * .6) = 1.15 / 1.4 = 23/28 (the plain AUC is .75)
    ([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1], 23 / 28),
    # a tie: ROC (0, 1/3) -> (.5, 2/3) diagonal -> (.5, 1) -> (1, 1); TPR = 1/3 + 2x/3 crosses .4 at x = .1
    # band 0-0.4: (1/3 + .4) / 2 * .1 + .4 * .9 = 119/300, weighted 238/300
    # band 0.4-1: (0 + 4/15) / 2 * .4 + .6 * .5 = 106/300; (238 + 106) / 300 / 1.4 = 86/105
    ([1, 1, 0, 1, 0], [0.9, 0.5, 0.5, 0.2, 0.1], 86 / 105),
    ([0, 1, 0, 1], [0.1, 0.7, 0.2, 0.9], 1.0),  # a perfect ranking
    ([1, 0, 1, 0], [0.1, 0.7, 0.2, 0.9], 0.0),  # every positive below every negative
    # all tied: the diagonal; band 0-0.4: .4 * .4 / 2 + .4 * .6 = .32, weighted .64;
    # band 0.4-1: .6 * .6 / 2 = .18; (.64 + .18) / 1.4 = 41/70
    ([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.5], 41 / 70),
]


@pytest.mark.parametrize(("truth", "pred", "expected"), WEIGHTED_AUC_CASES)
def test_tpr_weighted_auc_matches_the_grader(truth, pred, expected) -> None:
    agree(score("tpr_weighted_auc", truth, pred), expected, ref_alaska(*alaska_frames(truth, pred)))


def test_tpr_weighted_auc_matches_the_grader_on_random_rankings() -> None:
    """Many rankings, with ties, where the TPR 0.4 falls on a point of the curve or between points."""
    rng = np.random.default_rng(0)
    for n in [5, 10, 11, 37, 200] * 8:
        truth = rng.integers(0, 2, n)
        truth[:2] = [0, 1]
        pred = np.round(rng.random(n), int(rng.integers(1, 3)))  # few decimals: many ties
        agree(score("tpr_weighted_auc", truth, pred), ref_alaska(*alaska_frames(list(truth), list(pred))))


def test_tpr_weighted_auc_is_not_the_plain_auc() -> None:
    truth, pred, _ = WEIGHTED_AUC_CASES[0]
    assert score("auc", truth, pred) == pytest.approx(0.75, abs=TOL)
    assert score("tpr_weighted_auc", truth, pred) == pytest.approx(23 / 28, abs=TOL)


def test_tpr_weighted_auc_refuses_what_it_cannot_score() -> None:
    with pytest.raises(CompetitionError, match="tpr_weighted_auc: the answers hold a single class"):
        score("tpr_weighted_auc", [1, 1, 1], [0.2, 0.3, 0.4])
    with pytest.raises(CompetitionError, match="the answers must be 0/1 labels"):
        score("tpr_weighted_auc", [0, 1, 2], [0.2, 0.3, 0.4])
    with pytest.raises(InvalidPrediction, match=r"predictions must be probabilities in \[0, 1\]"):
        score("tpr_weighted_auc", [0, 1, 0], [0.2, 1.3, 0.4])
    with pytest.raises(InvalidPrediction, match="finite numbers"):
        score("tpr_weighted_auc", [0, 1, 0], [0.2, math.nan, 0.4])


def test_tpr_weighted_auc_through_score_frame() -> None:
    truth, pred, expected = WEIGHTED_AUC_CASES[1]
    submission, answers = (frame.astype(str) for frame in alaska_frames(truth, pred))
    spec = MetricSpec("tpr_weighted_auc", False, "Id", ("Label",))
    assert score_frame(submission, answers, spec) == round(expected, 6)
    # MLE-bench's grader accepts any real score (only the ranking counts); the library wants
    # probabilities, as for the plain AUC
    with pytest.raises(InvalidSubmission, match=r"must hold probabilities in \[0, 1\] for tpr_weighted_auc"):
        score_frame(submission.assign(Label=["2.5"] * len(truth)), answers, spec)


# ---- 3. mean angular error: icecube-neutrinos-in-deep-ice --------------------------------------------------


def ref_icecube(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """icecube-neutrinos-in-deep-ice/grade.py: sorted by event_id, angular_dist_score of the host's notebook."""
    assert set(submission["event_id"]) == set(answers["event_id"])
    submission, answers = submission.sort_values("event_id"), answers.sort_values("event_id")
    az_true, zen_true = answers["azimuth"].to_numpy(), answers["zenith"].to_numpy()
    az_pred, zen_pred = submission["azimuth"].to_numpy(), submission["zenith"].to_numpy()
    sa1, ca1, sz1, cz1 = np.sin(az_true), np.cos(az_true), np.sin(zen_true), np.cos(zen_true)
    sa2, ca2, sz2, cz2 = np.sin(az_pred), np.cos(az_pred), np.sin(zen_pred), np.cos(zen_pred)
    scalar_prod = sz1 * sz2 * (ca1 * ca2 + sa1 * sa2) + (cz1 * cz2)
    scalar_prod = np.clip(scalar_prod, -1, 1)
    return float(np.average(np.abs(np.arccos(scalar_prod))))


def icecube_frames(truth: list[list[float]], pred: list[list[float]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = [730 + 3 * i for i in range(len(truth))]
    answers = pd.DataFrame(truth, columns=["azimuth", "zenith"]).assign(event_id=ids)
    submission = pd.DataFrame(pred, columns=["azimuth", "zenith"]).assign(event_id=ids).iloc[::-1]
    return submission, answers


PI = math.pi
ANGULAR_CASES = [
    # (az, zen) = (0, pi/2) is the x axis: vs (pi/2, pi/2), the y axis: pi/2; zen 0 is the z axis: vs zen pi/3
    # (any azimuth): pi/3; (0, pi/2) vs (pi, pi/2), the -x axis: pi. Mean (pi/2 + pi/3 + pi) / 3 = 11 pi / 18
    ([[0, PI / 2], [1.0, 0.0], [0, PI / 2]], [[PI / 2, PI / 2], [2.0, PI / 3], [PI, PI / 2]], 11 * PI / 18),
    ([[0, PI / 2], [1.0, 0.0]], [[2 * PI, PI / 2], [4.0, 0.0]], 0.0),  # the same directions, other angles
    ([[0.0, 0.0]], [[0.0, PI]], PI),  # straight up vs straight down
]


@pytest.mark.parametrize(("truth", "pred", "expected"), ANGULAR_CASES)
def test_mean_angular_error_matches_the_grader(truth, pred, expected) -> None:
    agree(score("mean_angular_error", truth, pred), expected, ref_icecube(*icecube_frames(truth, pred)))


def test_mean_angular_error_clips_the_dot_product_as_the_grader() -> None:
    """A dot product that rounds to just above 1 (or below -1) is clipped, not NaN."""
    rng = np.random.default_rng(1)
    angles = np.column_stack([rng.uniform(0, 2 * PI, 2000), rng.uniform(0, PI, 2000)])
    az, zen = angles.T
    dot = np.sin(zen) ** 2 * (np.cos(az) ** 2 + np.sin(az) ** 2) + np.cos(zen) ** 2
    over = angles[dot > 1][:3]
    assert len(over) == 3  # rows whose unclipped arccos would be NaN
    with np.errstate(invalid="ignore"):
        assert np.isnan(np.arccos(dot[dot > 1])).all()
    value = score("mean_angular_error", over, over)
    assert value == 0.0
    agree(value, ref_icecube(*icecube_frames(over.tolist(), over.tolist())))


def test_mean_angular_error_reads_azimuth_then_zenith() -> None:
    truth, pred, expected = ANGULAR_CASES[0]
    swapped = score("mean_angular_error", np.fliplr(truth), np.fliplr(pred))
    assert abs(swapped - expected) > 0.1


def test_mean_angular_error_refuses_what_it_cannot_score() -> None:
    metric = get_metric("mean_angular_error")
    with pytest.raises(InvalidPrediction, match=r"need two columns, azimuth then zenith .* got shape 2$"):
        metric.score(np.array([[0.0, 1.0], [1.0, 1.0]]), np.array([0.0, 1.0]))
    with pytest.raises(CompetitionError, match=r"the answers need two columns, azimuth then zenith"):
        metric.score(np.zeros((2, 3)), np.zeros((2, 2)))
    with pytest.raises(InvalidPrediction, match="finite numbers"):
        metric.score(np.zeros((2, 2)), np.array([[0.0, math.inf], [1.0, 1.0]]))


def test_mean_angular_error_through_score_frame() -> None:
    truth, pred, expected = ANGULAR_CASES[0]
    submission, answers = (frame.astype(str) for frame in icecube_frames(truth, pred))
    # MLE-bench's sample and answers: event_id, azimuth, zenith
    spec = MetricSpec("mean_angular_error", True, "event_id", ("azimuth", "zenith"))
    assert score_frame(submission[["event_id", "azimuth", "zenith"]], answers, spec) == round(expected, 6)
    with pytest.raises(InvalidSubmission, match="zenith"):
        score_frame(submission.assign(zenith="up"), answers, spec)


# ---- 4. modified Laplace log likelihood: osic-pulmonary-fibrosis-progression -------------------------------


def ref_osic(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """osic-pulmonary-fibrosis-progression/grade.py: a blank Confidence is 0; the answers' rows with an FVC,
    each patient's three latest weeks (the week from Patient_Week); the submission's rows of those; then
    laplace_log_likelihood."""
    submission = submission.copy()
    submission["Confidence"] = submission["Confidence"].fillna(0)
    answers = answers.dropna(subset=["FVC"]).copy()
    answers["Week_Number"] = answers["Patient_Week"].apply(lambda x: int(x.split("_")[-1]))
    answers = answers.sort_values("Week_Number").groupby("Patient").tail(3).drop(columns=["Week_Number"])
    submission = submission[submission["Patient_Week"].isin(answers["Patient_Week"])]
    submission, answers = submission.sort_values(by="Patient_Week"), answers.sort_values(by="Patient_Week")
    fvc_true = answers.loc[answers["Patient_Week"].isin(submission["Patient_Week"]), "FVC"].values
    fvc_pred = submission.loc[submission["Patient_Week"].isin(answers["Patient_Week"]), "FVC"].values
    confidence = submission.loc[submission["Patient_Week"].isin(answers["Patient_Week"]), "Confidence"].values
    sd_clipped = np.maximum(confidence, 70)
    delta = np.minimum(np.abs(fvc_true - fvc_pred), 1000)
    return float(np.mean(-np.sqrt(2) * delta / sd_clipped - np.log(np.sqrt(2) * sd_clipped)))


def osic_frames(
    weeks: list[tuple[str, int]], fvc: list[float], pred: list[tuple[float, float]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(submission, answers): the answers as MLE-bench's prepare.py writes them (Patient, Weeks, FVC, ...,
    Patient_Week, a dummy Confidence 100), the submission Patient_Week, FVC, Confidence in reverse order."""
    keys = [f"{patient}_{week}" for patient, week in weeks]
    answers = pd.DataFrame(
        {
            "Patient": [patient for patient, _ in weeks],
            "Weeks": [week for _, week in weeks],
            "FVC": fvc,
            "Patient_Week": keys,
            "Confidence": 100,
        }
    )
    submission = pd.DataFrame(
        {"Patient_Week": keys, "FVC": [p for p, _ in pred], "Confidence": [c for _, c in pred]}
    ).iloc[::-1]
    return submission, answers


def laplace(delta: float, sigma: float) -> float:
    return -SQRT2 * delta / sigma - math.log(SQRT2 * sigma)


THREE_WEEKS = [("ID00007", -4), ("ID00007", 10), ("ID00007", 22)]
FVC = [2000.0, 3000.0, 2500.0]
LAPLACE_CASES = [
    # row 0: sigma 100, delta 100; row 1: Confidence 50 clipped to 70, delta 0; row 2: delta 1500 capped at 1000
    (
        [(2100.0, 100.0), (3000.0, 50.0), (1000.0, 200.0)],
        (laplace(100, 100) + laplace(0, 70) + laplace(1000, 200)) / 3,
    ),
    # exact with the floor 70: -ln(70 sqrt 2) on every row, the best score there is
    ([(2000.0, 70.0), (3000.0, 1.0), (2500.0, -5.0)], -math.log(70 * SQRT2)),
    # far off with a wide confidence: delta capped at 1000, sigma 1000
    (
        [(9000.0, 1000.0), (-3000.0, 1000.0), (2500.0, 1000.0)],
        (2 * laplace(1000, 1000) + laplace(0, 1000)) / 3,
    ),
]


@pytest.mark.parametrize(("pred", "expected"), LAPLACE_CASES)
def test_laplace_log_likelihood_matches_the_grader(pred, expected) -> None:
    submission, answers = osic_frames(THREE_WEEKS, FVC, pred)
    value = score("laplace_log_likelihood", np.column_stack([FVC, [100.0] * 3]), pred)
    agree(value, expected, ref_osic(submission, answers))


def test_laplace_log_likelihood_grades_the_rows_the_grader_keeps() -> None:
    """grade.py leaves out the answers' rows without an FVC (prepare.py's dummy weeks) and keeps each patient's
    three latest weeks (the week from Patient_Week): grading does the same before the metric (its
    `scored_rows`), so MLE-bench's answers as they are score as the grader scores them; the metric itself scores
    every row it is given."""
    weeks = [("ID00007", w) for w in (-4, 0, 10, 22)] + [("ID00009", 3), ("ID00009", 5)]
    fvc = [1800.0, 2000.0, 3000.0, 2500.0, math.nan, 2200.0]  # ID00009's week 3 is a dummy row
    pred = [
        (1800.0, 100.0),
        (2100.0, 100.0),
        (3000.0, 50.0),
        (1000.0, 200.0),
        (2000.0, 100.0),
        (2000.0, 100.0),
    ]
    graded = ref_osic(*osic_frames(weeks, fvc, pred))
    # the grader: ID00007's weeks 0, 10, 22 (week -4 is not among the three latest) and ID00009's week 5
    assert graded == pytest.approx((3 * LAPLACE_CASES[0][1] + laplace(200, 100)) / 4, abs=TOL)
    submission, answers = osic_frames(weeks, fvc, pred)
    spec = MetricSpec("laplace_log_likelihood", False, "Patient_Week", ("FVC", "Confidence"))
    blank = answers.astype(str).replace("nan", "")
    assert score_frame(submission.astype(str), blank, spec) == round(graded, 6)
    # the submission must still hold every answer's id, the dummy weeks' too
    with pytest.raises(InvalidSubmission, match="5 rows, expected 6"):
        score_frame(submission.astype(str).iloc[1:], blank, spec)
    # the metric alone, given all four measured weeks of ID00007: week -4 (exact, sigma 100) counts too
    every = score("laplace_log_likelihood", np.column_stack([fvc[:4], [100.0] * 4]), pred[:4])
    assert every == pytest.approx((3 * LAPLACE_CASES[0][1] + laplace(0, 100)) / 4, abs=TOL)


def test_laplace_log_likelihood_refuses_what_it_cannot_score() -> None:
    metric = get_metric("laplace_log_likelihood")
    truth = np.column_stack([FVC, [100.0] * 3])
    with pytest.raises(InvalidPrediction, match=r"need two columns, FVC then Confidence \(the sample"):
        metric.score(truth, np.array(FVC))
    # grade.py reads a blank Confidence as 0 (so sigma 70); the library wants a number in every cell
    with pytest.raises(InvalidPrediction, match="finite numbers"):
        metric.score(truth, np.array([[2000.0, 100.0], [3000.0, math.nan], [2500.0, 100.0]]))
    with pytest.raises(CompetitionError, match="the answers must be finite numbers"):
        metric.score(np.array([[math.nan, 100.0]]), np.array([[2000.0, 100.0]]))


def test_laplace_log_likelihood_through_score_frame() -> None:
    pred, expected = LAPLACE_CASES[0]
    submission, answers = (frame.astype(str) for frame in osic_frames(THREE_WEEKS, FVC, pred))
    # MLE-bench's sample: Patient_Week, FVC, Confidence; the answers carry a dummy Confidence column
    spec = MetricSpec("laplace_log_likelihood", False, "Patient_Week", ("FVC", "Confidence"))
    assert score_frame(submission, answers, spec) == round(expected, 6)
    with pytest.raises(InvalidSubmission, match="Confidence"):
        score_frame(submission.assign(Confidence="high"), answers, spec)


# ---- 5. probabilistic F1: rsna-breast-cancer-detection -----------------------------------------------------


def ref_rsna(submission: pd.DataFrame, answers: pd.DataFrame, beta: float = 1) -> float:
    """rsna-breast-cancer-detection/grade.py: sorted by prediction_id, pfbeta of the host's notebook (each
    prediction clipped to [0, 1])."""
    submission, answers = submission.sort_values("prediction_id"), answers.sort_values("prediction_id")
    assert (submission["prediction_id"].values == answers["prediction_id"].values).all()
    labels, predictions = answers["cancer"].to_numpy(), submission["cancer"].to_numpy()
    y_true_count, ctp, cfp = 0, 0, 0
    for idx in range(len(labels)):
        prediction = min(max(predictions[idx], 0), 1)
        if labels[idx]:
            y_true_count += 1
            ctp += prediction
        else:
            cfp += prediction
    beta_squared = beta * beta
    with np.errstate(invalid="ignore", divide="ignore"):
        c_precision = ctp / (ctp + cfp)
    c_recall = ctp / y_true_count
    if c_precision > 0 and c_recall > 0:
        return float((1 + beta_squared) * (c_precision * c_recall) / (beta_squared * c_precision + c_recall))
    return 0.0


def rsna_frames(truth: list[int], pred: list[float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = [f"{10006 + i}_{'LR'[i % 2]}" for i in range(len(truth))]
    answers = pd.DataFrame({"prediction_id": ids, "cancer": truth})
    submission = pd.DataFrame({"prediction_id": ids[::-1], "cancer": pred[::-1]})
    return submission, answers


PF1_CASES = [
    # pTP = .8 + .2 = 1, pFP = .4 + 0 = .4: pP = 1 / 1.4 = 5/7, pR = 1 / 2; pF1 = 2 (5/7)(1/2) / (5/7 + 1/2)
    # = (5/7) / (17/14) = 10/17
    ([1, 0, 1, 0], [0.8, 0.4, 0.2, 0.0], 10 / 17),
    # 0/1 predictions: the plain F1; TP 1, FP 1, FN 1: 1/2
    ([1, 0, 1, 0], [1.0, 1.0, 0.0, 0.0], 0.5),
    ([1, 0, 0], [1.0, 0.0, 0.0], 1.0),  # perfect
    ([1, 0, 0], [0.0, 0.0, 0.0], 0.0),  # all 0: pP is 0/0, the grader's (NumPy) NaN fails its test: 0
    ([1, 0, 0], [0.0, 0.9, 0.3], 0.0),  # no probability on the positive: pTP 0
    # one positive at .5, negatives .25 + .25: pP = .5, pR = .5, pF1 = .5
    ([0, 1, 0, 0], [0.25, 0.5, 0.25, 0.0], 0.5),
]


@pytest.mark.parametrize(("truth", "pred", "expected"), PF1_CASES)
def test_probabilistic_f1_matches_the_grader(truth, pred, expected) -> None:
    agree(score("probabilistic_f1", truth, pred), expected, ref_rsna(*rsna_frames(truth, pred)))


def test_probabilistic_f1_with_0_1_predictions_is_the_f1() -> None:
    truth, pred = [1, 1, 0, 0, 1, 0], [1.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    assert score("probabilistic_f1", truth, pred) == pytest.approx(skm.f1_score(truth, pred), abs=TOL)


def test_probabilistic_f1_takes_its_beta() -> None:
    # case 1 with beta 2: 5 pP pR / (4 pP + pR) = 5 (5/7)(1/2) / (20/7 + 1/2) = (25/14) / (47/14) = 25/47
    truth, pred, _ = PF1_CASES[0]
    value = score("probabilistic_f1", truth, pred, beta=2.0)
    agree(value, 25 / 47, ref_rsna(*rsna_frames(truth, pred), beta=2))
    with pytest.raises(CompetitionError, match="'beta' must be a positive number"):
        score("probabilistic_f1", truth, pred, beta=0)


def test_probabilistic_f1_refuses_what_it_cannot_score() -> None:
    with pytest.raises(CompetitionError, match="the answers hold no positive"):
        score("probabilistic_f1", [0, 0], [0.5, 0.5])
    with pytest.raises(CompetitionError, match="the answers must be 0/1 labels"):
        score("probabilistic_f1", [0, 2], [0.5, 0.5])
    # grade.py clips a prediction to [0, 1]; the library refuses it, as every probability metric does
    truth, pred = [1, 0, 1, 0], [1.2, 0.4, 0.2, -0.1]
    # clipped: pTP = 1 + .2, pFP = .4: pP = .75, pR = .6, pF1 = 2 * .75 * .6 / 1.35 = 2/3
    assert ref_rsna(*rsna_frames(truth, pred)) == pytest.approx(2 / 3, abs=TOL)
    with pytest.raises(InvalidPrediction, match=r"probabilities in \[0, 1\]"):
        score("probabilistic_f1", truth, pred)


def test_probabilistic_f1_through_score_frame() -> None:
    truth, pred, expected = PF1_CASES[0]
    submission, answers = (frame.astype(str) for frame in rsna_frames(truth, pred))
    spec = MetricSpec("probabilistic_f1", False, "prediction_id", ("cancer",))
    assert score_frame(submission, answers, spec) == round(expected, 6)
    with pytest.raises(InvalidSubmission, match=r"must hold probabilities in \[0, 1\] for probabilistic_f1"):
        score_frame(submission.assign(cancer="1.5"), answers, spec)


# ---- 6. trip distance error: smartphone-decimeter-2022 -----------------------------------------------------


def ref_smartphone(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """smartphone-decimeter-2022/grade.py: per tripId of the answers, its notebook's calc_score (the haversine
    distances with radius 6,371,000 m, the mean of their 50th and 95th percentiles), then the mean."""
    scores = []
    for trip in answers["tripId"].unique():
        gt, pred = answers[answers["tripId"] == trip], submission[submission["tripId"] == trip]
        lat1, lng1 = (
            np.deg2rad(pred["LatitudeDegrees"].to_numpy()),
            np.deg2rad(pred["LongitudeDegrees"].to_numpy()),
        )
        lat2, lng2 = (
            np.deg2rad(gt["LatitudeDegrees"].to_numpy()),
            np.deg2rad(gt["LongitudeDegrees"].to_numpy()),
        )
        a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lng2 - lng1) / 2) ** 2
        d = 2 * 6_371_000 * np.arcsin(np.sqrt(a))
        scores.append(np.mean([np.quantile(d, 0.50), np.quantile(d, 0.95)]))
    return float(np.mean(scores))


def test_trip_distance_error_matches_the_grader() -> None:
    """Two trips on the equator, predicted east of the truth by 0..4 and 0..9 hundredths of a degree (about
    1.1 km each): by hand, trip one's distances are 0, 1, 2, 3, 4 steps (p50 2, p95 3.8) and trip two's 0..9
    (p50 4.5, p95 8.55); the mean of (2 + 3.8) / 2 and (4.5 + 8.55) / 2 steps."""
    step = 2 * 6_371_000 * math.pi / 360 * 0.01  # metres along the equator per 0.01 degree
    trips = ["a"] * 5 + ["b"] * 10
    offsets = [k * 0.01 for k in range(5)] + [k * 0.01 for k in range(10)]
    truth = np.array([[0.0, 10.0]] * 15)
    pred = np.array([[0.0, 10.0 + o] for o in offsets])
    value = score("trip_distance_error", truth, pred, groups=np.array(trips))
    expected = ((2 + 3.8) / 2 + (4.5 + 8.55) / 2) / 2 * step
    frame = pd.DataFrame({"tripId": trips, "LatitudeDegrees": truth[:, 0], "LongitudeDegrees": truth[:, 1]})
    submission = frame.assign(LongitudeDegrees=pred[:, 1])
    agree(value / step, expected / step, ref_smartphone(submission, frame) / step)
    # one trip of all the rows is another score: the groups count
    assert abs(score("trip_distance_error", truth, pred) - value) > step / 10


def test_trip_distance_error_matches_the_grader_away_from_the_equator() -> None:
    rng = np.random.default_rng(6)
    trips = np.repeat(["x", "y", "z"], 40)
    truth = np.column_stack([rng.uniform(37.3, 37.5, 120), rng.uniform(-122.2, -121.9, 120)])
    pred = truth + rng.normal(0, 2e-5, truth.shape)
    frame = pd.DataFrame({"tripId": trips, "LatitudeDegrees": truth[:, 0], "LongitudeDegrees": truth[:, 1]})
    submission = frame.assign(LatitudeDegrees=pred[:, 0], LongitudeDegrees=pred[:, 1])
    agree(score("trip_distance_error", truth, pred, groups=trips), ref_smartphone(submission, frame))


def test_trip_distance_error_refuses_what_it_cannot_score() -> None:
    with pytest.raises(InvalidPrediction, match="latitude then longitude"):
        score("trip_distance_error", [[0.0, 1.0]], [[0.0, 1.0, 2.0]])
    with pytest.raises(CompetitionError, match="trip column 'tripId' has missing values"):
        get_metric("trip_distance_error").score(
            np.array([[0.0, 1.0]]), np.array([[0.0, 1.0]]), groups=np.array([None]), group_column="tripId"
        )


# ---- 7. Dice with 3-D Hausdorff: uw-madison-gi-tract-image-segmentation ----------------------------------


def ref_uw_madison(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """uw-madison-gi-tract-image-segmentation/grade.py: masks decoded with the answers' sizes (rle_decode: down
    each column), per-row Dice (NaN where both are empty), slices' masks OR-ed and stacked per case and day in
    id order, the 3-D Hausdorff rules, 0.4 * nanmean(Dice) + 0.6 * (1 - nanmean(Hausdorff))."""
    from scipy.spatial.distance import directed_hausdorff

    def decode(rle: str, h: int, w: int) -> np.ndarray:
        img = np.zeros(h * w, dtype=bool)
        numbers = list(map(int, rle.split()))
        for lo, n in zip(numbers[0::2], numbers[1::2], strict=True):
            img[lo - 1 : lo - 1 + n] = True
        return img.reshape((w, h)).T

    heights, widths = (
        answers["image_height"].astype(int).tolist(),
        answers["image_width"].astype(int).tolist(),
    )
    sub = [
        decode(r, h, w) for r, h, w in zip(submission["predicted"].fillna(""), heights, widths, strict=True)
    ]
    ans = [decode(r, h, w) for r, h, w in zip(answers["predicted"].fillna(""), heights, widths, strict=True)]

    def by_day(masks, ids):
        slices, order = {}, []
        for mask, key in sorted(zip(masks, ids, strict=True), key=lambda x: x[1]):
            if key not in slices:
                slices[key] = []
                order.append(key)
            slices[key].append(mask)
        days = {}
        for key in order:
            days.setdefault(key.split("_slice_")[0], []).append(
                np.logical_or.reduce(slices[key]).astype(np.uint8)
            )
        return [np.stack(v, axis=0) for v in days.values()]

    def hausdorff(pred, true):
        if pred.sum() == 0 and true.sum() == 0:
            return np.nan
        if np.array_equal(pred, true):
            return 0
        if (pred.sum() == 0) != (true.sum() == 0):
            return 1
        if pred.sum() > 10 * true.sum():
            return 1
        t, p = np.argwhere(true) / true.shape, np.argwhere(pred) / true.shape
        return max(directed_hausdorff(t, p)[0], directed_hausdorff(p, t)[0]) / np.sqrt(3)

    def dice(pred, true):
        if pred.sum() == 0 and true.sum() == 0:
            return np.nan
        return 2 * np.sum(pred * true) / (np.sum(pred) + np.sum(true))

    dices = np.nanmean([dice(p, t) for p, t in zip(sub, ans, strict=True)])
    days = zip(by_day(sub, submission["id"]), by_day(ans, answers["id"]), strict=True)
    return float(0.4 * dices + 0.6 * (1 - np.nanmean([hausdorff(p, t) for p, t in days])))


def uw_frames(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two scans of three slices (12 x 10 pixels), a row per organ: masks of random runs, some empty; the
    prediction shifts some true runs by a few pixels, blanks some and adds others."""
    rows = []
    for scan in ("case7_day3", "case12_day1"):
        for s in (1, 2, 3):
            for organ in ("large_bowel", "small_bowel", "stomach"):
                start = int(rng.integers(1, 100))
                truth = "" if rng.random() < 0.3 else f"{start} {int(rng.integers(1, 15))}"
                roll = rng.random()
                if roll < 0.2 or not truth:
                    pred = "" if rng.random() < 0.5 else f"{int(rng.integers(1, 100))} 4"
                else:
                    pred = f"{min(start + int(rng.integers(0, 5)), 110)} {int(rng.integers(1, 10))}"
                rows.append((f"{scan}_slice_{s:04d}", organ, truth, pred))
    frame = pd.DataFrame(rows, columns=["id", "class", "predicted", "guess"])
    answers = frame[["id", "class", "predicted"]].assign(image_height=12, image_width=10)
    return frame[["id", "class", "guess"]].rename(columns={"guess": "predicted"}), answers


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_dice_hausdorff_matches_the_grader(seed: int) -> None:
    submission, answers = uw_frames(np.random.default_rng(seed))
    groups = answers[["id", "image_height", "image_width"]].astype(str).to_numpy()
    value = get_metric("dice_hausdorff").score(
        answers["predicted"].to_numpy(dtype=object),
        submission["predicted"].to_numpy(dtype=object),
        groups=groups,
    )
    agree(value, ref_uw_madison(submission, answers))
    perfect = get_metric("dice_hausdorff").score(
        answers["predicted"].to_numpy(dtype=object),
        answers["predicted"].to_numpy(dtype=object),
        groups=groups,
    )
    assert perfect == 1.0 and value < 1.0


def test_dice_hausdorff_by_hand() -> None:
    """One scan of one 4 x 4 slice: the true mask pixels 1-4 (column one), the prediction 1-2: Dice 2*2/6; the
    unit-cube coordinates of column one's rows 2 and 3 are a quarter and a half from row 1's, so the Hausdorff
    distance is 0.5 / sqrt(3): 0.4 * 2/3 + 0.6 * (1 - 0.5 / sqrt(3))."""
    groups = np.array([["case1_day1_slice_0001", "4", "4"]], dtype=object)
    value = get_metric("dice_hausdorff").score(np.array(["1 4"]), np.array(["1 2"]), groups=groups)
    agree(value, 0.4 * 2 / 3 + 0.6 * (1 - 0.5 / math.sqrt(3)))


def test_dice_hausdorff_needs_each_rows_size() -> None:
    with pytest.raises(CompetitionError, match="slice id, image height and width"):
        get_metric("dice_hausdorff").score(
            np.array(["1 4"]), np.array(["1 2"]), groups=np.array(["case1_day1_slice_0001"])
        )


# ---- names, directions, validity flags ---------------------------------------------------------------------

NEW = {
    "masked_mae": (True, ["inspiratory_mae", "masked mean absolute error", "MAE-masked"]),
    "tpr_weighted_auc": (False, ["weighted_auc", "weighted AUC", "alaska weighted auc"]),
    "mean_angular_error": (True, ["angular_error", "mean angular distance", "angular_dist_score"]),
    "laplace_log_likelihood": (False, ["modified Laplace log likelihood", "laplace_ll", "LLL"]),
    "probabilistic_f1": (False, ["pF1", "pfbeta", "probabilistic f-score"]),
    "spine_weighted_logloss": (True, ["rsna spine logloss", "cervical-spine-logloss"]),
    "trip_distance_error": (True, ["gsdc_distance", "smartphone decimeter", "haversine p50 p95"]),
    "dice_hausdorff": (False, ["dice_3d_hausdorff", "uw madison metric", "dice and hausdorff"]),
}


@pytest.mark.parametrize("name", sorted(NEW))
def test_names_aliases_directions_and_coarse_metrics(name) -> None:
    lower, aliases = NEW[name]
    metric = METRICS[name]
    assert metric.lower_is_better is lower
    for alias in aliases:
        assert get_metric(alias).name == name, alias
    assert metric.formula and "\n" not in metric.formula
    assert name in COARSE_METRIC


def test_validity_flags() -> None:
    flags = {
        name: (m.numeric, m.probability, m.binary_truth, m.scope, m.grouped, m.params)
        for name, m in METRICS.items()
        if name in NEW
    }
    assert flags == {
        "masked_mae": (True, False, False, "column", True, {"group_column": ""}),
        "tpr_weighted_auc": (True, True, True, "column", False, {}),
        "mean_angular_error": (True, False, False, "table", False, {}),
        "laplace_log_likelihood": (True, False, False, "table", False, {}),
        "probabilistic_f1": (True, True, True, "column", False, {"beta": 1.0}),
        # its groups are the row ids `<exam>_<label>` (test_spine_metric.py)
        "spine_weighted_logloss": (True, True, True, "column", True, {"group_column": "row_id"}),
        # its groups are the trips, `tripId` (smartphone-decimeter-2022)
        "trip_distance_error": (True, False, False, "table", True, {"group_column": ""}),
        # each row's slice id and image size (uw-madison-gi-tract-image-segmentation)
        "dice_hausdorff": (
            False,
            False,
            False,
            "column",
            True,
            {"row_columns": ["id", "image_height", "image_width"]},
        ),
    }
    assert list(METRICS)[-len(NEW) :] == list(NEW)  # appended at the end of the library


@pytest.mark.parametrize("name", sorted(NEW))
def test_the_model_can_name_them(name) -> None:
    lower = METRICS[name].lower_is_better
    client = ScriptedClient({"name": name, "lower_is_better": lower, "reason": "says so"})
    choice = infer_metric_with_model(client, "## Evaluation\n\nSome metric.")  # type: ignore[arg-type]
    assert (choice.name, choice.lower_is_better, choice.params) == (name, lower, {})
    assert name in metric_tool().json_schema()["properties"]["name"]["enum"]
    assert f"- {name}: {METRICS[name].formula}" in metric_messages("x")[0].content


# ---- the rules on the real descriptions' wording -----------------------------------------------------------
# Quoted from openai/mle-bench's description.md of each competition (`[...]` marks a cut).

VENTILATOR_EVALUATION = (
    "The competition will be scored as the mean absolute error between the predicted and actual pressures during "
    "the inspiratory phase of each breath. The expiratory phase is not scored. The score is given by:\n\n$$\n"
    "|X-Y|\n$$\nwhere $X$ is the vector of predicted pressure and $Y$ is the vector of actual pressures across "
    "all breaths in the test set."
)
ALASKA2_EVALUATION = (
    "In order to focus on reliable detection with an emphasis on low false-alarm rate, submissions are evaluated "
    "on the weighted AUC. To calculate the weighted AUC, each region of the ROC curve is weighted according to "
    "these chosen parameters:\n\n```\ntpr_thresholds = [0.0, 0.4, 1.0]\nweights = [2, 1]\n```\n\nIn other "
    "words, the area between the true positive rate of 0 and 0.4 is weighted 2X, the area between 0.4 and 1 is "
    "now weighed (1X). The total area is normalized by the sum of weights such that the final weighted AUC is "
    "between 0 and 1."
)
ICECUBE_EVALUATION = (
    "Submissions are evaluated using the mean angular error between the predicted and true event origins. See "
    "[this notebook](https://www.kaggle.com/code/sohier/mean-angular-error) for a python copy of the metric.\n\n"
    "Submission File\n---------------\n\nFor each `event_id` in the test set, you must predict the `azimuth` and "
    "`zenith`. The file should contain a header and have the following format:\n\n```\nevent_id,azimuth,zenith\n"
    "730,1,1\n```"
)
OSIC_EVALUATION = (
    "This competition is evaluated on a modified version of the Laplace Log Likelihood. In medical applications, "
    "it is useful to evaluate a model's confidence in its decisions. [...] The final score is calculated by "
    "averaging the metric across all test set `Patient_Week`s (three per patient). Note that metric values will "
    "be negative and higher is better."
)
RSNA_BREAST_EVALUATION = (
    "Submissions are evaluated using the [probabilistic F1 score](https://aclanthology.org/2020.eval4nlp-1.9.pdf)"
    " (pF1). This extension of the traditional F score accepts probabilities instead of binary classifications. "
    "You can find [a Python implementation here](https://www.kaggle.com/code/sohier/probabilistic-f-score).\n\n"
    "With pX as the probabilistic version of X:\n\n$$\npF_1 = 2 \\frac{pPrecision \\cdot pRecall}{pPrecision + "
    "pRecall}\n$$"
)


def described(evaluation: str) -> str:
    return f"# A competition\n\n## Description\n\nPredict it.\n\n## Evaluation\n\n{evaluation}\n\n## Data\n\nFiles."


@pytest.mark.parametrize(
    ("evaluation", "name", "words", "coarse"),
    [
        (VENTILATOR_EVALUATION, "masked_mae", "mean absolute error", "mae"),
        (ALASKA2_EVALUATION, "tpr_weighted_auc", "weighted AUC", "auc"),
        (ICECUBE_EVALUATION, "mean_angular_error", "mean angular error", None),
        (OSIC_EVALUATION, "laplace_log_likelihood", "Laplace Log Likelihood", None),
        (RSNA_BREAST_EVALUATION, "probabilistic_f1", "probabilistic F1", "f1"),
    ],
    ids=["ventilator", "alaska2", "icecube", "osic", "rsna-breast"],
)
def test_the_rules_name_them_from_the_real_wording(evaluation, name, words, coarse) -> None:
    found = infer_metric_rules(described(evaluation))
    assert found is not None and (found.name, found.params) == (name, {})
    assert found.reason == f'description.md\'s Evaluation section says "{words}"'
    assert COARSE_METRIC[name] == coarse == metric_from_description(described(evaluation))


@pytest.mark.parametrize(
    ("evaluation", "name"),
    [
        # the words alone, without what makes them these metrics, name the plain metric or none
        ("The competition will be scored as the mean absolute error of the pressures.", "mae"),
        ("Scored on the MAE. Rows of the warm-up are not scored, but need a value.", "masked_mae"),
        ("Submissions are evaluated on area under the ROC curve between the predicted probability and the "
         "observed target.", "auc"),
        ("Submissions are evaluated on the weighted AUC of the three classes.", "auc"),
        ("Submissions are evaluated on the weighted AUC.\n\n## Data\n\nThe true positive rate is in tpr.csv.",
         "auc"),
        ("Submissions are evaluated on the mean angular error of the predicted wind directions.", None),
        ("Submissions are evaluated on the Gaussian log likelihood.", None),
        ("Submissions are scored on the 95th percentile of the distance errors.", None),
        ("Submissions are evaluated on the F1 score of the positive class.", "f1"),
    ],
)  # fmt: skip
def test_the_rules_need_what_makes_them_these_metrics(evaluation, name) -> None:
    text = described(evaluation)
    found = infer_metric_rules(text)
    assert (found.name if found else None) == name, found
    if name is None:
        assert lacking_metric(text).endswith("a metric the library lacks")


# ---- the mask column, from description.md to the harness's private labels ----------------------------------


def test_the_description_names_the_mask_column(tmp_path: Path) -> None:
    competition = load_competition_dir(ventilator_competition(tmp_path / "v"))
    assert infer_mask_column(competition) == (MASK, MASK_LINE)


@pytest.mark.parametrize(
    ("description", "why"),
    [
        (DESCRIPTION.replace("- `u_out` -", "- the second valve -"), "no 0/1 column is named"),
        (DESCRIPTION + "- `R` - 0 or 1.\n", "R holds 20 and 50: still u_out alone"),
    ],
)
def test_the_mask_column_is_a_named_0_1_column(tmp_path: Path, description, why) -> None:
    competition = load_competition_dir(ventilator_competition(tmp_path / "v", description=description))
    expected = None if why.startswith("no ") else (MASK, MASK_LINE)
    assert infer_mask_column(competition) == expected, why


def test_two_named_0_1_columns_are_ambiguous(tmp_path: Path) -> None:
    root = ventilator_competition(tmp_path / "v", description=DESCRIPTION + "- `valve` - open (1) or not.\n")
    public = root / "prepared" / "public"
    for name in ("train.csv", "test.csv"):
        table = pd.read_csv(public / name)
        table.assign(valve=1 - table[MASK]).to_csv(public / name, index=False)
    assert infer_mask_column(load_competition_dir(root)) is None


@pytest.mark.parametrize(
    ("client", "source"),
    [
        (None, SOURCE_RULES),
        (OfflineClient(), SOURCE_RULES),
        (
            ScriptedClient({"name": "masked_mae", "lower_is_better": True, "reason": "MAE, inspiratory"}),
            SOURCE_MODEL,
        ),
    ],
)
def test_choosing_masked_mae_sets_the_mask_column(tmp_path: Path, client, source) -> None:
    competition = load_competition_dir(ventilator_competition(tmp_path / "v"))
    assert competition.metric is None
    choice = resolve_metric(competition, override=None, model=metric_reader(client), bundled=False)
    assert (choice.name, choice.source, choice.params) == ("masked_mae", source, {"group_column": MASK})
    assert "scored where 'u_out' is 0" in choice.reason
    assert "masked_mae (group_column=u_out)" in choice.describe()
    override = resolve_metric(competition, override="inspiratory_mae", model=None, bundled=False)
    assert (override.name, override.source, override.params) == (
        "masked_mae",
        SOURCE_OVERRIDE,
        {"group_column": MASK},
    )


def test_the_grader_scores_the_inspiratory_rows(tmp_path: Path) -> None:
    """MLE-bench's answers (private/test.csv) carry every column of the test rows, u_out among them."""
    competition = load_competition_dir(ventilator_competition(tmp_path / "v", metric=MASKED_METRIC))
    answers = pd.read_csv(competition.answers)
    path = tmp_path / "submission.csv"
    pd.DataFrame({"id": answers["id"], TARGET: offset_predictions(answers)}).to_csv(path, index=False)
    report = grade_submission(competition, path)
    assert report.valid and report.score == MASKED
    plain = load_competition_dir(ventilator_competition(tmp_path / "plain", metric={"name": "mae"}))
    assert grade_submission(plain, path).score > 30  # the expiratory rows' offsets of 50 count there


def test_the_harness_keeps_the_held_out_mask_privately(tmp_path: Path) -> None:
    """labels.csv keeps the held-out rows' u_out beside the target (private); the sandbox's test.csv has u_out
    as the competition's own test.csv has it, and no pressure; a known submission's held-out score is the
    masked MAE, and the ensemble's library scores the rows with the same mask."""
    competition = load_competition_dir(ventilator_competition(tmp_path / "v", metric=MASKED_METRIC))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.3, seed=0)
    labels = read(holdout.labels_path)
    assert list(labels.columns) == ["id", TARGET, MASK] and holdout.target_columns == [TARGET]
    assert stat.S_IMODE(holdout.labels_path.stat().st_mode) == 0o600
    original = read(competition.public_dir / "train.csv").set_index("id")
    own = labels["id"].map(holdout.own_ids("held"))
    assert (labels.set_index("id")[MASK] == original.loc[own, MASK].to_numpy()).all()
    assert set(labels[MASK]) == {"0", "1"}

    public = holdout.public_dir
    assert not (public / "labels.csv").exists()
    test = read(public / "test.csv")
    assert list(test.columns) == list(read(competition.public_dir / "test.csv").columns)  # u_out, no pressure
    assert TARGET not in test.columns and set(holdout.ids) <= set(test["id"])
    assert set(holdout.ids).isdisjoint(read(public / "train.csv")["id"])

    # a submission for every row the solution sees: held-out rows off by their phase's offset, the rest 0
    rows = original.loc[own].reset_index()
    predicted = dict(zip(labels["id"], offset_predictions(rows), strict=True))
    sample = read(public / "sample_submission.csv")
    path = tmp_path / "s.csv"
    pd.DataFrame({"id": sample["id"], TARGET: [predicted.get(i, 0.0) for i in sample["id"]]}).to_csv(
        path, index=False
    )
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    result = harness.evaluate(path, tmp_path / "test_part.csv", tmp_path / "heldout.csv")
    assert result.problem is None and result.score == MASKED

    library = build_library(harness.spec, harness.labels, {"n1": read(tmp_path / "heldout.csv")}, 4)
    assert library.node_ids == ["n1"] and library.groups is not None
    assert library.score(Blender(harness.spec), library.predictions[0]) == pytest.approx(MASKED, abs=TOL)
