"""What the metric tests against MLE-bench's graders share: scores that must agree to TOL, and a submission and its
answers built from lists, the submission's rows in reverse order."""

from __future__ import annotations

import pandas as pd

TOL = 1e-9


def agree(*values: float) -> None:
    assert all(abs(v - values[0]) <= TOL for v in values), values


def frames(id_col: str, target: str, truth: list, pred: list) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(submission, answers), the submission's rows in reverse order (the graders sort by id)."""
    ids = [f"r{i}" for i in range(len(truth))]
    answers = pd.DataFrame({id_col: ids, target: truth})
    submission = pd.DataFrame({id_col: ids[::-1], target: pred[::-1]})
    return submission, answers
