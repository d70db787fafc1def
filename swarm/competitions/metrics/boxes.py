"""Mean average precision of labelled boxes written in text cells, as MLE-bench's graders score them.

A cell lists an image's boxes as groups of six tokens, `<label> <confidence> <x_min> <y_min> <x_max> <y_max>`
(the answers' confidences are read and ignored); an empty cell lists none. Two graders, two computations:

- `voc_box_map` (siim-covid19-detection's grade.py): per class, each image's predictions of that class in
  order of confidence take the unmatched true box of the class with the highest IoU above `iou` (0.5); a match is
  (1, confidence), a prediction without one (0, confidence), a true box left unmatched (1, 0), an image with
  neither (0, 0); the class's AP is sklearn's `average_precision_score` of those pairs, the score their mean over
  the classes of the answers.
- `coco_box_map` (vinbigdata-chest-xray-abnormalities-detection's grade.py, which runs pycocotools' COCOeval at
  one IoU threshold, 0.4): per class and image the 100 most confident predictions each take the best unmatched
  true box with IoU >= `iou`; per class, over all images in order of confidence, precision made non-increasing
  is read at 101 recall points and averaged; the score is the mean over the classes with a true box. That grader
  hands COCO the boxes as `[x_min, y_min, x_max, y_max]`, which COCO reads as `[x, y, width, height]`: the IoU
  here is computed the same way, so that the harness ranks submissions as the grader does.

A problem of the answers is a `CompetitionError`; a problem of the predictions alone an `InvalidPrediction`.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import average_precision_score

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics.base import Metric, fault, shown, text_rows

BOX_TOKENS = 6  # <label> <confidence> <x_min> <y_min> <x_max> <y_max>
VOC_IOU = 0.5  # siim-covid19-detection: "mAP at IoU > 0.5"
COCO_IOU = 0.4  # vinbigdata-chest-xray-abnormalities-detection: "mAP at IoU > 0.4"
COCO_MAX_DETECTIONS = 100  # COCOeval's maxDets[-1], the one its first summary number reads
COCO_RECALLS = np.linspace(0.0, 1.0, 101)  # COCOeval's recThrs
COCO_AREA = (0.0, 1e10)  # COCOeval's area range "all"

Boxes = tuple[list[str], np.ndarray]  # the labels, and (confidence, x_min, y_min, x_max, y_max) rows


def parse_boxes(name: str, cell: str, *, answers: bool) -> Boxes:
    """The boxes of one cell: (labels, a (boxes, 5) array of confidence and corners); an empty cell has none."""
    tokens = cell.split()
    if len(tokens) % BOX_TOKENS:
        raise fault(
            name,
            answers,
            f"must be '<label> <confidence> <x_min> <y_min> <x_max> <y_max>' boxes ({BOX_TOKENS} tokens each), "
            f"found {len(tokens)} tokens in {shown(cell)!r}",
        )
    numbers = [token for i, token in enumerate(tokens) if i % BOX_TOKENS]
    try:
        values = np.array([float(token) for token in numbers], dtype=float).reshape(-1, BOX_TOKENS - 1)
    except ValueError:
        raise fault(name, answers, f"must have 5 numbers after each box's label: {shown(cell)!r}") from None
    if not np.isfinite(values).all():
        raise fault(name, answers, f"hold a number that is not finite: {shown(cell)!r}")
    return tokens[::BOX_TOKENS], values


def _all_boxes(name: str, y_true: np.ndarray, y_pred: np.ndarray) -> list[tuple[Boxes, Boxes]]:
    """(true boxes, predicted boxes) of every row."""
    return [
        (parse_boxes(name, truth, answers=True), parse_boxes(name, pred, answers=False))
        for truth, pred in text_rows(y_true, y_pred)
    ]


# ---- siim-covid19-detection ----------------------------------------------------------------------------------


def _corner_iou(box: np.ndarray, other: np.ndarray) -> float:
    """IoU of two (x_min, y_min, x_max, y_max) boxes; 0 where their union has no area."""
    width = max(0.0, min(box[2], other[2]) - max(box[0], other[0]))
    height = max(0.0, min(box[3], other[3]) - max(box[1], other[1]))
    inter = width * height
    union = (box[2] - box[0]) * (box[3] - box[1]) + (other[2] - other[0]) * (other[3] - other[1]) - inter
    return inter / union if union > 0 else 0.0


def _voc_pairs(label: str, truth: Boxes, pred: Boxes, iou: float) -> list[tuple[int, float]]:
    """One image's (is a true box, confidence) pairs for one class (see the module docstring)."""
    true_boxes = [box[1:] for lab, box in zip(*truth, strict=True) if lab == label]
    order = sorted(range(len(pred[0])), key=lambda i: pred[1][i, 0], reverse=True)  # stable, as list.sort
    matched = [False] * len(true_boxes)
    pairs = []
    for i in order:
        if pred[0][i] != label:
            continue
        best, best_index = 0.0, -1
        for j, box in enumerate(true_boxes):
            if matched[j]:
                continue
            overlap = _corner_iou(pred[1][i, 1:], box)
            if overlap > best and overlap > iou:
                best, best_index = overlap, j
        if best_index >= 0:
            matched[best_index] = True
        pairs.append((int(best_index >= 0), float(pred[1][i, 0])))
    pairs.extend([(1, 0.0)] * matched.count(False))
    return pairs or [(0, 0.0)]


def voc_box_map(y_true: np.ndarray, y_pred: np.ndarray, iou: float = VOC_IOU) -> float:
    """siim-covid19-detection's mAP (its grade.py's `calculate_map`; see the module docstring); 0 where the
    answers hold no box at all, as that grader returns."""
    name = "voc_box_map"
    rows = _all_boxes(name, y_true, y_pred)
    classes = sorted({label for (labels, _), _ in rows for label in labels})
    precisions = []
    for label in classes:
        pairs = [pair for truth, pred in rows for pair in _voc_pairs(label, truth, pred, iou)]
        truths = [is_true for is_true, _ in pairs]
        if all(truths):
            raise CompetitionError(
                f"{name}: every row holds a true box of class {label!r} and no prediction of it is false, so "
                "its average precision is undefined (the grader asserts against it)"
            )
        precisions.append(average_precision_score(truths, [score for _, score in pairs]))
    return float(np.mean(precisions)) if precisions else 0.0


# ---- vinbigdata-chest-xray-abnormalities-detection (pycocotools' COCOeval) -----------------------------------


def _coco_ious(pred: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """IoU of each predicted box with each true box, both read as COCO reads a bbox, `[x, y, width, height]`
    (the grader passes `[x_min, y_min, x_max, y_max]` there: see the module docstring)."""
    px, py, pw, ph = (pred[:, k, None] for k in range(4))
    tx, ty, tw, th = (truth[None, :, k] for k in range(4))
    width = np.clip(np.minimum(px + pw, tx + tw) - np.maximum(px, tx), 0, None)
    height = np.clip(np.minimum(py + ph, ty + th) - np.maximum(py, ty), 0, None)
    inter = width * height
    union = pw * ph + tw * th - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


def _area_out(boxes: np.ndarray) -> np.ndarray:
    """Whether each (x_min, y_min, x_max, y_max) box's area, as the grader gives it, is outside COCO's range."""
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return (area < COCO_AREA[0]) | (area > COCO_AREA[1])


def _coco_image(
    truth: np.ndarray, true_ids: np.ndarray, pred: np.ndarray, pred_ids: np.ndarray, iou: float
) -> tuple[np.ndarray, ...] | None:
    """COCOeval's `evaluateImg` for one image and class: (scores, matched, ignored) of its predictions in order
    of confidence, and whether each true box is ignored; None where it has neither.

    COCO marks a match by the other box's annotation id, and an id of 0 reads as no match: the grader numbers
    the true boxes and the predicted boxes from 0 (`true_ids`, `pred_ids`), so a prediction matching the first
    true box counts as unmatched, and a true box matched by the first prediction stays free for the next."""
    if not len(truth) and not len(pred):
        return None
    true_ignored = _area_out(truth)
    by_ignored = np.argsort(true_ignored, kind="mergesort")  # ignored true boxes last
    truth, true_ids, true_ignored = truth[by_ignored], true_ids[by_ignored], true_ignored[by_ignored]
    by_score = np.argsort(-pred[:, 0], kind="mergesort")[:COCO_MAX_DETECTIONS]
    pred, pred_ids = pred[by_score], pred_ids[by_score]
    ious = _coco_ious(pred[:, 1:], truth) if len(truth) and len(pred) else np.zeros((len(pred), len(truth)))
    true_match = np.zeros(len(truth), dtype=np.int64)  # the matching prediction's id (0: none)
    pred_match = np.zeros(len(pred), dtype=np.int64)  # the matched true box's id (0: none)
    pred_ignored = np.zeros(len(pred), dtype=bool)
    for d in range(len(pred)):
        best, m = min(iou, 1 - 1e-10), -1
        for g in range(len(truth)):
            if true_match[g] > 0:
                continue
            if m > -1 and not true_ignored[m] and true_ignored[g]:
                break
            if ious[d, g] < best:
                continue
            best, m = ious[d, g], g
        if m == -1:
            continue
        pred_ignored[d] = true_ignored[m]
        pred_match[d], true_match[m] = true_ids[m], pred_ids[d]
    matched = pred_match > 0
    pred_ignored |= ~matched & _area_out(pred[:, 1:])
    return pred[:, 0], matched, pred_ignored, true_ignored


def _coco_precision(images: list[tuple[np.ndarray, ...]]) -> float | None:
    """COCOeval's `accumulate` for one class: the mean precision at the 101 recall points, None where the class
    has no true box (COCO leaves it out of the mean)."""
    if not images:
        return None
    scores = np.concatenate([image[0] for image in images])
    order = np.argsort(-scores, kind="mergesort")
    matched = np.concatenate([image[1] for image in images])[order]
    ignored = np.concatenate([image[2] for image in images])[order]
    positives = int(sum((~image[3]).sum() for image in images))
    if positives == 0:
        return None
    true_pos = np.cumsum(matched & ~ignored).astype(float)
    false_pos = np.cumsum(~matched & ~ignored).astype(float)
    recall = true_pos / positives
    precision = true_pos / (true_pos + false_pos + np.spacing(1))
    precision = np.maximum.accumulate(precision[::-1])[::-1]  # non-increasing, as COCO's backward pass
    at = np.searchsorted(recall, COCO_RECALLS, side="left")
    read = np.zeros(len(COCO_RECALLS))
    inside = at < len(precision)
    read[inside] = precision[at[inside]]
    return float(read.mean())


def coco_box_map(y_true: np.ndarray, y_pred: np.ndarray, iou: float = COCO_IOU) -> float:
    """vinbigdata-chest-xray-abnormalities-detection's mAP (COCOeval's first summary number at one IoU
    threshold; see the module docstring). Labels are class numbers, read as that grader reads them (`int()` of
    the number); the classes are those of the answers: a predicted box of another class is not scored."""
    name = "coco_box_map"
    rows = [
        ((_class_ids(name, t[0], True), t[1]), (_class_ids(name, p[0], False), p[1]))
        for t, p in _all_boxes(name, y_true, y_pred)
    ]
    classes = sorted({label for (labels, _), _ in rows for label in labels})
    true_ids = _box_ids([truth[0] for truth, _ in rows])  # the grader's annotation ids, from 0 in row order
    pred_ids = _box_ids([pred[0] for _, pred in rows])
    precisions = []
    for label in classes:
        images = []
        for ((true_labels, true_boxes), (pred_labels, pred_boxes)), t_ids, p_ids in zip(
            rows, true_ids, pred_ids, strict=True
        ):
            t, p = true_labels == label, pred_labels == label
            image = _coco_image(true_boxes[t][:, 1:], t_ids[t], pred_boxes[p], p_ids[p], iou)
            if image is not None:
                images.append(image)
        value = _coco_precision(images)
        if value is not None:
            precisions.append(value)
    if not precisions:
        raise CompetitionError(f"{name}: the answers hold no box, so no class has a precision to average")
    return float(np.mean(precisions))


def _box_ids(labels: list[np.ndarray]) -> list[np.ndarray]:
    """Each row's boxes numbered on from the previous row's, from 0."""
    ends = np.cumsum([len(row) for row in labels])
    return [np.arange(end - len(row), end) for row, end in zip(labels, ends, strict=True)]


def _class_ids(name: str, labels: list[str], answers: bool) -> np.ndarray:
    """Box labels as class numbers (`int(float(label))`, as the grader reads them)."""
    try:
        return np.array([int(float(label)) for label in labels], dtype=np.int64)
    except (ValueError, OverflowError):
        bad = next(label for label in labels if not _is_number(label))
        raise fault(name, answers, f"must label each box with a class number, found {bad!r}") from None


def _is_number(text: str) -> bool:
    try:
        int(float(text))
    except (ValueError, OverflowError):
        return False
    return True


# ---- the library's entries -----------------------------------------------------------------------------------

ENTRIES: tuple[Metric, ...] = (
    Metric(
        "voc_box_map",
        False,
        voc_box_map,
        "mAP = mean over the answers' classes of sklearn's average precision of (is true, confidence) pairs: "
        "predicted boxes '<label> <conf> <x_min> <y_min> <x_max> <y_max>' matched by confidence to a true box "
        "with IoU > iou (default 0.5), unmatched true boxes (1, 0), rows with neither (0, 0) "
        "(PASCAL VOC mAP as siim-covid19-detection's grade.py)",
        numeric=False,
        empty_ok=True,
        params={"iou": VOC_IOU},
        aliases=("pascal_voc_map", "voc_map", "box_map", "detection_map", "map_iou_boxes"),
    ),
    Metric(
        "coco_box_map",
        False,
        coco_box_map,
        "COCO mAP at one IoU threshold iou (default 0.4): per class of the answers, precision at 101 recall "
        "points of boxes '<class> <conf> <x_min> <y_min> <x_max> <y_max>' matched greedily by confidence "
        "(IoU >= iou, corners read as COCO's x, y, width, height), averaged "
        "(vinbigdata-chest-xray-abnormalities-detection's grade.py, pycocotools' COCOeval)",
        numeric=False,
        empty_ok=True,
        params={"iou": COCO_IOU},
        aliases=("coco_map", "cocoeval_map", "vinbigdata_map", "coco_map_at_iou"),
    ),
)
