"""The harness score's interval where users look: the step's reviewed line, the live view, the result table of
the main job, the report's best node and tree; with the warning where the held-out rows are too few, and the tie
that decided a delivery."""

from __future__ import annotations

import io

from rich.console import Console

from flows.run_competition import live_table, print_summary
from swarm.competitions.score_interval import ScoreInterval
from swarm.evaluation.review import ReviewOutcome
from swarm.journal import Journal, Node, NodeMeta, Review
from swarm.metric import MetricValue, ValidationSource, with_interval
from swarm.pipeline.finalize import interval_lines, interval_summary, tree_lines
from swarm.pipeline.progress import PROGRESS
from swarm.pipeline.state import StepPlan
from swarm.pipeline.step_lines import reviewed_line

FEW = (
    "only 198 held-out rows for 99 classes (about 2.0 a class): too few to score multiclass_logloss reliably"
)


def outcome(interval: ScoreInterval | None, metric: float | None = 0.795918) -> ReviewOutcome:
    return ReviewOutcome(
        is_buggy=metric is None,
        bug_reason=None if metric is not None else "no score",
        metric=metric,
        lower_is_better=False,
        summary="",
        metric_source="harness",
        interval=interval,
    )


def test_the_format_puts_the_95_percent_interval_in_brackets() -> None:
    assert with_interval(0.795918, [0.7449, 0.8469]) == "0.795918 [0.745, 0.847]"
    assert with_interval(12345.6, [11996.2, 12698.3], ".5g") == "12346 [11996, 12698]"
    assert with_interval(0.8, None) == "0.8" and with_interval(0.8, [None, None]) == "0.8"


def test_the_reviewed_line_shows_the_interval_and_the_warning() -> None:
    plan = StepPlan(step=3, epoch=1, node_id="ab" * 16, task_type="draft")
    line = reviewed_line(plan, outcome(ScoreInterval(0.7449, 0.8469, 0.026, warning=FEW)))
    assert line == f"step 3 (abababab) reviewed: good, harness score 0.795918 [0.745, 0.847]; {FEW}"
    none = reviewed_line(plan, outcome(ScoreInterval(note="log_mae reads each row's group")))
    assert none == "step 3 (abababab) reviewed: good, harness score 0.795918"  # the why is in the report
    assert reviewed_line(plan, outcome(None, metric=None)).endswith("reviewed: buggy (no score), no score")


def node_with_interval(warning: str | None = None, note: str | None = None) -> Node:
    meta = NodeMeta(
        validation_source=ValidationSource.HARNESS,
        score_interval=[0.7449, 0.8469],
        score_se=0.026,
        score_warning=warning,
        score_interval_note=note,
    )
    review = Review(metric=MetricValue(0.795918, False), is_buggy=False)
    return Node(code="x = 1\n", task_type="draft", agent_id="agent_0", review=review, meta=meta)


def test_the_report_shows_the_interval_in_the_tree_and_says_what_it_is() -> None:
    node = node_with_interval(FEW, "whole groups resampled (27 groups)")
    (line,) = tree_lines(Journal([node]))
    assert "metric 0.79592 [0.745, 0.847], claimed none printed" in line
    said = "\n".join(interval_lines(node))
    assert "the score's 95% interval, from a bootstrap of the held-out rows" in said
    assert "standard error 0.026" in said and "Interval: whole groups resampled (27 groups)." in said
    assert f"Caution: {FEW}." in said
    bare = Node(
        review=Review(metric=MetricValue(0.5, False), is_buggy=False),
        meta=NodeMeta(score_interval_note="why"),
    )
    assert interval_lines(bare) == ["No interval: why.", ""]


def test_the_summary_carries_the_interval_and_the_result_table_shows_it() -> None:
    node = node_with_interval(FEW)
    figures = interval_summary(node)
    assert figures == {
        "validation_interval": [0.7449, 0.8469],
        "validation_se": 0.026,
        "validation_interval_note": None,
        "validation_warning": FEW,
    }
    assert set(interval_summary(None).values()) == {None}
    summary = {
        "best_node": node.id,
        "validation_metric": 0.795918,
        **figures,
        "tie": "Ties within noise decided: ...",
        "validation_mean_over_folds": 0.8012,
        "validation_mean_over_folds_interval": [0.7713, 0.8311],
    }
    out = io.StringIO()
    print_summary(Console(file=out, width=400), summary)
    shown = out.getvalue()
    assert "0.795918 [0.745, 0.847]" in shown and FEW in shown and "Ties within noise decided" in shown
    assert "mean over folds" in shown and "0.8012 [0.771, 0.831]" in shown


def test_the_live_view_shows_the_best_score_with_its_interval_and_the_warning() -> None:
    saved = PROGRESS.snapshot()
    try:
        PROGRESS.update(best_metric=0.795918, best_interval=[0.7449, 0.8469], best_warning=FEW)
        out = io.StringIO()
        Console(file=out, width=400).print(live_table())
        shown = out.getvalue()
        assert "0.79592 [0.745, 0.847] (higher is better)" in shown and FEW in shown
    finally:
        PROGRESS.update(**{k: saved[k] for k in ("best_metric", "best_interval", "best_warning")})
