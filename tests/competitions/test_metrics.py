"""Each metric on values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from swarm.competitions import CompetitionError, get_metric
from swarm.competitions.metrics import METRICS, resolve_metric
from swarm.competitions.metrics.base import InvalidPrediction
from swarm.competitions.metrics.library import ALIASES, LIBRARY


def score(name: str, y_true, y_pred) -> float:
    return get_metric(name).score(np.asarray(y_true), np.asarray(y_pred))


def test_accuracy_counts_matches_numeric_and_text() -> None:
    assert score("accuracy", [1, 0, 1, 1], [1, 1, 1, 0]) == 0.5
    assert score("accuracy", np.array(["1", "0"]), np.array(["1.0", "0"])) == 1.0
    assert score("accuracy", np.array(["True", "False"]), np.array(["True", "True"])) == 0.5


def test_rmse_mse_mae() -> None:
    assert score("rmse", [0.0, 0.0], [3.0, 4.0]) == pytest.approx(math.sqrt(12.5))
    assert score("mse", [0.0, 0.0], [3.0, 4.0]) == pytest.approx(12.5)
    assert score("mae", [1.0, 2.0, 3.0], [2.0, 2.0, 1.0]) == pytest.approx(1.0)


def test_rmse_log_and_rmsle() -> None:
    # log(e^2) - log(1) = 2 on both rows
    assert score("rmse_log", [1.0, 1.0], [math.e**2, math.e**2]) == pytest.approx(2.0)
    assert score("rmsle", [0.0, 0.0], [math.e - 1, math.e - 1]) == pytest.approx(1.0)


def test_auc_matches_pair_counting() -> None:
    # pairs (pos, neg): (0.8,0.1) win, (0.8,0.4) win, (0.35,0.1) win, (0.35,0.4) loss -> 3/4
    assert score("auc", [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(0.75)


def test_logloss_and_clipping() -> None:
    assert score("logloss", [1, 0], [0.5, 0.5]) == pytest.approx(math.log(2))
    assert score("logloss", [1], [0.0]) == pytest.approx(-math.log(1e-15))


def test_f1_and_r2() -> None:
    # tp=1, fp=1, fn=1 -> precision 0.5, recall 0.5
    assert score("f1", [1, 1, 0, 0], [1, 0, 1, 0]) == pytest.approx(0.5)
    assert score("r2", [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]) == 1.0
    assert score("r2", [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]) == pytest.approx(0.0)


def test_directions() -> None:
    lower = {
        n for n in ("rmse", "mse", "mae", "rmse_log", "rmsle", "logloss") if get_metric(n).lower_is_better
    }
    higher = {n for n in ("accuracy", "auc", "f1", "r2") if not get_metric(n).lower_is_better}
    assert len(lower) == 6 and len(higher) == 4


def test_aliases_and_unknown_metric() -> None:
    assert get_metric("ROC_AUC").name == "auc"
    with pytest.raises(CompetitionError, match="unknown metric 'nope'.*accuracy"):
        get_metric("nope")


def test_auc_with_one_class_is_an_error() -> None:
    with pytest.raises(CompetitionError, match="single class"):
        score("auc", [1, 1], [0.2, 0.3])


# ---- the wider library: every expected number below is worked out by hand (or with plain numpy) --------------


def test_balanced_accuracy_is_the_mean_recall_per_class() -> None:
    # recall of a = 1/2, of b = 1/1, of c = 0/1
    assert score("balanced_accuracy", ["a", "a", "b", "c"], ["a", "b", "b", "a"]) == pytest.approx(0.5)


def test_f1_averages() -> None:
    truth, pred = ["a", "a", "b", "c"], ["a", "b", "b", "a"]
    # a: tp 1, fp 1, fn 1 -> F1 1/2; b: tp 1, fp 1, fn 0 -> F1 2/3; c: tp 0 -> F1 0
    assert score("f1_macro", truth, pred) == pytest.approx((1 / 2 + 2 / 3 + 0) / 3)
    assert score("f1_weighted", truth, pred) == pytest.approx((2 * 1 / 2 + 1 * 2 / 3 + 0) / 4)
    assert score("f1_micro", truth, pred) == pytest.approx(2 / 4)  # single-label micro F1 = accuracy


def test_f1_macro_counts_an_unseen_predicted_label_as_a_class() -> None:
    # classes a, b, d: a F1 1, b F1 0 (never predicted), d F1 0 (never true)
    assert score("f1_macro", ["a", "b"], ["a", "d"]) == pytest.approx(1 / 3)


def test_f1_compares_labels_written_as_floats() -> None:
    assert score("f1", np.array(["1", "0", "1"]), np.array(["1.0", "0.0", "0"])) == pytest.approx(2 / 3)


def test_f1_rejects_non_binary_predictions() -> None:
    with pytest.raises(InvalidPrediction, match="0/1 labels"):
        score("f1", [1, 0], [0.5, 1])


def _numpy_qwk(truth: list[int], pred: list[int]) -> float:
    """Quadratic weighted kappa from its definition, in plain numpy."""
    ratings = sorted(set(truth) | set(pred))
    n = len(ratings)
    index = {r: i for i, r in enumerate(ratings)}
    observed = np.zeros((n, n))
    for t, p in zip(truth, pred, strict=True):
        observed[index[t], index[p]] += 1
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / len(truth)
    weights = np.array([[(i - j) ** 2 for j in range(n)] for i in range(n)]) / (n - 1) ** 2
    return 1 - (weights * observed).sum() / (weights * expected).sum()


def test_qwk() -> None:
    # by hand: sum w*O = 2/9, sum w*E = 6/9, so kappa = 1 - 1/3
    assert score("qwk", [0, 1, 2, 3], [1, 1, 2, 2]) == pytest.approx(2 / 3)
    truth, pred = [0, 0, 1, 2, 3, 4, 4, 2], [0, 1, 1, 2, 4, 4, 3, 0]
    assert score("quadratic_weighted_kappa", truth, pred) == pytest.approx(_numpy_qwk(truth, pred))
    assert score("kappa", [1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)


def test_qwk_needs_whole_ratings_and_is_undefined_for_one_shared_rating() -> None:
    with pytest.raises(InvalidPrediction, match="whole-number ratings, found 2.5"):
        score("qwk", [1, 2], [1, 2.5])
    with pytest.raises(CompetitionError, match="undefined"):
        score("qwk", [2, 2], [2, 2])


def test_binary_and_multilabel_logloss() -> None:
    assert score("multilabel_logloss", [1, 0, 1], [0.8, 0.1, 0.5]) == pytest.approx(
        -(math.log(0.8) + math.log(0.9) + math.log(0.5)) / 3
    )
    with pytest.raises(CompetitionError, match="0/1 labels"):
        score("logloss", [2, 0], [0.5, 0.5])
    with pytest.raises(InvalidPrediction, match=r"probabilities in \[0, 1\]"):
        score("logloss", [1, 0], [1.5, 0.5])


def test_multiclass_logloss_renormalises_rows_and_takes_one_hot_or_indices() -> None:
    one_hot = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    # row 1 sums to 0.5, so p(true) = 0.25 / 0.5; row 2 sums to 0 and becomes uniform after clipping
    pred = [[0.25, 0.125, 0.125], [0.0, 0.0, 0.0], [0.2, 0.2, 0.6]]
    expected = -(math.log(0.5) + math.log(1 / 3) + math.log(0.6)) / 3
    assert score("multiclass_logloss", one_hot, pred) == pytest.approx(expected)
    assert score("mlogloss", [0, 1, 2], pred) == pytest.approx(expected)


def test_multiclass_logloss_clips_like_kaggle() -> None:
    # p(true class) = 0 -> clipped to 1e-15, the row then sums to 1 + 1e-15
    value = score("multi_logloss", [[0, 1, 0]], [[1.0, 0.0, 0.0]])
    assert value == pytest.approx(-math.log(1e-15 / (1 + 1e-15)), rel=1e-9)
    assert value == pytest.approx(34.538776, rel=1e-6)


def test_multiclass_logloss_rejects_answers_that_are_not_one_hot() -> None:
    with pytest.raises(CompetitionError, match="one-hot"):
        score("multiclass_logloss", [[1, 1, 0]], [[0.5, 0.5, 0.0]])
    with pytest.raises(CompetitionError, match="class indices"):
        score("multiclass_logloss", [3], [[0.5, 0.5, 0.0]])
    with pytest.raises(InvalidPrediction, match="one probability column per class"):
        score("multiclass_logloss", [0, 1], [0.5, 0.5])


def test_map_at_k() -> None:
    truth, pred = np.array(["a", "b c"]), np.array(["b a c", "x c b"])
    # row 1: hit at rank 2 -> (1/2)/1; row 2: hits at ranks 2, 3 -> (1/2 + 2/3)/2
    assert score("map@3", truth, pred) == pytest.approx((0.5 + (0.5 + 2 / 3) / 2) / 2)
    assert get_metric("map_at_k").score(truth, pred, k=1) == 0.0
    # a label repeated in the list counts once; only the first k are read (k defaults to 5)
    assert score("map_at_k", np.array(["a"]), np.array(["b b b b b a"])) == 0.0
    assert score("mapk", np.array(["a"]), np.array(["a a"])) == 1.0


def test_regression_extras() -> None:
    # column-wise RMSE of one column is RMSE
    assert score("mcrmse", [0.0, 0.0], [3.0, 4.0]) == pytest.approx(math.sqrt(12.5))
    # ranks of p: 1 3 2 4, d = 0 1 1 0: rho = 1 - 6 * 2 / (4 * 15)
    assert score("spearman", [1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    # deviations (-1, 0, 1) and (1, -1, 0): r = -1 / sqrt(2 * 2)
    assert score("pearson", [1, 2, 3], [3, 1, 2]) == pytest.approx(-0.5)
    # row 1: both 0 -> 0; row 2: |50 - 100| / 75
    assert score("smape", [0, 100], [0, 50]) == pytest.approx(100 * (0 + 50 / 75) / 2)
    assert score("rmsle", [0.0, math.e - 1, math.e**2 - 1], [math.e - 1] * 3) == pytest.approx(
        math.sqrt(2 / 3)
    )


def test_correlations_with_constant_values() -> None:
    with pytest.raises(InvalidPrediction, match="constant"):
        score("pearson", [1, 2, 3], [5, 5, 5])
    with pytest.raises(CompetitionError, match="answers are constant"):
        score("spearman", [1, 1, 1], [1, 2, 3])


def test_nan_predictions_are_the_predictions_fault() -> None:
    for name in ("rmse", "auc", "pearson", "smape", "qwk"):
        with pytest.raises(InvalidPrediction, match="NaN"):
            score(name, [0, 1, 0], [0.0, float("nan"), 1.0])


def test_negative_predictions_for_log_metrics() -> None:
    with pytest.raises(InvalidPrediction, match=">= 0"):
        score("rmsle", [1.0, 2.0], [-0.5, 2.0])
    with pytest.raises(InvalidPrediction, match="> 0"):
        score("rmse_log", [1.0, 2.0], [0.0, 2.0])


def test_every_metric_has_a_direction_and_a_formula() -> None:
    higher = {
        "accuracy", "balanced_accuracy", "auc", "f1", "f1_macro", "f1_micro", "f1_weighted", "qwk",
        "map_at_k", "r2", "spearman", "pearson", "multilabel_f1_micro", "word_jaccard", "mcc", "lwlrap",
        "rle_dice", "rle_dice_global", "rle_iou", "rle_iou_map", "rle_fbeta", "kendall_tau", "point_in_box_f1",
        "tpr_weighted_auc", "laplace_log_likelihood", "probabilistic_f1", "jigsaw_bias_auc", "answer_span_f1",
        "voc_box_map", "coco_box_map", "dice_hausdorff", "lyft_3d_map",
    }  # fmt: skip
    lower = {
        "logloss", "multilabel_logloss", "multiclass_logloss", "rmse", "mse", "rmsle", "rmse_log", "mae",
        "mcrmse", "smape", "kl_divergence", "log_mae", "mean_levenshtein", "token_error_rate",
        "masked_mae", "mean_angular_error", "spine_weighted_logloss", "trip_distance_error",
    }  # fmt: skip
    assert set(METRICS) == higher | lower
    assert all(not METRICS[n].lower_is_better for n in higher)
    assert all(METRICS[n].lower_is_better for n in lower)
    assert all(m.formula and "\n" not in m.formula for m in METRICS.values())


def test_no_two_entries_of_the_families_share_a_name_or_an_alias() -> None:
    """The table joins the families' entries: a name or an alias given twice would hide one of them."""
    names = [m.name for m in LIBRARY]
    aliases = [alias for m in LIBRARY for alias in m.aliases]
    assert len(names) == len(set(names)) == len(METRICS)
    assert len(aliases) == len(set(aliases)) == len(ALIASES)
    assert not set(names) & set(aliases)


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("roc_auc", "auc"),
        ("Log Loss", "logloss"),
        ("mlogloss", "multiclass_logloss"),
        ("multi_logloss", "multiclass_logloss"),
        ("multi-class-log-loss", "multiclass_logloss"),
        ("quadratic_weighted_kappa", "qwk"),
        ("kappa", "qwk"),
        ("MAP@5", "map_at_k"),
        ("map_at_3", "map_at_k"),
        ("rmse_of_log", "rmse_log"),
        ("acc", "accuracy"),
        ("macro_f1", "f1_macro"),
        ("root_mean_squared_log_error", "rmsle"),
    ],
)
def test_aliases(alias: str, name: str) -> None:
    assert get_metric(alias).name == name


def test_map_aliases_set_k() -> None:
    assert get_metric("map@3").params == {"k": 3}
    assert get_metric("map_at_12").params == {"k": 12}
    assert get_metric("map@k").params == {"k": 5}
    assert resolve_metric("MAP@3") == (METRICS["map_at_k"], {"k": 3})
    with pytest.raises(CompetitionError, match="positive integer"):
        get_metric("map@0")


def test_params_are_checked() -> None:
    with pytest.raises(CompetitionError, match=r"'rmse' has no parameter\(s\) 'k' \(it takes: none\)"):
        get_metric("rmse").resolve_params({"k": 3})
    with pytest.raises(CompetitionError, match="'k' must be a positive integer, not 'x'"):
        get_metric("map_at_k").resolve_params({"k": "x"})
    with pytest.raises(CompetitionError, match="it takes: k"):
        get_metric("map_at_k").score(np.array(["a"]), np.array(["a"]), top=3)
