"""A miniature ventilator-pressure-prediction laid out as MLE-bench prepares it, and hand-computed scores.

ventilator's grade.py scores the MAE over the inspiratory rows only (the answers' `u_out == 0`); `masked_mae`
does the same when it gets each row's `u_out` as its mask (its param `group_column`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

TARGET = "pressure"
MASK = "u_out"
STEPS = 8  # rows per breath: the first INSPIRATORY of them with u_out 0, the rest with u_out 1
INSPIRATORY = 3
# A prediction off by 1.0 on every inspiratory row and by 50.0 on every expiratory one: masked MAE 1.0.
OFFSETS = {0: 1.0, 1: 50.0}
MASKED = 1.0
# MLE-bench's description.md of ventilator-pressure-prediction, abridged: its Evaluation section and the column
# list of its Dataset Description.
DESCRIPTION = (
    "# Google Brain - Ventilator Pressure Prediction\n\n## Evaluation\n\nThe competition will be scored as the "
    "mean absolute error between the predicted and actual pressures during the inspiratory phase of each breath. "
    "The expiratory phase is not scored. The score is given by:\n\n$$\n|X-Y|\n$$\nwhere $X$ is the vector of "
    "predicted pressure and $Y$ is the vector of actual pressures across all breaths in the test set.\n\n"
    "## Submission File\n\nFor each `id` in the test set, you must predict a value for the `pressure` "
    "variable.\n\n## Dataset Description\n\n### Columns\n\n"
    "- `id` - globally-unique time step identifier across an entire file\n"
    "- `breath_id` - globally-unique time step for breaths\n"
    "- `R` - lung attribute indicating how restricted the airway is (in cmH2O/L/S).\n"
    "- `C` - lung attribute indicating how compliant the lung is (in mL/cmH2O).\n"
    "- `time_step` - the actual time stamp.\n"
    "- `u_in` - the control input for the inspiratory solenoid valve. Ranges from 0 to 100.\n"
    "- `u_out` - the control input for the exploratory solenoid valve. Either 0 or 1.\n"
    "- `pressure` - the airway pressure measured in the respiratory circuit, measured in cmH2O.\n"
)
MASK_LINE = "u_out - the control input for the exploratory solenoid valve. Either 0 or 1."
MASKED_METRIC = {"name": "masked_mae", "params": {"group_column": MASK}}


def breaths(first_breath: int, count: int, first_id: int) -> pd.DataFrame:
    """`count` breaths of STEPS rows each (ids from `first_id`), with their target."""
    rows = count * STEPS
    step = np.arange(rows) % STEPS
    breath = first_breath + np.arange(rows) // STEPS
    return pd.DataFrame(
        {
            "id": np.arange(first_id, first_id + rows),
            "breath_id": breath,
            "R": np.where(breath % 2 == 0, 20, 50),
            "C": np.where(breath % 3 == 0, 10, 50),
            "time_step": np.round(step * 0.033, 3),
            "u_in": np.where(step < INSPIRATORY, 10.0 + 5 * step, 0.0),
            MASK: (step >= INSPIRATORY).astype(int),
            TARGET: np.round(6.0 + 2.5 * step + 0.25 * (breath % 5), 3),
        }
    )


def offset_predictions(rows: pd.DataFrame) -> pd.Series:
    """The rows' target plus their phase's offset (1.0 inspiratory, 50.0 expiratory)."""
    return rows[TARGET].astype(float) + rows[MASK].astype(int).map(OFFSETS)


def ventilator_competition(
    root: Path,
    *,
    metric: dict | None = None,
    description: str = DESCRIPTION,
    n_train: int = 10,
    n_test: int = 3,
) -> Path:
    """prepared/public (train.csv, test.csv without the target, sample_submission.csv: id and the target) and
    prepared/private/test.csv (every column, as MLE-bench's prepare.py writes the answers); competition.json
    only when `metric` is given."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    train = breaths(0, n_train, 1)
    answers = breaths(n_train, n_test, len(train) + 1)
    train.to_csv(public / "train.csv", index=False)
    answers.drop(columns=[TARGET]).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": answers["id"], TARGET: 0}).to_csv(public / "sample_submission.csv", index=False)
    answers.to_csv(private / "test.csv", index=False)
    (public / "description.md").write_text(description, encoding="utf-8")
    if metric is not None:
        (root / "competition.json").write_text(json.dumps({"metric": metric}), encoding="utf-8")
    return root
