"""rsna-2022-cervical-spine-fracture-detection's weighted multi-label log loss (`spine_weighted_logloss`), checked
against its grade.py.

As in test_mlebench_metrics.py: a case worked out by hand (the arithmetic in a comment) is scored three ways that
must agree to 1e-9: the library, the hand value, and a re-implementation that follows the competition's grade.py
(openai/mle-bench @783b15a, `mlebench/competitions/rsna-2022-cervical-spine-fracture-detection/grade.py`) step by
step on data frames. Then: the rows' labels come from their ids (the metric's groups are the id column), invalid
input, `score_frame` and the grader on MLE-bench's answers, and the rules naming it from the real wording.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import CompetitionError, MetricSpec, grade_submission, load_competition_dir
from swarm.competitions.grading import score_frame
from swarm.competitions.metric_wording import COARSE_METRIC, infer_metric_rules
from swarm.competitions.metrics import METRICS, get_metric
from swarm.competitions.validation import InvalidSubmission
from swarm.evaluation.metric_choice import SOURCE_RULES, resolve_metric
from swarm.offline_coder.metric_names import metric_from_description
from tests.layouts.long_classes.miniatures import CLASSES, EVALUATION, spine_competition

TOL = 1e-9
NAME = "spine_weighted_logloss"
SPEC = MetricSpec(NAME, True, "row_id", ("fractured",))


def ref_grade(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """grade.py's `grade`: `prepare_for_metric` (sort by row_id, unmelt both by splitting row_id at the first `_`
    and pivoting, columns in `column_order`), then `custom_comp_weighted_loss` (float32 weights, per-exam weighted
    mean of the clipped binary log losses, mean over exams)."""
    column_order = ["patient_overall", "C1", "C2", "C3", "C4", "C5", "C6", "C7"]

    def unmelt_df(melted_df: pd.DataFrame, id_col: str, target_col: str) -> pd.DataFrame:
        unmelted_df = melted_df.copy()
        unmelted_df[["StudyInstanceUID", "variable"]] = unmelted_df[id_col].str.split("_", n=1, expand=True)
        unmelted_df = unmelted_df.pivot(index="StudyInstanceUID", columns="variable", values=target_col)
        return unmelted_df.reset_index()

    submission = submission.sort_values(by="row_id")
    answers = answers.sort_values(by="row_id")
    assert (submission["row_id"].values == answers["row_id"].values).all()
    unmelted_submission = unmelt_df(submission, "row_id", "fractured").sort_values(by="StudyInstanceUID")
    unmelted_answers = unmelt_df(answers, "row_id", "fractured").sort_values(by="StudyInstanceUID")
    y_true = unmelted_answers[column_order].to_numpy(dtype=float)
    y_pred = unmelted_submission[column_order].to_numpy(dtype=float)
    weights_negative = np.array([7, 1, 1, 1, 1, 1, 1, 1], dtype=np.float32)
    weights_positive = np.array([14, 2, 2, 2, 2, 2, 2, 2], dtype=np.float32)
    y_pred = np.clip(y_pred, 1e-15, 1 - 1e-15)
    loss = -(y_true * np.log(y_pred) + (1 - y_true) * np.log(1 - y_pred))
    weights = y_true * weights_positive + (1 - y_true) * weights_negative
    loss = np.sum(loss * weights, axis=1) / weights.sum(axis=1)
    return float(np.mean(loss))


def exam_rows(exam: str, truth: dict[str, int], pred: dict[str, float]) -> list[tuple[str, int, float]]:
    """An exam's 8 rows (row_id, answer, prediction); a label missing from `truth` / `pred` is 0."""
    return [(f"{exam}_{label}", truth.get(label, 0), pred.get(label, 0.0)) for label in CLASSES]


# Exam 1.5 (any fracture, at C1): patient_overall 0.8, C1 0.5, the other vertebrae 0 (right, a clipped 1e-15);
# weights 14 + 2 + 6 * 1 = 22, loss (14 * -ln 0.8 + 2 * ln 2) / 22.
# Exam 2.7 (no fracture): patient_overall 0.2, C3 0.5, the rest 0; weights 7 + 7 * 1 = 14,
# loss (7 * -ln 0.8 + 1 * ln 2) / 14. The score is the mean of the two exams.
ROWS = exam_rows("1.5", {"patient_overall": 1, "C1": 1}, {"patient_overall": 0.8, "C1": 0.5}) + exam_rows(
    "2.7", {}, {"patient_overall": 0.2, "C3": 0.5}
)
HAND = ((14 * -math.log(0.8) + 2 * math.log(2)) / 22 + (7 * -math.log(0.8) + math.log(2)) / 14) / 2


def frames(rows: list[tuple[str, int, float]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(submission, answers) as MLE-bench has them: answers melted (StudyInstanceUID, prediction_type,
    fractured, row_id), the submission (row_id, fractured) in reverse order."""
    ids = [r[0] for r in rows]
    exams, labels = zip(*(i.split("_", 1) for i in ids), strict=True)
    answers = pd.DataFrame(
        {
            "StudyInstanceUID": exams,
            "prediction_type": labels,
            "fractured": [r[1] for r in rows],
            "row_id": ids,
        }
    )
    submission = pd.DataFrame({"row_id": ids[::-1], "fractured": [r[2] for r in rows][::-1]})
    return submission, answers


def lib(rows: list[tuple[str, int, float]]) -> float:
    ids = [r[0] for r in rows]
    return get_metric(NAME).score([r[1] for r in rows], [r[2] for r in rows], groups=ids)


def test_the_hand_made_case_matches_the_grader() -> None:
    value, reference = lib(ROWS), ref_grade(*frames(ROWS))
    assert abs(value - HAND) <= TOL and abs(reference - HAND) <= TOL
    assert abs(HAND - 0.183048) < 1e-6  # (0.2050138 + 0.1610823) / 2


def test_the_weights_follow_the_label_and_the_answer() -> None:
    # one exam, every row 0.5: each row's loss is ln 2, so any weights give ln 2
    assert lib(exam_rows("9", {"C2": 1}, dict.fromkeys(CLASSES, 0.5))) == pytest.approx(math.log(2), abs=TOL)
    # only patient_overall wrong (0.5), negative: 7 ln 2 / 14; positive with C2: 14 ln 2 / (14 + 2 + 6)
    right = {label: 0.0 for label in CLASSES} | {"patient_overall": 0.5}
    assert lib(exam_rows("9", {}, right)) == pytest.approx(7 * math.log(2) / 14, abs=TOL)
    positive = right | {"C2": 1.0}
    value = lib(exam_rows("9", {"patient_overall": 1, "C2": 1}, positive))
    assert value == pytest.approx(14 * math.log(2) / 22, abs=TOL)
    assert value == pytest.approx(
        ref_grade(*frames(exam_rows("9", {"patient_overall": 1, "C2": 1}, positive)))
    )


def test_exams_are_averaged_not_rows() -> None:
    # a wrong exam beside a right one scores half its loss, whatever the rows' order
    wrong = exam_rows("1", {}, dict.fromkeys(CLASSES, 0.5))
    right = exam_rows("2", {}, {})
    mixed = [row for pair in zip(wrong, right, strict=True) for row in pair]
    assert lib(mixed) == pytest.approx(math.log(2) / 2, abs=TOL)
    assert ref_grade(*frames(mixed)) == pytest.approx(math.log(2) / 2, abs=TOL)


def test_a_perfect_prediction_scores_0() -> None:
    rows = [(i, t, float(t)) for i, t, _ in ROWS]
    assert lib(rows) == pytest.approx(0.0, abs=1e-12) and ref_grade(*frames(rows)) == pytest.approx(
        0.0, abs=1e-12
    )


def test_it_refuses_what_it_cannot_score() -> None:
    metric = get_metric(NAME)
    truth, pred, ids = [r[1] for r in ROWS], [r[2] for r in ROWS], [r[0] for r in ROWS]
    with pytest.raises(CompetitionError, match="no groups were passed, but group_column='row_id' names them"):
        metric.score(truth, pred)
    with pytest.raises(CompetitionError, match=r"value '1\.5_C8' is not `<exam>_<label>`"):
        metric.score(truth, pred, groups=[*ids[:-1], "1.5_C8"])
    with pytest.raises(CompetitionError, match="probabilities in"):
        metric.score(truth, [*pred[:-1], 1.5], groups=ids)
    with pytest.raises(CompetitionError, match="0/1 labels"):
        metric.score([*truth[:-1], 2], pred, groups=ids)


def test_score_frame_takes_the_rows_ids_as_the_groups() -> None:
    submission, answers = (frame.astype(str) for frame in frames(ROWS))
    assert score_frame(submission, answers, SPEC) == round(HAND, 6)
    with pytest.raises(InvalidSubmission, match="probabilities"):
        score_frame(submission.assign(fractured="1.2"), answers, SPEC)


def test_the_flags_names_and_coarse_metric() -> None:
    metric = METRICS[NAME]
    assert (metric.lower_is_better, metric.probability, metric.binary_truth, metric.grouped) == (
        True,
        True,
        True,
        True,
    )
    assert metric.params == {"group_column": "row_id"} and metric.scope == "column"
    assert get_metric("rsna_spine_logloss").name == NAME and "\n" not in metric.formula
    assert COARSE_METRIC[NAME] == "logloss"


# ---- the rules, on the real description's wording ---------------------------------------------------------


def described(evaluation: str) -> str:
    return f"# A competition\n\n## Description\n\nPredict it.\n\n## Evaluation\n\n{evaluation}\n\n## Data\n\nFiles."


def test_the_rules_name_it_from_the_real_wording() -> None:
    # description.md: "Submissions are evaluated using a weighted multi-label logarithmic loss. [...] There is
    # also an any label, `patient_overall`, [...]"
    found = infer_metric_rules(described(EVALUATION))
    assert found is not None and (found.name, found.params) == (NAME, {})
    assert found.reason == 'description.md\'s Evaluation section says "weighted multi-label logarithmic loss"'
    assert metric_from_description(described(EVALUATION)) == "logloss"


@pytest.mark.parametrize(
    ("evaluation", "name"),
    [
        # without its any label `patient_overall`, a weighted multi-label log loss is another competition's
        ("Submissions are evaluated using a weighted multi-label logarithmic loss; the any label weighs more.",
         "multilabel_logloss"),
        ("Submissions are evaluated using a multi-label log loss. Predict `patient_overall`.", "multilabel_logloss"),
        ("Submissions are evaluated using the log loss of `patient_overall`.", "logloss"),
    ],
)  # fmt: skip
def test_the_rules_need_its_any_label(evaluation: str, name: str) -> None:
    found = infer_metric_rules(described(evaluation))
    assert found is not None and found.name == name


def test_a_run_from_the_description_keeps_the_row_ids_as_the_groups(tmp_path: Path) -> None:
    root = spine_competition(tmp_path / "rsna")
    # words that would name train.csv's and test.csv's shared column as a grouped metric's groups (log_mae's)
    description = root / "prepared" / "public" / "description.md"
    text = description.read_text().replace("averaged across all rows.", "averaged for each StudyInstanceUID.")
    description.write_text(text)
    competition = load_competition_dir(root)
    choice = resolve_metric(competition, override=None, model=None, bundled=False)
    assert (choice.name, choice.source, choice.params) == (NAME, SOURCE_RULES, {})
    assert get_metric(choice.name).resolve_params(choice.params)["group_column"] == "row_id"


def test_the_grader_scores_mlebench_answers(tmp_path: Path) -> None:
    """grade_submission on the miniature's private answers.csv (prepare.py's columns): a perfect submission
    scores 0, one with every patient_overall at 0.5 the hand value, equal to grade.py's."""
    root = spine_competition(tmp_path / "rsna", metric=NAME)
    competition = load_competition_dir(root)
    answers = pd.read_csv(root / "prepared" / "private" / "answers.csv", dtype=str)
    path = tmp_path / "submission.csv"
    answers[["row_id", "fractured"]].to_csv(path, index=False)
    report = grade_submission(competition, path)
    assert report.valid and report.score == 0.0, report.reason
    halved = answers.assign(
        fractured=answers["fractured"].where(answers["prediction_type"] != "patient_overall", "0.5")
    )
    halved[["row_id", "fractured"]].to_csv(path, index=False)
    # each exam: only patient_overall wrong, ln 2 weighted 7 (negative) or 14 (positive), over its weights
    truth = answers.assign(y=answers["fractured"].astype(int)).pivot(
        index="StudyInstanceUID", columns="prediction_type", values="y"
    )
    positive = truth["patient_overall"] == 1
    weights = 7 * (1 + positive) + sum(1 + truth[c] for c in CLASSES[1:])
    hand = float(np.mean((7 * (1 + positive)) * math.log(2) / weights))
    report = grade_submission(competition, path)
    assert report.valid and report.score == round(hand, 6)
    reference = ref_grade(
        halved[["row_id", "fractured"]].astype({"fractured": float}), answers.astype({"fractured": int})
    )
    assert reference == pytest.approx(hand, abs=TOL)
