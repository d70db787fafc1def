"""workspace/best_solution/ holds the best node so far from the first good node on (its scored submission, code and
id, replaced whole in one step), and the end of the run replaces it with what it delivers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarm.atomic import replace_dir_atomic
from swarm.competitions.submission_check import check_submission
from swarm.config import load_config
from swarm.evaluation.harness import file_sha256
from swarm.pipeline.context import create_run, open_run
from swarm.pipeline.plain import run_epoch, run_to_end


def test_a_directory_is_replaced_whole_or_not_at_all(tmp_path: Path) -> None:
    dest = tmp_path / "best_solution"
    replace_dir_atomic(dest, lambda d: (d / "a.csv").write_text("old"))

    def half_written(d: Path) -> None:
        (d / "a.csv").write_text("new")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        replace_dir_atomic(dest, half_written)
    assert [p.name for p in dest.iterdir()] == ["a.csv"] and (dest / "a.csv").read_text() == "old"
    (tmp_path / ".best_solution.killed.tmp").mkdir()  # what a kill in the middle leaves
    replace_dir_atomic(dest, lambda d: (d / "b.csv").write_text("new"))
    assert [p.name for p in dest.iterdir()] == ["b.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best_solution"]


def test_the_best_node_so_far_is_on_disk_before_the_end_and_the_end_replaces_it(
    tmp_path: Path, base_overrides: list[str]
) -> None:
    overrides = [
        *base_overrides,
        "agent.max_steps=2",
        "evolution.steps_per_epoch=2",
        "ensemble.enabled=false",
    ]
    run_dir = create_run(load_config(None, overrides), tmp_path / "run").root
    rc, journal, state = open_run(run_dir)
    run_epoch(rc, journal, state, epoch=1)  # the search, without its end: as a run killed before it
    best_dir = run_dir / "workspace" / "best_solution"
    journal = open_run(run_dir)[1]
    best = journal.best_deliverable()
    assert best is not None and (best_dir / "node_id.txt").read_text().strip() == best.id
    assert file_sha256(best_dir / "submission.csv") == best.meta.submission_sha256  # the scored run's own
    assert (best_dir / "solution.py").read_text() == best.code
    about = json.loads((best_dir / "best.json").read_text())
    assert (
        about["submission"].startswith("the best node so far") and about["harness_score"] == best.metric.value
    )
    sample = rc.competition.sample_submission
    assert not list((run_dir / "workspace" / "archives").iterdir())  # project.archive_nodes is off by default
    assert check_submission(best_dir / "submission.csv", sample, "PassengerId") is None

    summary = run_to_end(open_run(run_dir)[0])
    about = json.loads((best_dir / "best.json").read_text())
    assert summary["delivered"] == "single" and summary["refit"].startswith("used")
    assert about["node_id"] == summary["best_node"] and about["submission"].startswith("delivered: the refit")
    assert file_sha256(best_dir / "submission.csv") == file_sha256(Path(summary["submission"]))
