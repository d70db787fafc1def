"""Kaggle's medal rules by team count, as MLE-bench applies them (kaggle.com/progression).

| teams      | gold                  | silver           | bronze           |
|------------|-----------------------|------------------|------------------|
| 1-99       | top 10%               | top 20%          | top 40%          |
| 100-249    | top 10 places         | top 20%          | top 40%          |
| 250-999    | top 10 + 0.2% places  | top 50 places    | top 100 places   |
| 1000+      | top 10 + 0.2% places  | top 5%           | top 10%          |

Percentages round down to a place, never below place 1. A threshold is the score at that place on the
best-first leaderboard; a score at least as good as a threshold earns that medal. `above_median` needs a score
strictly better than the median of all scores.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from swarm.competitions.errors import CompetitionError

Medal = Literal["gold", "silver", "bronze"]


@dataclass(frozen=True)
class MedalPlaces:
    """The last leaderboard place (1-based) that still earns each medal."""

    gold: int
    silver: int
    bronze: int


@dataclass(frozen=True)
class Thresholds:
    gold: float
    silver: float
    bronze: float
    median: float
    num_teams: int


def medal_places(num_teams: int) -> MedalPlaces:
    """Gold/silver/bronze cut-off places for a competition with `num_teams` teams."""
    if num_teams < 1:
        raise CompetitionError(f"a leaderboard needs at least one team, got {num_teams}")

    def share(fraction: float) -> int:
        return max(1, int(num_teams * fraction))

    if num_teams < 100:
        return MedalPlaces(gold=share(0.1), silver=share(0.2), bronze=share(0.4))
    if num_teams < 250:
        return MedalPlaces(gold=10, silver=share(0.2), bronze=share(0.4))
    gold = 10 + int(num_teams * 0.002)
    if num_teams < 1000:
        return MedalPlaces(gold=gold, silver=50, bronze=100)
    return MedalPlaces(gold=gold, silver=share(0.05), bronze=share(0.1))


def sort_best_first(scores: Sequence[float], lower_is_better: bool) -> list[float]:
    """Scores ordered from best to worst in the metric's direction."""
    return sorted((float(s) for s in scores), reverse=not lower_is_better)


def thresholds(scores: Sequence[float], lower_is_better: bool) -> Thresholds:
    """Medal thresholds and median of a leaderboard (in any order; it is sorted here)."""
    ordered = sort_best_first(scores, lower_is_better)
    places = medal_places(len(ordered))
    return Thresholds(
        gold=ordered[places.gold - 1],
        silver=ordered[places.silver - 1],
        bronze=ordered[places.bronze - 1],
        median=float(statistics.median(ordered)),
        num_teams=len(ordered),
    )


def _at_least(score: float, threshold: float, lower_is_better: bool) -> bool:
    return score <= threshold if lower_is_better else score >= threshold


def medal_for(score: float, limits: Thresholds, lower_is_better: bool) -> Medal | None:
    """The best medal `score` earns against `limits`, or None."""
    for medal, threshold in (("gold", limits.gold), ("silver", limits.silver), ("bronze", limits.bronze)):
        if _at_least(score, threshold, lower_is_better):
            return medal  # type: ignore[return-value]
    return None


def is_above_median(score: float, limits: Thresholds, lower_is_better: bool) -> bool:
    return score < limits.median if lower_is_better else score > limits.median


def leaderboard_rank(score: float, scores: Sequence[float], lower_is_better: bool) -> int:
    """The place `score` would take: 1 + the number of teams strictly better."""
    better = sum(1 for s in scores if (s < score if lower_is_better else s > score))
    return better + 1
