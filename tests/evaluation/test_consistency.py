"""The consistency check's figures (swarm/evaluation/consistency.py): a node's agreement with the reference model on
held-out and on test rows, the column where it drops most, and the flag where it drops more than honest nodes do."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from swarm.competitions.competition import MetricSpec
from swarm.evaluation.consistency import TOLERANCE, Consistency, Predictions, consistency, tolerance_for
from swarm.evaluation.refit_check import LABELS, RANK

RNG = np.random.default_rng(7)


def spec(name: str, targets: tuple[str, ...]) -> MetricSpec:
    return MetricSpec(name, False, "id", targets)


def frame(ids: range, **columns) -> pd.DataFrame:
    return pd.DataFrame(
        {"id": [str(i) for i in ids], **{k: [str(v) for v in vs] for k, vs in columns.items()}}
    )


HELD, TEST = range(0, 300), range(300, 1000)


def predictions(held: dict, test: dict) -> Predictions:
    return Predictions(frame(HELD, **held), frame(TEST, **test))


def test_a_node_inverted_on_test_rows_only_is_flagged_and_its_honest_twin_is_not() -> None:
    truth_held, truth_test = RNG.random(len(HELD)), RNG.random(len(TEST))
    reference = predictions({"p": truth_held}, {"p": truth_test})
    noise = lambda n: RNG.normal(0, 0.15, n)  # noqa: E731 - a model's own view of the same signal
    honest_held, honest_test = truth_held + noise(len(HELD)), truth_test + noise(len(TEST))
    honest = consistency(predictions({"p": honest_held}, {"p": honest_test}), reference, spec("auc", ("p",)))
    assert honest.measure == RANK and honest.consistent and abs(honest.gap) < 0.1, honest
    two_faced = consistency(
        predictions({"p": honest_held}, {"p": 1 - honest_test}), reference, spec("auc", ("p",))
    )
    assert not two_faced.consistent and two_faced.heldout > 0.8 and two_faced.test < -0.8, two_faced
    assert two_faced.heldout == pytest.approx(honest.heldout)  # alike where the harness scores them
    line = two_faced.describe()
    assert f"{two_faced.heldout:.3f} on held-out rows" in line and f"more than the {TOLERANCE:.2f}" in line


def test_labels_broken_on_test_rows_are_flagged_in_the_worst_column() -> None:
    held_labels, test_labels = RNG.integers(0, 3, len(HELD)), RNG.integers(0, 3, len(TEST))
    reference = predictions({"a": held_labels, "b": held_labels}, {"a": test_labels, "b": test_labels})
    garbage = RNG.integers(0, 3, len(TEST))  # a pipeline that breaks on values the training rows never had
    node = predictions({"a": held_labels, "b": held_labels}, {"a": test_labels, "b": garbage})
    found = consistency(node, reference, spec("accuracy", ("a", "b")))
    assert found.measure == LABELS and found.column == "b" and found.heldout == 1.0, found
    assert found.test == pytest.approx((garbage == test_labels).mean()) and not found.consistent


def test_a_reference_of_one_value_or_no_shared_row_checks_nothing() -> None:
    p_held, p_test = RNG.random(len(HELD)), RNG.random(len(TEST))
    node = predictions({"p": p_held}, {"p": p_test})
    constant = predictions({"p": [0.5] * len(HELD)}, {"p": p_test})
    assert consistency(node, constant, spec("auc", ("p",))) is None
    elsewhere = Predictions(frame(range(2000, 2300), p=p_held), frame(TEST, p=p_test))
    assert consistency(node, elsewhere, spec("auc", ("p",))) is None


def test_a_record_reads_back_as_it_was_saved() -> None:
    found = Consistency(RANK, "p", 0.9, -0.4)
    saved = found.to_dict()
    assert saved["consistent"] is False and Consistency.from_dict(saved) == found


def test_few_rows_widen_the_tolerance_by_the_measures_noise() -> None:
    assert tolerance_for(2000, 5000) == TOLERANCE
    assert (
        tolerance_for(12, 12) > 1.0 > tolerance_for(100, 100) > TOLERANCE
    )  # 12 rows: a drop of 0.7 is chance
    truth = RNG.random(15)
    reference = Predictions(frame(range(15), p=truth), frame(range(15, 27), p=RNG.random(12)))
    unrelated = Predictions(frame(range(15), p=truth), frame(range(15, 27), p=RNG.random(12)))
    found = consistency(unrelated, reference, spec("auc", ("p",)))
    assert found.tolerance == tolerance_for(15, 12) and found.consistent, found
