"""Whether a node's test predictions behave like its held-out ones, seen through the harness's reference model.

A solution sees the held-out rows among the test rows it predicts. Where the split follows time or days, the
held-out rows can be told apart by their features (flight-delays' held-out flights are all of the 21st or
earlier days of a month, its test flights of the 22nd and later), so a solution can be honest where the harness
scores it and wrong everywhere else; a pipeline that breaks on test-time values the training rows never had
(dates past their range, unseen categories) does the same by accident. The harness cannot score the test rows,
but it can compare: its own cheap reference model (the offline coder's simplest pipeline, run on the view like
any solution: `swarm.pipeline.reference`) predicts both, and a node's agreement with it (the refit check's
measures: rank correlation for numbers, label agreement for classes, token overlap for other text) should be
alike on held-out and on test rows. A node whose agreement on test rows falls more than `TOLERANCE` below its
agreement on held-out rows, in its worst target column, is inconsistent: flagged in its review and the report,
and neither delivered nor blended while a consistent node exists.

`TOLERANCE` is set from the honest nodes of the bundled competitions (`benchmarks/consistency_gap.py`, figures
in benchmarks/README.md, "Held-out and test rows alike").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.competitions.metrics import get_metric
from swarm.evaluation.refit_check import column_agreement, keyed_rows

# The largest drop from held-out to test agreement an honest node may show where many rows are compared: well
# above every honest node's drop measured on the bundled competitions and layout miniatures (at most 0.035),
# well below a node honest only where it is scored (flight-delays': 1.07; benchmarks/README.md, "Held-out and
# test rows alike"). Where few rows are compared, the agreements themselves are noisy (12 rows move a rank
# correlation by about 0.3 by chance): the tolerance is then NOISE_Z standard errors of the drop, if larger.
TOLERANCE = 0.3
NOISE_Z = 3.0


def tolerance_for(heldout_rows: int, test_rows: int) -> float:
    """TOLERANCE, or NOISE_Z standard errors of the difference of two agreements measured on so many rows, if
    larger (a correlation's or a share's standard error is at most about 1 / sqrt(rows - 3))."""
    error = math.sqrt(sum(1.0 / max(rows - 3, 1) for rows in (heldout_rows, test_rows)))
    return round(max(TOLERANCE, NOISE_Z * error), 3)


@dataclass(frozen=True)
class Consistency:
    """A node's agreement with the reference model on held-out and on test rows, in its worst target column."""

    measure: str
    column: str
    heldout: float
    test: float
    tolerance: float = TOLERANCE  # tolerance_for the rows compared

    @property
    def gap(self) -> float:
        return self.heldout - self.test

    @property
    def consistent(self) -> bool:
        return bool(self.gap <= self.tolerance)

    def describe(self) -> str:
        """One line: the two agreements, the drop and whether it is within the tolerance."""
        verdict = "within" if self.consistent else "more than"
        return (
            f"{self.measure} with the harness's reference model {self.heldout:.3f} on held-out rows, "
            f"{self.test:.3f} on test rows ({self.column}): a drop of {self.gap:.3f}, {verdict} the "
            f"{self.tolerance:.2f} honest nodes may show"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "column": self.column,
            "heldout": round(self.heldout, 6),
            "test": round(self.test, 6),
            "tolerance": self.tolerance,
            "consistent": self.consistent,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Consistency:
        return cls(
            str(data["measure"]),
            str(data["column"]),
            float(data["heldout"]),
            float(data["test"]),
            float(data.get("tolerance", TOLERANCE)),
        )


@dataclass(frozen=True)
class Predictions:
    """One model's predictions for the held-out rows and for the test rows, as the harness split them."""

    heldout: pd.DataFrame
    test: pd.DataFrame


def consistency(node: Predictions, reference: Predictions, spec: MetricSpec) -> Consistency | None:
    """The node's agreement with the reference on held-out and on test rows in the target column where it drops
    most beyond its tolerance; None where no column can be compared (no shared rows, or the reference predicts
    one value there)."""
    numeric = get_metric(spec.name).numeric
    held_rows = _matched(node.heldout, reference.heldout, spec)
    test_rows = _matched(node.test, reference.test, spec)
    if held_rows is None or test_rows is None:
        return None
    found = []
    for column in spec.target_columns:
        held = _agreement(*held_rows, column, numeric)
        test = _agreement(*test_rows, column, numeric)
        if held is not None and test is not None:
            tolerance = tolerance_for(held[2], test[2])
            found.append(Consistency(held[0], column, held[1], test[1], tolerance))
    found.sort(key=lambda c: c.gap - c.tolerance)
    return found[-1] if found else None


def _matched(
    node: pd.DataFrame, reference: pd.DataFrame, spec: MetricSpec
) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The node's and the reference's rows that both predict, keyed alike by the id (and the key columns both
    have); None where either lacks the id or they share no row."""
    keys = [spec.id_column, *(c for c in spec.key_columns if c in node.columns and c in reference.columns)]
    if any(not set(keys) <= set(frame.columns) for frame in (node, reference)):
        return None
    left, right = (keyed_rows(frame, keys) for frame in (node, reference))
    shared = left.index.intersection(right.index)
    return (left.loc[shared], right.loc[shared]) if len(shared) else None


def _agreement(
    node: pd.DataFrame, reference: pd.DataFrame, column: str, numeric: bool
) -> tuple[str, float, int] | None:
    """(measure, value, rows compared) of the node's agreement with the reference in `column` on their matched
    rows (`_matched`); None where either lacks the column or the reference gives every row one value (nothing
    to agree with)."""
    if column not in node.columns or column not in reference.columns:
        return None
    if reference[column].astype(str).str.strip().nunique() < 2:
        return None
    found = column_agreement(reference[column], node[column], column, numeric)
    value = found.value if found.value == found.value else 0.0  # NaN: no rank order to agree with
    return found.measure, float(value), len(reference)
