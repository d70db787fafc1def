"""The grader scores what MLE-bench's graders score, as they score it, and says what it read past; it refuses
what they refuse (deployments/GRADER_TOLERANCE.md)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import Competition, MetricSpec, grade_submission, load_competition
from swarm.competitions.grading import scored_frame
from swarm.competitions.submission_check import check_submission, deliver_as_sample
from swarm.competitions.tolerance import delivered_form
from swarm.competitions.validation import InvalidSubmission

AUC = MetricSpec(name="auc", lower_is_better=False, id_column="id", target_columns=("y",))
ANSWERS = pd.DataFrame({"id": ["1", "2", "3", "4", "5"], "y": ["0", "1", "1", "0", "1"]})
# 5/6 of the pairs ranked right; paired by position in reverse, none would be.
CLEAN = pd.DataFrame({"id": ["1", "2", "3", "4", "5"], "y": ["0.1", "0.8", "0.2", "0.3", "0.6"]})


def clean_score() -> float:
    result = scored_frame(CLEAN, ANSWERS, AUC)
    assert result.note is None and result.score == pytest.approx(5 / 6, abs=1e-6)
    return result.score


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (CLEAN.assign(confidence=["9"] * 5), ["extra column(s) 'confidence' were ignored"]),
        (CLEAN.assign(**{"y.1": ["1"] * 5}), ["'y.1': a repeated header", "the first copy scored"]),
        (CLEAN.assign(id=["1.0", "2", "003", "4", "5e0"]), ["3 id(s)", "'1.0' as '1'", "'5e0' as '5'"]),
        (CLEAN.iloc[::-1], []),  # every grader but nomad2018's sorts both sides by id
        (CLEAN[["y", "id"]], []),
    ],
)
def test_forms_the_graders_read_past_score_as_the_clean_file_and_are_noted(frame, words) -> None:
    result = scored_frame(frame, ANSWERS, AUC)
    assert result.score == clean_score()
    assert (result.note is None) == (not words), result.note
    for word in words:
        assert word in str(result.note), (word, result.note)


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (
            CLEAN.rename(columns={"y": "Y"}),
            ["missing column(s) 'y'", "unexpected column(s) 'Y'"],
        ),  # case counts
        (CLEAN.rename(columns={"id": "Id"}), ["missing column(s) 'id'"]),
        (CLEAN.iloc[:4], ["has 4 rows, expected 5"]),
        (pd.concat([CLEAN, CLEAN.iloc[:1].assign(id="6")]), ["has 6 rows, expected 5"]),
        (
            CLEAN.assign(id=["1", "2", "3", "4", "6"]),
            ["unknown id(s) in 'id': '6'", "missing id(s) in 'id': '5'"],
        ),
        (CLEAN.assign(id=["1", "1", "3", "4", "5"]), ["duplicate id(s) in 'id': '1'"]),
        (CLEAN.assign(y=["0.1", "", "0.2", "0.3", "0.6"]), ["column 'y' has 1 missing/NaN value(s)"]),
        (CLEAN.assign(y=["0.1", "x", "0.2", "0.3", "0.6"]), ["must be numeric"]),
    ],
)
def test_forms_the_graders_refuse_are_refused_saying_what_is_wrong(frame, words) -> None:
    with pytest.raises(InvalidSubmission) as caught:
        scored_frame(frame, ANSWERS, AUC)
    for word in words:
        assert word in str(caught.value), (word, str(caught.value))


def test_text_ids_are_compared_as_written() -> None:
    """Where pandas reads an id column as text, '2.0' is not '2' (nor is ' a1' 'a1' to pandas; ours strips)."""
    answers = ANSWERS.assign(id=["a1", "2", "3", "4", "5"])
    with pytest.raises(InvalidSubmission, match="unknown id\\(s\\) in 'id': '2.0'"):
        scored_frame(CLEAN.assign(id=["a1", "2.0", "3", "4", "5"]), answers, AUC)


@pytest.fixture
def competition(tmp_path: Path) -> Competition:
    """A five-row AUC competition whose answers are ANSWERS."""
    public = tmp_path / "toy" / "prepared" / "public"
    private = tmp_path / "toy" / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text("# toy\n")
    CLEAN.assign(y="0.5").to_csv(public / "sample_submission.csv", index=False)
    ANSWERS.to_csv(private / "answers.csv", index=False)
    return load_competition(str(tmp_path / "toy"), tmp_path, metric="auc")


TOLERATED = "id,y,y,confidence\n5,0.6,1,9\n4,0.3,1,9\n3.0,0.2,1,9\n2,0.8,1,9\n001,0.1,1,9\n"


def test_the_grade_report_says_what_it_read_past(competition: Competition, tmp_path: Path) -> None:
    path = tmp_path / "submission.csv"
    path.write_text(TOLERATED)
    report = grade_submission(competition, path)
    assert report.valid and report.score == clean_score(), report.reason
    note = str(report.note)
    assert "extra column(s) 'y.1', 'confidence'" in note and "'3.0' as '3'" in note, note
    path.write_text("id,prob\n1,0.1\n2,0.8\n3,0.2\n4,0.3\n5,0.6\n")
    report = grade_submission(competition, path)
    assert not report.valid and report.submission_path == str(path) and report.note is None
    assert "missing column(s) 'y'; unexpected column(s) 'prob'" in str(report.reason)


def test_the_check_passes_and_delivery_rewrites_in_the_samples_form(
    competition: Competition, tmp_path
) -> None:
    path = tmp_path / "refit.csv"
    path.write_text(TOLERATED)
    sample = competition.sample_submission
    assert check_submission(path, sample, "id") is None
    note = deliver_as_sample(path, sample, "id")
    assert note is not None and "extra column(s)" in note and "as other numbers" in note
    delivered = pd.read_csv(path, dtype=str)
    assert list(delivered.columns) == ["id", "y"] and list(delivered["id"]) == list(CLEAN["id"])
    assert list(delivered["y"]) == list(CLEAN["y"])
    assert deliver_as_sample(path, sample, "id") is None  # already in the sample's form: left as it is
    path.write_text("id,y\n1,0.1\n2,0.8\n")
    with pytest.raises(ValueError, match="refit.csv is not a valid submission: submission has 2 rows"):
        deliver_as_sample(path, sample, "id")


def test_keyed_rows_are_delivered_in_the_samples_order() -> None:
    """uw-madison's grader pairs masks with the answers by position: rows keyed by the id and the class are
    delivered in the sample's order of (id, class)."""
    sample = pd.DataFrame({"id": ["a", "a", "b", "b"], "class": ["x", "y", "x", "y"], "predicted": [""] * 4})
    written = pd.DataFrame(
        {"predicted": ["1 2", "3 4", "5 6", ""], "class": ["y", "x", "y", "x"], "id": ["b", "b", "a", "a"]}
    )
    delivered = delivered_form(written, sample, "id", ("class",))
    assert list(delivered.columns) == ["id", "class", "predicted"]
    assert delivered.values.tolist() == [
        ["a", "x", ""],
        ["a", "y", "5 6"],
        ["b", "x", "3 4"],
        ["b", "y", "1 2"],
    ]


def test_a_blank_osic_confidence_is_read_as_0_as_its_grader_fills_it() -> None:
    """osic-pulmonary-fibrosis-progression's grade.py fills a blank `Confidence` with 0 (then floored at 70 like
    any confidence) rather than refusing it; any other blank number is refused, as there."""
    spec = MetricSpec(
        name="laplace_log_likelihood",
        lower_is_better=False,
        id_column="Patient_Week",
        target_columns=("FVC", "Confidence"),
    )
    answers = pd.DataFrame(
        {
            "Patient_Week": ["p1_10", "p1_12", "p2_3"],
            "FVC": ["2000", "2100", "3000"],
            "Confidence": ["100"] * 3,
        }
    )
    zero = pd.DataFrame(
        {
            "Patient_Week": ["p1_10", "p1_12", "p2_3"],
            "FVC": ["1990", "2150", "2900"],
            "Confidence": ["0", "200", "0"],
        }
    )
    blank = zero.assign(Confidence=["", "200", "NaN"])
    filled = scored_frame(blank, answers, spec)
    assert filled.score == scored_frame(zero, answers, spec).score
    assert "2 blank cell(s) of 'Confidence' were read as 0" in str(filled.note), filled.note
    with pytest.raises(InvalidSubmission, match="'FVC' has 1 missing"):
        scored_frame(zero.assign(FVC=["", "2150", "2900"]), answers, spec)
