"""The harness's reference model (swarm/pipeline/reference.py): run once per run in the sandbox on the view, its
held-out and test predictions kept where no sandbox reaches, and, where it cannot run, the reason in the report."""

from __future__ import annotations

import stat

import pandas as pd

from swarm.journal import Journal
from swarm.pipeline.context import open_run
from swarm.pipeline.lifecycle import prepare_run
from swarm.pipeline.reference import (
    FAILED,
    HELDOUT,
    TEST,
    consistency_lines,
    reference_dir,
    run_reference,
)


def test_the_reference_runs_once_and_its_predictions_are_kept_in_the_harness_dir(
    base_overrides, tmp_path
) -> None:
    paths = prepare_run(overrides=[*base_overrides, "evaluation.consistency=true"], run_dir=tmp_path / "run")
    rc = open_run(paths.root)[0]
    reference = run_reference(rc)
    assert reference.reason is None and reference.predictions is not None
    root = reference_dir(paths.root)
    held, test = reference.predictions.heldout, reference.predictions.test
    assert set(held["PassengerId"]) == set(rc.harness.scored)  # the rows the harness scores, and only those
    sample = pd.read_csv(rc.competition.sample_submission, dtype=str)
    assert test["PassengerId"].tolist() == sample["PassengerId"].tolist()
    assert held["Survived"].nunique() == 2  # a fitted model, not a constant
    assert stat.S_IMODE(root.stat().st_mode) == 0o700  # owner-only, like the labels
    before = (root / TEST).stat().st_mtime_ns
    assert run_reference(rc).predictions is not None and (root / TEST).stat().st_mtime_ns == before
    assert not (paths.root / "workspace" / "harness-reference").exists()  # its sandbox dirs are gone
    assert consistency_lines(rc, Journal())[2].startswith("Each good node's agreement")


def test_a_reference_that_could_not_run_is_named_in_the_report(base_overrides, tmp_path) -> None:
    paths = prepare_run(overrides=[*base_overrides, "evaluation.consistency=true"], run_dir=tmp_path / "run")
    rc = open_run(paths.root)[0]
    root = reference_dir(paths.root)
    root.mkdir(parents=True)
    (root / FAILED).write_text("it failed: MemoryError\n")
    reference = run_reference(rc)  # not tried again
    assert reference.predictions is None and not (root / HELDOUT).exists()
    assert "Not checked: it failed: MemoryError." in consistency_lines(rc, Journal())
    off = prepare_run(overrides=[*base_overrides, "evaluation.consistency=false"], run_dir=tmp_path / "off")
    assert consistency_lines(open_run(off.root)[0], Journal()) == []
