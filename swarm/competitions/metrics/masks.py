"""Metrics over masks written as run-length encodings (`base.rle_runs` reads a cell): the mean and global Dice,
the IoU, tgs-salt's IoU mAP over thresholds and vesuvius' F-beta. They compare the sets of pixels, so they need
no image size; with the params `height` and `width` set, a run past the image's last pixel is invalid.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics.base import Metric, rle_runs

DEFAULT_FBETA = 0.5  # vesuvius-challenge-ink-detection's F0.5
# IoU thresholds 0.5, 0.55, ..., 0.95 of tgs-salt-identification-challenge, as its grade.py builds them
IOU_THRESHOLDS = np.arange(0.5, 1.0, 0.05)


def _pixels_below(runs: np.ndarray, x: np.ndarray) -> np.ndarray:
    """How many pixels of `runs` (sorted, disjoint) lie below each offset in `x`."""
    if not len(runs):
        return np.zeros(len(x), dtype=np.int64)
    starts, ends = runs[:, 0], runs[:, 1]
    before = np.concatenate([[0], np.cumsum(ends - starts)])
    i = np.searchsorted(starts, x, side="left")  # runs starting below x: all but the last end below it too
    overshoot = np.where(i > 0, np.maximum(ends[np.maximum(i - 1, 0)] - x, 0), 0)
    return before[i] - overshoot


def _mask_counts(
    name: str, y_true: np.ndarray, y_pred: np.ndarray, height: int, width: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: (true pixels, predicted pixels, pixels in both)."""
    pixels = height * width if height and width else 0
    rows = list(zip(np.ravel(y_true), np.ravel(y_pred), strict=True))
    true_n, pred_n, both = (np.zeros(len(rows), dtype=np.int64) for _ in range(3))
    for row, (truth_cell, pred_cell) in enumerate(rows):
        truth = rle_runs(name, truth_cell, answers=True, pixels=pixels)
        pred = rle_runs(name, pred_cell, answers=False, pixels=pixels)
        true_n[row] = int((truth[:, 1] - truth[:, 0]).sum())
        pred_n[row] = int((pred[:, 1] - pred[:, 0]).sum())
        inside = _pixels_below(truth, pred[:, 1]) - _pixels_below(truth, pred[:, 0])
        both[row] = int(inside.sum())
    return true_n, pred_n, both


def _rle_dice(y_true: np.ndarray, y_pred: np.ndarray, height: int = 0, width: int = 0) -> float:
    """Mean over rows of 2|X & Y| / (|X| + |Y|), 1 where both masks are empty (hubmap-kidney-segmentation)."""
    t, p, both = _mask_counts("rle_dice", y_true, y_pred, height, width)
    total = t + p
    return float(np.mean(np.divide(2 * both, total, out=np.ones(len(t)), where=total > 0)))


def _rle_dice_global(y_true: np.ndarray, y_pred: np.ndarray, height: int = 0, width: int = 0) -> float:
    """2|X & Y| / (|X| + |Y|) over the pixels of all rows together (google-research-identify-contrails)."""
    t, p, both = _mask_counts("rle_dice_global", y_true, y_pred, height, width)
    if not t.sum():
        raise CompetitionError(
            "rle_dice_global: the answers' masks are all empty, so the global Dice is undefined"
        )
    return float(2 * both.sum() / (t.sum() + p.sum()))


def _rle_iou(y_true: np.ndarray, y_pred: np.ndarray, height: int = 0, width: int = 0) -> float:
    """Mean over rows of |X & Y| / |X | Y|, 1 where both masks are empty."""
    t, p, both = _mask_counts("rle_iou", y_true, y_pred, height, width)
    union = t + p - both
    return float(np.mean(np.divide(both, union, out=np.ones(len(t)), where=union > 0)))


def _rle_iou_map(y_true: np.ndarray, y_pred: np.ndarray, height: int = 0, width: int = 0) -> float:
    """tgs-salt-identification-challenge: per row (one object per mask) the share of IoU thresholds 0.5, 0.55,
    ..., 0.95 that the IoU exceeds; 1 where both masks are empty, 0 where only one is; averaged over rows."""
    t, p, both = _mask_counts("rle_iou_map", y_true, y_pred, height, width)
    union = t + p - both
    iou = np.divide(both, union, out=np.zeros(len(t)), where=union > 0)
    hits = (iou[:, None] > IOU_THRESHOLDS[None, :]).mean(axis=1)
    return float(np.mean(np.where(union == 0, 1.0, hits)))


def _rle_fbeta(
    y_true: np.ndarray, y_pred: np.ndarray, beta: float = DEFAULT_FBETA, height: int = 0, width: int = 0
) -> float:
    """Mean over rows of the pixels' F-beta (vesuvius-challenge-ink-detection: F0.5), 0 where both masks are
    empty (sklearn's fbeta_score)."""
    t, p, both = _mask_counts("rle_fbeta", y_true, y_pred, height, width)
    b2 = float(beta) ** 2
    denominator = (1 + b2) * both + b2 * (t - both) + (p - both)
    return float(
        np.mean(np.divide((1 + b2) * both, denominator, out=np.zeros(len(t)), where=denominator > 0))
    )


# ---- the library's entries -----------------------------------------------------------------------------------


def _mask_metric(
    name: str, fn: Callable[..., float], formula: str, aliases: tuple[str, ...], **params: Any
) -> Metric:
    """A higher-is-better metric over run-length encoded masks: text cells, an empty one an empty mask, and the
    optional image size (`height`, `width`) that bounds the runs."""
    return Metric(
        name,
        False,
        fn,
        formula,
        numeric=False,
        empty_ok=True,
        params={**params, "height": 0, "width": 0},
        aliases=aliases,
    )


ENTRIES: tuple[Metric, ...] = (
    _mask_metric(
        "rle_dice",
        _rle_dice,
        "Dice = (1/N) * sum_i 2|X_i & Y_i| / (|X_i| + |Y_i|) of run-length encoded masks (1 where both are "
        "empty)",
        ("dice", "mean_dice", "dice_coefficient", "mean_dice_coefficient", "sorensen_dice", "dice_rle"),
    ),
    _mask_metric(
        "rle_dice_global",
        _rle_dice_global,
        "global Dice = 2|X & Y| / (|X| + |Y|) of the pixels of all run-length encoded masks together",
        ("global_dice", "dice_global", "global_dice_coefficient"),
    ),
    _mask_metric(
        "rle_iou",
        _rle_iou,
        "IoU = (1/N) * sum_i |X_i & Y_i| / |X_i | Y_i| of run-length encoded masks (1 where both are empty)",
        ("iou", "mean_iou", "intersection_over_union", "iou_rle"),
    ),
    _mask_metric(
        "rle_iou_map",
        _rle_iou_map,
        "IoU mAP = (1/N) * sum_i (1/10) * sum_{t=0.5,0.55,...,0.95} [IoU_i > t] of run-length encoded masks "
        "(1 where both are empty, 0 where one is)",
        ("iou_map", "map_iou", "mean_average_precision_iou", "iou_threshold_map"),
    ),
    _mask_metric(
        "rle_fbeta",
        _rle_fbeta,
        "F-beta = (1/N) * sum_i (1+b^2) TP_i / ((1+b^2) TP_i + b^2 FN_i + FP_i) over the pixels of "
        "run-length encoded masks, b = beta (default 0.5; 0 where both are empty)",
        ("rle_f_beta", "fbeta_rle", "rle_f05", "dice_f05"),
        beta=DEFAULT_FBETA,
    ),
)
