"""`lyft_3d_map`, 3d-object-detection-for-autonomous-vehicles' mAP of 3-D boxes over IoU thresholds (issue 29,
point 4): the boxes' IoU against areas computed independently, hand-made cases, and seeded cases against a
transcription of its grade.py and the organisers' mAP_evaluation.py (recall_precision, get_ap, the per-sample
mean over classes and thresholds), with this module's IoU (MLE-bench's uses shapely, which is not installed)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import CompetitionError, MetricSpec
from swarm.competitions.grading import score_frame
from swarm.competitions.metric_wording import infer_metric_rules
from swarm.competitions.metrics.base import InvalidPrediction
from swarm.competitions.metrics.boxes_3d import (
    LYFT_IOUS,
    box_iou,
    lyft_3d_map,
    parse_objects,
    with_confidence,
)


def box(x=0.0, y=0.0, z=0.0, width=2.0, length=4.0, height=2.0, yaw=0.0, confidence=1.0) -> np.ndarray:
    return np.array([confidence, x, y, z, width, length, height, yaw])


def cell(*objects: tuple[np.ndarray, str]) -> str:
    return " ".join(" ".join(f"{v:.6f}" for v in b) + f" {name}" for b, name in objects)


def test_the_iou_of_boxes_follows_their_volumes_and_yaw() -> None:
    assert box_iou(box(), box()) == pytest.approx(1.0)
    assert box_iou(box(), box(x=1.0)) == pytest.approx(12 / 20)  # 3 x 2 x 2 shared of 16 + 16 - 12
    assert box_iou(box(), box(z=1.0)) == pytest.approx(8 / 24)  # half the height shared
    assert box_iou(box(), box(x=10.0)) == 0.0
    # a 4 x 2 box turned a quarter turn is the same box as a 2 x 4 one not turned
    assert box_iou(box(width=2, length=4, yaw=math.pi / 2), box(width=4, length=2)) == pytest.approx(1.0)
    # turned a quarter turn over itself: a 2 x 2 square shared of the two 4 x 2 rectangles
    assert box_iou(box(), box(yaw=math.pi / 2)) == pytest.approx(8 / 24)


def test_the_iou_of_turned_boxes_matches_an_area_counted_on_a_grid() -> None:
    rng = np.random.default_rng(5)
    xs, ys = np.meshgrid(np.linspace(-6, 6, 1201), np.linspace(-6, 6, 1201))

    def inside(b: np.ndarray) -> np.ndarray:
        dx, dy = xs - b[1], ys - b[2]
        along = dx * math.cos(b[7]) + dy * math.sin(b[7])
        across = -dx * math.sin(b[7]) + dy * math.cos(b[7])
        return (np.abs(along) <= b[5] / 2) & (np.abs(across) <= b[4] / 2)

    for _ in range(5):
        a = box(*rng.uniform(-1, 1, 2), 0.0, *rng.uniform(1, 3, 2), 2.0, rng.uniform(-3, 3))
        b = box(*rng.uniform(-1, 1, 2), 0.0, *rng.uniform(1, 3, 2), 2.0, rng.uniform(-3, 3))
        cell_area = (12 / 1200) ** 2
        shared = (inside(a) & inside(b)).sum() * cell_area * 2  # both 2 high at the same z
        union = a[4] * a[5] * 2 + b[4] * b[5] * 2 - shared
        assert box_iou(a, b) == pytest.approx(shared / union, abs=0.01)


def test_hand_made_samples_score_as_grade_py_would() -> None:
    car, bus = (box(), "car"), (box(x=20, width=3, length=10, height=3), "bus")
    truth = [cell(car, bus)]
    assert lyft_3d_map(np.array(truth), np.array([cell(car, bus)])) == pytest.approx(1.0)
    assert lyft_3d_map(np.array(truth), np.array([""])) == 0.0
    assert lyft_3d_map(np.array(truth), np.array([cell(car)])) == pytest.approx(0.5)  # the bus's AP is 0
    # IoU 0.6 is a hit at 0.5 and 0.55 only (above, not at, 0.6): 2 of the 10 thresholds
    assert lyft_3d_map(np.array([cell(car)]), np.array([cell((box(x=1.0), "car"))])) == pytest.approx(0.2)
    # a second guess at the same car is a false positive after the hit: the AP stays 1
    twice = cell((box(confidence=0.9), "car"), (box(x=0.2, confidence=0.5), "car"))
    assert lyft_3d_map(np.array([cell(car)]), np.array([twice])) == pytest.approx(1.0)
    # ... but before it (more confident) it halves the precision at the hit
    first_wrong = cell((box(x=0.2, confidence=0.5), "car"), (box(x=8.0, confidence=0.9), "car"))
    assert lyft_3d_map(np.array([cell(car)]), np.array([first_wrong])) == pytest.approx(
        np.mean([0.5 if box_iou(box(x=0.2), box()) > t else 0.0 for t in LYFT_IOUS])
    )
    # a row without true objects is left out (grade.py's mean would be NaN)
    assert lyft_3d_map(np.array([cell(car), ""]), np.array([cell(car), cell(car)])) == pytest.approx(1.0)


def test_malformed_cells_are_the_predictions_or_the_answers_fault() -> None:
    with pytest.raises(InvalidPrediction, match="9 tokens each"):
        lyft_3d_map(np.array([cell((box(), "car"))]), np.array(["1 2 3 4 5 6 7 car"]))
    with pytest.raises(InvalidPrediction, match="not positive"):
        lyft_3d_map(np.array([cell((box(), "car"))]), np.array([cell((box(width=0.0), "car"))]))
    with pytest.raises(InvalidPrediction, match="8 numbers"):
        lyft_3d_map(np.array([cell((box(), "car"))]), np.array(["1 2 3 4 5 6 7 x car"]))
    with pytest.raises(CompetitionError, match="the answers"):
        lyft_3d_map(np.array(["car 1 2"]), np.array([""]))
    with pytest.raises(CompetitionError, match="no true object"):
        lyft_3d_map(np.array([""]), np.array([""]))
    assert parse_objects("m", "", answers=True)[0] == []


# ---- a transcription of grade.py's per-sample mAP and mAP_evaluation.py's recall_precision and get_ap ----------


def ref_get_ap(recalls: np.ndarray, precisions: np.ndarray) -> float:
    recalls = np.concatenate(([0.0], recalls, [1.0]))
    precisions = np.concatenate(([0.0], precisions, [0.0]))
    for i in range(precisions.size - 1, 0, -1):
        precisions[i - 1] = np.maximum(precisions[i - 1], precisions[i])
    i = np.where(recalls[1:] != recalls[:-1])[0]
    return float(np.sum((recalls[i + 1] - recalls[i]) * precisions[i + 1]))


def ref_recall_precision(gt: list[dict], predictions: list[dict], iou_threshold: float) -> float:
    num_gts = len(gt)
    gt_checked = np.zeros(len(gt))
    predictions = sorted(predictions, key=lambda x: x["score"], reverse=True)
    tp, fp = np.zeros(len(predictions)), np.zeros(len(predictions))
    for index, prediction in enumerate(predictions):
        max_overlap, jmax = -np.inf, -1
        if len(gt) > 0:
            overlaps = [box_iou(prediction["box"], g["box"]) for g in gt]
            max_overlap, jmax = np.max(overlaps), np.argmax(overlaps)
        if max_overlap > iou_threshold:
            if gt_checked[jmax] == 0:
                tp[index], gt_checked[jmax] = 1.0, 1
            else:
                fp[index] = 1.0
        else:
            fp[index] = 1.0
    fp, tp = np.cumsum(fp), np.cumsum(tp)
    recalls = tp / float(num_gts)
    precisions = tp / np.maximum(tp + fp, np.finfo(np.float64).eps)
    return ref_get_ap(recalls, precisions)


def ref_parse(text: str) -> list[dict]:
    tokens = text.split()
    return [
        {
            "box": np.array([float(v) for v in tokens[i : i + 8]]),
            "score": float(tokens[i]),
            "name": tokens[i + 8],
        }
        for i in range(0, len(tokens), 9)
    ]


def ref_grade(answers: list[str], submission: list[str]) -> float:
    maps = []
    for truth, pred in zip(answers, submission, strict=True):
        gt, predictions = ref_parse(truth), ref_parse(pred)
        class_names = sorted({x["name"] for x in gt})
        for threshold in LYFT_IOUS:
            aps = np.zeros(len(class_names))
            for k, name in enumerate(class_names):
                mine = [p for p in predictions if p["name"] == name]
                if mine:
                    aps[k] = ref_recall_precision([g for g in gt if g["name"] == name], mine, threshold)
            maps.append(np.mean(aps))
    return float(np.mean(maps))


def test_seeded_samples_score_as_a_transcription_of_grade_py() -> None:
    rng = np.random.default_rng(11)
    for _ in range(6):
        answers, submission = [], []
        for _ in range(8):
            objects = [
                (
                    box(
                        *rng.uniform(-15, 15, 2),
                        rng.uniform(-1, 1),
                        *rng.uniform(1, 4, 3),
                        rng.uniform(-3, 3),
                    ),
                    name,
                )
                for name in rng.choice(["car", "pedestrian", "bus"], rng.integers(1, 6))
            ]
            guesses = []
            for b, name in objects:
                if rng.random() < 0.8:  # found, a little off, maybe twice, maybe as the wrong class
                    moved = b + np.concatenate(
                        ([0], rng.normal(0, 0.3, 3), rng.normal(0, 0.2, 3), rng.normal(0, 0.1, 1))
                    )
                    moved[0] = round(float(rng.uniform(0, 1)), 1)  # ties of confidence happen
                    moved[4:7] = np.abs(moved[4:7]) + 0.1
                    guesses.append((moved, name if rng.random() < 0.9 else "car"))
                if rng.random() < 0.3:
                    guesses.append((box(*rng.uniform(-15, 15, 2), confidence=rng.uniform(0, 1)), name))
            answers.append(cell(*objects))
            submission.append(cell(*guesses))
        expected = ref_grade(answers, submission)
        assert lyft_3d_map(np.array(answers), np.array(submission)) == pytest.approx(expected, abs=1e-12)
        assert 0.0 < expected < 1.0


def test_a_submission_is_graded_by_its_id_column_and_the_rules_name_the_metric() -> None:
    spec = MetricSpec(
        name="lyft_3d_map", lower_is_better=False, id_column="Id", target_columns=("PredictionString",)
    )
    car = (box(), "car")
    answers = pd.DataFrame({"Id": ["a", "b"], "PredictionString": [cell(car), cell(car, (box(x=9), "bus"))]})
    submission = pd.DataFrame({"Id": ["b", "a"], "PredictionString": [cell(car), ""]})
    assert score_frame(submission.astype(str), answers.astype(str), spec) == pytest.approx(
        0.25
    )  # (0 + 0.5) / 2
    words = (
        "## Evaluation\n\nThis competition is evaluated on the mean average precision at different intersection "
        "over union (IoU) thresholds. The IoU of a set of predicted 3D bounding volumes and ground truth bounding "
        "volumes is calculated as:\n"
    )
    assert infer_metric_rules(words).name == "lyft_3d_map"
    masks = words.replace("3D bounding volumes", "masks")  # tgs-salt's wording without run-length encoding
    found = infer_metric_rules(masks)
    assert found is None or found.name != "lyft_3d_map"


def test_answers_as_train_csv_lists_them_score_alike_and_a_perfect_prediction_is_made_of_them() -> None:
    """train.csv's objects have no confidence (8 tokens, the harness's labels copy them); predictions must have it."""
    car, bus = (box(), "car"), (box(x=20, width=3, length=10, height=3, yaw=0.4), "bus")
    with_it = cell(car, bus)
    without = " ".join(" ".join(f"{v:.6f}" for v in b[1:]) + f" {name}" for b, name in (car, bus))
    guess = np.array([cell((box(x=1.0), "car"), (box(x=20.3, width=3, length=10, height=3, yaw=0.4), "bus"))])
    assert lyft_3d_map(np.array([without]), guess) == lyft_3d_map(np.array([with_it]), guess) > 0
    assert lyft_3d_map(np.array([without]), np.array([with_confidence(without)])) == pytest.approx(1.0)
    with pytest.raises(InvalidPrediction, match="9 tokens each"):
        lyft_3d_map(np.array([without]), np.array([without]))
