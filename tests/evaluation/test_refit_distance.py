"""The refit check's metric distance (swarm/evaluation/refit_check.py): the competition's metric between a refit's
and the scored run's test predictions, judged against the node's harness error, sees what ranks and labels miss (a
doubled or shuffled refit), while honest refits of one model on every bundled competition are accepted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import list_bundled
from swarm.competitions.bundled import prepare_bundled
from swarm.competitions.competition import MetricSpec, load_competition_dir
from swarm.evaluation.refit_check import (
    DISTANCE_EPSILON,
    DISTANCE_FACTOR,
    FLOORS,
    LABELS,
    check_refit,
    metric_distance,
)
from swarm.journal import Node
from swarm.journal.step_record import Review
from swarm.metric import MetricValue, ValidationSource
from swarm.pipeline.refit import harness_score
from tests.evaluation.honest_refits import HonestRuns, honest_runs

RUNS: dict[str, HonestRuns] = {}


@pytest.fixture(scope="module")
def bundled_runs(tmp_path_factory: pytest.TempPathFactory):
    """Each bundled competition's honest scored run and refit, made once for the module."""
    cache = tmp_path_factory.mktemp("cache")

    def runs(competition_id: str) -> HonestRuns:
        if competition_id not in RUNS:
            RUNS[competition_id] = honest_runs(load_competition_dir(prepare_bundled(competition_id, cache)))
        return RUNS[competition_id]

    return runs


def with_target(runs: HonestRuns, values) -> pd.DataFrame:
    """The refit's frame with its target column replaced by `values` (as strings)."""
    return runs.refit.assign(**{runs.spec.target_columns[0]: [str(v) for v in values]})


@pytest.mark.parametrize("competition_id", list_bundled())
def test_an_honest_refit_is_accepted_on_every_bundled_competition(bundled_runs, competition_id: str) -> None:
    runs = bundled_runs(competition_id)
    check = check_refit(runs.scored, runs.refit, runs.spec, runs.harness_score)
    assert check is not None and check.accepted, check.describe()
    if runs.spec.name == "auc":  # AUC needs labels as answers: the scored run's probabilities are none
        assert check.distance is None
    else:
        assert (
            check.distance is not None and 0 < check.distance.value <= DISTANCE_FACTOR * check.distance.error
        )


def test_a_doubled_house_prices_refit_is_rejected_though_its_ranks_agree(bundled_runs) -> None:
    runs = bundled_runs("house-prices")
    values = pd.to_numeric(runs.refit["SalePrice"])
    check = check_refit(runs.scored, with_target(runs, 2 * values), runs.spec, runs.harness_score)
    assert check.agreement.accepted and check.agreement.value > 0.95  # the ranks cannot see it
    assert not check.accepted and check.distance.value > 0.6  # log(2) away, about 5 x the harness error
    expected = (
        f"rmse_log between the refit and the scored run {check.distance.value:.3g} > {DISTANCE_FACTOR:g} x the "
        f"node's harness error {runs.harness_score:.3g}"
    )
    assert check.distance.describe() == expected and check.describe().endswith("; " + expected)


def test_a_house_prices_refit_with_30_percent_shuffled_is_rejected(bundled_runs) -> None:
    runs = bundled_runs("house-prices")
    values = pd.to_numeric(runs.refit["SalePrice"]).to_numpy().copy()
    rng = np.random.default_rng(0)
    rows = rng.choice(len(values), size=int(0.3 * len(values)), replace=False)
    values[rows] = values[rng.permutation(rows)]
    check = check_refit(runs.scored, with_target(runs, values), runs.spec, runs.harness_score)
    assert check.distance is not None and not check.distance.accepted and not check.accepted


def test_a_titanic_refit_with_12_percent_of_labels_flipped_is_rejected(bundled_runs) -> None:
    runs = bundled_runs("titanic")
    scored, refit = runs.scored["Survived"].to_numpy(), runs.refit["Survived"].to_numpy().copy()
    agreeing = np.flatnonzero(scored == refit)
    flipped = np.random.default_rng(0).choice(agreeing, size=int(round(0.12 * len(refit))), replace=False)
    refit[flipped] = np.where(
        refit[flipped] == "1", "0", "1"
    )  # 12% of the rows turned away from the scored run
    check = check_refit(runs.scored, with_target(runs, refit), runs.spec, runs.harness_score)
    assert check.agreement.measure == LABELS and not check.agreement.accepted and not check.accepted
    assert (
        check.agreement.value
        < FLOORS[LABELS]
        < check_refit(runs.scored, runs.refit, runs.spec, 0.8).agreement.value
    )


def frame(values) -> pd.DataFrame:
    return pd.DataFrame({"id": [str(i) for i in range(len(values))], "y": [str(v) for v in values]})


def test_a_perfect_harness_score_admits_only_the_same_predictions() -> None:
    spec = MetricSpec("rmse", True, "id", ("y",))
    values = np.linspace(1, 2, 50)
    same = metric_distance(frame(values), frame(values), spec, 0.0)
    assert same.error == 0 and same.value == 0 and same.accepted
    moved = metric_distance(frame(values), frame(values + 10 * DISTANCE_EPSILON), spec, 0.0)
    assert not moved.accepted


def test_a_shifted_split_allows_a_larger_distance() -> None:
    spec = MetricSpec("rmse", True, "id", ("y",))
    values = np.linspace(1, 2, 50)
    moved = frame(values + 1.5 * DISTANCE_FACTOR * 0.1)
    assert not metric_distance(frame(values), moved, spec, 0.1).accepted
    assert metric_distance(frame(values), moved, spec, 0.1, shifted=True).accepted


def test_the_distance_is_skipped_where_it_cannot_be_measured() -> None:
    probabilities = np.random.default_rng(3).random(40)
    auc = MetricSpec("auc", False, "id", ("y",))
    assert metric_distance(frame(probabilities), frame(probabilities), auc, 0.8) is None  # AUC needs labels
    rmse = MetricSpec("rmse", True, "id", ("y",))
    assert metric_distance(frame([1.0, 2.0]), frame([1.0, 2.0]), rmse, None) is None  # no harness score
    assert metric_distance(frame([1.0, 2.0]), frame([1.0, 2.0, 3.0]), rmse, 0.1) is None  # other rows


def test_a_higher_is_better_error_is_its_distance_from_the_best() -> None:
    spec = MetricSpec("accuracy", False, "id", ("y",))
    labels = np.array([0, 1] * 25)
    moved = labels.copy()
    moved[:5] = 1 - moved[:5]  # a tenth of the rows
    distance = metric_distance(frame(labels), frame(moved), spec, 0.8)
    assert distance.value == pytest.approx(0.1) and distance.error == pytest.approx(0.2) and distance.accepted
    assert distance.describe().startswith("1 - accuracy between the refit and the scored run 0.1 <= ")


def test_a_claimed_score_is_no_yardstick() -> None:
    """`harness_score` takes the node's score only where the harness computed it."""
    node = Node(code="print(1)", review=Review(metric=MetricValue(0.9, False)))
    node.meta.validation_source = ValidationSource.SOLUTION
    assert harness_score(node) is None
    node.meta.validation_source = ValidationSource.HARNESS
    assert harness_score(node) == 0.9
