"""Metrics of orders, edit distances and points in boxes, checked against the MLE-bench competitions' grade.py.

As in test_mlebench_metrics.py: every case is worked out by hand (the arithmetic in a comment) and scored three
ways that must agree to 1e-9: the library, the hand value, and a small re-implementation that follows the
competition's grade.py (openai/mle-bench @783b15a, `mlebench/competitions/<id>/grade.py`) step by step on data
frames. The graders' `Levenshtein.distance` (a C library this project does not depend on) is stood in for by
the textbook dynamic programme `ref_distance`. Where the library differs from a grade.py on purpose, a test
shows the difference and says why. The rules' reading of the descriptions is in test_metric_wording.py.
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import CompetitionError, MetricSpec
from swarm.competitions.grading import score_frame
from swarm.competitions.metrics import get_metric
from swarm.competitions.metrics.base import InvalidPrediction
from swarm.competitions.metrics.sequences import levenshtein
from swarm.competitions.submission_check import check_submission
from swarm.competitions.validation import InvalidSubmission
from tests.competitions.graded_frames import agree, frames

TOL = 1e-9


class InvalidSubmissionError(Exception):
    """mlebench.grade_helpers.InvalidSubmissionError (MLE-bench reports any exception as an invalid score)."""


def lib(name: str, y_true: Any, y_pred: Any) -> float:
    return get_metric(name).score(np.asarray(y_true, dtype=object), np.asarray(y_pred, dtype=object))


def as_str(values: pd.Series) -> pd.Series:
    """`values.astype(str)` as pandas 2 (MLE-bench's) does it: a NaN cell becomes the text "nan" (pandas 3 keeps
    it missing)."""
    return values.astype(object).map(str)


def ref_distance(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Levenshtein.distance: the Wagner-Fischer table, row by row (a TypeError for a non-sequence, as there)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def test_levenshtein_is_the_textbook_distance() -> None:
    # kitten -> sitten -> sittin -> sitting; the description's examples of multi-modal-gesture-recognition
    assert levenshtein("kitten", "sitting") == 3
    assert (
        levenshtein([1, 2, 4], [3, 2]) == 2
        and levenshtein([1], [2]) == 1
        and levenshtein([2, 2, 2], [2]) == 2
    )
    assert levenshtein("", "abc") == levenshtein("abc", "") == 3 and levenshtein("", "") == 0
    rng = random.Random(7)
    for _ in range(400):  # against the table, both ways round, past a 64-bit word
        a = "".join(rng.choice("abc") for _ in range(rng.randint(0, 90)))
        b = "".join(rng.choice("abcd") for _ in range(rng.randint(0, 140)))
        assert levenshtein(a, b) == levenshtein(b, a) == ref_distance(a, b), (a, b)


# ---- 1. Kendall tau of cell orders: AI4Code -----------------------------------------------------------------------


def ref_ai4code(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """AI4Code/grade.py: prepare_for_metric (whose loop names the submission's orders `ground_truth` and the
    answers' `predictions`; the inversions of a permutation and of its inverse are as many) and kendall_tau."""
    if len(submission) != len(answers):
        raise InvalidSubmissionError("Submission and answers must have the same length")
    if set(submission["id"]) != set(answers["id"]):
        raise InvalidSubmissionError("Submission and answers must have the same ids")
    submission = submission.assign(cell_order=as_str(submission["cell_order"])).sort_values("id")
    answers = answers.assign(cell_order=as_str(answers["cell_order"])).sort_values("id")
    ground_truth, predictions = [], []
    for (_, row_gt), (_, row_pred) in zip(submission.iterrows(), answers.iterrows(), strict=True):
        ground_truth_items = row_gt["cell_order"].split()
        prediction_items = row_pred["cell_order"].split()
        if len(ground_truth_items) != len(prediction_items):
            raise InvalidSubmissionError("Ground truth and predictions must have the same length")
        ground_truth.append(ground_truth_items)
        predictions.append(prediction_items)

    def count_inversions(a: list[int]) -> int:
        inversions, sorted_so_far = 0, []
        for i, u in enumerate(a):
            j = bisect(sorted_so_far, u)
            inversions += i - j
            sorted_so_far.insert(j, u)
        return inversions

    total_inversions = total_2max = 0
    for gt, pred in zip(ground_truth, predictions, strict=True):
        ranks = [gt.index(x) for x in pred]  # a ValueError for an id the other order lacks
        total_inversions += count_inversions(ranks)
        n = len(gt)
        total_2max += n * (n - 1)
    return 1 - 4 * total_inversions / total_2max


KENDALL_CASES = [
    # row 0: "a c b d" against "a b c d": one pair out of order, n(n-1) = 12; row 1: "y x z": one, 6; row 2: one
    # cell: none, 0. Summed: 1 - 4 * 2 / 18 = 5/9 (the mean of the rows' taus, (2/3 + 1/3) / 2, would be 1/2)
    (["a b c d", "x y z", "p"], ["a c b d", "y x z", "p"], 5 / 9),
    (["a b c d", "x y z"], ["a b c d", "x y z"], 1.0),  # perfect
    (["a b c", "x y"], ["c b a", "y x"], -1.0),  # reversed: 3 and 1 swaps of 6 + 2 pairs: 1 - 4 * 4 / 8
    # "d a b c": d is ahead of 3 cells, 3 swaps; 1 - 4 * 3 / 12 = 0
    (["a b c d"], ["d a b c"], 0.0),
]


@pytest.mark.parametrize(("truth", "pred", "expected"), KENDALL_CASES)
def test_kendall_tau_matches_the_grader(truth, pred, expected) -> None:
    agree(lib("kendall_tau", truth, pred), expected, ref_ai4code(*frames("id", "cell_order", truth, pred)))


@pytest.mark.parametrize(
    ("pred", "message"),
    [
        (
            "a b b d",
            r"must order exactly the 4 ids of the row's answer, each once; found 4, missing 'c': 'a b b d'",
        ),
        (
            "a b c e",
            r"must order exactly the 4 ids of the row's answer, each once; found 4, missing 'd', unknown 'e'",
        ),
        (
            "a b c",
            r"must order exactly the 4 ids of the row's answer, each once; found 3, missing 'd': 'a b c'",
        ),
        ("a b c d e", r"must order exactly the 4 ids of the row's answer, each once; found 5, unknown 'e'"),
    ],
)
def test_kendall_tau_refuses_what_the_grader_refuses(pred, message) -> None:
    truth = ["a b c d", "x y"]
    with pytest.raises(InvalidPrediction, match=f"kendall_tau: the predictions {message}"):
        lib("kendall_tau", truth, [pred, "x y"])
    with pytest.raises((InvalidSubmissionError, ValueError)):
        ref_ai4code(*frames("id", "cell_order", truth, [pred, "x y"]))


def test_kendall_tau_needs_orders_in_the_answers() -> None:
    with pytest.raises(CompetitionError, match="order at most one id a row, so Kendall tau is undefined"):
        lib("kendall_tau", ["a", "b"], ["a", "b"])
    with pytest.raises(ZeroDivisionError):  # the grader divides by zero
        ref_ai4code(*frames("id", "cell_order", ["a", "b"], ["a", "b"]))
    with pytest.raises(CompetitionError, match="repeat an id within one order: 'a b a'") as raised:
        lib("kendall_tau", ["a b a"], ["a b a"])
    assert not isinstance(raised.value, InvalidPrediction)


# ---- 2. mean Levenshtein distance: bms-molecular-translation, billion-word-imputation ----------------------------


def ref_bms(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """bms-molecular-translation/grade.py: sorted by image_id, both columns `astype(str)` (a NaN cell becomes
    the text "nan"), the mean of distance(truth, prediction)."""
    if len(submission) != len(answers):
        raise InvalidSubmissionError("Submission and answers must have the same length")
    submission, answers = submission.sort_values("image_id"), answers.sort_values("image_id")
    if (submission["image_id"].values != answers["image_id"].values).any():
        raise InvalidSubmissionError("Submission and answers must have the same ids")
    y_pred, y_true = as_str(submission["InChI"]), as_str(answers["InChI"])
    return float(np.mean([ref_distance(a, b) for a, b in zip(y_true, y_pred, strict=True)]))


def ref_billion(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """billion-word-imputation/grade.py: sorted by id, no conversion (a NaN cell fails in distance()), the mean
    of distance(truth, prediction)."""
    submission = submission.sort_values("id").reset_index(drop=True)
    answers = answers.sort_values("id").reset_index(drop=True)
    if (submission["id"].values != answers["id"].values).any():
        raise InvalidSubmissionError("Submission and answers should contain the same IDs")
    y_pred, y_true = submission["sentence"], answers["sentence"]
    return float(np.mean([ref_distance(a, b) for a, b in zip(y_true, y_pred, strict=True)]))


LEVENSHTEIN_CASES = [
    # 0 (same); CH4 -> CH3 and H4 -> H3: 2 substitutions; "kitten" -> "sitting": 3; an empty text: its 3
    # characters; (0 + 2 + 3 + 3) / 4 = 2
    (
        ["InChI=1S/H2O/h1H2", "InChI=1S/CH4/h1H4", "sitting", "abc"],
        ["InChI=1S/H2O/h1H2", "InChI=1S/CH3/h1H3", "kitten", ""],
        2.0,
    ),
    # billion-word-imputation: the missing word "cat " (4 characters) inserted; "sat" for "sits": s-a-t against
    # s-i-t-s is 1 substitution and 1 insertion; case counts: "the" for "The" is 1. (4 + 2 + 1) / 3
    (
        ["The cat sat .", "He sits .", "The end ."],
        ["The sat .", "He sat .", "the end ."],
        7 / 3,
    ),
    (['a, "quoted" b'], ['a, "quoted" b'], 0.0),  # commas and quotes are characters like any other
]


@pytest.mark.parametrize(("truth", "pred", "expected"), LEVENSHTEIN_CASES)
def test_mean_levenshtein_matches_both_graders(truth, pred, expected) -> None:
    agree(
        lib("mean_levenshtein", truth, pred),
        expected,
        ref_bms(*frames("image_id", "InChI", truth, pred)),
        ref_billion(*frames("id", "sentence", truth, pred)),
    )


def test_mean_levenshtein_an_empty_cell_is_the_empty_text() -> None:
    """An empty prediction is scored as the empty text (the distance is the answer's length). bms's grade.py
    reads an empty CSV cell as NaN and scores the text "nan" instead; billion-word-imputation's fails on it
    (MLE-bench reports that as invalid). The harness scores what a submission says, not pandas' NaN spelling."""
    truth = ["nana", "ab"]
    assert lib("mean_levenshtein", truth, [np.nan, "ab"]) == lib("mean_levenshtein", truth, ["", "ab"]) == 2.0
    assert ref_bms(*frames("image_id", "InChI", truth, [np.nan, "ab"])) == 0.5  # "nan" against "nana": 1
    with pytest.raises(TypeError):
        ref_billion(*frames("id", "sentence", truth, [np.nan, "ab"]))


# ---- 3. Levenshtein over label sequences per true label: multi-modal-gesture-recognition -------------------------


def ref_gesture(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """multi-modal-gesture-recognition/grade.py: sorted by Id, `astype(str)`, each cell `list(map(int,
    x.split()))` (a ValueError becomes InvalidSubmissionError), the distances summed over the total true
    gestures."""
    if len(submission) != len(answers):
        raise InvalidSubmissionError("Submission and answers must have the same length")
    submission, answers = submission.sort_values("Id"), answers.sort_values("Id")
    if (submission["Id"].values != answers["Id"].values).any():
        raise InvalidSubmissionError("Submission and answers must have the same ids")
    answers_sequences = [list(map(int, x.split())) for x in as_str(answers["Sequence"])]
    try:
        submission_sequences = [list(map(int, x.split())) for x in as_str(submission["Sequence"])]
    except ValueError as e:
        raise InvalidSubmissionError(f"Submission sequences must be integers separated by spaces: {e}") from e
    sum_of_distances = np.sum(
        [ref_distance(a, b) for a, b in zip(answers_sequences, submission_sequences, strict=True)]
    )
    return float(sum_of_distances / sum(len(x) for x in answers_sequences))


GESTURE_CASES = [
    # the description's examples, truth T and recognised R: L([1 2 4], [3 2]) = 2, L([1], [2]) = 1,
    # L([2 2 2], [2]) = 2; summed 5 over 2 + 1 + 1 true gestures: 5/4 (it can exceed one)
    (["3 2", "2", "2"], ["1 2 4", "1", "2 2 2"], 5 / 4),
    # labels are whole numbers, an edit is one label: "1 0 2" for "10 2" is 1 substitution and 1 insertion (2 of
    # 2), not the 1 character insertion of a text; "01" is 1: 0 edits; (2 + 0) / (2 + 3)
    (["10 2", "1 20 3"], ["1 0 2", "01 20 3"], 2 / 5),
    (["5 6 7", "1"], ["5 6 7", "1"], 0.0),  # perfect
]


@pytest.mark.parametrize(("truth", "pred", "expected"), GESTURE_CASES)
def test_token_error_rate_matches_the_grader(truth, pred, expected) -> None:
    agree(lib("token_error_rate", truth, pred), expected, ref_gesture(*frames("Id", "Sequence", truth, pred)))


def test_token_error_rate_is_summed_not_averaged() -> None:
    # row 0: 1 edit of 1 label; row 1: 0 of 4: 1/5 summed (the mean of the rows' rates would be 1/2)
    assert lib("token_error_rate", ["1", "1 2 3 4"], ["2", "1 2 3 4"]) == pytest.approx(1 / 5, abs=TOL)


@pytest.mark.parametrize(
    ("pred", "message"),
    [
        ("1 x", r"must be space-separated whole-number labels, found '1 x'"),
        ("1.0 2", r"must be space-separated whole-number labels, found '1.0 2'"),
        ("", r"hold an empty cell; each must be a space-separated list of whole-number labels"),
    ],
)
def test_token_error_rate_refuses_what_the_grader_refuses(pred, message) -> None:
    with pytest.raises(InvalidPrediction, match=f"token_error_rate: the predictions {message}"):
        lib("token_error_rate", ["1 2", "3"], [pred, "3"])
    cell = np.nan if pred == "" else pred  # the grader reads an empty CSV cell as NaN: "nan" is no integer
    with pytest.raises(InvalidSubmissionError):
        ref_gesture(*frames("Id", "Sequence", ["1 2", "3"], [cell, "3"]))
    with pytest.raises(CompetitionError, match="token_error_rate: the answers") as raised:
        lib("token_error_rate", [pred, "3"], ["1 2", "3"])
    assert not isinstance(raised.value, InvalidPrediction)


# ---- 4. F1 of centre points in boxes: kuzushiji-recognition -------------------------------------------------------


def ref_score_page(preds: Any, truth: Any) -> dict[str, int]:
    """kuzushiji-recognition/kuzushiji_metric.py score_page."""
    tp = fp = fn = 0
    if pd.isna(truth) and pd.isna(preds):
        return {"tp": tp, "fp": fp, "fn": fn}
    if pd.isna(truth):
        return {"tp": tp, "fp": fp + len(preds.split(" ")) // 3, "fn": fn}
    if pd.isna(preds):
        return {"tp": tp, "fp": fp, "fn": fn + len(truth.split(" ")) // 5}
    truth = truth.split(" ")
    if len(truth) % 5 != 0:
        raise ValueError("Malformed solution string")
    truth_label = np.array(truth[0::5])
    truth_xmin = np.array(truth[1::5]).astype(float)
    truth_ymin = np.array(truth[2::5]).astype(float)
    truth_xmax = truth_xmin + np.array(truth[3::5]).astype(float)
    truth_ymax = truth_ymin + np.array(truth[4::5]).astype(float)
    preds = preds.split(" ")
    if len(preds) % 3 != 0:
        raise ValueError("Malformed prediction string")
    preds_label = np.array(preds[0::3])
    preds_x = np.array(preds[1::3]).astype(float)
    preds_y = np.array(preds[2::3]).astype(float)
    preds_unused = np.ones(len(preds_label)).astype(bool)
    for xmin, xmax, ymin, ymax, label in zip(
        truth_xmin, truth_xmax, truth_ymin, truth_ymax, truth_label, strict=True
    ):
        matching = (
            (xmin < preds_x)
            & (xmax > preds_x)
            & (ymin < preds_y)
            & (ymax > preds_y)
            & (preds_label == label)
            & preds_unused
        )
        if matching.sum() == 0:
            fn += 1
        else:
            tp += 1
            preds_unused[np.argmax(matching)] = False
    fp += preds_unused.sum()
    return {"tp": tp, "fp": fp, "fn": fn}


def ref_kuzushiji(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """kuzushiji-recognition/grade.py prepare_for_metric (sorted by image_id; each prediction's tokens a multiple
    of 3, X and Y floats) and kuzushiji_metric.py kuzushiji_f1 (without its process pool)."""
    submission = submission.sort_values("image_id").reset_index(drop=True)
    answers = answers.sort_values("image_id").reset_index(drop=True)
    if not all(submission["image_id"] == answers["image_id"]):
        raise InvalidSubmissionError("Submission image_id codes don't match solution.")
    for pred in submission["labels"]:
        if pd.isna(pred):
            continue
        preds = pred.split(" ")
        if len(preds) % 3 != 0:
            raise InvalidSubmissionError(f"Malformed prediction string: {pred}")
        for i in range(len(preds)):
            if i % 3:
                float(preds[i])  # a ValueError for X or Y that is no number
    results = [ref_score_page(p, t) for p, t in zip(submission["labels"], answers["labels"], strict=True)]
    tp, fp, fn = (sum(r[key] for r in results) for key in ("tp", "fp", "fn"))
    if (tp + fp) == 0 or (tp + fn) == 0:
        return 0
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return (2 * precision * recall) / (precision + recall) if precision > 0 and recall > 0 else 0


def kuzushiji_frames(truth: list[str], pred: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(submission, answers) as MLE-bench's read_csv gives them: an empty cell is NaN."""
    submission, answers = frames("image_id", "labels", truth, pred)
    return submission.replace("", np.nan), answers.replace("", np.nan)


PAGES_TRUTH = [
    "A 0 0 10 10 A 20 0 10 10 B 0 20 10 10",
    "C 0 0 10 10 C 0 0 4 4",
    "D 0 0 10 10",
    "",
    "G 0 0 1 1",
    "",
]
PAGES_PRED = [
    "A 5 5 A 6 6 B 5 25 A 25 5",
    "C 2 2 C 8 8",
    "D 10 5 E 5 5",
    "F 1 1 F 2 2",
    "",
    "",
]
POINT_CASES = [
    # page 0: box A(0..10, 0..10) takes (5, 5); A(20..30, 0..10) skips (6, 6), takes (25, 5); B takes (5, 25);
    #   (6, 6) is left: TP 3, FP 1
    # page 1: boxes in order, each the first unused point inside: C(0..10) takes (2, 2), so C(0..4) finds none
    #   ((8, 8) is outside it) though a matching of both existed: TP 1, FP 1, FN 1
    # page 2: (10, 5) is on the box's edge, not inside; E is the wrong character: FP 2, FN 1
    # page 3: no box: FP 2; page 4: no point: FN 1; page 5: neither
    # TP 4, FP 6, FN 3: F1 = 2*4 / (2*4 + 6 + 3) = 8/17
    (PAGES_TRUTH, PAGES_PRED, 8 / 17),
    # the description's example: "if the ground truth label is U+003F 1 1 10 10 then a prediction of U+003F 3 3
    # would pass"
    (["U+003F 1 1 10 10"], ["U+003F 3 3"], 1.0),
    # the box's far edge in floats, as the grader adds them: 0.1 + 0.2 > 0.3, so x = 0.3 is inside
    (["A 0.1 0 0.2 1"], ["A 0.3 0.5"], 1.0),
    (["A 0 0 5 5 B 5 5 5 5"], ["B 1 1 A 7 7"], 0.0),  # all wrong
]


@pytest.mark.parametrize(("truth", "pred", "expected"), POINT_CASES)
def test_point_in_box_f1_matches_the_grader(truth, pred, expected) -> None:
    agree(lib("point_in_box_f1", truth, pred), expected, ref_kuzushiji(*kuzushiji_frames(truth, pred)))


@pytest.mark.parametrize(
    ("pred", "message"),
    [
        ("A 1", r"must be '<label> x y' points \(3 tokens each\), found 2 tokens in 'A 1'"),
        ("A x 1", r"must be '<label> x y' points with numbers after each label: 'A x 1'"),
    ],
)
def test_point_in_box_f1_refuses_what_the_grader_refuses(pred, message) -> None:
    with pytest.raises(InvalidPrediction, match=f"point_in_box_f1: the predictions {message}"):
        lib("point_in_box_f1", ["A 0 0 2 2"], [pred])
    with pytest.raises((InvalidSubmissionError, ValueError)):
        ref_kuzushiji(*kuzushiji_frames(["A 0 0 2 2"], [pred]))


def test_point_in_box_f1_answers_problems_are_the_competitions() -> None:
    with pytest.raises(
        CompetitionError, match=r"the answers must be '<label> x y w h' boxes \(5 tokens each\)"
    ):
        lib("point_in_box_f1", ["A 0 0 2"], ["A 1 1"])
    # no box in any answer: recall is undefined; the grader returns 0 for any submission, even the empty one
    with pytest.raises(CompetitionError, match="hold no box at all, so recall"):
        lib("point_in_box_f1", ["", ""], ["A 1 1", ""])
    assert ref_kuzushiji(*kuzushiji_frames(["", ""], ["", ""])) == 0


# ---- through score_frame and the submission check ------------------------------------------------------------------

SCORED = [
    ("kendall_tau", KENDALL_CASES[0], "a b", "kendall_tau: the predictions must order exactly the 4 ids"),
    ("mean_levenshtein", LEVENSHTEIN_CASES[0], None, None),
    (
        "token_error_rate",
        GESTURE_CASES[0],
        "1 two",
        "token_error_rate: the predictions must be space-separated",
    ),
    ("point_in_box_f1", POINT_CASES[0], "A 1 1 B", "point_in_box_f1: the predictions must be '<label> x y'"),
]


@pytest.mark.parametrize(("name", "case", "bad", "message"), SCORED, ids=[s[0] for s in SCORED])
def test_through_score_frame(name, case, bad, message) -> None:
    truth, pred, expected = case
    spec = MetricSpec(name, get_metric(name).lower_is_better, "id", ("y",))
    submission, answers = frames("id", "y", truth, pred)
    assert score_frame(submission, answers, spec) == round(expected, 6)
    if bad is not None:
        with pytest.raises(InvalidSubmission, match=message):
            score_frame(submission.assign(y=[*submission["y"][:-1], bad]), answers, spec)


@pytest.mark.parametrize(("name", "scored"), [("mean_levenshtein", 1.5), ("point_in_box_f1", 2 / 3)])
def test_an_empty_cell_is_a_prediction(name, scored, tmp_path) -> None:
    """An empty text and a page with no character (both graders score the cell, MLE-bench's read_csv making it
    NaN): the grader and the submission check take it. "ab" for "abc" 1, "" for "xy" 2: 3/2; one box found, one
    missed: 2 / (2 + 1)."""
    truth, pred = (
        (["abc", "xy"], ["ab", ""])
        if name == "mean_levenshtein"
        else (["A 0 0 2 2", "B 0 0 2 2"], ["A 1 1", ""])
    )
    spec = MetricSpec(name, get_metric(name).lower_is_better, "id", ("y",))
    submission, answers = frames("id", "y", truth, pred)
    assert score_frame(submission, answers, spec) == round(scored, 6)
    written, sample = tmp_path / "submission.csv", tmp_path / "sample.csv"
    submission.to_csv(written, index=False)
    submission.to_csv(sample, index=False)
    assert check_submission(written, sample, "id", metric=spec) is None


@pytest.mark.parametrize(
    ("name", "truth"), [("kendall_tau", ["a b", "c d"]), ("token_error_rate", ["1 2", "3"])]
)
def test_an_empty_cell_is_missing_where_the_grader_refuses_it(name, truth) -> None:
    spec = MetricSpec(name, get_metric(name).lower_is_better, "id", ("y",))
    submission, answers = frames("id", "y", truth, [truth[0], ""])
    with pytest.raises(InvalidSubmission, match="missing"):
        score_frame(submission, answers, spec)
