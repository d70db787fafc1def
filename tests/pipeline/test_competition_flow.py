"""End-to-end runs of the competition flow on the offline coder and the local sandbox."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pandas as pd
import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey, TaskRunFilter, TaskRunFilterName

from flows.competition import CompetitionParams, competition_flow
from flows.epoch import EpochParams, epoch_flow
from swarm.competitions import grade_submission, load_competition
from swarm.journal import Journal

pytestmark = pytest.mark.usefixtures("prefect_server")


def run_flow(tmp_path: Path, overrides: list[str], **params: object) -> tuple[dict, Path]:
    run_dir = tmp_path / "run"
    summary = competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=overrides, **params))
    return summary, run_dir


def test_short_run_beats_the_sample_submission(
    tmp_path: Path, base_overrides: list[str], competition_cache
) -> None:
    summary, run_dir = run_flow(tmp_path, [*base_overrides, "agent.max_steps=3"])

    best = run_dir / "workspace" / "best_solution"
    assert (best / "submission.csv").is_file(), summary
    assert (best / "solution.py").read_text().strip()
    assert (best / "node_id.txt").read_text().strip() == summary["best_node"]
    grade = summary["grade"]
    assert grade["valid"], grade["reason"]

    competition = load_competition("titanic", competition_cache)
    sample = grade_submission(competition, competition.sample_submission)
    assert grade["score"] > sample.score
    assert json.loads((run_dir / "grade.json").read_text())["score"] == grade["score"]

    journal = Journal.load(run_dir / "journal.jsonl")
    assert len(journal) == 3
    report = (run_dir / "report.md").read_text()
    for heading in ("## Result", "## Best score over steps", "## Tree", "## Model usage"):
        assert heading in report

    run_id = json.loads((run_dir / "state.json").read_text())["run_id"].lower()
    epochs = json.loads((run_dir / "state.json").read_text())["epochs_done"]
    with get_client(sync_client=True) as client:  # only this run's: the session's server holds many more
        only_mine = ArtifactFilter(key=ArtifactFilterKey(like_=f"{run_id[-6:]}-e{epochs}"))
        artifacts = client.read_artifacts(artifact_filter=only_mine)
    mine = {a.key.split("-")[0]: a for a in artifacts if a.key and a.key.endswith(f"{run_id[-6:]}-e{epochs}")}
    assert set(mine) == {"journal", "summary", "dispatcher"}
    assert mine["journal"].type == "table" and mine["dispatcher"].type == "table"
    assert "score.svg" in mine["summary"].data and "GA population" in mine["summary"].data
    rows = json.loads(mine["journal"].data)
    assert [row["node"] for row in rows] == [n.id[:8] for n in journal if n.epoch == epochs]
    assert (run_dir / "epochs" / str(epochs) / "score.svg").read_text().startswith("<svg")


def execute_runs(node_ids: list[str], timeout: float = 30.0) -> list:
    """The finished `execute` task runs of these nodes (task-run states reach the server through events, so
    they can land a moment after the flow returned)."""
    deadline = time.monotonic() + timeout
    while True:
        with get_client(sync_client=True) as client:
            found = client.read_task_runs(
                task_run_filter=TaskRunFilter(name=TaskRunFilterName(like_="execute["))
            )
        runs = [t for t in found if any(n[:6] in t.name for n in node_ids) and t.end_time and t.start_time]
        if len(runs) >= len(node_ids) or time.monotonic() > deadline:
            return runs
        time.sleep(0.2)


def step_task_runs(node_ids: list[str], verbs: tuple[str, ...], timeout: float = 30.0) -> dict[str, dict]:
    """Per node, its finished task runs by verb (`generate[agent_0 draft 3f2c1a]` -> "generate")."""
    deadline = time.monotonic() + timeout
    while True:
        with get_client(sync_client=True) as client:
            found = [
                run
                for verb in verbs
                for run in client.read_task_runs(
                    task_run_filter=TaskRunFilter(name=TaskRunFilterName(like_=f"{verb}["))
                )
            ]
        by_node = {
            node_id: {t.name.split("[")[0]: t for t in found if node_id[:6] in t.name and t.end_time}
            for node_id in node_ids
        }
        if all(len(runs) == len(verbs) for runs in by_node.values()) or time.monotonic() > deadline:
            return by_node
        time.sleep(0.2)


def task_run_inputs(run, parameter: str) -> set[str]:
    """The ids of the task runs that produced what `run` got as `parameter`."""
    return {str(i.id) for i in run.task_inputs[parameter] if i.input_type == "task_run"}


def test_task_run_graph_links_each_steps_values(tmp_path: Path, base_overrides: list[str]) -> None:
    """The epoch passes its steps' values as `opaque`: Prefect records which task run produced each value
    (the UI's graph edges) without walking into it, so an outcome's input is its step, not the tasks
    inside."""
    _, run_dir = run_flow(tmp_path, [*base_overrides, "agent.max_steps=2"])
    nodes = [n.id for n in Journal.load(run_dir / "journal.jsonl")]
    verbs = ("step", "generate", "execute", "review", "update_population")
    found = step_task_runs(nodes, verbs)
    assert len(nodes) == 2 and set(found) == set(nodes)
    for node_id, runs in found.items():
        assert set(runs) == set(verbs), (node_id, sorted(runs))
        assert task_run_inputs(runs["update_population"], "outcome") == {str(runs["step"].id)}
        assert task_run_inputs(runs["execute"], "generation") == {str(runs["generate"].id)}
        assert task_run_inputs(runs["review"], "generation") == {str(runs["generate"].id)}


def test_parallel_steps_never_share_files(tmp_path: Path, base_overrides: list[str]) -> None:
    _, run_dir = run_flow(tmp_path, [*base_overrides, "agent.max_steps=4", "search.parallel=2"])
    journal = Journal.load(run_dir / "journal.jsonl")
    runs = execute_runs([n.id for n in journal])
    assert len(runs) == 4, [r.name for r in runs]
    spans = sorted((r.start_time, r.end_time) for r in runs)
    overlapping = sum(1 for a, b in zip(spans, spans[1:], strict=False) if b[0] < a[1])
    assert overlapping >= 1, spans  # two executions ran at the same time
    paths = [node.meta.solution_submission_path for node in journal if not node.is_buggy]
    assert len(paths) >= 2
    assert len(set(paths)) == len(paths)
    for node in journal:
        if node.meta.solution_submission_path:
            path = Path(node.meta.solution_submission_path)
            assert path.parent.parent.name == node.id  # nodes/<id>/submission/submission.csv
            assert len(pd.read_csv(path)) > 0
            # the harness's copy of its test rows, outside the node's dirs
            assert Path(node.meta.submission_path) == run_dir / "harness" / "submissions" / f"{node.id}.csv"


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and "branches" not in p.relative_to(root).parts
        and "cache" not in p.relative_to(root).parts
        and not p.name.endswith(".lock")
    }


def test_rerun_epoch_branches_and_leaves_history_intact(tmp_path: Path, base_overrides: list[str]) -> None:
    _, run_dir = run_flow(tmp_path, [*base_overrides, "agent.max_steps=4", "evolution.steps_per_epoch=2"])
    assert (run_dir / "epochs" / "2" / "state.json").is_file()
    before = _tree_digest(run_dir)
    original = Journal.load(run_dir / "journal.jsonl")

    summary = epoch_flow(EpochParams(run_dir=str(run_dir), epoch=2, rerun=True, branch="again"))

    assert _tree_digest(run_dir) == before
    branch = run_dir / "branches" / "again"
    assert summary.run_dir == str(branch)
    rerun = Journal.load(branch / "journal.jsonl")
    first_epoch = [n.id for n in original if n.epoch == 1]
    assert [n.id for n in rerun][: len(first_epoch)] == first_epoch
    assert len(rerun) == len(first_epoch) + summary.steps_done
    assert set(summary.nodes).isdisjoint({n.id for n in original})


def test_time_limit_stops_the_run(tmp_path: Path, base_overrides: list[str]) -> None:
    summary, run_dir = run_flow(
        tmp_path, [*base_overrides, "agent.max_steps=50", "agent.time_limit_s=3", "search.parallel=1"]
    )
    assert summary["stopped_reason"] == "time limit reached"
    journal = Journal.load(run_dir / "journal.jsonl")
    assert 1 <= len(journal) < 50  # the step in flight finished, no new one started


def test_epoch_out_of_order_is_refused(tmp_path: Path, base_overrides: list[str]) -> None:
    _, run_dir = run_flow(tmp_path, [*base_overrides, "agent.max_steps=2", "evolution.steps_per_epoch=2"])
    with pytest.raises(ValueError, match="rerun=True"):
        epoch_flow(EpochParams(run_dir=str(run_dir), epoch=1))
