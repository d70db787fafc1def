"""uw-madison-gi-tract-image-segmentation's metric over run-length encoded masks of scans' slices, as its
grade.py scores them: 0.4 x the mean 2-D Dice of the rows' masks + 0.6 x (1 - the mean 3-D Hausdorff distance of
each scan's stacked slices).

`dice_hausdorff` is a grouped metric whose per-row values are the answers' slice id and image size (its param
`row_columns`): each row's mask is decoded at its image size, a slice's masks (one a class) joined, and a scan's
slices (ids `<scan>_slice_<n>`) stacked in id order.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics.base import Metric, rle_runs

DICE_WEIGHT, HAUSDORFF_WEIGHT = 0.4, 0.6
UW_ROW_COLUMNS = ("id", "image_height", "image_width")
SLICE_SEPARATOR = "_slice_"  # `case123_day20_slice_0001`: the scan is `case123_day20`


def _decoded(name: str, cell: Any, height: int, width: int, *, answers: bool) -> np.ndarray:
    """A run-length encoded mask (pixels numbered down each column, MLE-bench's rle_decode) as a height x width
    boolean array."""
    runs = rle_runs(name, cell, answers=answers, pixels=height * width)
    flat = np.zeros(height * width, dtype=bool)
    for start, end in runs:
        flat[start:end] = True
    return flat.reshape(width, height).T


def _hausdorff(pred: np.ndarray, truth: np.ndarray) -> float:
    """grade.py's 3-D Hausdorff distance of two stacked masks: NaN where both are empty, 0 where equal, 1 where
    one is empty or the prediction has over ten times the true pixels, else the symmetric Hausdorff distance of
    the pixels' coordinates scaled to the unit cube by the true mask's shape, divided by its diagonal."""
    from scipy.spatial.distance import directed_hausdorff  # imported here: only this metric needs it

    if not pred.any() and not truth.any():
        return float("nan")
    if np.array_equal(pred, truth):
        return 0.0
    if not pred.any() or not truth.any() or pred.sum() > 10 * truth.sum():
        return 1.0
    true_points = np.argwhere(truth) / truth.shape
    pred_points = np.argwhere(pred) / truth.shape
    distance = max(
        directed_hausdorff(true_points, pred_points)[0], directed_hausdorff(pred_points, true_points)[0]
    )
    return float(distance / math.sqrt(3))


def _rows_and_sizes(name: str, groups: np.ndarray | None, row_columns: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each row's (slice id, image height, image width) as given, and its (height, width) as whole numbers; a
    CompetitionError where the answers' `row_columns` are missing or their sizes are not whole numbers."""
    if groups is None or np.asarray(groups).ndim != 2 or np.asarray(groups).shape[1] != 3:
        raise CompetitionError(
            f"{name}: each row needs its slice id, image height and width: the answers' columns {list(row_columns)}"
        )
    rows = np.asarray(groups, dtype=object)
    try:
        sizes = rows[:, 1:].astype(float).astype(int)
    except (TypeError, ValueError):
        raise CompetitionError(
            f"{name}: the answers' image heights and widths must be whole numbers"
        ) from None
    return rows, sizes


def _dices(preds: list[np.ndarray], truths: list[np.ndarray]) -> list[float]:
    """Each row's 2-D Dice of its predicted and true mask; NaN where both are empty (left out of the mean)."""
    dices = []
    for pred, truth in zip(preds, truths, strict=True):
        total = int(pred.sum()) + int(truth.sum())
        dices.append(2 * int((pred & truth).sum()) / total if total else float("nan"))
    return dices


def _scans(rows: np.ndarray) -> dict[str, dict[str, list[int]]]:
    """scan -> slice id -> the rows (one a class) of that slice, the slices in id order."""
    slices: dict[str, dict[str, list[int]]] = {}
    for row in sorted(range(len(rows)), key=lambda k: str(rows[k, 0])):
        slice_id = str(rows[row, 0])
        slices.setdefault(slice_id.split(SLICE_SEPARATOR)[0], {}).setdefault(slice_id, []).append(row)
    return slices


def _distances(rows: np.ndarray, preds: list[np.ndarray], truths: list[np.ndarray]) -> list[float]:
    """Each scan's 3-D Hausdorff distance (`_hausdorff`) of its predicted and true slices, each slice the union
    of its rows' masks, stacked in id order."""
    distances = []
    for scan in _scans(rows).values():
        stacked = [
            np.stack([np.logical_or.reduce([masks[k] for k in members]) for members in scan.values()])
            for masks in (preds, truths)
        ]
        distances.append(_hausdorff(*stacked))
    return distances


def dice_hausdorff(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    groups: np.ndarray | None = None,
    row_columns: Any = UW_ROW_COLUMNS,
) -> float:
    """0.4 x the mean over rows of the Dice of the true and predicted masks (rows where both are empty left out)
    + 0.6 x (1 - the mean over scans of the 3-D Hausdorff distance, `_hausdorff`): each row's mask decoded at its
    image size, a slice's masks (one a class) joined, a scan's slices stacked in id order, as
    uw-madison-gi-tract-image-segmentation's grade.py. `groups`: each row's (slice id, image height, image width),
    the answers' `row_columns`."""
    name = "dice_hausdorff"
    rows, sizes = _rows_and_sizes(name, groups, row_columns)
    truths = [
        _decoded(name, cell, h, w, answers=True) for cell, (h, w) in zip(np.ravel(y_true), sizes, strict=True)
    ]
    preds = [
        _decoded(name, cell, h, w, answers=False)
        for cell, (h, w) in zip(np.ravel(y_pred), sizes, strict=True)
    ]
    dices, distances = _dices(preds, truths), _distances(rows, preds, truths)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a mean of no rows (every mask empty) is NaN
        return float(DICE_WEIGHT * np.nanmean(dices) + HAUSDORFF_WEIGHT * (1 - np.nanmean(distances)))


# ---- the library's entries -----------------------------------------------------------------------------------

ENTRIES: tuple[Metric, ...] = (
    Metric(
        "dice_hausdorff",
        False,
        dice_hausdorff,
        "score = 0.4 * mean over rows of Dice (rows with both masks empty left out) + 0.6 * (1 - mean over scans "
        "of the 3-D Hausdorff distance, scaled to the unit cube, over its diagonal) of run-length encoded masks, "
        "a scan's slices (ids <scan>_slice_<n>) stacked, each row's image size from the answers' row_columns",
        numeric=False,
        empty_ok=True,
        params={"row_columns": list(UW_ROW_COLUMNS)},
        grouped=True,
        aliases=("dice_3d_hausdorff", "uw_madison_metric", "dice_hausdorff_3d", "dice_and_hausdorff"),
    ),
)
