"""The MLE-bench adapter end to end: a /home laid out like the agent container, a loopback /validate, the
offline coder on the local sandbox; graded afterwards with the hidden answers the container never sees."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from flows.mlebench_agent import competition_search
from sandbox.gpus import discover_gpus
from swarm.competitions import Competition, grade_submission
from swarm.journal import Journal
from swarm.mlebench import EXIT_BAD_INPUT, EXIT_NO_SUBMISSION, EXIT_OK, AgentResult, SearchRequest, run_agent
from swarm.mlebench.deliver import candidates
from swarm.pipeline.state import RunPaths

REPO = Path(__file__).resolve().parents[2]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def settle(result: AgentResult, timeout: float = 180.0) -> None:
    """Wait for a search the agent stopped waiting for, so it cannot spill into the next test."""
    if result.search_thread is not None:
        result.search_thread.join(timeout)
        assert not result.search_thread.is_alive(), "the search thread never finished"


@pytest.fixture(scope="module")
def finished(
    prefect_server: None,
    titanic: Competition,
    tmp_path_factory: pytest.TempPathFactory,
    make_home: Callable,
    make_settings: Callable,
    stand_in_server: Callable,
) -> Iterator[tuple[AgentResult, Path, object]]:
    """One real three-step run with the stand-in grading server up."""
    home = make_home(tmp_path_factory.mktemp("full") / "home", titanic)
    with stand_in_server(titanic.sample_submission) as stand_in:
        result = run_agent(make_settings(home, stand_in.url, step_limit=3), competition_search)
        settle(result)
        yield result, home, stand_in


def replay(run_dir: Path) -> Callable[[SearchRequest], dict]:
    """A search that 'finds' what an earlier run found (its journal), with no Prefect and no solving."""

    def search(request: SearchRequest) -> dict:
        shutil.copytree(run_dir, request.run_dir)
        return {"stopped_reason": "step limit reached"}

    return search


def test_full_run_hands_in_a_valid_submission(finished, titanic: Competition, sample_check) -> None:
    result, home, stand_in = finished
    assert result.exit_code == EXIT_OK, result.message
    submission = home / "submission" / "submission.csv"
    assert result.submission == submission and submission.is_file()
    assert sample_check(submission.read_bytes(), titanic.sample_submission) is None

    graded = grade_submission(titanic, submission)  # the hidden answers, outside the "container"
    baseline = grade_submission(titanic, titanic.sample_submission)
    assert graded.valid and graded.score > baseline.score

    assert stand_in.calls, "/validate was never called"
    assert stand_in.calls[-1] == {"sha256": sha256(submission), "status": 200, "valid": True}
    summary = json.loads((home / "logs" / "swarm-ev2-summary.json").read_text())
    assert summary["validated"] and [c["status"] for c in summary["checked"]] == ["valid"]
    assert summary["steps"] == 3 and summary["stopped_reason"] == "step limit reached"
    assert "not graded here" in summary["grade"] and summary["competition"] == "titanic"
    assert summary["gpus"] == [gpu.to_dict() for gpu in discover_gpus()]  # none on a machine without GPUs

    # /home/data is split the same way: the harness scored every node and the refit on all rows was handed in
    assert summary["validation_source"] == "harness" and summary["metric"]["name"] == "accuracy"
    run_dir = Path(result.summary["run_dir"])
    assert (run_dir / "harness" / "labels.csv").is_file()
    journal = Journal.load(run_dir / "journal.jsonl")
    if result.node_id == "ensemble":  # the run delivered a blend (its honest estimate was better)
        assert sha256(submission) == sha256(run_dir / "harness" / "ensemble_submission.csv")
    else:
        assert sha256(submission) == sha256(run_dir / "harness" / "refit_submission.csv")
        assert result.node_id == journal.best_node().id
    if result.node_id != "ensemble":
        assert (home / "code" / "solution.py").read_text() == journal[result.node_id].code
    assert (home / "code" / "node_id.txt").read_text().strip() == result.node_id

    logs = home / "logs"
    for name in ("swarm-ev2.log", "run/report.md", "run/journal.jsonl", "run/state.json", "run/config.yaml"):
        assert (logs / name).is_file(), name
    kept = sorted(p.stem for p in (logs / "run" / "exchanges").glob("*.jsonl"))
    assert kept and set(kept) <= {node.id for node in journal} | {"run"}  # what each node's model said
    log_text = (logs / "swarm-ev2.log").read_text()
    assert "read the benchmark instructions" in log_text and "is valid" in log_text
    saved = yaml.safe_load((logs / "run" / "config.yaml").read_text())
    assert Path(saved["data"]["data_dir"]) == (home / "data").resolve()
    assert saved["agent"]["max_steps"] == 3
    assert sorted(p.name for p in (home / "data").iterdir()) == sorted(
        p.name for p in titanic.public_dir.iterdir()
    )


def test_run_without_grading_server(
    prefect_server: None, home: Path, closed_url: str, titanic: Competition, make_settings, sample_check
) -> None:
    result = run_agent(make_settings(home, closed_url, step_limit=2), competition_search)
    settle(result)
    assert result.exit_code == EXIT_OK, result.message
    submission = home / "submission" / "submission.csv"
    assert sample_check(submission.read_bytes(), titanic.sample_submission) is None
    assert grade_submission(titanic, submission).valid
    assert not result.summary["validated"] and result.summary["checked"][0]["status"] == "unreachable"
    assert "did not answer" in (home / "logs" / "swarm-ev2.log").read_text()
    assert (home / "code" / "solution.py").read_text().strip()


def test_rejected_best_gives_way_to_the_next_valid(
    finished, tmp_path: Path, titanic: Competition, grading_server, make_home, make_settings
) -> None:
    run_dir = Path(finished[0].summary["run_dir"])
    found = candidates(Journal.load(run_dir / "journal.jsonl"), RunPaths(run_dir))
    assert len(found) >= 2, "the three-step run should leave at least two submissions"
    # the best node's refit (trained on every row) is handed in first, its scored submission next
    if found[0].node_id == "ensemble":  # a delivered blend comes first, then the best node's submissions
        assert found[0].submission == run_dir / "harness" / "ensemble_submission.csv"
    else:
        assert found[0].submission == run_dir / "harness" / "refit_submission.csv"
        assert found[1].node_id == found[0].node_id
    home = make_home(tmp_path / "home", titanic)
    grading_server.reject_first = 1

    result = run_agent(make_settings(home, grading_server.url), replay(run_dir))

    assert result.exit_code == EXIT_OK, result.message
    assert [c.get("valid") for c in grading_server.calls] == [False, True]
    assert result.node_id == found[1].node_id
    assert sha256(home / "submission" / "submission.csv") == sha256(found[1].submission)
    assert [c["status"] for c in result.summary["checked"]] == ["invalid", "valid"]
    assert "REJECTED" in (home / "logs" / "swarm-ev2.log").read_text()


def test_every_candidate_rejected_still_leaves_the_best(
    finished, tmp_path: Path, titanic: Competition, grading_server, make_home, make_settings
) -> None:
    run_dir = Path(finished[0].summary["run_dir"])
    found = candidates(Journal.load(run_dir / "journal.jsonl"), RunPaths(run_dir))
    home = make_home(tmp_path / "home", titanic)
    grading_server.reject_all = True

    result = run_agent(make_settings(home, grading_server.url), replay(run_dir))

    assert result.exit_code == EXIT_OK and result.node_id == found[0].node_id
    assert len(grading_server.calls) == len(found)
    assert sha256(home / "submission" / "submission.csv") == sha256(found[0].submission)
    assert "every candidate was rejected" in result.message and not result.summary["validated"]


def test_server_error_falls_back_to_the_best_unvalidated(
    finished, tmp_path: Path, titanic: Competition, grading_server, make_home, make_settings
) -> None:
    run_dir = Path(finished[0].summary["run_dir"])
    best = candidates(Journal.load(run_dir / "journal.jsonl"), RunPaths(run_dir))[0]
    home = make_home(tmp_path / "home", titanic)
    grading_server.fail = True

    result = run_agent(make_settings(home, grading_server.url), replay(run_dir))

    assert result.exit_code == EXIT_OK and result.node_id == best.node_id
    assert len(grading_server.calls) == 1  # a server that cannot judge is not asked again
    assert "HTTP 500" in result.summary["note"] and not result.summary["validated"]


def test_time_limit_stops_the_search_early(
    prefect_server: None, home: Path, grading_server, titanic: Competition, make_settings
) -> None:
    limit = 20.0
    started = time.monotonic()
    result = run_agent(
        make_settings(home, grading_server.url, step_limit=50, time_limit_s=limit), competition_search
    )
    took = time.monotonic() - started
    try:
        assert took < limit, f"the agent took {took:.1f} s of its {limit} s"
        assert result.exit_code == EXIT_OK, result.message
        assert grade_submission(titanic, home / "submission" / "submission.csv").valid
        summary = result.summary
        assert 0 < summary["steps"] < 50
        assert summary["timed_out"] or summary["stopped_reason"] == "time limit reached", summary
        saved = yaml.safe_load((Path(summary["run_dir"]) / "config.yaml").read_text())
        assert saved["agent"]["time_limit_s"] <= limit - summary["safety_margin_s"]
        assert saved["execution"]["timeout_s"] <= saved["agent"]["time_limit_s"]
    finally:
        settle(result)


def test_time_limit_too_short_for_any_node(
    prefect_server: None, home: Path, closed_url: str, make_settings
) -> None:
    result = run_agent(make_settings(home, closed_url, time_limit_s=1.0), competition_search)
    try:
        assert result.exit_code == EXIT_NO_SUBMISSION
        assert result.message == "no submission: no solution finished within the 1 s time limit"
        assert not (home / "submission" / "submission.csv").exists()
        summary = json.loads((home / "logs" / "swarm-ev2-summary.json").read_text())
        assert summary["message"] == result.message and summary["node"] is None
    finally:
        settle(result)


def test_missing_data_dir_is_one_clear_error(tmp_path: Path, make_settings) -> None:
    called = []
    result = run_agent(make_settings(tmp_path / "home", None), lambda request: called.append(request) or {})
    assert result.exit_code == EXIT_BAD_INPUT and not called
    assert result.message.startswith(f"error: the data dir {tmp_path / 'home' / 'data'} does not exist")
    assert "\n" not in result.message


def test_data_dir_that_is_not_a_competition(tmp_path: Path, make_settings) -> None:
    (tmp_path / "home" / "data").mkdir(parents=True)
    result = run_agent(make_settings(tmp_path / "home", None), lambda request: {})
    assert result.exit_code == EXIT_BAD_INPUT
    assert "is not a usable competition" in result.message and "description.md" in result.message


@pytest.mark.slow
def test_cli_missing_data_dir(tmp_path: Path) -> None:
    home = tmp_path / "home"
    args = [f"--{name}-dir={home / name}" for name in ("data", "submission", "logs", "code", "work")]
    proc = subprocess.run(
        [sys.executable, str(REPO / "flows" / "mlebench_agent.py"), *args, "--no-validate"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},  # this checkout's packages, wherever pip points
    )
    assert proc.returncode == EXIT_BAD_INPUT, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error" in line.lower()]
    assert errors[-1] == (
        f"swarm-ev2: error: the data dir {home / 'data'} does not exist (MLE-bench mounts the competition "
        "there; point --data-dir or MLEBENCH_DATA_DIR at it)"
    )
    assert not (home / "submission" / "submission.csv").exists()
