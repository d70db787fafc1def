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
from swarm.journal.node_meta import NodeMeta
from swarm.metric import with_interval
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
    # The mean comes with its interval, from each fold's own bootstrap error.
    picked = next(row for row in folds["candidates"] if row["node_id"] == best)
    assert len(picked["ses"]) == 3 and all(isinstance(se, float) and se > 0 for se in picked["ses"]), picked
    low, high = summary["validation_mean_over_folds_interval"]
    half = 1.959964 * (sum(se * se for se in picked["ses"]) ** 0.5) / 3
    assert low < means[best] < high and abs((high - low) / 2 - half) < 1e-9
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
    assert f"{with_interval(means[best], [low, high])} |" in report
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


def test_auto_scores_on_three_folds_where_the_held_out_rows_are_too_few_for_the_metric() -> None:
    def context(split: str) -> SimpleNamespace:
        harness = SimpleNamespace(holdout=SimpleNamespace(split=split))
        return SimpleNamespace(cfg=load_config(None, []), harness=harness)

    warned = SimpleNamespace(meta=NodeMeta(score_warning="only 40 held-out rows for 20 classes"))
    plain = SimpleNamespace(meta=NodeMeta())
    assert fold_count(context("stratified"), None, warned) == AUTO_FOLDS
    assert fold_count(context("random"), "step limit reached", warned) == AUTO_FOLDS
    assert fold_count(context("stratified"), None, plain) == 1
    assert fold_count(context("stratified"), "time limit reached", warned) == 1  # the budget is spent
    assert fold_count(context("time:date"), None, warned) == 1  # one latest span: no other rows to draw


def test_the_mean_over_folds_has_an_interval_from_each_folds_error() -> None:
    row = CandidateFolds("a", [0.30, 0.26, 0.27], [None, None, None], [0.04, 0.02, 0.02])
    se = (0.04**2 + 0.02**2 + 0.02**2) ** 0.5 / 3
    assert row.mean_se() is not None and abs(row.mean_se() - se) < 1e-12
    low, high = row.mean_interval() or (None, None)
    assert abs(low - (row.mean() - 1.959964 * se)) < 1e-9 and abs(high - (row.mean() + 1.959964 * se)) < 1e-9
    # narrower than any one fold's: three folds' rows together
    assert high - low < 2 * 1.959964 * 0.02
    assert CandidateFolds("b", [0.3, 0.2], [None, None], [0.04, None]).mean_interval() is None
    assert CandidateFolds("c", [0.3, None], [None, "failed"], [0.04, None]).mean_interval() is None
