"""Mean average precision of 3-D boxes written in text cells, as 3d-object-detection-for-autonomous-vehicles'
grade.py scores them (with the organisers' `mAP_evaluation.py`).

A cell lists a sample's objects as groups of nine tokens, `<confidence> <center_x> <center_y> <center_z> <width>
<length> <height> <yaw> <class_name>` (MLE-bench's answers carry a confidence of 1.0 too; train.csv's objects,
which the harness's labels copy, have none); an empty cell lists none. Per sample (row), per IoU threshold (0.5, 0.55, ..., 0.95), per class of the sample's true objects: the
predictions of that class in order of confidence each take the true object of the class with the highest IoU
(the first among equals) when that IoU is above the threshold and the object is not taken yet (a true positive),
else count as false positives; the class's AP is the area under the precision envelope over recall (a class
without predictions scores 0); the sample's mAP at that threshold is the mean over its classes. The score is the
mean over samples and thresholds.

The IoU of two boxes is the volume of their intersection over that of their union: the boxes' ground rectangles
(`length` along the yaw, `width` across it) intersected as polygons, times the overlap of their heights.

Where grade.py's mean would be NaN (a sample without true objects has no classes), that sample is left out here;
a problem of the answers is a `CompetitionError`, one of the predictions alone an `InvalidPrediction`.
"""

from __future__ import annotations

import numpy as np

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics.base import Metric, fault, shown, text_rows

OBJECT_TOKENS = 9  # <confidence> <x> <y> <z> <width> <length> <height> <yaw> <class_name>
LYFT_IOUS = tuple(round(0.5 + 0.05 * k, 2) for k in range(10))  # grade.py's iou_thresholds, 0.5 .. 0.95

Objects = tuple[
    list[str], np.ndarray
]  # the classes, and (confidence, x, y, z, width, length, height, yaw) rows


def parse_objects(name: str, cell: str, *, answers: bool) -> Objects:
    """The objects of one cell: (classes, an (objects, 8) array); an empty cell has none. Answers may also list
    objects as train.csv does, without the confidence (eight tokens each, the eighth a class name): the harness's
    labels come from there."""
    tokens = cell.split()
    if answers and len(tokens) >= OBJECT_TOKENS - 1 and not _is_number(tokens[OBJECT_TOKENS - 2]):
        width = OBJECT_TOKENS - 1
        tokens = [t for k in range(0, len(tokens), width) for t in ("1.0", *tokens[k : k + width])]
    if len(tokens) % OBJECT_TOKENS:
        raise fault(
            name,
            answers,
            "must be '<confidence> <center_x> <center_y> <center_z> <width> <length> <height> <yaw> <class_name>' "
            f"objects ({OBJECT_TOKENS} tokens each), found {len(tokens)} tokens in {shown(cell)!r}",
        )
    numbers = [token for i, token in enumerate(tokens) if i % OBJECT_TOKENS != OBJECT_TOKENS - 1]
    try:
        values = np.array([float(t) for t in numbers], dtype=float).reshape(-1, OBJECT_TOKENS - 1)
    except ValueError:
        raise fault(
            name, answers, f"must have 8 numbers before each object's class: {shown(cell)!r}"
        ) from None
    if not np.isfinite(values).all():
        raise fault(name, answers, f"hold a number that is not finite: {shown(cell)!r}")
    if (values[:, 4:7] <= 0).any():
        raise fault(
            name, answers, f"hold an object whose width, length or height is not positive: {shown(cell)!r}"
        )
    return tokens[OBJECT_TOKENS - 1 :: OBJECT_TOKENS], values


def with_confidence(cell: object) -> str:
    """The prediction a perfect submission makes for an answer cell: its objects with a confidence of 1.0 where
    they have none (train.csv's form), so that the harness can check the held-out objects are scorable."""
    classes, values = parse_objects("lyft_3d_map", "" if cell is None else str(cell), answers=True)
    return " ".join(
        " ".join(repr(float(v)) for v in row) + f" {name}" for row, name in zip(values, classes, strict=True)
    )


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def ground_corners(box: np.ndarray) -> np.ndarray:
    """The (4, 2) corners of a box's ground rectangle, counter-clockwise, as mAP_evaluation.py's Box3D draws
    them: `length` along the yaw's direction, `width` across it."""
    x, y, width, length, yaw = box[1], box[2], box[4], box[5], box[7]
    along = np.array([np.cos(yaw), np.sin(yaw)]) * length / 2
    across = np.array([-np.sin(yaw), np.cos(yaw)]) * width / 2
    centre = np.array([x, y])
    return np.array(
        [centre + along - across, centre + along + across, centre - along + across, centre - along - across]
    )


def _clipped(subject: np.ndarray, clip: np.ndarray) -> np.ndarray:
    """The part of the convex polygon `subject` inside the counter-clockwise convex polygon `clip`
    (Sutherland-Hodgman)."""
    points = subject
    for start, end in zip(clip, np.roll(clip, -1, axis=0), strict=True):
        if not len(points):
            break
        edge = end - start
        side = edge[0] * (points[:, 1] - start[1]) - edge[1] * (points[:, 0] - start[0])  # >= 0: inside
        kept = []
        for k in range(len(points)):
            here, there = points[k], points[(k + 1) % len(points)]
            s_here, s_there = side[k], side[(k + 1) % len(points)]
            if s_here >= 0:
                kept.append(here)
            if (s_here >= 0) != (s_there >= 0):
                kept.append(here + (there - here) * (s_here / (s_here - s_there)))
        points = np.array(kept).reshape(-1, 2)
    return points


def _area(polygon: np.ndarray) -> float:
    if len(polygon) < 3:
        return 0.0
    x, y = polygon[:, 0], polygon[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def box_iou(box: np.ndarray, other: np.ndarray) -> float:
    """The IoU of two boxes (rows of `parse_objects`): ground intersection area x height overlap over the union of
    their volumes, clipped to [0, 1]."""
    low = max(box[3] - box[6] / 2, other[3] - other[6] / 2)
    high = min(box[3] + box[6] / 2, other[3] + other[6] / 2)
    height = max(0.0, high - low)
    intersection = height * _area(_clipped(ground_corners(box), ground_corners(other))) if height else 0.0
    union = np.prod(box[4:7]) + np.prod(other[4:7]) - intersection
    return float(np.clip(intersection / union, 0.0, 1.0))


def _average_precision(hits: np.ndarray, n_true: int) -> float:
    """mAP_evaluation.py's get_ap of the predictions' hits (1 a true positive, in order of confidence)."""
    tp, fp = np.cumsum(hits), np.cumsum(1 - hits)
    recalls = np.concatenate(([0.0], tp / n_true, [1.0]))
    precisions = np.concatenate(([0.0], tp / np.maximum(tp + fp, np.finfo(np.float64).eps), [0.0]))
    precisions = np.maximum.accumulate(precisions[::-1])[::-1]  # the envelope
    changed = np.flatnonzero(recalls[1:] != recalls[:-1])
    return float(np.sum((recalls[changed + 1] - recalls[changed]) * precisions[changed + 1]))


def _class_hits(truth: np.ndarray, pred: np.ndarray, thresholds: tuple[float, ...]) -> list[np.ndarray]:
    """Per threshold, the hits of one class's predictions (in order of confidence, ties in their order)."""
    order = np.argsort(-pred[:, 0], kind="stable")
    ious = np.array([[box_iou(pred[p], t) for t in truth] for p in order]).reshape(len(order), len(truth))
    result = []
    for threshold in thresholds:
        taken = np.zeros(len(truth), dtype=bool)
        hits = np.zeros(len(order))
        for k, row in enumerate(ious):
            best = int(np.argmax(row))
            if row[best] > threshold and not taken[best]:
                hits[k], taken[best] = 1.0, True
        result.append(hits)
    return result


def sample_maps(truth: Objects, pred: Objects, thresholds: tuple[float, ...] = LYFT_IOUS) -> list[float]:
    """One sample's mAP at each threshold: the mean AP over the classes of its true objects (empty: none)."""
    true_classes, true_boxes = truth
    pred_classes, pred_boxes = pred
    classes = sorted(set(true_classes))
    if not classes:
        return []
    aps = np.zeros((len(thresholds), len(classes)))
    for c, name in enumerate(classes):
        mine = pred_boxes[[k for k, label in enumerate(pred_classes) if label == name]]
        if not len(mine):
            continue
        theirs = true_boxes[[k for k, label in enumerate(true_classes) if label == name]]
        for t, hits in enumerate(_class_hits(theirs, mine, thresholds)):
            aps[t, c] = _average_precision(hits, len(theirs))
    return aps.mean(axis=1).tolist()


def lyft_3d_map(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """The mean over rows (samples) and IoU thresholds of each sample's mAP of 3-D boxes (see the module
    docstring); rows without true objects are left out."""
    name = "lyft_3d_map"
    values = [
        value
        for truth, pred in text_rows(y_true, y_pred)
        for value in sample_maps(
            parse_objects(name, truth, answers=True), parse_objects(name, pred, answers=False)
        )
    ]
    if not values:
        raise CompetitionError(
            f"{name}: the answers hold no true object, so no class has an average precision"
        )
    return float(np.mean(values))


# ---- the library's entries -----------------------------------------------------------------------------------

ENTRIES: tuple[Metric, ...] = (
    Metric(
        "lyft_3d_map",
        False,
        lyft_3d_map,
        "3-D mAP = mean over rows (samples) and IoU thresholds 0.5, 0.55, ..., 0.95 of the mean over the row's true "
        "classes of the AP of objects '<conf> <x> <y> <z> <width> <length> <height> <yaw> <class>' matched "
        "greedily by confidence (IoU of the boxes' volumes above the threshold) "
        "(3d-object-detection-for-autonomous-vehicles' grade.py and mAP_evaluation.py)",
        numeric=False,
        empty_ok=True,
        perfect=with_confidence,
        aliases=("lyft_map", "map_3d", "3d_map", "lyft_3d_object_map", "mean_average_precision_3d"),
    ),
)
