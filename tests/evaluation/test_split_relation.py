"""How the test rows stand to train.csv and the held-out rows to the kept ones (`swarm.evaluation.split_relation`),
and the splits `auto` draws to make the two alike: the training rows most like a test whose features set it apart;
the usual split where test and train look alike."""

from __future__ import annotations

import numpy as np
import pandas as pd

from swarm.evaluation.split import choose_split, held_out_positions
from swarm.evaluation.split_relation import (
    blocks,
    classifier_auc,
    nearest_distance,
    relation_lines,
    span,
    time_relation,
)

HOUR = 3600.0


def test_blocks_and_distances_of_rows_between_reference_rows() -> None:
    reference = np.array([0, 1, 2, 10, 11, 20], dtype=float) * HOUR
    points = np.array([3, 4, 5, 12, 13, 21, 22, 23, 24], dtype=float) * HOUR
    assert blocks(points, reference) == [(3 * HOUR, 5 * HOUR), (12 * HOUR, 13 * HOUR), (21 * HOUR, 24 * HOUR)]
    assert (nearest_distance(points, reference) / HOUR).tolist() == [1, 2, 3, 1, 2, 1, 2, 3, 4]
    relation = time_relation(points, reference)
    assert relation is not None and relation.blocks == 3 and relation.after == 4 / 9
    assert relation.describe() == (
        "9 rows in 3 blocks of 2 h-4 h (median 3 h), 1 h-4 h from the nearest other row (median 2 h), "
        "44% after the others"
    )


def test_spans_read_in_hours_days_and_years() -> None:
    assert [span(v) for v in (2 * HOUR, 36 * HOUR, 800 * 86_400.0)] == ["2 h", "1.5 d", "2.19 y"]


def _features(rng: np.random.Generator, rows: int, shift: float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "a": rng.normal(shift, 1, rows).round(3),
            "b": rng.normal(0, 1, rows).round(3),
            "kind": rng.choice(["x", "y", "z"], rows),
        }
    ).astype(str)


def test_a_classifier_tells_shifted_rows_apart_and_alike_rows_not() -> None:
    rng = np.random.default_rng(0)
    train = _features(rng, 1500, 0.0)
    alike, shifted = _features(rng, 500, 0.0), _features(rng, 500, 1.5)
    assert abs(classifier_auc(alike, train) - 0.5) < 0.06
    assert classifier_auc(shifted, train) > 0.8
    # A column blanked in the test tells the sides apart, not how their rows differ: it is not read.
    blanked = alike.assign(b="")
    assert abs(classifier_auc(blanked, train) - 0.5) < 0.06


def test_a_test_set_apart_by_its_features_holds_out_the_most_test_like_rows() -> None:
    rng = np.random.default_rng(1)
    train = _features(rng, 2000, 0.0).assign(id=[str(i) for i in range(2000)])
    test = _features(rng, 600, 1.5).assign(id=[str(i) for i in range(2000, 2600)])  # ids after train's
    split, why = choose_split("auto", None, train, test, False, "id")
    assert split == "like-test" and why.startswith("a classifier tells test.csv's rows from train.csv's")
    held = held_out_positions(split, train, train["a"], 0.2, 0, test, ("id",))
    assert len(held) == 400
    values = train["a"].astype(float)
    assert values.iloc[held].mean() > values.mean() + 0.8  # held out where the test lies
    lines = relation_lines(split, train, test, held, ("id",))
    test_auc, held_auc = (float(line.split("AUC ")[1][:4]) for line in lines)
    assert test_auc > 0.8 and held_auc > 0.8  # the held-out rows stand apart from the kept ones too


def test_a_test_alike_in_its_features_keeps_the_usual_split() -> None:
    rng = np.random.default_rng(2)
    train = _features(rng, 2000, 0.0).assign(id=[str(i) for i in range(2000)])
    test = _features(rng, 600, 0.0).assign(id=[str(i) for i in range(2000, 2600)])
    assert choose_split("auto", None, train, test, False, "id") == ("random", "a regression target")
    assert choose_split("auto", None, train, test, True, "id")[0] == "stratified"
    held = held_out_positions("random", train, train["a"], 0.2, 0)
    test_line, held_line = relation_lines("random", train, test, held, ("id",))
    assert test_line.startswith(
        "test rows beside the training rows: a classifier tells them apart with AUC 0."
    )
    assert held_line.startswith("held-out rows beside the kept ones: AUC 0.")


def test_a_group_split_names_the_share_of_unseen_keys_on_both_sides() -> None:
    train = pd.DataFrame({"school": [f"s{i % 20}" for i in range(400)], "x": range(400)}).astype(str)
    test = pd.DataFrame({"school": [f"n{i % 5}" for i in range(100)], "x": range(100)}).astype(str)
    held = held_out_positions("group:school", train, train["school"], 0.2, 0)
    assert relation_lines("group:school", train, test, held) == [
        "test rows beside the training rows: 100% have a 'school' the training rows lack",
        "held-out rows beside the kept ones: 100% have a 'school' the kept rows lack",
    ]
