"""The search's check and the grader apply one set of rules: what the grader rejects, the search rejects too."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import Competition, grade_submission, load_competition
from swarm.competitions.submission_check import check_submission


def competition(
    root: Path, metric: str, sample: dict, answers: dict, labels: dict | None = None
) -> Competition:
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text("# toy\n")
    pd.DataFrame(sample).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame(answers).to_csv(private / "answers.csv", index=False)
    if labels:
        (root / "competition.json").write_text(json.dumps({"labels": labels}))
    return load_competition(str(root), root.parent, metric=metric)


@pytest.fixture
def competitions(tmp_path: Path) -> dict[str, Competition]:
    ids = [1, 2, 3, 4]
    return {
        "auc": competition(
            tmp_path / "auc", "auc", {"id": ids, "p": [0.5] * 4}, {"id": ids, "p": [0, 1, 1, 0]}
        ),
        "rmse_log": competition(
            tmp_path / "log", "rmse_log", {"id": ids, "y": [1.0] * 4}, {"id": ids, "y": [1.0, 2.0, 3.0, 4.0]}
        ),
        "accuracy": competition(
            tmp_path / "acc",
            "accuracy",
            {"id": ids, "pet": ["cat"] * 4},
            {"id": ids, "pet": ["cat", "dog", "dog", "cat"]},
            labels={"pet": ["cat", "dog", "fox"]},
        ),
    }


GOOD = {
    "auc": "id,p\n1,0.1\n2,0.9\n3,0.8\n4,0.2\n",
    "rmse_log": "id,y\n1,1.5\n2,2\n3,3\n4,4.5\n",
    "accuracy": "id,pet\n1,cat\n2,dog\n3,fox\n4,cat\n",
}

REJECTED = [
    ("auc", "id,prob\n1,0.1\n2,0.9\n3,0.8\n4,0.2\n"),  # wrong column
    ("auc", "id,p\n1,0.1\n2,0.9\n3,0.8\n"),  # a row short
    ("auc", "id,p\n"),  # no rows
    ("auc", "id,p\n1,0.1\n2,0.9\n2,0.8\n4,0.2\n"),  # repeated id
    ("auc", "id,p\n1,0.1\n2,0.9\n9,0.8\n4,0.2\n"),  # unknown id
    ("auc", "id,p\n1,0.1\n2,0.9\n ,0.8\n4,0.2\n"),  # empty id
    ("auc", "id,p\n1,0.1\n2,NaN\n3,0.8\n4,0.2\n"),  # NaN
    ("auc", "id,p\n1,0.1\n2,none\n3,0.8\n4,0.2\n"),  # a missing-number spelling
    ("auc", "id,p\n1,0.1\n2,yes\n3,0.8\n4,0.2\n"),  # not a number
    ("auc", "id,p\n1,0.1\n2,inf\n3,0.8\n4,0.2\n"),  # infinite
    ("auc", "id,p\n1,0.1\n2,1.5\n3,0.8\n4,-0.2\n"),  # probabilities outside [0, 1]
    ("rmse_log", "id,y\n1,1.5\n2,-2\n3,3\n4,4.5\n"),  # below the metric's minimum
    ("accuracy", "id,pet\n1,cat\n2,bird\n3,fox\n4,cat\n"),  # a label the competition does not declare
    ("accuracy", "id,pet\n1,cat\n2,\n3,fox\n4,cat\n"),  # an empty label
]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "submission.csv"
    path.write_text(text)
    return path


@pytest.mark.parametrize("kind", sorted(GOOD))
def test_both_accept_a_good_submission(tmp_path, competitions, kind):
    comp, path = competitions[kind], write(tmp_path, GOOD[kind])
    assert grade_submission(comp, path).valid
    assert check_submission(path, comp.sample_submission, metric=comp.metric) is None


# What MLE-bench's graders read past (`swarm.competitions.tolerance`): both accept it, the grader saying so.
TOLERATED = [
    ("auc", "id,p,p\n1,0.1,0.1\n2,0.9,0.9\n3,0.8,0.8\n4,0.2,0.2\n"),  # repeated column: pandas' 'p.1'
    ("auc", "id,p,rank\n1,0.1,4\n2,0.9,1\n3,0.8,2\n4,0.2,3\n"),  # a column the graders do not read
    ("auc", "id,p\n1.0,0.1\n2.0,0.9\n3,0.8\n04,0.2\n"),  # ids pandas reads as the answers' numbers
]


@pytest.mark.parametrize(("kind", "text"), TOLERATED)
def test_both_accept_what_the_graders_read_past(tmp_path, competitions, kind, text):
    comp, path = competitions[kind], write(tmp_path, text)
    report = grade_submission(comp, path)
    assert report.valid and report.note, report.reason
    assert report.score == grade_submission(comp, write(tmp_path, GOOD[kind])).score
    assert check_submission(path, comp.sample_submission, metric=comp.metric) is None


@pytest.mark.parametrize(("kind", "text"), REJECTED)
def test_what_the_grader_rejects_the_search_rejects_with_the_same_reason(tmp_path, competitions, kind, text):
    comp, path = competitions[kind], write(tmp_path, text)
    report = grade_submission(comp, path)
    assert not report.valid, "the grader accepted a malformed submission"
    found = check_submission(path, comp.sample_submission, metric=comp.metric)
    assert found is not None, f"the search accepted what the grader rejects: {report.reason}"
    assert found == report.reason
