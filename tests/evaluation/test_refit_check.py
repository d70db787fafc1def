"""The refit check's measures (swarm/evaluation/refit_check.py): each fits its column's values, rows are matched
by the id (and key columns), the worst column decides, and a refit that turns its predictions is rejected while
one that moves them a little is not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from swarm.competitions.competition import MetricSpec
from swarm.evaluation.refit_check import FLOORS, LABELS, RANK, SHIFTED_SHARE, TOKENS, refit_agreement


def spec(name: str, targets: tuple[str, ...], keys: tuple[str, ...] = ()) -> MetricSpec:
    return MetricSpec(name, False, "id", targets, key_columns=keys)


def frame(**columns) -> pd.DataFrame:
    n = len(next(iter(columns.values())))
    return pd.DataFrame(
        {"id": [str(i) for i in range(n)], **{k: [str(v) for v in vs] for k, vs in columns.items()}}
    )


def test_probabilities_are_compared_by_rank() -> None:
    p = np.random.default_rng(0).random(200)
    scored = frame(p=p)
    rescaled = refit_agreement(scored, frame(p=p**2), spec("auc", ("p",)))  # same order: the ranks agree
    assert rescaled.measure == RANK and rescaled.value == pytest.approx(1.0) and rescaled.accepted
    turned = refit_agreement(scored, frame(p=1 - p), spec("auc", ("p",)))
    assert turned.value == pytest.approx(-1.0) and not turned.accepted
    assert turned.describe() == f"rank correlation -1.000 < {FLOORS[RANK]:.2f} (p, 200 test rows)"


def test_labels_are_compared_row_by_row_and_rows_matched_by_id() -> None:
    labels = np.random.default_rng(1).integers(0, 2, 100)
    scored = frame(y=labels)
    moved = labels.copy()
    moved[:10] = 1 - moved[:10]  # a tenth of the rows change: an honest refit's drift
    shuffled = frame(y=moved).sample(frac=1, random_state=0)  # another row order, the same ids
    agreement = refit_agreement(scored, shuffled, spec("accuracy", ("y",)))
    assert agreement.measure == LABELS and agreement.value == pytest.approx(0.9) and agreement.accepted
    assert not refit_agreement(scored, frame(y=1 - labels), spec("accuracy", ("y",))).accepted


def test_constant_numbers_are_compared_as_labels() -> None:
    agreement = refit_agreement(frame(v=[0.5] * 20), frame(v=[0.5] * 20), spec("rmse", ("v",)))
    assert agreement.measure == LABELS and agreement.value == 1.0


def test_lists_of_items_are_compared_by_token_overlap() -> None:
    items = [" ".join(f"a{j}" for j in range(i, i + 12)) for i in range(40)]
    near = [" ".join(f"a{j}" for j in range(i + 1, i + 13)) for i in range(40)]  # 11 of 12 items shared
    agreement = refit_agreement(frame(p=items), frame(p=near), spec("map_at_k", ("p",)))
    assert agreement.measure == TOKENS and agreement.value == pytest.approx(11 / 13) and agreement.accepted
    other = [" ".join(f"b{j}" for j in range(12)) for _ in range(40)]
    assert refit_agreement(frame(p=items), frame(p=other), spec("map_at_k", ("p",))).value == 0.0


def test_the_worst_column_decides() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.random(50), rng.random(50)
    agreement = refit_agreement(frame(a=a, b=b), frame(a=a, b=b[::-1]), spec("mcrmse", ("a", "b")))
    assert agreement.column == "b" and not agreement.accepted


def test_rows_keyed_by_the_id_and_a_key_column() -> None:
    scored = pd.DataFrame(
        {"id": ["s1", "s1", "s2", "s2"], "class": ["x", "y", "x", "y"], "m": ["1 2", "", "3 4", "5 6"]}
    )
    refit = scored.iloc[::-1].reset_index(drop=True)  # the same rows, another order
    agreement = refit_agreement(scored, refit, spec("dice_hausdorff", ("m",), keys=("class",)))
    assert agreement.value == 1.0 and agreement.rows == 4


def test_nothing_shared_is_no_agreement() -> None:
    other = frame(y=[1, 0]).assign(id=["a", "b"])
    assert refit_agreement(frame(y=[1, 0]), other, spec("accuracy", ("y",))) is None
    assert refit_agreement(frame(y=[1, 0]), frame(z=[1, 0]), spec("accuracy", ("y",))) is None


def test_a_scored_run_of_an_earlier_span_is_held_to_lower_floors() -> None:
    items = [" ".join(f"a{j}" for j in range(i, i + 12)) for i in range(40)]
    moved = [" ".join(f"a{j}" for j in range(i + 6, i + 18)) for i in range(40)]  # half the items move on
    same_span = refit_agreement(frame(p=items), frame(p=moved), spec("map_at_k", ("p",)))
    earlier = refit_agreement(frame(p=items), frame(p=moved), spec("map_at_k", ("p",)), shifted=True)
    assert same_span.value == earlier.value == pytest.approx(6 / 18)
    assert not same_span.accepted and earlier.accepted and earlier.floor == FLOORS[TOKENS] * SHIFTED_SHARE
