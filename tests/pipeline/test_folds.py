"""The best candidates scored on further folds of the harness split (`evaluation.folds`): each fold holds out other
rows of the same split, every candidate's code runs on each fold's view and is scored by that fold's harness, the
best mean is delivered, and the scores are where users look (the summary, folds.json, the report)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from swarm.config import load_config
from swarm.evaluation.holdout_record import Holdout
from swarm.pipeline.folds import AUTO_FOLDS, CandidateFolds, fold_count, held_rows, pick_by_mean
from tests.pipeline.plain_runs import plain_competition_run

FOLDS = ["agent.max_steps=3", "evaluation.folds=3", "evaluation.fold_candidates=2"]


def test_a_run_with_folds_delivers_the_best_mean_and_reports_every_fold(
    tmp_path: Path, base_overrides: list[str]
) -> None:
    run_dir = tmp_path / "run"
    summary = plain_competition_run([*base_overrides, *FOLDS], run_dir)
    folds = summary["folds"]
    assert len(folds["folds"]) == 3 and not folds["notes"]
    assert len(folds["candidates"]) == 2
    for row in folds["candidates"]:
        assert len(row["scores"]) == 3 and all(isinstance(s, float) for s in row["scores"]), row
    means = {row["node_id"]: statistics.fmean(row["scores"]) for row in folds["candidates"]}
    best = max(means, key=lambda k: (means[k], -list(means).index(k)))  # accuracy: higher is better
    assert summary["best_node"] == folds["picked"] == best
    assert summary["validation_mean_over_folds"] == means[best]
    assert json.loads((run_dir / "folds.json").read_text())["picked"] == best
    # Each fold held out other rows of titanic's stratified split, its labels kept where no sandbox reaches.
    harness = run_dir / "harness"
    rows = [
        held_rows(Holdout.load(root)) for root in (harness, harness / "folds" / "1", harness / "folds" / "2")
    ]
    assert len(set(rows)) == 3 and all(len(r) == len(rows[0]) for r in rows)
    fold_labels = pd.read_csv(harness / "folds" / "1" / "labels.csv")
    assert (
        len(fold_labels) == len(rows[1])
        and (harness / "folds" / "1" / "labels.csv").stat().st_mode & 0o077 == 0
    )
    assert not list((run_dir / "workspace").rglob("labels.csv"))
    report = (run_dir / "report.md").read_text()
    assert "Scored on further folds of the harness split" in report
    assert f"| {best[:8]} (delivered) |" in report
    assert "the same split (stratified) drawn further" in report


def test_a_candidate_that_failed_a_fold_is_not_picked_while_one_scored_on_every_fold() -> None:
    failed = CandidateFolds("a", [0.9, None, 0.95], [None, "failed: MemoryError", None])
    whole = CandidateFolds("b", [0.8, 0.81, 0.82], [None, None, None])
    worse = CandidateFolds("c", [0.7, 0.7, 0.7], [None, None, None])
    assert failed.mean() is None
    assert pick_by_mean([failed, whole, worse], lower_is_better=False) == "b"
    assert pick_by_mean([failed, whole, worse], lower_is_better=True) == "c"
    assert pick_by_mean([failed], lower_is_better=False) is None


def test_auto_scores_on_three_folds_only_blocks_splits_that_ended_within_their_budget() -> None:
    def context(split: str | None, folds: str = "auto") -> SimpleNamespace:
        harness = SimpleNamespace(holdout=SimpleNamespace(split=split)) if split else None
        return SimpleNamespace(cfg=load_config(None, [f"evaluation.folds={folds}"]), harness=harness)

    blocks = context("blocks:datetime")
    assert fold_count(blocks, "step limit reached") == fold_count(blocks, None) == AUTO_FOLDS == 3
    assert fold_count(blocks, "time limit reached") == fold_count(blocks, "spend cap reached") == 1
    assert fold_count(context("stratified"), None) == fold_count(context(None), None) == 1
    assert fold_count(context("stratified", "4"), "time limit reached") == 4  # as set, whatever the budget
