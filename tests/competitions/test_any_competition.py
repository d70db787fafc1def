"""Grading competitions laid out like `mlebench prepare` output, with and without competition.json.

Three competitions: a wide multi-class log loss one (like Kaggle's leaf-classification: id + one probability
column per class, answers one-hot), an RMSLE one and an AUC one. Each is graded through `grade_submission` and
through `swarm competitions grade`, once named by competition.json and once by `--metric`. Expected scores are
worked out by hand.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from swarm.cli import main
from swarm.competitions import CompetitionError, grade_submission, load_competition, load_competition_dir

CLASSES = ["Acer_Capillipes", "Quercus_Rubra", "Tilia_Tomentosa"]


@dataclass(frozen=True)
class Case:
    """One competition: its files, the metric name (and an alias for --metric), a submission and its score."""

    answers: pd.DataFrame
    submission: pd.DataFrame
    metric: str
    alias: str
    lower_is_better: bool
    expected: float


def build(
    root: Path, answers: pd.DataFrame, meta: dict | None = None, answers_name: str = "answers.csv"
) -> Path:
    """Write `<root>/prepared/{public,private}` as mlebench prepares them (and competition.json when given)."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    id_column = answers.columns[0]
    (public / "description.md").write_text(f"# {root.name}\n\nPredict the targets for each {id_column}.\n")
    pd.DataFrame({id_column: ["t1", "t2"], "feature": [0.1, 0.2]}).to_csv(public / "train.csv", index=False)
    pd.DataFrame({id_column: answers[id_column], "feature": 0.5}).to_csv(public / "test.csv", index=False)
    sample = answers.copy()
    for column in sample.columns[1:]:
        sample[column] = 0.5
    sample.to_csv(public / "sample_submission.csv", index=False)
    answers.to_csv(private / answers_name, index=False)
    if meta is not None:
        (root / "competition.json").write_text(json.dumps(meta))
    return root


def leaf_case() -> Case:
    ids = [101, 102, 103, 104]
    truth = ["Acer_Capillipes", "Quercus_Rubra", "Tilia_Tomentosa", "Quercus_Rubra"]
    answers = pd.DataFrame({"id": ids, **{c: [int(t == c) for t in truth] for c in CLASSES}})
    probs = [
        [0.5, 0.25, 0.25],  # p(true) = 0.5
        [0.1, 0.2, 0.2],  # sums to 0.5: renormalised p(true) = 0.2 / 0.5 = 0.4
        [0.0, 0.0, 0.0],  # sums to 0: clipped, then uniform 1/3
        [0.0, 1.0, 0.0],  # p(true) = (1 - 1e-15) / (1 + 1e-15), about 1
    ]
    submission = pd.DataFrame({"id": ids, **{c: [row[i] for row in probs] for i, c in enumerate(CLASSES)}})
    expected = -(math.log(0.5) + math.log(0.4) + math.log(1 / 3) + 0.0) / 4
    return Case(answers, submission, "multiclass_logloss", "mlogloss", True, expected)


def rmsle_case() -> Case:
    answers = pd.DataFrame({"Id": [1, 2, 3], "SalePrice": [0.0, math.e - 1, math.e**2 - 1]})
    submission = pd.DataFrame({"Id": [3, 1, 2], "SalePrice": [math.e - 1] * 3})
    # log1p differences: 1 - 2, 1 - 0, 0 -> sqrt(2 / 3)
    return Case(answers, submission, "rmsle", "root_mean_squared_log_error", True, math.sqrt(2 / 3))


def auc_case() -> Case:
    answers = pd.DataFrame({"id": ["a", "b", "c", "d"], "target": [0, 0, 1, 1]})
    submission = pd.DataFrame({"id": ["a", "b", "c", "d"], "target": [0.1, 0.4, 0.35, 0.8]})
    # positive/negative pairs: (0.35, 0.1) win, (0.35, 0.4) loss, (0.8, *) two wins -> 3/4
    return Case(answers, submission, "auc", "roc_auc", False, 0.75)


CASES = {"leaf": leaf_case, "rmsle": rmsle_case, "auc": auc_case}


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["competitions", "grade", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("case_name", sorted(CASES))
@pytest.mark.parametrize("named_by", ["competition.json", "--metric"])
def test_grade_submission(tmp_path: Path, case_name: str, named_by: str) -> None:
    case = CASES[case_name]()
    meta = {"metric": {"name": case.metric, "lower_is_better": case.lower_is_better}}
    root = build(tmp_path / case_name, case.answers, meta if named_by == "competition.json" else None)
    metric = case.alias if named_by == "--metric" else None
    competition = load_competition(str(root), tmp_path, metric=metric)
    case.submission.to_csv(tmp_path / "submission.csv", index=False)
    report = grade_submission(competition, tmp_path / "submission.csv")
    assert report.valid, report.reason
    assert report.metric == case.metric and report.lower_is_better == case.lower_is_better
    assert report.score == pytest.approx(case.expected, abs=1e-6)


@pytest.mark.parametrize("case_name", sorted(CASES))
@pytest.mark.parametrize("named_by", ["competition.json", "--metric"])
def test_grade_cli_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case_name: str, named_by: str
) -> None:
    case = CASES[case_name]()
    meta = {"metric": {"name": case.metric}}
    root = build(tmp_path / case_name, case.answers, meta if named_by == "competition.json" else None)
    case.submission.to_csv(tmp_path / "sub.csv", index=False)
    flag = ["--metric", case.alias] if named_by == "--metric" else []
    code, out, err = run_cli(capsys, str(root), str(tmp_path / "sub.csv"), *flag, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["valid"] and report["metric"] == case.metric
    assert report["score"] == pytest.approx(case.expected, abs=1e-6)
    assert report["lower_is_better"] == case.lower_is_better and report["num_teams"] is None


def test_cli_reports_an_invalid_wide_submission(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = leaf_case()
    root = build(tmp_path / "leaf", case.answers)
    case.submission.rename(columns={"Tilia_Tomentosa": "Tilia"}).to_csv(tmp_path / "sub.csv", index=False)
    code, out, _ = run_cli(
        capsys, str(root), str(tmp_path / "sub.csv"), "--metric", "multi_logloss", "--json"
    )
    report = json.loads(out)
    assert code == 1 and not report["valid"]
    assert (
        "missing column(s) 'Tilia_Tomentosa'" in report["reason"]
        and "unexpected column(s) 'Tilia'" in (report["reason"])
    )


def test_leaf_answers_as_one_label_column(tmp_path: Path) -> None:
    case = leaf_case()
    labels = case.answers[CLASSES].idxmax(axis=1)
    long_answers = pd.DataFrame({"id": case.answers["id"], "species": labels})
    root = build(tmp_path / "leaf", case.answers, {"metric": {"name": "multiclass_logloss"}})
    long_answers.to_csv(root / "prepared" / "private" / "answers.csv", index=False)
    competition = load_competition_dir(root)
    case.submission.to_csv(tmp_path / "s.csv", index=False)
    report = grade_submission(competition, tmp_path / "s.csv")
    assert report.valid and report.score == pytest.approx(case.expected, abs=1e-6)


def test_leaf_answers_with_an_unknown_class_are_the_competitions_fault(tmp_path: Path) -> None:
    case = leaf_case()
    long_answers = pd.DataFrame({"id": case.answers["id"], "species": ["Acer_Capillipes", "Oak", "Oak", "X"]})
    root = build(tmp_path / "leaf", case.answers, {"metric": {"name": "multiclass_logloss"}})
    long_answers.to_csv(root / "prepared" / "private" / "answers.csv", index=False)
    case.submission.to_csv(tmp_path / "s.csv", index=False)
    with pytest.raises(
        CompetitionError, match="label\\(s\\) 'Oak', 'X' in 'species' that are not class columns"
    ):
        grade_submission(load_competition_dir(root), tmp_path / "s.csv")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda s: s.assign(Acer_Capillipes=[0.5, 0.1, 1.2, 0.0]), "probabilities in [0, 1]"),
        (lambda s: s.assign(Quercus_Rubra=["0.2", "", "0.1", "0.3"]), "1 missing/NaN value(s)"),
        (lambda s: s.assign(Quercus_Rubra=["0.2", "high", "0.1", "0.3"]), "must be numeric; found 'high'"),
        (lambda s: s.drop(columns=["Quercus_Rubra"]), "missing column(s) 'Quercus_Rubra'"),
        (lambda s: s.assign(id=[101, 102, 103, 999]), "unknown id(s) in 'id': '999'"),
    ],
)
def test_invalid_leaf_submissions(tmp_path: Path, change, reason: str) -> None:
    case = leaf_case()
    competition = load_competition_dir(build(tmp_path / "leaf", case.answers), metric="mlogloss")
    change(case.submission).to_csv(tmp_path / "s.csv", index=False)
    report = grade_submission(competition, tmp_path / "s.csv")
    assert not report.valid and reason in report.reason


def test_rmsle_rejects_negative_predictions(tmp_path: Path) -> None:
    case = rmsle_case()
    competition = load_competition_dir(build(tmp_path / "house", case.answers), metric="rmsle")
    case.submission.assign(SalePrice=[1.0, -2.0, 3.0]).to_csv(tmp_path / "s.csv", index=False)
    report = grade_submission(competition, tmp_path / "s.csv")
    assert (
        not report.valid
        and report.reason == "column 'SalePrice' must be >= 0 for rmsle; 1 value(s) are not, e.g. -2"
    )


def test_auc_with_one_class_in_the_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = pd.DataFrame({"id": ["a", "b"], "target": [1, 1]})
    root = build(tmp_path / "auc", answers)
    answers.assign(target=[0.3, 0.6]).to_csv(tmp_path / "s.csv", index=False)
    with pytest.raises(CompetitionError, match="single class, so auc is undefined"):
        grade_submission(load_competition_dir(root, metric="auc"), tmp_path / "s.csv")
    code, _, err = run_cli(capsys, str(root), str(tmp_path / "s.csv"), "--metric", "auc")
    assert code == 2 and "single class" in err


def test_map_at_k_named_with_k(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = pd.DataFrame({"Image": ["i1", "i2"], "Id": ["w_1", "new_whale"]})
    root = build(tmp_path / "whale", answers)
    pd.DataFrame({"Image": ["i1", "i2"], "Id": ["w_2 w_1 new_whale", "w_1 w_2 w_3 new_whale"]}).to_csv(
        tmp_path / "s.csv", index=False
    )
    competition = load_competition_dir(root, metric="map@3")
    assert competition.metric.name == "map_at_k" and competition.metric.params == {"k": 3}
    # row 1: hit at rank 2 -> 1/2; row 2: the hit is at rank 4, outside k = 3 -> 0
    assert grade_submission(competition, tmp_path / "s.csv").score == pytest.approx(0.25)
    code, out, _ = run_cli(capsys, str(root), str(tmp_path / "s.csv"), "--metric", "map@5", "--json")
    report = json.loads(out)
    assert code == 0 and report["metric_params"] == {"k": 5}
    assert report["score"] == pytest.approx((1 / 2 + 1 / 4) / 2)


def test_metric_params_from_competition_json(tmp_path: Path) -> None:
    answers = pd.DataFrame({"Image": ["i1"], "Id": ["w_1"]})
    root = build(tmp_path / "whale", answers, {"metric": {"name": "map_at_k", "params": {"k": 1}}})
    assert load_competition_dir(root).metric.params == {"k": 1}
    # the caller's name wins over the file's params for the same metric; another metric drops them
    assert load_competition_dir(root, metric="map@2").metric.params == {"k": 2}
    assert load_competition_dir(root, metric="accuracy").metric.params == {}


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        (
            {"name": "map_at_k", "params": {"k": 1, "depth": 2, "top": 3}},
            "no parameter\\(s\\) 'depth', 'top'",
        ),
        ({"name": "rmse", "params": {"k": 3}}, "'rmse' has no parameter\\(s\\) 'k' \\(it takes: none\\)"),
        ({"name": "map_at_k", "params": {"k": 0}}, "'k' must be a positive integer"),
        ({"name": "map_at_k", "params": [3]}, "must be an object"),
        ({"name": "nope"}, "unknown metric 'nope'; known metrics: accuracy"),
    ],
)
def test_bad_metric_in_competition_json(tmp_path: Path, metric: dict, message: str) -> None:
    root = build(tmp_path / "c", pd.DataFrame({"id": [1], "y": [1]}), {"metric": metric})
    with pytest.raises(CompetitionError, match=message):
        load_competition_dir(root)
