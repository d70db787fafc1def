"""Every way a submission is rejected, each with a reason naming the problem."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import Competition, grade_submission, load_competition
from swarm.competitions.errors import CompetitionError

GOOD = {"id": ["1", "2", "3"], "p": [0.2, 0.7, 0.9]}


@pytest.fixture
def auc_competition(tmp_path: Path) -> Competition:
    """A tiny binary-probability competition with answers 0, 1, 1."""
    public = tmp_path / "auc-toy" / "prepared" / "public"
    private = tmp_path / "auc-toy" / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text("# toy\n")
    pd.DataFrame({"id": [1, 2, 3], "p": [0.5, 0.5, 0.5]}).to_csv(
        public / "sample_submission.csv", index=False
    )
    pd.DataFrame({"id": [1, 2, 3], "p": [0, 1, 1]}).to_csv(private / "answers.csv", index=False)
    return load_competition(str(tmp_path / "auc-toy"), tmp_path, metric="auc")


def write(tmp_path: Path, frame: pd.DataFrame | None = None, text: str | None = None) -> Path:
    path = tmp_path / "submission.csv"
    if text is not None:
        path.write_text(text)
    else:
        frame.to_csv(path, index=False)
    return path


def reason(competition: Competition, path: Path) -> str:
    report = grade_submission(competition, path)
    assert not report.valid and report.score is None and report.medal is None
    return report.reason


def test_good_submission_scores(auc_competition: Competition, tmp_path: Path) -> None:
    report = grade_submission(auc_competition, write(tmp_path, pd.DataFrame(GOOD)))
    assert report.valid and report.reason is None and report.score == 1.0


def test_rows_in_any_order_are_aligned_by_id(auc_competition: Competition, tmp_path: Path) -> None:
    frame = pd.DataFrame({"id": ["3", "1", "2"], "p": [0.9, 0.8, 0.1]})  # 1 (neg) outranks 2 (pos)
    report = grade_submission(auc_competition, write(tmp_path, frame))
    assert report.valid and report.score == pytest.approx(0.5)


def test_missing_file(auc_competition: Competition, tmp_path: Path) -> None:
    assert "does not exist" in reason(auc_competition, tmp_path / "nope.csv")


def test_directory_instead_of_file(auc_competition: Competition, tmp_path: Path) -> None:
    assert "is not a file" in reason(auc_competition, tmp_path)


def test_empty_file(auc_competition: Competition, tmp_path: Path) -> None:
    assert "is empty" in reason(auc_competition, write(tmp_path, text=""))


def test_not_csv(auc_competition: Competition, tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe binary")
    assert "not a readable CSV" in reason(auc_competition, path)


def test_wrong_columns(auc_competition: Competition, tmp_path: Path) -> None:
    text = reason(auc_competition, write(tmp_path, pd.DataFrame({"id": GOOD["id"], "prob": GOOD["p"]})))
    assert "missing column(s) 'p'" in text and "unexpected column(s) 'prob'" in text


def test_semicolon_separated_file_has_wrong_columns(auc_competition: Competition, tmp_path: Path) -> None:
    assert "missing column(s)" in reason(auc_competition, write(tmp_path, text="id;p\n1;0.2\n2;0.7\n3;0.9\n"))


def test_wrong_row_count(auc_competition: Competition, tmp_path: Path) -> None:
    frame = pd.DataFrame({"id": ["1", "2"], "p": [0.2, 0.7]})
    assert "has 2 rows, expected 3" in reason(auc_competition, write(tmp_path, frame))


def test_duplicate_ids(auc_competition: Competition, tmp_path: Path) -> None:
    frame = pd.DataFrame({"id": ["1", "1", "3"], "p": [0.2, 0.7, 0.9]})
    assert "duplicate id(s) in 'id': '1'" in reason(auc_competition, write(tmp_path, frame))


def test_unknown_ids(auc_competition: Competition, tmp_path: Path) -> None:
    frame = pd.DataFrame({"id": ["1", "2", "9"], "p": [0.2, 0.7, 0.9]})
    assert "unknown id(s) in 'id': '9'" in reason(auc_competition, write(tmp_path, frame))


def test_nan_prediction(auc_competition: Competition, tmp_path: Path) -> None:
    frame = pd.DataFrame({"id": ["1", "2", "3"], "p": [0.2, None, 0.9]})
    assert "1 missing/NaN value(s)" in reason(auc_competition, write(tmp_path, frame))


def test_infinite_prediction(auc_competition: Competition, tmp_path: Path) -> None:
    assert "infinite" in reason(auc_competition, write(tmp_path, text="id,p\n1,0.2\n2,inf\n3,0.9\n"))


def test_non_numeric_prediction(auc_competition: Competition, tmp_path: Path) -> None:
    text = reason(auc_competition, write(tmp_path, text="id,p\n1,0.2\n2,yes\n3,0.9\n"))
    assert "must be numeric" in text and "'yes'" in text


def test_probability_out_of_range(auc_competition: Competition, tmp_path: Path) -> None:
    frame = pd.DataFrame({"id": ["1", "2", "3"], "p": [0.2, 1.5, 0.9]})
    assert "probabilities in [0, 1]" in reason(auc_competition, write(tmp_path, frame))


def test_log_metric_needs_positive_predictions(cache_dir: Path, tmp_path: Path) -> None:
    comp = load_competition("house-prices", cache_dir)
    frame = pd.read_csv(comp.sample_submission)
    frame.loc[0, "SalePrice"] = 0
    assert "must be > 0 for rmse_log" in reason(comp, write(tmp_path, frame))


def test_accuracy_rejects_empty_labels(cache_dir: Path, tmp_path: Path) -> None:
    comp = load_competition("titanic", cache_dir)
    frame = pd.read_csv(comp.sample_submission).astype({"Survived": object})
    frame.loc[3, "Survived"] = None
    assert "missing/NaN" in reason(comp, write(tmp_path, frame))


@pytest.mark.parametrize("bad", ["banana", "0.7", "5", "-1", "inf", "True"])
def test_accuracy_rejects_labels_outside_the_label_set(cache_dir: Path, tmp_path: Path, bad: str) -> None:
    comp = load_competition("titanic", cache_dir)
    frame = pd.read_csv(comp.sample_submission).astype({"Survived": object})
    frame.loc[7, "Survived"] = bad
    assert reason(comp, write(tmp_path, frame)) == f"column 'Survived' must be one of 0, 1; found {bad!r}"


def test_accuracy_accepts_labels_written_as_floats(cache_dir: Path, tmp_path: Path) -> None:
    comp = load_competition("titanic", cache_dir)
    answers = pd.read_csv(comp.answers)
    frame = answers.assign(Survived=answers["Survived"].map({0: "0.0", 1: " 1.0"}))
    report = grade_submission(comp, write(tmp_path, frame))
    assert report.valid and report.score == 1.0


def _label_competition(root: Path, labels: dict | None) -> Competition:
    """An accuracy competition whose answers hold only `cat` and `dog`."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text("# pets\n")
    pd.DataFrame({"id": [1, 2, 3], "pet": ["cat"] * 3}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"id": [1, 2, 3], "pet": ["cat", "dog", "dog"]}).to_csv(private / "answers.csv", index=False)
    meta = {"metric": {"name": "accuracy"}} | ({"labels": labels} if labels is not None else {})
    (root / "competition.json").write_text(json.dumps(meta))
    return load_competition(str(root), root)


def test_labels_come_from_the_answers_unless_declared(tmp_path: Path) -> None:
    submission = write(tmp_path, pd.DataFrame({"id": [1, 2, 3], "pet": ["cat", "dog", "bird"]}))
    undeclared = _label_competition(tmp_path / "a", None)
    assert reason(undeclared, submission) == "column 'pet' must be one of cat, dog; found 'bird'"
    declared = grade_submission(
        _label_competition(tmp_path / "b", {"pet": ["cat", "dog", "bird"]}), submission
    )
    assert declared.valid and declared.score == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (["cat"], "must map target columns"),
        ({"nope": ["x"]}, "not a target column"),
        ({"pet": []}, "non-empty"),
    ],
)
def test_bad_declared_labels_are_the_competitions_fault(tmp_path: Path, labels: object, message: str) -> None:
    with pytest.raises(CompetitionError, match=message):
        _label_competition(tmp_path / "c", labels)


@pytest.mark.parametrize(
    ("competition_id", "value", "expected"),
    [
        ("house-prices", "banana", "must be numeric"),
        ("house-prices", "-5", "must be > 0"),
        ("telco-churn", "banana", "must be numeric"),
        ("telco-churn", "1.01", "probabilities in [0, 1]"),
        ("telco-churn", "-0.2", "probabilities in [0, 1]"),
    ],
)
def test_numeric_competitions_reject_out_of_range_values(
    cache_dir: Path, tmp_path: Path, competition_id: str, value: str, expected: str
) -> None:
    comp = load_competition(competition_id, cache_dir)
    frame = pd.read_csv(comp.sample_submission, dtype=str)
    frame.iloc[4, 1] = value
    assert expected in reason(comp, write(tmp_path, frame))
