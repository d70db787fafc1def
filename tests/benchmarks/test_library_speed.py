"""The library-speed benchmark compares two interpreters' scores step by step."""

from __future__ import annotations

import pytest

from benchmarks.library_speed import largest_difference


def test_library_speed_compares_scores_only_where_both_sides_scored():
    assert largest_difference([0.8, 0.7], [0.8, 0.75]) == pytest.approx(0.05)
    assert largest_difference([0.8, None], [0.8, None]) == 0.0
    assert largest_difference([0.8, None], [0.8, 0.7]) is None  # failed under one interpreter only
