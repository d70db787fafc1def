"""A whole run on the offline coder ends with the ensemble decision: the harness kept every scored node's
held-out rows privately, report.md and the summary say what was delivered and why, and the Prefect API holds
the `ensemble` and `delivered` artifacts."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from prefect.artifacts import Artifact

from flows.artifacts import run_key
from flows.competition import CompetitionParams, competition_flow
from swarm.competitions import grade_submission, load_competition
from swarm.competitions.submission_check import check_submission
from swarm.journal import Journal
from swarm.pipeline.state import RunPaths, load_state

pytestmark = [pytest.mark.usefixtures("prefect_server"), pytest.mark.slow]
RUN = ["agent.max_steps=3", "search.num_drafts=3", "search.parallel=2", "evolution.steps_per_epoch=3"]


def test_a_run_reports_its_ensemble_decision(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path
) -> None:
    run_dir = tmp_path / "run"
    summary = competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=[*base_overrides, *RUN]))
    journal = Journal.load(run_dir / "journal.jsonl")
    scored = [n for n in journal.good_nodes() if n.meta.validation_source == "harness"]
    assert len(scored) >= 2, [n.bug_reason for n in journal]
    for node in scored:
        kept = run_dir / "harness" / "heldout" / f"{node.id}.csv"
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE((run_dir / "harness" / "heldout").stat().st_mode) == 0o700

    choice = summary["ensemble"]["choice"]
    assert summary["delivered"] == summary["ensemble"]["delivered"] == choice["chosen"]
    assert choice["candidates"] and choice["honest_single"] is not None and len(choice["folds"]) == 2
    assert choice["single_node"] == summary["best_node"]
    report = (run_dir / "report.md").read_text()
    assert "## Final submission" in report and choice["reason"] in report
    titanic = load_competition("titanic", competition_cache)
    delivered = Path(summary["submission"])
    assert check_submission(delivered, titanic.sample_submission, "PassengerId") is None
    assert summary["grade"]["valid"] and grade_submission(titanic, summary["single_submission"]).valid
    best = run_dir / "workspace" / "best_solution"
    if summary["delivered"] == "ensemble":
        assert "a blend of" in report and set(choice["weights"]) <= {n.id for n in scored}
        assert (best / "node_id.txt").read_text().strip() == "ensemble" and (best / "ensemble.json").is_file()
        assert all(f"`{node_id[:8]}`" in report for node_id in choice["weights"])
    else:
        assert "the best single node" in report and not choice["weights"]
        assert (best / "node_id.txt").read_text().strip() == summary["best_node"]

    state = load_state(RunPaths(run_dir))
    key = run_key(state.run_id, state.branch)
    ensemble = Artifact.get(f"ensemble-{key}")
    assert ensemble is not None and f"Delivered: {summary['delivered']}" in ensemble.data
    final = Artifact.get(f"delivered-{key}")
    assert final is not None and "delivered:" in final.data
