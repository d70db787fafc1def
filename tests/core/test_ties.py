"""Ties within noise: the simplest of the nodes whose score lies within one standard error of the best is
delivered, and not when the gap is beyond noise."""

from __future__ import annotations

from swarm.journal import Journal, Node, NodeMeta, Review
from swarm.journal.ties import code_lines, pick_within_noise
from swarm.metric import MetricValue


def scored(value: float, lines: int, se: float | None = 0.03, lower: bool = False) -> Node:
    code = "# a comment, not counted\n\n" + "".join(f"x{i} = {i}\n" for i in range(lines))
    return Node(
        code=code,
        task_type="draft",
        review=Review(metric=MetricValue(value, lower), is_buggy=False),
        meta=NodeMeta(score_se=se),
    )


def test_code_lines_leave_out_blank_lines_and_comments() -> None:
    assert code_lines(scored(0.8, 7)) == 7


def test_a_simpler_node_within_one_standard_error_of_the_best_is_delivered() -> None:
    journal = Journal([scored(0.80, 300), scored(0.78, 40), scored(0.79, 120), scored(0.70, 10)])
    best, simple, middle, weak = journal.nodes
    picked, tie = pick_within_noise(journal.deliverable_nodes())
    assert picked is simple and tie is not None and tie.decided
    assert tie.best is best and tie.tied == [best, simple, middle] and tie.se == 0.03  # 0.70: beyond noise
    assert journal.best_deliverable(ties_within_noise=True) is simple
    assert journal.best_deliverable() is best  # the rule off: the best score, as before
    said = tie.describe()
    assert said.startswith("Ties within noise decided: 3 nodes score within one standard error (0.03)")
    assert f"node `{simple.id[:8]}` (40 code lines, score 0.78)" in said


def test_a_gap_beyond_noise_keeps_the_best_node() -> None:
    journal = Journal([scored(0.80, 300, se=0.005), scored(0.78, 40, se=0.005)])
    picked, tie = pick_within_noise(journal.deliverable_nodes())
    assert picked is journal.nodes[0] and tie is None


def test_the_best_that_is_also_the_simplest_is_a_tie_that_decided_nothing() -> None:
    journal = Journal([scored(0.80, 30), scored(0.79, 300)])
    picked, tie = pick_within_noise(journal.nodes)
    assert picked is journal.nodes[0] and not tie.decided and "also the simplest" in tie.describe()


def test_lower_is_better_scores_and_a_best_without_a_standard_error() -> None:
    journal = Journal(
        [scored(0.30, 300, lower=True), scored(0.32, 40, lower=True), scored(0.31, 40, lower=True)]
    )
    picked, _ = pick_within_noise(journal.nodes)
    assert picked is journal.nodes[2]  # as short as the other tied one, and scores better
    unknown = Journal([scored(0.80, 300, se=None), scored(0.79, 40)])
    assert pick_within_noise(unknown.nodes) == (unknown.nodes[0], None)  # no interval: the best, as before
