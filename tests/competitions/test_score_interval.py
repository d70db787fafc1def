"""A held-out score's bootstrap interval: it covers the true score about 95% of the time, narrows with more rows,
resamples whole groups where asked, is None with a reason where the metric cannot be rescored on a resample, and
the warning where the held-out rows are too few for the metric."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from swarm.competitions.competition import MetricSpec
from swarm.competitions.grading import scored_parts
from swarm.competitions.score_interval import bootstrap_interval, few_rows_warning, held_out_interval


def _rmse_interval(errors: np.ndarray, **kwargs) -> object:
    score = float(np.sqrt(np.mean(errors**2)))
    return score, bootstrap_interval(
        lambda rows: float(np.sqrt(np.mean(errors[rows] ** 2))), score, len(errors), **kwargs
    )


def test_the_interval_covers_the_true_score_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(7)
    population = rng.standard_t(
        df=5, size=2_000_000
    )  # heavier tails than a normal: squared errors are skewed
    true_rmse = float(np.sqrt(np.mean(population**2)))
    draws, covered = 300, 0
    for seed in range(draws):
        errors = population[np.random.default_rng(1000 + seed).integers(0, len(population), 400)]
        _, interval = _rmse_interval(errors, seed=seed)
        covered += interval.low <= true_rmse <= interval.high
    assert 0.90 <= covered / draws <= 0.99


def test_the_interval_of_an_accuracy_covers_its_true_value_through_the_metric_library() -> None:
    """The same check through `scored_parts`: the metric library's accuracy rescored on each resample."""
    spec = MetricSpec("accuracy", False, "id", ("y",))
    draws, covered = 80, 0
    for seed in range(draws):
        rng = np.random.default_rng(seed)
        truth = rng.integers(0, 2, 150)
        predicted = np.where(
            rng.random(150) < 0.8, truth, 1 - truth
        )  # right with probability 0.8: the true score
        ids = [str(i) for i in range(150)]
        score, rows = scored_parts(
            pd.DataFrame({"id": ids, "y": predicted.astype(str)}),
            pd.DataFrame({"id": ids, "y": truth.astype(str)}),
            spec,
        )
        interval = held_out_interval(rows, score.score)
        covered += interval.low <= 0.8 <= interval.high
    assert 0.90 <= covered / draws <= 0.99


def test_the_interval_narrows_with_more_rows() -> None:
    widths = []
    for rows in (100, 1000, 10_000):
        errors = np.random.default_rng(rows).normal(size=rows)
        _, interval = _rmse_interval(errors)
        widths.append(interval.high - interval.low)
    assert widths[0] > 2 * widths[1] > 4 * widths[2]  # about sqrt(10) narrower each time


def test_it_is_seeded_the_same_rows_give_the_same_interval() -> None:
    errors = np.random.default_rng(3).normal(size=300)
    assert _rmse_interval(errors)[1] == _rmse_interval(errors)[1]
    assert _rmse_interval(errors)[1] != _rmse_interval(errors, seed=1)[1]


def test_a_large_held_out_set_is_bootstrapped_on_a_subsample_with_its_spread_scaled() -> None:
    errors = np.random.default_rng(5).normal(size=40_000)
    score, whole = _rmse_interval(errors, max_units=50_000)
    _, sub = _rmse_interval(errors, max_units=2_000)
    assert whole.note is None and "2000 of the 40000 rows" in sub.note
    assert sub.se == pytest.approx(whole.se, rel=0.25)  # the subsample's spread, scaled by sqrt(2000/40000)
    assert sub.low < score < sub.high


def test_whole_groups_are_resampled_where_rows_of_a_group_are_alike() -> None:
    rng = np.random.default_rng(11)
    groups = np.repeat(np.arange(40), 10)
    errors = np.repeat(rng.normal(size=40), 10) + rng.normal(scale=0.1, size=400)  # one error a group, nearly
    _, by_rows = _rmse_interval(errors)
    _, by_groups = _rmse_interval(errors, groups=groups)
    assert "whole groups resampled (40 groups)" in by_groups.note
    assert by_groups.se > 2 * by_rows.se  # ten alike rows a group: about sqrt(10) wider


def test_a_metric_that_fails_on_many_resamples_gives_no_interval_and_says_why() -> None:
    """AUC with one positive among 200 rows: most resamples hold no positive at all."""
    spec = MetricSpec("auc", False, "id", ("y",))
    ids = [str(i) for i in range(200)]
    truth = ["1"] + ["0"] * 199
    score, rows = scored_parts(
        pd.DataFrame({"id": ids, "y": np.linspace(0, 1, 200).astype(str)}),
        pd.DataFrame({"id": ids, "y": truth}),
        spec,
    )
    interval = held_out_interval(rows, score.score)
    assert not interval.known and interval.low is None and interval.se is None
    assert "could not be computed on" in interval.note and "resamples" in interval.note
    assert "only 1 of the 200 held-out rows are of the rarer class" in interval.warning


def test_a_metric_reading_each_rows_group_gives_no_interval_and_says_why() -> None:
    spec = MetricSpec("log_mae", True, "id", ("y",), params={"group_column": "kind"})
    ids = [str(i) for i in range(60)]
    answers = pd.DataFrame({"id": ids, "y": np.arange(60.0).astype(str), "kind": ["a", "b", "c"] * 20})
    score, rows = scored_parts(
        pd.DataFrame({"id": ids, "y": (np.arange(60.0) + 1).astype(str)}), answers, spec
    )
    interval = held_out_interval(rows, score.score)
    assert not interval.known and "log_mae reads each row's group (kind)" in interval.note
    assert interval.to_meta() == {"score_interval_note": interval.note}


def test_many_classes_with_few_held_out_rows_each_are_warned_naming_the_counts() -> None:
    classes = [f"c{i}" for i in range(99)]
    rng = np.random.default_rng(0)
    truth = rng.choice(classes, 250)
    ids = [str(i) for i in range(250)]
    probabilities = rng.dirichlet(np.ones(99), 250)
    submission = pd.DataFrame(probabilities, columns=classes).assign(id=ids)
    answers = pd.DataFrame({"id": ids, "species": truth})
    spec = MetricSpec("multiclass_logloss", True, "id", tuple(classes))
    score, rows = scored_parts(submission, answers, spec)
    interval = held_out_interval(rows, score.score)
    assert interval.warning.startswith("only 250 held-out rows for 99 classes (about 2.5 a class)")


def test_enough_rows_for_a_narrow_interval_give_no_warning_and_a_wide_one_does() -> None:
    narrow = bootstrap_interval(lambda rows: 0.8, 0.8, 100)
    assert few_rows_warning("accuracy", 1000, np.array([500, 500]), 0.8, narrow) is None
    wide = type(narrow)(0.5, 1.1, 0.15)
    warning = few_rows_warning("rmse", 40, None, 0.8, wide)
    assert "±0.3 around 0.8" in warning and "on 40 held-out rows" in warning
