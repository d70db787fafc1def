"""Further folds of a blocks split (`evaluation.folds`): each holds out another block that stands to the kept rows
as the first fold's does (a block at an edge of a run of training days), and leaves the rows between it and the
edge out of training, so that no kept row lies on the test's side. A time split has none."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from swarm.evaluation.holdout_record import NoHoldout
from swarm.evaluation.split import split_rows
from swarm.evaluation.split_relation import nearest_distance
from tests.evaluation.test_split_follows_test import hourly


def _days(frame: pd.DataFrame) -> set[str]:
    return set(frame["datetime"].str[:10])


def _seconds(values: pd.Series) -> np.ndarray:
    return pd.to_datetime(values).astype("int64").to_numpy() / 1e9


def test_each_fold_of_a_blocks_split_holds_out_another_edge_block_as_far_from_the_kept_rows() -> None:
    train, test = hourly()  # January and February, the 20th-28th of each in test
    folds = [
        split_rows("blocks:datetime", train, train["id"], 0.2, 3, test, ("id",), fold) for fold in range(3)
    ]
    held_days = [_days(held) for _, held, _ in folds]
    assert all(a.isdisjoint(b) for i, a in enumerate(held_days) for b in held_days[i + 1 :])
    # Fold 0: the end of each run of training days (before the test); fold 1: the start of the run that follows
    # January's test, and January's run (no test before it) one block further back.
    assert max(held_days[0]) == "2012-02-19" and "2012-01-19" in held_days[0]
    assert "2012-01-29" in held_days[1] and "2012-01-19" not in held_days[1]
    for fold, (_, held, kept) in enumerate(folds):
        assert _days(held).isdisjoint(_days(kept))
        # The rows between a held-out block and the test are in neither part: no kept row lies on the test's side.
        left_out = len(train) - len(held) - len(kept)
        assert (left_out == 0) == (fold == 0)
        train_s, kept_s = _seconds(held["datetime"]), _seconds(kept["datetime"])
        test_median = np.median(nearest_distance(_seconds(test["datetime"]), _seconds(train["datetime"])))
        held_median = np.median(nearest_distance(train_s, kept_s))
        assert abs(held_median - test_median) <= 0.35 * test_median, fold


def test_a_time_split_has_no_further_fold() -> None:
    days = pd.date_range("2001-01-01", periods=4000, freq="D")
    frame = pd.DataFrame({"id": range(4000), "date": days.strftime("%Y-%m-%d")})
    train, test = frame.iloc[:3000], frame.iloc[3000:]  # a horizon of 1000 days
    assert len(split_rows("time:date", train, train["id"], 0.2, 0, test, ("id",))[0]) == 1000
    with pytest.raises(NoHoldout, match="only it stands to the kept rows as the test does"):
        split_rows("time:date", train, train["id"], 0.2, 0, test, ("id",), fold=1)
