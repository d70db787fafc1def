"""The metrics MLE-bench competitions are scored on, checked against each competition's own grade.py.

Every case is worked out by hand (the arithmetic in a comment) and scored three ways that must agree to 1e-9:
the library, the hand value, and a small re-implementation that follows the competition's grade.py
(openai/mle-bench @783b15a, `mlebench/competitions/<id>/grade.py`) step by step on data frames. Where the
library differs from a grade.py on purpose, a test shows the difference and says why.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import (
    f1_score,
    fbeta_score,
    jaccard_score,
    label_ranking_average_precision_score,
    matthews_corrcoef,
    mean_absolute_error,
)
from sklearn.preprocessing import MultiLabelBinarizer

from swarm.competitions import CompetitionError, MetricSpec
from swarm.competitions.grading import score_frame
from swarm.competitions.metric_wording import COARSE_METRIC
from swarm.competitions.metrics import METRICS, get_metric, resolve_metric
from swarm.competitions.metrics.base import InvalidPrediction
from swarm.competitions.submission_check import check_submission
from swarm.competitions.validation import InvalidSubmission
from swarm.llm.base import CallContext, Message, ToolSpec
from swarm.pipeline.metric_model import infer_metric_with_model, metric_messages, metric_tool
from tests.competitions.graded_frames import TOL, agree, frames


def lib(name: str, y_true: Any, y_pred: Any, **kwargs: Any) -> float:
    return get_metric(name).score(
        np.asarray(y_true, dtype=object), np.asarray(y_pred, dtype=object), **kwargs
    )


# ---- 1. micro F1 over label sets: imet-2020-fgvc7, plant-pathology-2021-fgvc8,
#         facebook-recruiting-iii-keyword-extraction ----------------------------------------------------------


def ref_label_set_f1(submission: pd.DataFrame, answers: pd.DataFrame, id_col: str, target: str) -> float:
    """facebook-recruiting-iii-keyword-extraction/grade.py (imet-2020-fgvc7 and plant-pathology-2021-fgvc8 do
    the same, their classes from `answers[target].str.split().explode().unique()`)."""
    submission = submission.sort_values(by=id_col).reset_index(drop=True)
    answers = answers.sort_values(by=id_col).reset_index(drop=True)
    assert (submission[id_col].values == answers[id_col].values).all()
    classes: set[str] = set()
    for tags in answers[target]:
        if isinstance(tags, str):
            classes.update(tags.split())
    binarizer = MultiLabelBinarizer(classes=sorted(classes), sparse_output=True)
    y_true = binarizer.fit_transform(answers[target].fillna("").str.split())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "unknown class(es) will be ignored"
        y_pred = binarizer.transform(submission[target].fillna("").str.split())
    return float(f1_score(y_true=y_true, y_pred=y_pred, average="micro"))


LABEL_SET_CASES = [
    # classes {a, b, c} (the answers'); "d" is in no answer, so it is dropped, not a false positive.
    # row 0: {a,b} vs {a}: tp 1, fn 1; row 1: {c} vs {c}: tp 1; row 2: {a} vs {b,c}: fp 2, fn 1
    # TP 2, FP 2, FN 2: F1 = 2*2 / (2*2 + 2 + 2) = 0.5
    (["a b", "c", "a"], ["a", "c d", "b c"], 0.5),
    (["a b", "c"], ["b a", "c"], 1.0),  # perfect, in any order
    (["a", "b"], ["b", "a"], 0.0),  # all wrong: TP 0, FP 2, FN 2
    (["a", "b c"], ["", ""], 0.0),  # empty predictions: TP 0, FN 3
    (["a", "b"], ["zzz", "yyy q"], 0.0),  # only labels no answer holds: TP 0, FP 0, FN 2
    # repeats count once; an empty answer: row 0 tp 1, row 1 fp 1, row 2 tp 1 -> 2*2 / (2*2 + 1) = 4/5
    # (the answers hold two classes: with one, the grader's sparse matrices are no multilabel target for
    # sklearn 1.9's f1_score, which raises)
    (["a", "", "b"], ["a a", "a", "b"], 4 / 5),
]


@pytest.mark.parametrize(("truth", "pred", "expected"), LABEL_SET_CASES)
def test_multilabel_f1_micro_matches_the_grader(truth, pred, expected) -> None:
    submission, answers = frames("Id", "Tags", truth, pred)
    agree(
        lib("multilabel_f1_micro", truth, pred), expected, ref_label_set_f1(submission, answers, "Id", "Tags")
    )


def test_multilabel_f1_micro_single_labels_are_accuracy() -> None:
    # one label a row, every predicted label one an answer holds: TP = right rows, FP = FN = wrong rows
    truth, pred = ["cat", "dog", "cat", "fox"], ["cat", "cat", "cat", "dog"]
    assert lib("multilabel_f1_micro", truth, pred) == pytest.approx(2 / 4, abs=TOL)
    assert lib("multilabel_f1_micro", truth, pred) == pytest.approx(lib("f1_micro", truth, pred), abs=TOL)


def test_multilabel_f1_micro_needs_labels_in_the_answers() -> None:
    with pytest.raises(CompetitionError, match="the answers hold no label at all"):
        lib("multilabel_f1_micro", ["", ""], ["a", ""])


# ---- 2. word-level Jaccard: tweet-sentiment-extraction, chaii-hindi-and-tamil-question-answering -------------


def ref_tweet(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """tweet-sentiment-extraction/grade.py."""

    def jaccard(str1: str, str2: str) -> float:
        a, b = set(str1.lower().split()), set(str2.lower().split())
        c = a.intersection(b)
        return float(len(c)) / (len(a) + len(b) - len(c))

    submission, answers = submission.sort_values("textID"), answers.sort_values("textID")
    assert (submission["textID"].values == answers["textID"].values).all()
    preds = submission["selected_text"].fillna("").astype(str).tolist()
    truths = answers["selected_text"].fillna("").astype(str).tolist()
    return float(np.mean([jaccard(a, b) for a, b in zip(preds, truths, strict=True)]))


def ref_chaii(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """chaii-hindi-and-tamil-question-answering/grade.py: sklearn's jaccard_score over word sets, per row."""
    submission, answers = submission.sort_values("id"), answers.sort_values("id")
    pred = [set(s.lower().split()) for s in submission["PredictionString"].fillna("")]
    true = [set(s.lower().split()) for s in answers["PredictionString"].fillna("")]
    binarizer = MultiLabelBinarizer(classes=list(set.union(*true, *pred)), sparse_output=True)
    y_true = binarizer.fit_transform(true)
    y_pred = binarizer.transform(pred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a row with both sets empty: zero_division
        return float(jaccard_score(y_true=y_true, y_pred=y_pred, average="samples"))


JACCARD_CASES = [
    # row 0: {love, it!} vs {i, love, it}: 1 shared of 4 words (punctuation stays on a word) = 1/4
    # row 1: {sad} vs {so, sad, today} (lower-cased): 1/3; row 2: {} vs {ok}: 0
    # mean (1/4 + 1/3 + 0) / 3 = 7/36
    (["I love it", "so SAD today", "ok"], ["love it!", "sad", ""], 7 / 36),
    (["  Love\tIT ", "a b a"], ["love it", "b a"], 1.0),  # any whitespace, case and repeats: perfect
    (["good day"], ["bad night"], 0.0),  # all wrong
]


@pytest.mark.parametrize(("truth", "pred", "expected"), JACCARD_CASES)
def test_word_jaccard_matches_both_graders(truth, pred, expected) -> None:
    tweet = frames("textID", "selected_text", truth, pred)
    chaii = frames("id", "PredictionString", truth, pred)
    agree(lib("word_jaccard", truth, pred), expected, ref_tweet(*tweet), ref_chaii(*chaii))


def test_word_jaccard_both_empty_counts_zero_as_chaii() -> None:
    # rows: {} vs {} -> 0 (chaii's sklearn zero_division; tweet's grade.py divides by zero), {x,y} vs {x,y} -> 1
    truth, pred = ["", "x y"], ["", "y x"]
    agree(lib("word_jaccard", truth, pred), 0.5, ref_chaii(*frames("id", "PredictionString", truth, pred)))
    with pytest.raises(ZeroDivisionError):
        ref_tweet(*frames("textID", "selected_text", truth, pred))


# ---- 3. KL divergence: hms-harmful-brain-activity-classification ---------------------------------------------

VOTES = ["seizure_vote", "lpd_vote", "gpd_vote"]


def ref_hms(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """hms-harmful-brain-activity-classification/grade.py with its kullback_leibler_divergence.score (epsilon
    1e-15, micro_average: the mean over rows of each row's sum)."""
    if not submission[VOTES].sum(axis=1).apply(lambda x: round(x, 5) == 1).all():
        raise ValueError("Submission probabilities must add to 1 for each row")
    submission = submission.sort_values("eeg_id").reset_index(drop=True)
    answers = answers.sort_values("eeg_id").reset_index(drop=True)[["eeg_id", *VOTES]].copy()
    answers[VOTES] = answers[VOTES].div(answers[VOTES].sum(axis=1), axis=0)
    solution, submission = answers[VOTES].astype(float), submission[VOTES].astype(float)
    for frame in (solution, submission):
        if frame.min().min() < 0 or frame.max().max() > 1 or not np.allclose(frame.sum(axis=1), 1):
            raise ValueError("not probabilities")
    for col in VOTES:
        submission[col] = np.clip(submission[col], 1e-15, 1 - 1e-15)
        nonzero = solution[col] != 0
        solution.loc[nonzero, col] = solution.loc[nonzero, col] * np.log(
            solution.loc[nonzero, col] / submission.loc[nonzero, col]
        )
        solution.loc[~nonzero, col] = 0
    return float(np.average(solution.sum(axis=1)))


def hms_frames(truth: list[list[float]], pred: list[list[float]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = list(range(len(truth)))
    answers = pd.DataFrame(truth, columns=VOTES).assign(eeg_id=ids)
    submission = pd.DataFrame(pred, columns=VOTES).assign(eeg_id=ids).iloc[::-1]
    return submission, answers


KL_CASES = [
    # votes normalised: [0, .75, .25] and [.5, .5, 0]
    # row 0: .75 log(.75/.6) + .25 log(.25/.2) = log 1.25 (both ratios are 1.25); the 0 vote counts 0
    # row 1: .5 log(.5/.5) + .5 log(.5/.25) = .5 log 2; mean (log 1.25 + .5 log 2) / 2
    ([[0, 3, 1], [2, 2, 0]], [[0.2, 0.6, 0.2], [0.5, 0.25, 0.25]], (math.log(1.25) + 0.5 * math.log(2)) / 2),
    ([[1, 1, 2], [0, 0, 5]], [[0.25, 0.25, 0.5], [0, 0, 1]], 0.0),  # perfect (a 0 prediction where y = 0)
    # all wrong: y = 1 where p = 0, clipped to 1e-15: log(1 / 1e-15) = 15 log 10
    ([[1, 0, 0]], [[0, 0.5, 0.5]], 15 * math.log(10)),
    (
        [[1, 1, 1]],
        [[0.333333, 0.333333, 0.333334]],
        -math.log(3) - math.log(0.333333) * 2 / 3 - math.log(0.333334) / 3,
    ),
]


@pytest.mark.parametrize(("truth", "pred", "expected"), KL_CASES)
def test_kl_divergence_matches_the_grader(truth, pred, expected) -> None:
    value = get_metric("kl_divergence").score(np.array(truth, dtype=float), np.array(pred, dtype=float))
    agree(value, expected, ref_hms(*hms_frames(truth, pred)))


@pytest.mark.parametrize(
    ("pred", "message"),
    [
        ([[0.5, 0.3, 0.1]], r"must sum to 1 \(to 5 decimals\); 1 row\(s\) do not, e.g. one sums to 0.9"),
        ([[1.2, -0.2, 0.0]], r"probabilities in \[0, 1\]"),
        ([[0.5, 0.5, float("nan")]], "finite numbers"),
    ],
)
def test_kl_divergence_rejects_what_the_grader_rejects(pred, message) -> None:
    truth = [[1, 2, 1]]
    with pytest.raises(InvalidPrediction, match=message):
        get_metric("kl_divergence").score(np.array(truth, dtype=float), np.array(pred, dtype=float))
    if not any(math.isnan(p) for p in pred[0]):
        with pytest.raises(ValueError):
            ref_hms(*hms_frames(truth, pred))


def test_kl_divergence_needs_distributions() -> None:
    kl = get_metric("kl_divergence")
    with pytest.raises(InvalidPrediction, match="one column per class"):
        kl.score(np.array([1.0, 0.0]), np.array([1.0, 0.0]))
    with pytest.raises(CompetitionError, match="a row of the answers sums to 0"):
        kl.score(np.array([[0.0, 0.0]]), np.array([[0.5, 0.5]]))


def test_kl_divergence_through_score_frame() -> None:
    spec = MetricSpec("kl_divergence", True, "eeg_id", tuple(VOTES))
    submission, answers = hms_frames(KL_CASES[0][0], KL_CASES[0][1])
    assert score_frame(submission.astype(str), answers.astype(str), spec) == round(KL_CASES[0][2], 6)
    off = submission.assign(lpd_vote=0.9)
    with pytest.raises(InvalidSubmission, match="kl_divergence: each row's probabilities must sum to 1"):
        score_frame(off.astype(str), answers.astype(str), spec)


# ---- 4. log MAE per group: champs-scalar-coupling -------------------------------------------------------------


def ref_champs(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """champs-scalar-coupling/grade.py: merged on id, log(MAE) per `type`, averaged (no floor: -inf for a group
    predicted exactly)."""
    target = "scalar_coupling_constant"
    assert set(submission["id"]) == set(answers["id"])
    merged = answers.merge(submission[["id", target]], on="id", suffixes=("_true", "_pred"))
    with np.errstate(divide="ignore"):
        logs = [
            np.log(mean_absolute_error(g[f"{target}_true"], g[f"{target}_pred"]))
            for _, g in merged.groupby("type")
        ]
    return float(np.mean(logs))


def champs_frames(
    types: list[str], truth: list[float], pred: list[float]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = list(range(len(truth)))
    answers = pd.DataFrame({"id": ids, "type": types, "scalar_coupling_constant": truth})
    submission = pd.DataFrame({"id": ids[::-1], "scalar_coupling_constant": pred[::-1]})
    return submission, answers


TYPES = ["1JHC", "1JHC", "2JHH", "2JHH", "3JHN"]
TRUTH = [1.0, 2.0, 3.0, 4.0, 5.0]
LOG_MAE_CASES = [
    # MAE per type: 1JHC (.5 + .5)/2 = .5, 2JHH (0 + 2)/2 = 1, 3JHN .25
    # (log .5 + log 1 + log .25) / 3 = log((.5 * 1 * .25) ** (1/3)) = log .5
    ([1.5, 2.5, 3.0, 6.0, 5.25], math.log(0.5)),
    ([11.0, 12.0, 13.0, 14.0, 15.0], math.log(10.0)),  # all off by 10: log 10
    ([1.0, 2.0, 3.1, 3.9, 4.0], (math.log(1e-9) + math.log(0.1) + math.log(1.0)) / 3),  # an exact group
]


@pytest.mark.parametrize(("pred", "expected"), LOG_MAE_CASES)
def test_log_mae_matches_the_grader(pred, expected) -> None:
    value = lib("log_mae", TRUTH, pred, groups=TYPES)
    assert abs(value - expected) <= TOL
    reference = ref_champs(*champs_frames(TYPES, TRUTH, pred))
    if math.isinf(reference):  # the grader has no floor: a group predicted exactly makes it -inf
        assert expected == pytest.approx((math.log(1e-9) + math.log(0.1) + 0.0) / 3)
    else:
        agree(value, reference)


def test_log_mae_perfect_is_the_floor_not_minus_infinity() -> None:
    assert lib("log_mae", TRUTH, TRUTH, groups=TYPES) == pytest.approx(math.log(1e-9), abs=TOL)
    assert ref_champs(*champs_frames(TYPES, TRUTH, TRUTH)) == -math.inf


def test_log_mae_without_groups_is_one_group() -> None:
    # all rows one group: MAE (.5 + .5 + 0 + 2 + .25) / 5 = .65
    assert lib("log_mae", TRUTH, LOG_MAE_CASES[0][0]) == pytest.approx(math.log(0.65), abs=TOL)


def test_log_mae_with_a_group_column_needs_the_groups() -> None:
    metric = get_metric("log_mae")
    with pytest.raises(CompetitionError, match="no groups were passed, but group_column='type' names them"):
        metric.score(np.array(TRUTH), np.array(TRUTH), group_column="type")
    with pytest.raises(CompetitionError, match="2 groups for 5 rows"):
        metric.score(np.array(TRUTH), np.array(TRUTH), groups=["a", "b"])
    with pytest.raises(CompetitionError, match="rmse is not a grouped metric"):
        get_metric("rmse").score(np.array(TRUTH), np.array(TRUTH), groups=TYPES)
    with pytest.raises(InvalidPrediction, match="must be numeric"):
        metric.score(np.array(TRUTH), np.array(["x"] * 5), groups=TYPES)


def test_log_mae_through_score_frame_takes_the_answers_groups() -> None:
    """score_frame passes the answers' group column as the groups, in the answers' row order (the submission
    lists the rows in reverse): with group_column the score is champs's mean over types; without it the rows
    are one group; answers lacking the column stop the score with the reason."""
    numbers = champs_frames(TYPES, TRUTH, LOG_MAE_CASES[0][0])
    submission, answers = (frame.astype(str) for frame in numbers)
    spec = MetricSpec("log_mae", True, "id", ("scalar_coupling_constant",))
    assert score_frame(submission, answers, spec) == round(math.log(0.65), 6)
    grouped = MetricSpec(
        "log_mae", True, "id", ("scalar_coupling_constant",), params={"group_column": "type"}
    )
    assert score_frame(submission, answers, grouped) == round(math.log(0.5), 6)
    assert score_frame(submission, answers, grouped) == pytest.approx(ref_champs(*numbers), abs=1e-6)
    with pytest.raises(CompetitionError, match="the caller must read the answers' column 'type'"):
        score_frame(submission, answers.drop(columns=["type"]), grouped)


# ---- 5. masks as run-length encodings: tgs-salt-identification-challenge (IoU mAP), hubmap-kidney-segmentation
#         (mean Dice), google-research-identify-contrails-reduce-global-warming (global Dice),
#         vesuvius-challenge-ink-detection (F0.5) ----------------------------------------------------------------

H, W = 3, 4  # 12 pixels; pixel k (1-indexed) is row (k-1) % 3, column (k-1) // 3


def ref_rle_decode(rle: str, height: int, width: int) -> np.ndarray:
    """mlebench/competitions/utils.py rle_decode: 1-indexed start/length pairs, top to bottom then left to
    right; starts sorted and positive, lengths positive, runs not overlapping; a run past the end is cut."""
    mask = np.zeros(height * width, dtype=bool)
    if rle.strip():
        numbers = [int(x) for x in rle.split()]
        starts, lengths = numbers[0::2], numbers[1::2]
        assert starts == sorted(starts) and all(x > 0 for x in starts) and all(x > 0 for x in lengths)
        for start, length in zip(starts, lengths):  # noqa: B905 - the grader's zip drops an odd last start
            assert not mask[start - 1 : start - 1 + length].any()
            mask[start - 1 : start - 1 + length] = True
    return mask.reshape((width, height)).T


def ref_tgs_iou(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """tgs-salt-identification-challenge/grade.py iou_metric (one object per mask, areas by np.histogram)."""
    if y_true.sum() == 0 and y_pred.sum() == 0:
        return 1.0
    if y_true.sum() == 0:
        return 0.0
    y_true, y_pred = y_true.astype(np.uint8), y_pred.astype(np.uint8)  # np.histogram's own cast of bools
    intersection = np.histogram2d(y_true.flatten(), y_pred.flatten(), bins=(2, 2))[0]
    area_true = np.histogram(y_true, bins=2)[0][:, None]
    area_pred = np.histogram(y_pred, bins=2)[0][None, :]
    union = (area_true + area_pred - intersection)[1:, 1:]
    union[union == 0] = 1e-9
    iou = intersection[1:, 1:] / union
    precisions = []
    for t in np.arange(0.5, 1.0, 0.05):
        matches = iou > t
        tp = np.sum(np.sum(matches, axis=1) == 1)
        fp = np.sum(np.sum(matches, axis=0) == 0)
        fn = np.sum(np.sum(matches, axis=1) == 0)
        precisions.append(tp / (tp + fp + fn) if tp + fp + fn > 0 else 0)
    return float(np.mean(precisions))


def ref_tgs(truth: list[str], pred: list[str]) -> float:
    return float(
        np.mean(
            [
                ref_tgs_iou(ref_rle_decode(t, H, W), ref_rle_decode(p, H, W))
                for t, p in zip(truth, pred, strict=True)
            ]
        )
    )


def ref_dice(pred: np.ndarray, true: np.ndarray, both_empty: float) -> float:
    """mlebench/metrics.py dice_coefficient."""
    if pred.sum() == 0 and true.sum() == 0:
        return both_empty
    return float(2 * np.sum(pred * true) / (np.sum(pred) + np.sum(true)))


def ref_hubmap(truth: list[str], pred: list[str]) -> float:
    """hubmap-kidney-segmentation/grade.py: mean per-image Dice, 1 where both masks are empty."""
    return float(
        np.mean(
            [
                ref_dice(ref_rle_decode(p, H, W), ref_rle_decode(t, H, W), 1.0)
                for t, p in zip(truth, pred, strict=True)
            ]
        )
    )


def ref_contrails(truth: list[str], pred: list[str]) -> float:
    """google-research-identify-contrails-reduce-global-warming/grade.py: "-" is an empty mask; one Dice over
    the pixels of all images (sizes from the answers' height and width columns)."""
    truth = ["" if t == "-" else t for t in truth]
    pred = ["" if p == "-" else p for p in pred]
    y_true = np.array([ref_rle_decode(t, H, W) for t in truth]).ravel()
    y_pred = np.array([ref_rle_decode(p, H, W) for p in pred]).ravel()
    return ref_dice(y_true, y_pred, np.nan)


def ref_vesuvius(truth: list[str], pred: list[str]) -> float:
    """vesuvius-challenge-ink-detection/grade.py: per image F0.5 of the pixels (its RLE left to right, then top
    to bottom: decoded transposed), averaged."""
    scores = []
    for t, p in zip(truth, pred, strict=True):
        y_pred = ref_rle_decode(p, height=W, width=H).T.flatten()
        y_true = ref_rle_decode(t, height=W, width=H).T.flatten()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # both empty: zero_division
            scores.append(fbeta_score(y_true=y_true, y_pred=y_pred, beta=0.5))
    return float(np.mean(scores))


# image 0: truth pixels 1-3, 10-11 (5); prediction 2-4, 11-12 (5); both 2, 3, 11 (3): union 7
# image 1: truth 5-8 (4); prediction 5-7 (3); both 3: union 4
# image 2: both empty; image 3: truth 1-2, prediction empty ("-"); image 4: truth empty, prediction 3
MASK_TRUTH = ["1 3 10 2", "5 4", "", "1 2", ""]
MASK_PRED = ["2 3 11 2", "5 3", "", "-", "3 1"]
BLANKED = ["" if p == "-" else p for p in MASK_PRED]  # "-" is an empty mask in the contrails grader only
MASK_CASES = [
    # per image 2*3/10, 2*3/7, 1 (both empty), 0, 0; mean (.6 + 6/7 + 1) / 5
    ("rle_dice", ref_hubmap, (0.6 + 6 / 7 + 1) / 5),
    # all images: both 3 + 3 = 6, truth 5 + 4 + 2 = 11, prediction 5 + 3 + 1 = 9: 2*6 / 20
    ("rle_dice_global", ref_contrails, 12 / 20),
    # IoU 3/7 (< .5: no threshold), 3/4 (> .5 .55 .6 .65 .7, not > .75: 5 of 10), 1 (both empty), 0, 0
    ("rle_iou_map", ref_tgs, (0 + 0.5 + 1 + 0 + 0) / 5),
    # F0.5 = 1.25 TP / (1.25 TP + .25 FN + FP): 3.75 / (3.75 + .5 + 2) = .6; 3.75 / (3.75 + .25) = .9375;
    # both empty 0 (sklearn's zero_division), 0, 0
    ("rle_fbeta", ref_vesuvius, (0.6 + 0.9375) / 5),
]


@pytest.mark.parametrize(("name", "reference", "expected"), MASK_CASES, ids=[c[0] for c in MASK_CASES])
def test_mask_metrics_match_the_graders(name, reference, expected) -> None:
    preds = MASK_PRED if reference is ref_contrails else BLANKED
    agree(lib(name, MASK_TRUTH, MASK_PRED), expected, reference(MASK_TRUTH, preds))
    # the image size only checks the runs: the same score with it
    agree(lib(name, MASK_TRUTH, MASK_PRED, height=H, width=W), expected)


def test_rle_iou_is_the_mean_iou() -> None:
    # 3/7, 3/4, 1 (both empty), 0, 0
    assert lib("rle_iou", MASK_TRUTH, MASK_PRED) == pytest.approx((3 / 7 + 3 / 4 + 1) / 5, abs=TOL)


@pytest.mark.parametrize(
    ("name", "reference"), [(c[0], c[1]) for c in MASK_CASES], ids=[c[0] for c in MASK_CASES]
)
def test_mask_metrics_perfect_and_all_wrong(name, reference) -> None:
    truth = ["1 3 10 2", "5 4", "12 1"]
    perfect = 1.0
    agree(lib(name, truth, truth), perfect, reference(truth, truth))
    wrong = ["4 2", "1 3", "1 1"]  # no pixel shared with the truth
    agree(lib(name, truth, wrong), 0.0, reference(truth, wrong))
    empty = ["", "-", ""]
    agree(lib(name, truth, empty), 0.0, reference(truth, ["", "", ""]))


def test_tgs_empty_prediction_of_a_large_mask_scores_zero_not_the_graders_histogram_artefact() -> None:
    # truth covers 10 of 12 pixels, the prediction is empty: no object predicted, so 0 at every threshold.
    # The grader's np.histogram puts an all-0 prediction's pixels in its upper bin (its range becomes
    # [-.5, .5]), so it finds an "IoU" of 10/12 and scores the 7 thresholds below .8333: .7
    assert lib("rle_iou_map", ["1 10"], [""]) == 0.0
    assert ref_tgs(["1 10"], [""]) == pytest.approx(0.7)


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("1 3 5", "must hold pairs 'start length', found 3 numbers"),
        ("5 2 1 1", "must list runs by increasing start"),
        ("0 2", r"must hold positive starts \(1 is the first pixel\) and lengths: '0 2'"),
        ("1 0", "must hold positive starts"),
        ("1 3 2 2", "hold overlapping runs: '1 3 2 2'"),
        ("1.5 2", r"must be run-length encodings \('start length \.\.\.'\), found '1.5 2'"),
        ("a b", "must be run-length encodings"),
    ],
)
def test_malformed_encodings_are_invalid_predictions(cell, message) -> None:
    for name in ("rle_dice", "rle_dice_global", "rle_iou", "rle_iou_map", "rle_fbeta"):
        with pytest.raises(InvalidPrediction, match=f"{name}: the predictions {message}"):
            lib(name, ["1 2"], [cell])
        with pytest.raises(CompetitionError, match=f"{name}: the answers {message}") as raised:
            lib(name, [cell], ["1 2"])
        assert not isinstance(raised.value, InvalidPrediction)


def test_a_run_past_the_image_is_invalid_when_its_size_is_known() -> None:
    # 11 3 covers pixels 11, 12, 13 of a 12-pixel image (the grader cuts the run at 12)
    assert lib("rle_dice", ["11 2"], ["11 3"]) == pytest.approx(2 * 2 / 5)
    with pytest.raises(InvalidPrediction, match="a run past the image's last pixel 12"):
        lib("rle_dice", ["11 2"], ["11 3"], height=H, width=W)
    with pytest.raises(CompetitionError, match="'height' must be a positive integer"):
        lib("rle_dice", ["1 1"], ["1 1"], height=-1, width=W)


def test_global_dice_needs_a_mask_in_the_answers() -> None:
    with pytest.raises(CompetitionError, match="the answers' masks are all empty"):
        lib("rle_dice_global", ["", "-"], ["1 1", ""])


def test_fbeta_takes_its_beta() -> None:
    # TP 3, FP 2, FN 2: F1 = 6 / 10
    assert lib("rle_fbeta", ["1 3 10 2"], ["2 3 11 2"], beta=1.0) == pytest.approx(0.6, abs=TOL)
    assert lib("rle_fbeta", ["1 3 10 2"], ["2 3 11 2"], beta=1) == lib("rle_dice", ["1 3 10 2"], ["2 3 11 2"])


def test_mask_metrics_through_score_frame() -> None:
    spec = MetricSpec("rle_dice", False, "id", ("predicted",))
    submission, answers = frames("id", "predicted", MASK_TRUTH[:2], MASK_PRED[:2])
    assert score_frame(submission, answers, spec) == round((0.6 + 6 / 7) / 2, 6)
    bad = submission.assign(predicted=["1 3 5", "1 1"])
    with pytest.raises(InvalidSubmission, match="rle_dice: the predictions must hold pairs"):
        score_frame(bad, answers, spec)


@pytest.mark.parametrize(
    ("metric", "empty_scores"),
    [("rle_dice", 1.0), ("word_jaccard", 0.5), ("multilabel_f1_micro", 1.0), ("rle_iou_map", 1.0)],
)
def test_empty_predictions_are_scored_not_refused(metric: str, empty_scores: float, tmp_path) -> None:
    """Metrics whose empty cell is a prediction (Metric.empty_ok): the grader and the submission check take it,
    as MLE-bench's graders score it (an empty mask against an empty mask is a perfect image, say)."""
    spec = MetricSpec(metric, False, "id", ("predicted",))
    cells = (
        ["1 2", ""]
        if metric.startswith("rle")
        else (["a b", ""] if metric == "word_jaccard" else ["1 2", ""])
    )
    submission, answers = frames("id", "predicted", cells, cells)
    assert score_frame(submission, answers, spec) == empty_scores
    written, sample = tmp_path / "submission.csv", tmp_path / "sample.csv"
    submission.to_csv(written, index=False)
    submission.to_csv(sample, index=False)
    assert check_submission(written, sample, "id", metric=spec) is None


def test_an_empty_cell_is_still_missing_for_other_text_metrics() -> None:
    spec = MetricSpec("accuracy", False, "id", ("predicted",))
    submission, answers = frames("id", "predicted", ["cat", "dog"], ["cat", ""])
    with pytest.raises(InvalidSubmission, match="missing"):
        score_frame(submission, answers, spec)


# ---- small ones: MCC (nfl-player-contact-detection), lwlrap (freesound-audio-tagging-2019) ---------------------


def test_mcc_matches_the_grader() -> None:
    # TP 1, TN 2, FP 0, FN 1: (1*2 - 0*1) / sqrt((1+0)(1+1)(2+0)(2+1)) = 2 / sqrt(12)
    truth, pred = [1, 0, 1, 0], [1, 0, 0, 0]
    submission, answers = frames("contact_id", "contact", truth, pred)
    submission, answers = submission.sort_values("contact_id"), answers.sort_values("contact_id")
    reference = matthews_corrcoef(answers["contact"], submission["contact"])  # its grade.py
    agree(lib("mcc", [str(t) for t in truth], [f"{p}.0" for p in pred]), 2 / math.sqrt(12), reference)
    assert lib("mcc", truth, truth) == 1.0 and lib("mcc", truth, [1 - t for t in truth]) == -1.0


def test_lwlrap_matches_the_grader() -> None:
    truth = np.array([[1, 0, 1], [0, 0, 0], [0, 1, 0]])
    scores = np.array([[0.9, 0.5, 0.1], [0.2, 0.3, 0.1], [0.5, 0.4, 0.3]])
    # row 0 (2 labels): label 0 ranked 1st (1/1), label 2 3rd with 2 true labels in the top 3 (2/3): 5/6;
    # row 1 has no label (left out); row 2 (1 label): ranked 2nd: 1/2. Weighted by labels: (2*5/6 + 1/2) / 3
    weights = truth.sum(axis=1)
    rows = weights > 0  # freesound-audio-tagging-2019/grade.py calculate_overall_lwlrap_sklearn
    reference = label_ranking_average_precision_score(
        truth[rows] > 0, scores[rows], sample_weight=weights[rows]
    )
    agree(get_metric("lwlrap").score(truth, scores), 13 / 18, reference)
    with pytest.raises(CompetitionError, match="no row of the answers holds a label"):
        get_metric("lwlrap").score(np.zeros((2, 3)), scores[:2])


@pytest.mark.parametrize(
    ("name", "truth", "pred", "expected"),
    [
        ("multilabel_f1_micro", LABEL_SET_CASES[0][0], LABEL_SET_CASES[0][1], 0.5),
        ("word_jaccard", JACCARD_CASES[0][0], ["love it!", "sad", "x"], 7 / 36),
        ("mcc", ["1", "0", "1", "0"], ["1", "0", "0", "0"], 2 / math.sqrt(12)),
    ],
)
def test_text_metrics_through_score_frame(name, truth, pred, expected) -> None:
    submission, answers = frames("id", "y", truth, pred)
    assert score_frame(submission, answers, MetricSpec(name, False, "id", ("y",))) == round(expected, 6)


def test_lwlrap_through_score_frame() -> None:
    answers = pd.DataFrame({"fname": ["a", "b"], "x": ["1", "0"], "y": ["1", "1"], "z": ["0", "0"]})
    submission = pd.DataFrame(
        {"fname": ["b", "a"], "x": ["0.1", "0.9"], "y": ["0.8", "0.1"], "z": ["0.5", "0.5"]}
    )
    # row a: labels x (ranked 1st: 1/1), y (ranked 3rd, 2 labels in the top 3: 2/3); row b: y ranked 1st: 1
    # weighted by labels: (2 * 5/6 + 1 * 1) / 3 = 8/9
    spec = MetricSpec("lwlrap", False, "fname", ("x", "y", "z"))
    assert score_frame(submission, answers, spec) == round(8 / 9, 6)


# ---- names: the library's, aliases, the rules' and the model's ---------------------------------------------------

NEW = {
    "multilabel_f1_micro": (False, ["f1_micro_multilabel", "Multilabel F1", "multi-label-f1-micro"]),
    "word_jaccard": (False, ["jaccard", "word-level Jaccard", "Jaccard score"]),
    "kl_divergence": (True, ["KL", "KL divergence", "Kullback-Leibler divergence", "kullback liebler"]),
    "log_mae": (True, ["grouped_log_mae", "group mean log MAE", "log mean absolute error"]),
    "mcc": (False, ["matthews_corrcoef", "Matthews correlation coefficient"]),
    "lwlrap": (False, ["label_weighted_lrap"]),
    "rle_dice": (False, ["dice", "Dice coefficient", "mean dice"]),
    "rle_dice_global": (False, ["global dice"]),
    "rle_iou": (False, ["IoU", "mean IoU", "intersection over union"]),
    "rle_iou_map": (False, ["iou_map", "mean average precision IoU"]),
    "rle_fbeta": (False, ["rle_f05"]),
    "kendall_tau": (False, ["Kendall tau", "kendall", "Kendall's tau", "kendall-tau-correlation"]),
    "mean_levenshtein": (
        True,
        ["levenshtein", "Levenshtein distance", "mean Levenshtein distance", "edit distance"],
    ),
    "token_error_rate": (True, ["sequence error rate", "levenshtein_error_rate", "gesture_error_rate"]),
    "point_in_box_f1": (False, ["kuzushiji_f1", "center point F1", "centre-point-f1"]),
}


@pytest.mark.parametrize("name", sorted(NEW))
def test_names_aliases_and_directions(name) -> None:
    lower, aliases = NEW[name]
    assert resolve_metric(name) == (METRICS[name], {})
    assert METRICS[name].lower_is_better is lower
    for alias in aliases:
        assert get_metric(alias).name == name, alias
    metric = METRICS[name]
    assert metric.formula and "\n" not in metric.formula
    assert name in COARSE_METRIC


def test_validity_flags() -> None:
    texts = {
        "dice_hausdorff",
        "multilabel_f1_micro",
        "word_jaccard",
        "rle_dice",
        "rle_dice_global",
        "rle_iou",
        "rle_iou_map",
        "rle_fbeta",
        "mean_levenshtein",  # an empty cell is the empty text
        "point_in_box_f1",  # an empty cell is a page without characters
        "answer_span_f1",  # a blank answer: no answer applies
        "voc_box_map",  # an image without boxes
        "coco_box_map",
        "lyft_3d_map",  # a sample without predicted objects
    }
    for name in texts:
        metric = METRICS[name]
        assert (metric.numeric, metric.labels, metric.ranked, metric.empty_ok) == (
            False,
            False,
            False,
            True,
        ), name
    assert METRICS["kl_divergence"].scope == "table" and METRICS["kl_divergence"].probability
    assert METRICS["lwlrap"].scope == "table" and METRICS["lwlrap"].binary_truth
    assert METRICS["mcc"].labels and not METRICS["mcc"].numeric
    # text whose empty cell the graders refuse: an order of no cell, a sequence of no gesture
    for name in ("kendall_tau", "token_error_rate"):
        metric = METRICS[name]
        assert (metric.numeric, metric.labels, metric.ranked, metric.empty_ok) == (False, False, False, False)
    assert METRICS["log_mae"].grouped and METRICS["log_mae"].params == {"group_column": ""}
    # masked_mae's group_column is its mask (test_numeric_metrics.py), spine_weighted_logloss's the row ids,
    # jigsaw_bias_auc's groups its identity columns (test_bias_auc.py)
    grouped = [m.name for m in METRICS.values() if m.grouped]
    assert grouped == [
        "log_mae",
        "jigsaw_bias_auc",
        "masked_mae",
        "spine_weighted_logloss",
        "trip_distance_error",
        "dice_hausdorff",
    ]
    assert not any(m.empty_ok for m in METRICS.values() if m.name not in texts)


class OneAnswer:
    """A model that answers one `choose_metric` call."""

    provider, model = "scripted", "one-answer"

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.tools: list[ToolSpec] = []

    def call_tool(self, messages: list[Message], tool: ToolSpec, ctx: CallContext) -> dict[str, Any]:
        self.tools.append(tool)
        return self.answer


@pytest.mark.parametrize("name", sorted(NEW))
def test_the_model_can_name_them(name) -> None:
    lower = METRICS[name].lower_is_better
    client = OneAnswer({"name": name, "lower_is_better": lower, "reason": "says so"})
    choice = infer_metric_with_model(client, "## Evaluation\n\nSome metric.")  # type: ignore[arg-type]
    assert (choice.name, choice.lower_is_better, choice.params) == (name, lower, {})
    assert name in metric_tool().json_schema()["properties"]["name"]["enum"]
    assert f"- {name}: {METRICS[name].formula}" in metric_messages("x")[0].content
