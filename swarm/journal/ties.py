"""Ties within noise: which node to deliver when the best harness score leads by less than its own noise.

A harness score is measured on a few hundred held-out rows, so a lead of 0.01 may be chance. The rule, one and
plain: the nodes whose harness score lies within one standard error of the best score (the best node's
`meta.score_se`, from the bootstrap of its held-out rows) are tied with it, and the simplest of them, the one
with the fewest code lines (not blank, not a comment), is delivered; among equally short ones the better score,
then the earlier step. Where the best node has no standard error (no harness split, a metric without an
interval), the best node is delivered as before. `evaluation.ties_within_noise` turns the rule on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from swarm.journal.node import Node
from swarm.metric import pick_best


@dataclass(frozen=True)
class Tie:
    """A tie within noise: the node with the best score, the one delivered (the simplest of the tied), every
    tied node (the best included) and the standard error that made them tied."""

    best: Node
    picked: Node
    tied: list[Node]
    se: float

    @property
    def decided(self) -> bool:
        """Whether the tie changed the pick (the best node is not the simplest of the tied)."""
        return self.picked.id != self.best.id

    def describe(self) -> str:
        """One sentence for the report."""
        best, picked = self.best, self.picked
        within = (
            f"{len(self.tied)} nodes score within one standard error ({self.se:.3g}) of the best harness score "
            f"{best.metric.value:.6g} (node `{best.id[:8]}`, {code_lines(best)} code lines)"  # type: ignore[union-attr]
        )
        if not self.decided:
            return f"Ties within noise: {within}; it is also the simplest of them, so it is delivered."
        return (
            f"Ties within noise decided: {within}; the simplest of them, node `{picked.id[:8]}` "
            f"({code_lines(picked)} code lines, score {picked.metric.value:.6g}), is delivered."  # type: ignore[union-attr]
        )


def code_lines(node: Node) -> int:
    """The node's lines of code that are not blank and not a comment."""
    return sum(1 for line in node.code.splitlines() if line.strip() and not line.lstrip().startswith("#"))


def pick_within_noise(nodes: list[Node]) -> tuple[Node | None, Tie | None]:
    """(the node to deliver, the tie where more than one node was within noise of the best) among `nodes`."""
    best = pick_best(nodes, key=lambda n: n.metric)
    if best is None:
        return None, None
    se = best.meta.score_se
    if not isinstance(se, int | float) or not math.isfinite(se) or se <= 0:
        return best, None
    top = best.metric.value  # type: ignore[union-attr]
    tied = [
        n
        for n in nodes
        if n.metric is not None and n.metric.value is not None and abs(n.metric.value - top) <= se  # type: ignore[operator]
    ]
    if len(tied) < 2:
        return best, None
    picked = min(tied, key=lambda n: (code_lines(n), n.metric.sort_key(), n.step or 0))  # type: ignore[union-attr]
    return picked, Tie(best, picked, tied, float(se))
