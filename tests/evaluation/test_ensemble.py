"""Ensemble selection on held-out predictions: complementary nodes blend to a better score in every metric
format, a blend that only looks better on its selection rows is rejected, test predictions are mixed in the
submission's format, and the harness keeps each scored node's held-out rows privately."""

from __future__ import annotations

import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.competitions.competition import MetricSpec
from swarm.evaluation.blend import Blender
from swarm.evaluation.ensemble import ENSEMBLE, SINGLE, blend_frames, build_library, choose, halves
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.miniatures import binary_competition, read

N = 60


def spec(metric: str, targets: tuple[str, ...], lower: bool) -> MetricSpec:
    return MetricSpec(name=metric, lower_is_better=lower, id_column="id", target_columns=targets)


def frame(columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """A frame of strings, as the harness reads CSV files."""
    ids = [str(i) for i in range(N)]
    return pd.DataFrame({"id": ids, **{c: [str(v) for v in values] for c, values in columns.items()}})


def complementary(metric: str) -> tuple[MetricSpec, pd.DataFrame, dict[str, pd.DataFrame]]:
    """Answers and three nodes, each wrong on its own third of the rows only."""
    rng = np.random.default_rng(1)
    wrong = [np.arange(N) % 3 == k for k in range(3)]
    if metric == "accuracy":  # labels: a majority vote corrects every row
        y = rng.integers(0, 2, N)
        nodes = {f"n{k}": frame({"y": np.where(w, 1 - y, y)}) for k, w in enumerate(wrong)}
        return spec(metric, ("y",), False), frame({"y": y}), nodes
    if metric == "logloss":  # probabilities
        y = rng.integers(0, 2, N)
        nodes = {
            f"n{k}": frame({"y": np.where(w, np.abs(y - 0.9), np.abs(y - 0.2))}) for k, w in enumerate(wrong)
        }
        return spec(metric, ("y",), True), frame({"y": y}), nodes
    if metric == "multiclass_logloss":  # wide class columns
        classes = ("a", "b", "c")
        y = rng.integers(0, 3, N)
        onehot = np.eye(3)[y]
        nodes = {}
        for k, w in enumerate(wrong):
            p = np.where(w[:, None], (1 - onehot) * 0.45 + onehot * 0.1, onehot * 0.8 + (1 - onehot) * 0.1)
            nodes[f"n{k}"] = frame({c: p[:, i] for i, c in enumerate(classes)})
        answers = frame({c: onehot[:, i].astype(int) for i, c in enumerate(classes)})
        return spec(metric, classes, True), answers, nodes
    # several regression targets
    y = rng.normal(size=(N, 2))
    nodes = {f"n{k}": frame({"u": y[:, 0] + 2 * w, "v": y[:, 1] - 2 * w}) for k, w in enumerate(wrong)}
    return spec("mcrmse", ("u", "v"), True), frame({"u": y[:, 0], "v": y[:, 1]}), nodes


@pytest.mark.parametrize("metric", ["accuracy", "logloss", "multiclass_logloss", "mcrmse"])
def test_complementary_nodes_blend_to_a_better_held_out_score(metric: str) -> None:
    s, answers, nodes = complementary(metric)
    library = build_library(s, answers, nodes, max_members=10)
    assert library.node_ids == ["n0", "n1", "n2"] and not library.left_out
    blender = Blender(s)
    singles = [blender.score(library.truth, p) for p in library.predictions]
    choice = choose(s, library, seed=0)
    assert choice.chosen == ENSEMBLE, choice.reason
    assert set(choice.weights) == {"n0", "n1", "n2"}
    assert sum(choice.weights.values()) == pytest.approx(1.0, abs=1e-5)
    assert all(blender.better(choice.in_sample_ensemble, v) for v in singles)
    assert blender.better(choice.honest_ensemble, choice.honest_single)  # out of sample too
    if metric == "accuracy":
        assert choice.honest_ensemble == 1.0 and max(singles) == pytest.approx(2 / 3)


def test_a_blend_that_only_looks_better_on_its_selection_rows_is_rejected() -> None:
    """S is 0.9 off everywhere; X 1.0 off everywhere; Y cancels X on half A only. Blending S with Y looks
    better on all held-out rows, but selected on either half it does worse on the other than S alone."""
    s = spec("rmse", ("y",), True)
    y = np.random.default_rng(2).normal(size=N)
    first, _ = halves([y], seed=0)
    on_a = np.isin(np.arange(N), first)
    nodes = {
        "S": frame({"y": y + 0.9}),
        "X": frame({"y": y + 1.0}),
        "Y": frame({"y": np.where(on_a, y - 1, y + 1)}),
    }
    library = build_library(s, frame({"y": y}), nodes, max_members=10)
    choice = choose(s, library, seed=0)
    assert choice.in_sample_ensemble < choice.in_sample_single == pytest.approx(0.9)  # flattering
    assert choice.honest_ensemble > choice.honest_single == pytest.approx(0.9)
    assert choice.chosen == SINGLE and choice.single_node == "S"
    assert "is not better than the best single node's" in choice.reason


def test_invalid_or_surplus_nodes_are_left_out_with_the_reason() -> None:
    s, answers, nodes = complementary("logloss")
    nodes = {"bad": frame({"y": np.full(N, 1.5)}), **nodes}
    library = build_library(s, answers, nodes, max_members=2)
    assert library.node_ids == ["n0", "n1"]
    assert "probabilities" in library.left_out["bad"] and "max_members=2" in library.left_out["n2"]
    few = build_library(s, answers.head(10), {k: v.head(10) for k, v in nodes.items()}, max_members=5)
    assert choose(s, few).chosen == SINGLE and "too few" in choose(s, few).reason


def test_test_predictions_are_mixed_in_the_submission_format() -> None:
    ids = ["b", "a", "c"]
    labels = spec("accuracy", ("y",), False)
    votes = {
        "n0": pd.DataFrame({"id": ids, "y": ["cat", "dog", "cat"]}),
        "n1": pd.DataFrame({"id": ["a", "b", "c"], "y": ["dog", "dog", "dog"]}),  # other row order
        "n2": pd.DataFrame({"id": ids, "y": ["dog", "cat", "cat"]}),
    }
    mixed = blend_frames(labels, votes, {"n0": 0.4, "n1": 0.3, "n2": 0.3})
    assert mixed["id"].tolist() == ids and mixed["y"].tolist() == ["dog", "dog", "cat"]
    ratings = spec("qwk", ("r",), False)  # whole-number ratings stay whole
    rated = {
        "n0": pd.DataFrame({"id": ids, "r": ["1", "2", "3"]}),
        "n1": pd.DataFrame({"id": ids, "r": ["2", "2", "4"]}),
    }
    assert blend_frames(ratings, rated, {"n0": 0.75, "n1": 0.25})["r"].tolist() == [1, 2, 3]
    probs = spec("auc", ("p",), False)
    mixed = blend_frames(
        probs,
        {"n0": rated["n0"].rename(columns={"r": "p"}).assign(p=["0.2", "0.4", "1"])}
        | {"n1": rated["n1"].rename(columns={"r": "p"}).assign(p=["0.6", "0.0", "0"])},
        {"n0": 0.5, "n1": 0.5},
    )
    assert mixed["p"].tolist() == pytest.approx([0.4, 0.2, 0.5])
    with pytest.raises(ValueError, match="same ids"):
        blend_frames(labels, {**votes, "n2": votes["n2"].head(2)}, {"n0": 0.5, "n2": 0.5})


def test_the_harness_keeps_scored_held_out_rows_privately(tmp_path: Path) -> None:
    competition = load_competition_dir(binary_competition(tmp_path / "c"))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=0)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    ids = read(holdout.public_dir / "sample_submission.csv")["id"]
    path = tmp_path / "s.csv"
    pd.DataFrame({"id": ids, "y": "1"}).to_csv(path, index=False)
    kept = tmp_path / "h" / "heldout" / "n.csv"
    assert harness.evaluate(path, tmp_path / "t.csv", kept).score is not None
    assert sorted(read(kept)["id"]) == sorted(holdout.ids)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    pd.DataFrame({"id": ids, "y": "maybe"}).to_csv(path, index=False)
    assert harness.evaluate(path, tmp_path / "t.csv", tmp_path / "h" / "heldout" / "m.csv").score is None
    assert not (tmp_path / "h" / "heldout" / "m.csv").exists()  # unscored rows are no candidate


def test_a_vote_counts_equal_labels_together_and_writes_them_as_the_heaviest_member_did() -> None:
    blender = Blender(spec("accuracy", ("y",), False))
    heavy = [np.array(["1.0", "b", "2", "x"], dtype=object)]
    light = [np.array([1, "b", 3, "y"], dtype=object)]
    lighter = [np.array(["1", "c", 3.0, "y"], dtype=object)]
    (mixed,) = blender.mix([light, heavy, lighter], [0.3, 0.4, 0.3])
    # row 0: all three agree (1 == 1.0 == "1"), written as the heaviest wrote it; row 2: 3 and 3.0 outvote 2;
    # row 3: two light "y" outvote the heavy "x"; row 1: "b" has 0.7
    assert mixed.tolist() == ["1.0", "b", "3", "y"]
    (tie,) = blender.mix([light, heavy], [0.5, 0.5])
    assert tie.tolist()[3] == "y"  # equal weights: the first listed wins the tie


def test_label_keys_compare_numbers_by_value_and_text_as_written() -> None:
    from swarm.competitions.metrics.base import label_keys

    values = np.array([1, "1.0", " 2 ", True, np.nan, "a", 3.5, "01"], dtype=object)
    assert label_keys(values).tolist() == ["1.0", "1.0", "2.0", "True", "nan", "a", "3.5", "1.0"]
    assert label_keys(np.array([1.0, 2.0])).tolist() == ["1.0", "2.0"]
