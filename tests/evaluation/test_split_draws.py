"""The stratified draw (`swarm.evaluation.split.held_out_positions`): each class in proportion, and where classes
of equal remainder straddle the cut (many classes of one row each: hubmap's 12 masks, each its own label), the
ones that round up are drawn at random, not the first ones in sorted order."""

from __future__ import annotations

import numpy as np
import pandas as pd

from swarm.evaluation.split import held_out_positions


def draw(strata: list[str], fraction: float, seed: int) -> np.ndarray:
    frame = pd.DataFrame({"y": strata})
    return held_out_positions("stratified", frame, pd.Series(strata), fraction, seed)


def test_classes_in_proportion() -> None:
    strata = ["a"] * 60 + ["b"] * 30 + ["c"] * 10
    held = draw(strata, 0.2, seed=0)
    assert len(held) == 20
    assert pd.Series([strata[i] for i in held]).value_counts().to_dict() == {"a": 12, "b": 6, "c": 2}


def test_classes_of_one_row_each_are_drawn_not_taken_in_sorted_order() -> None:
    strata = [f"label {i:03d}" for i in range(100)]  # in sorted order: rows 0..99
    draws = [set(draw(strata, 0.2, seed).tolist()) for seed in range(5)]
    assert all(len(held) == 20 for held in draws)
    assert set(range(20)) not in draws  # the first 20 classes in sorted order
    assert len({frozenset(held) for held in draws}) == 5  # each seed draws its own
    assert np.mean([np.mean(sorted(held)) for held in draws]) > 30  # spread over the rows, not the front
