"""A miniature champs-scalar-coupling laid out as MLE-bench prepares it, and hand-computed grouped scores.

champs's grade.py scores the mean over the coupling `type`s of log(MAE of the type); `log_mae` does the same
when it gets each row's `type` as its group (its param `group_column`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

TARGET = "scalar_coupling_constant"
TYPES = ("1JHC", "2JHH")
# A prediction off by 1.0 on every 1JHC row and by 0.01 on every 2JHH row: MAEs 1.0 and 0.01 per type.
OFFSETS = {"1JHC": 1.0, "2JHH": 0.01}
GROUPED = (math.log(1.0) + math.log(0.01)) / 2  # -2.302585: the mean over types of log(MAE)
# champs's Evaluation section (MLE-bench's description.md, abridged).
EVALUATION = (
    "# Predicting Molecular Properties\n\n## Evaluation\n\nSubmissions are evaluated on the Log of the Mean "
    "Absolute Error, calculated for each scalar coupling type, and then averaged across types, so that a 1% "
    "decrease in MAE for one type provides the same improvement in score as a 1% decrease for another type.\n\n"
    "### Submission File\n\nFor each `id` in the test set, you must predict the `scalar_coupling_constant` "
    "variable.\n"
)
GROUPED_METRIC = {"name": "log_mae", "params": {"group_column": "type"}}


def ungrouped(types: list[str]) -> float:
    """log of the overall MAE of the OFFSETS prediction on rows of these types (all rows one group)."""
    return math.log(float(np.mean([OFFSETS[t] for t in types])))


def couplings(first_id: int, count: int) -> pd.DataFrame:
    """`count` coupling rows (4 per molecule, the types alternating), with their target."""
    ids = np.arange(first_id, first_id + count)
    return pd.DataFrame(
        {
            "id": ids,
            "molecule_name": [f"dsgdb9nsd_{i // 4:06d}" for i in ids],
            "atom_index_0": ids % 4,
            "atom_index_1": ids % 4 + 1,
            "type": [TYPES[i % 2] for i in ids],
            TARGET: [round(80.0 + 0.5 * i if i % 2 == 0 else -10.0 + 0.25 * i, 2) for i in ids],
        }
    )


def offset_predictions(rows: pd.DataFrame) -> pd.Series:
    """The rows' target plus their type's offset (MAE 1.0 on 1JHC, 0.01 on 2JHH)."""
    return rows[TARGET].astype(float) + rows["type"].map(OFFSETS)


def champs_competition(
    root: Path,
    *,
    metric: dict | None = None,
    description: str = EVALUATION,
    n_train: int = 60,
    n_test: int = 20,
    test_has_type: bool = True,
    answers_have_type: bool = True,
) -> Path:
    """prepared/public (train.csv, test.csv without the target, sample_submission.csv: id and the target) and
    prepared/private/answers.csv (every column, as MLE-bench's prepare.py writes them); competition.json only
    when `metric` is given."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    train, answers = couplings(0, n_train), couplings(n_train, n_test)
    test = answers.drop(columns=[TARGET] if test_has_type else [TARGET, "type"])
    train.to_csv(public / "train.csv", index=False)
    test.to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": test["id"], TARGET: 0}).to_csv(public / "sample_submission.csv", index=False)
    (answers if answers_have_type else answers.drop(columns=["type"])).to_csv(
        private / "answers.csv", index=False
    )
    (public / "description.md").write_text(description, encoding="utf-8")
    if metric is not None:
        (root / "competition.json").write_text(json.dumps({"metric": metric}), encoding="utf-8")
    return root
