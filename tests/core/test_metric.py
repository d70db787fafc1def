"""MetricValue ordering in both directions, missing values, serialisation and the pick/sort helpers."""

import json
import math

import numpy as np
import pytest

from swarm.metric import MetricValue, pick_best, sort_best_first


def test_higher_is_better_orders_by_value():
    assert MetricValue(0.9, False) > MetricValue(0.8, False)
    assert MetricValue(0.8, False) < MetricValue(0.9, False)
    assert MetricValue(0.9, False).better_than(MetricValue(0.8, False))
    assert not MetricValue(0.8, False).better_than(MetricValue(0.9, False))


def test_lower_is_better_orders_inverted():
    assert MetricValue(0.1, True) > MetricValue(0.2, True)
    assert MetricValue(0.2, True) < MetricValue(0.1, True)
    assert MetricValue(-5.0, True).better_than(MetricValue(0.0, True))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("missing", [None, float("nan"), float("inf"), float("-inf")])
def test_missing_or_non_finite_is_always_worst(lower, missing):
    bad = MetricValue(missing, lower)
    assert bad.value is None
    assert not bad.is_valid
    for real in (-1e300, -1.0, 0.0, 1.0, 1e300):
        good = MetricValue(real, lower)
        assert good > bad
        assert bad < good
        assert good.better_than(bad)
        assert not bad.better_than(good)


@pytest.mark.parametrize("lower", [True, False])
def test_equal_values_are_equal_and_neither_better(lower):
    a, b = MetricValue(0.5, lower), MetricValue(0.5, lower)
    assert a == b and hash(a) == hash(b)
    assert a >= b and a <= b
    assert not a > b and not a < b
    assert not a.better_than(b)


def test_two_missing_values_are_equal():
    assert MetricValue(None, True) == MetricValue(float("nan"), True)
    assert not MetricValue(None, True).better_than(MetricValue(None, True))


def test_direction_is_part_of_equality():
    assert MetricValue(0.5, True) != MetricValue(0.5, False)


def test_comparing_opposite_directions_is_an_error():
    with pytest.raises(ValueError, match="opposite directions"):
        _ = MetricValue(0.5, True) > MetricValue(0.4, False)
    with pytest.raises(ValueError, match="opposite directions"):
        MetricValue(0.5, True).better_than(MetricValue(0.4, False))


def test_bad_inputs_are_named():
    with pytest.raises(TypeError, match="must be a number"):
        MetricValue("0.5", True)
    with pytest.raises(TypeError, match="must be a number"):
        MetricValue(True, True)
    with pytest.raises(TypeError, match="lower_is_better must be a bool"):
        MetricValue(0.5, "yes")
    with pytest.raises(TypeError):
        _ = MetricValue(0.5, True) < 0.3


def test_numpy_scalars_are_accepted():
    assert MetricValue(np.float32(0.25), False).value == 0.25
    assert MetricValue(np.int64(3), True).value == 3.0
    assert MetricValue(np.float64("nan"), True).value is None


@pytest.mark.parametrize(
    "metric", [MetricValue(0.123456789, False), MetricValue(None, True), MetricValue(-2, True)]
)
def test_dict_round_trip_through_json(metric):
    again = MetricValue.from_dict(json.loads(json.dumps(metric.to_dict(), allow_nan=False)))
    assert again == metric
    assert again.lower_is_better is metric.lower_is_better


def test_from_dict_names_missing_key():
    with pytest.raises(ValueError, match="lower_is_better"):
        MetricValue.from_dict({"value": 1.0})
    with pytest.raises(TypeError, match="must be a dict"):
        MetricValue.from_dict([1.0, True])


def test_str_shows_value_and_direction():
    assert str(MetricValue(0.5, True)) == "0.5 (lower is better)"
    assert str(MetricValue(None, False)) == "missing (higher is better)"


@pytest.mark.parametrize("lower", [True, False])
def test_sort_and_pick_best(lower):
    values = [0.3, None, 0.9, math.nan, 0.1, 0.9]
    items = [(i, MetricValue(v, lower)) for i, v in enumerate(values)]
    ordered = sort_best_first(items, key=lambda item: item[1])
    got = [item[0] for item in ordered]
    expected_valid = [4, 0, 2, 5] if lower else [2, 5, 0, 4]
    assert got[:4] == expected_valid
    assert set(got[4:]) == {1, 3}
    best = pick_best(items, key=lambda item: item[1])
    assert best[0] == (4 if lower else 2)  # the first of the tied 0.9s wins


def test_pick_best_none_when_nothing_valid():
    assert pick_best([MetricValue(None, True), None], key=lambda m: m) is None
    assert pick_best([], key=lambda m: m) is None
