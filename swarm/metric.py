"""A validation metric value that knows which direction is better.

`MetricValue` orders by quality: `a > b` means "a is better than b", whatever the direction. A missing,
NaN or infinite value is stored as `None` and is always the worst. Comparing values of opposite directions
raises `ValueError` (it means two different metrics are being mixed up).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

T = TypeVar("T")


class ValidationSource(StrEnum):
    """Who computed a score: the harness, from rows whose labels the solution never saw, or the solution itself
    (the metric it printed: an unverified claim)."""

    HARNESS = "harness"
    SOLUTION = "solution"


@dataclass(frozen=True, eq=False)
class MetricValue:
    """A metric value; `None` (or NaN/inf, normalised to `None`) means missing and ranks worst."""

    value: float | None
    lower_is_better: bool

    def __post_init__(self) -> None:
        if not isinstance(self.lower_is_better, bool):
            raise TypeError(f"lower_is_better must be a bool, got {self.lower_is_better!r}")
        value = self.value
        if value is not None:
            if isinstance(value, bool | str | bytes):
                raise TypeError(f"metric value must be a number or None, got {self.value!r}")
            try:
                value = float(value)  # also numpy scalars
            except (TypeError, ValueError):
                raise TypeError(f"metric value must be a number or None, got {self.value!r}") from None
            if not math.isfinite(value):
                value = None
        object.__setattr__(self, "value", value)

    @classmethod
    def worst(cls, lower_is_better: bool) -> MetricValue:
        """A missing metric: worse than any real value."""
        return cls(None, lower_is_better)

    @property
    def is_valid(self) -> bool:
        """True when there is a real (finite) value."""
        return self.value is not None

    def sort_key(self) -> tuple[int, float]:
        """A key that sorts best first (ascending), missing values last."""
        if self.value is None:
            return (1, 0.0)
        return (0, self.value if self.lower_is_better else -self.value)

    def _same_direction(self, other: MetricValue) -> None:
        if other.lower_is_better != self.lower_is_better:
            raise ValueError(
                "cannot compare metrics of opposite directions "
                f"({self!r} vs {other!r}); they are not the same metric"
            )

    def better_than(self, other: MetricValue) -> bool:
        """True when self is strictly better than other."""
        self._same_direction(other)
        return self.sort_key() < other.sort_key()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MetricValue):
            return NotImplemented
        return self.lower_is_better == other.lower_is_better and self.value == other.value

    def __hash__(self) -> int:
        return hash((self.value, self.lower_is_better))

    def __gt__(self, other: MetricValue) -> bool:
        if not isinstance(other, MetricValue):
            return NotImplemented
        self._same_direction(other)
        return self.sort_key() < other.sort_key()

    def __lt__(self, other: MetricValue) -> bool:
        if not isinstance(other, MetricValue):
            return NotImplemented
        self._same_direction(other)
        return self.sort_key() > other.sort_key()

    def __ge__(self, other: MetricValue) -> bool:
        if not isinstance(other, MetricValue):
            return NotImplemented
        self._same_direction(other)
        return self.sort_key() <= other.sort_key()

    def __le__(self, other: MetricValue) -> bool:
        if not isinstance(other, MetricValue):
            return NotImplemented
        self._same_direction(other)
        return self.sort_key() >= other.sort_key()

    def __str__(self) -> str:
        direction = "lower is better" if self.lower_is_better else "higher is better"
        shown = "missing" if self.value is None else f"{self.value:.6g}"
        return f"{shown} ({direction})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"value": self.value, "lower_is_better": self.lower_is_better}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetricValue:
        """The inverse of `to_dict`; names the missing key on bad input."""
        if not isinstance(data, dict):
            raise TypeError(f"a metric must be a dict with 'value' and 'lower_is_better', got {data!r}")
        for key in ("value", "lower_is_better"):
            if key not in data:
                raise ValueError(f"metric dict is missing {key!r}: {data!r}")
        return cls(data["value"], data["lower_is_better"])


def sort_best_first(items: Iterable[T], key: Callable[[T], MetricValue | None]) -> list[T]:
    """Items ordered best metric first; missing metrics (None or invalid) last. Stable for ties."""

    def rank(item: T) -> tuple[int, float]:
        metric = key(item)
        return (1, 0.0) if metric is None else metric.sort_key()

    return sorted(items, key=rank)


def pick_best(items: Iterable[T], key: Callable[[T], MetricValue | None]) -> T | None:
    """The item with the best valid metric (the first on ties), or None when no item has one."""
    best: T | None = None
    best_rank: tuple[int, float] | None = None
    for item in items:
        metric = key(item)
        if metric is None or not metric.is_valid:
            continue
        rank = metric.sort_key()
        if best_rank is None or rank < best_rank:
            best, best_rank = item, rank
    return best


def with_interval(value: float, interval: Sequence[float] | None, spec: str = ".6g") -> str:
    """A score as `spec` formats it, then its 95% interval where it has one: `0.795918 [0.745, 0.847]` (every
    score a run shows reads the same)."""
    bounds = interval_text(interval)
    return f"{format(value, spec)} {bounds}" if bounds else format(value, spec)


def interval_text(interval: Sequence[float] | None) -> str:
    """A 95% interval as `[0.745, 0.847]`, its bounds to two significant digits of its half-width; "" where
    there is none."""
    if not interval or len(interval) != 2 or any(b is None or not math.isfinite(b) for b in interval):
        return ""
    low, high = float(interval[0]), float(interval[1])
    half = (high - low) / 2
    decimals = max(0, 1 - math.floor(math.log10(half))) if half > 0 else 4
    return f"[{low:.{decimals}f}, {high:.{decimals}f}]"
