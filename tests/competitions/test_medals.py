"""Kaggle's medal places by team count, around every boundary, and threshold lookup in both directions."""

from __future__ import annotations

import pytest

from swarm.competitions import CompetitionError, medal_places
from swarm.competitions.medals import is_above_median, leaderboard_rank, medal_for, thresholds


@pytest.mark.parametrize(
    ("teams", "gold", "silver", "bronze"),
    [
        (1, 1, 1, 1),
        (9, 1, 1, 3),
        (10, 1, 2, 4),
        (99, 9, 19, 39),
        (100, 10, 20, 40),
        (249, 10, 49, 99),
        (250, 10, 50, 100),
        (999, 11, 50, 100),
        (1000, 12, 50, 100),
        (2000, 14, 100, 200),
    ],
)
def test_medal_places(teams: int, gold: int, silver: int, bronze: int) -> None:
    places = medal_places(teams)
    assert (places.gold, places.silver, places.bronze) == (gold, silver, bronze)


def test_zero_teams_is_an_error() -> None:
    with pytest.raises(CompetitionError, match="at least one team"):
        medal_places(0)


def test_thresholds_higher_is_better_ignore_input_order() -> None:
    scores = [i / 100 for i in range(100)]  # 100 teams: gold = 10th, silver = 20th, bronze = 40th best
    limits = thresholds(list(reversed(scores)), lower_is_better=False)
    assert (limits.gold, limits.silver, limits.bronze) == (0.90, 0.80, 0.60)
    assert limits.median == pytest.approx(0.495)
    assert medal_for(0.90, limits, False) == "gold"
    assert medal_for(0.85, limits, False) == "silver"
    assert medal_for(0.61, limits, False) == "bronze"
    assert medal_for(0.59, limits, False) is None
    assert is_above_median(0.5, limits, False) and not is_above_median(0.495, limits, False)


def test_thresholds_lower_is_better() -> None:
    scores = [float(i) for i in range(1, 11)]  # 10 teams: gold 1st, silver 2nd, bronze 4th
    limits = thresholds(scores, lower_is_better=True)
    assert (limits.gold, limits.silver, limits.bronze) == (1.0, 2.0, 4.0)
    assert medal_for(0.5, limits, True) == "gold"
    assert medal_for(3.0, limits, True) == "bronze"
    assert medal_for(4.5, limits, True) is None
    assert leaderboard_rank(3.0, scores, True) == 3
    assert leaderboard_rank(3.0, scores, False) == 8
