"""Each metric on values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from swarm.competitions import CompetitionError, get_metric


def score(name: str, y_true, y_pred) -> float:
    return get_metric(name).score(np.asarray(y_true), np.asarray(y_pred))


def test_accuracy_counts_matches_numeric_and_text() -> None:
    assert score("accuracy", [1, 0, 1, 1], [1, 1, 1, 0]) == 0.5
    assert score("accuracy", np.array(["1", "0"]), np.array(["1.0", "0"])) == 1.0
    assert score("accuracy", np.array(["True", "False"]), np.array(["True", "True"])) == 0.5


def test_rmse_mse_mae() -> None:
    assert score("rmse", [0.0, 0.0], [3.0, 4.0]) == pytest.approx(math.sqrt(12.5))
    assert score("mse", [0.0, 0.0], [3.0, 4.0]) == pytest.approx(12.5)
    assert score("mae", [1.0, 2.0, 3.0], [2.0, 2.0, 1.0]) == pytest.approx(1.0)


def test_rmse_log_and_rmsle() -> None:
    # log(e^2) - log(1) = 2 on both rows
    assert score("rmse_log", [1.0, 1.0], [math.e**2, math.e**2]) == pytest.approx(2.0)
    assert score("rmsle", [0.0, 0.0], [math.e - 1, math.e - 1]) == pytest.approx(1.0)


def test_auc_matches_pair_counting() -> None:
    # pairs (pos, neg): (0.8,0.1) win, (0.8,0.4) win, (0.35,0.1) win, (0.35,0.4) loss -> 3/4
    assert score("auc", [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(0.75)


def test_logloss_and_clipping() -> None:
    assert score("logloss", [1, 0], [0.5, 0.5]) == pytest.approx(math.log(2))
    assert score("logloss", [1], [0.0]) == pytest.approx(-math.log(1e-15))


def test_f1_and_r2() -> None:
    # tp=1, fp=1, fn=1 -> precision 0.5, recall 0.5
    assert score("f1", [1, 1, 0, 0], [1, 0, 1, 0]) == pytest.approx(0.5)
    assert score("r2", [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]) == 1.0
    assert score("r2", [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]) == pytest.approx(0.0)


def test_directions() -> None:
    lower = {
        n for n in ("rmse", "mse", "mae", "rmse_log", "rmsle", "logloss") if get_metric(n).lower_is_better
    }
    higher = {n for n in ("accuracy", "auc", "f1", "r2") if not get_metric(n).lower_is_better}
    assert len(lower) == 6 and len(higher) == 4


def test_aliases_and_unknown_metric() -> None:
    assert get_metric("ROC_AUC").name == "auc"
    with pytest.raises(CompetitionError, match="unknown metric 'nope'.*accuracy"):
        get_metric("nope")


def test_auc_with_one_class_is_an_error() -> None:
    with pytest.raises(CompetitionError, match="single class"):
        score("auc", [1, 1], [0.2, 0.3])
