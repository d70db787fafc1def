"""Fitness normalisation on RMSE-, AUC- and log-loss-like populations."""

from __future__ import annotations

import math

import pytest

from swarm.ga.fitness import METHODS, normalise, score_against


def _order(values: list[float]) -> list[int]:
    return sorted(range(len(values)), key=lambda i: values[i])


@pytest.mark.parametrize("method", METHODS)
def test_rmse_like_lower_is_better_with_outlier(method: str) -> None:
    rmse = [0.52, 0.31, 0.95, 1e6, 0.40]
    fit = normalise(rmse, lower_is_better=True, method=method)
    assert all(0.0 <= f <= 1.0 for f in fit)
    assert fit[1] == max(fit) and fit[3] == min(fit)
    assert _order(fit) == _order([-v for v in rmse])


@pytest.mark.parametrize("method", METHODS)
def test_auc_like_higher_is_better(method: str) -> None:
    auc = [0.5, 0.72, 0.91, 0.88, 0.61]
    fit = normalise(auc, lower_is_better=False, method=method)
    assert _order(fit) == _order(auc)
    assert fit[2] > 0.5 > fit[0]


@pytest.mark.parametrize("method", METHODS)
def test_logloss_like_with_explosion_and_negative_scores(method: str) -> None:
    logloss = [0.45, 0.43, 0.69, 34.5, 0.44]
    fit = normalise(logloss, lower_is_better=True, method=method)
    assert fit[1] == max(fit) and fit[3] == min(fit)
    neg_mse = [-3.2, -1.1, -0.4, -250.0]  # sklearn-style "higher is better" negatives
    fit = normalise(neg_mse, lower_is_better=False, method=method)
    assert _order(fit) == _order(neg_mse)
    assert all(0.0 <= f <= 1.0 for f in fit)


def test_robust_keeps_good_values_apart_despite_an_outlier() -> None:
    rmse = [0.30, 0.32, 0.34, 0.36, 1e9]
    fit = normalise(rmse, lower_is_better=True, method="robust")
    # min-max scaling would squash the four good values within 1e-9 of each other
    assert fit[0] - fit[3] > 0.2
    assert fit[4] < 0.01


@pytest.mark.parametrize("method", METHODS)
def test_direction_symmetry_and_scale_invariance(method: str) -> None:
    values = [3.0, 1.5, 7.25, 2.0, 2.0, 10.0]
    low = normalise(values, lower_is_better=True, method=method)
    high = normalise([-v for v in values], lower_is_better=False, method=method)
    scaled = normalise([1000 * v - 77 for v in values], lower_is_better=True, method=method)
    for a, b, c in zip(low, high, scaled, strict=True):
        assert a == pytest.approx(b) and a == pytest.approx(c)
    assert low[3] == low[4]  # ties share a fitness


@pytest.mark.parametrize("method", METHODS)
def test_invalid_values_get_zero_and_do_not_disturb_the_rest(method: str) -> None:
    clean = normalise([0.8, 0.7, 0.9], lower_is_better=False, method=method)
    mixed = normalise([0.8, None, 0.7, math.nan, 0.9, math.inf], lower_is_better=False, method=method)
    assert mixed[1] == mixed[3] == mixed[5] == 0.0
    assert [mixed[0], mixed[2], mixed[4]] == pytest.approx(clean)


def test_degenerate_populations() -> None:
    assert normalise([], lower_is_better=True) == []
    assert normalise([None], lower_is_better=True) == [0.0]
    assert normalise([4.2], lower_is_better=True) == [1.0]
    for method in METHODS:
        assert normalise([0.5, 0.5, None], lower_is_better=False, method=method) == [1.0, 1.0, 0.0]


def test_score_against_a_population() -> None:
    population = [0.40, 0.35, 0.50]
    assert score_against(0.20, population, lower_is_better=True) == pytest.approx(
        max(normalise([*population, 0.20], lower_is_better=True))
    )
    assert score_against(0.90, population, lower_is_better=True) < score_against(
        0.30, population, lower_is_better=True
    )
    assert score_against(None, population, lower_is_better=True) == 0.0


def test_score_against_takes_the_other_values_only() -> None:
    """The scored value must not be in `population`: counted twice, the best of two scores 0.75 by rank."""
    others = [0.70]
    assert score_against(0.80, others, lower_is_better=False, method="rank") == 1.0
    assert score_against(0.80, [*others, 0.80], lower_is_better=False, method="rank") == 0.75
    for method in METHODS:  # scoring against the others is the new value's fitness in the whole population
        population = [0.31, 0.12, 0.55, 0.40]
        assert score_against(0.20, population, lower_is_better=True, method=method) == pytest.approx(
            normalise([*population, 0.20], lower_is_better=True, method=method)[-1]
        )


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="unknown fitness method 'zscore'"):
        normalise([1.0], lower_is_better=True, method="zscore")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="lower_is_better must be a bool"):
        normalise([1.0], lower_is_better="yes")  # type: ignore[arg-type]
