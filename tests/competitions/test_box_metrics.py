"""Box mAP as MLE-bench's graders compute it: `voc_box_map` (siim-covid19-detection) and `coco_box_map`
(vinbigdata-chest-xray-abnormalities-detection, pycocotools' COCOeval at IoU 0.4).

data/box_map_cases.json holds 13 seeded cases scored by those graders themselves (data/make_box_map_cases.py
says how); the library must give the same numbers. The cases worked by hand show what each grader does.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import CompetitionError, MetricSpec
from swarm.competitions.grading import score_frame
from swarm.competitions.metrics import get_metric
from swarm.competitions.metrics.base import InvalidPrediction
from swarm.competitions.metrics.boxes import coco_box_map, voc_box_map

CASES = json.loads((Path(__file__).parent / "data" / "box_map_cases.json").read_text())
TOL = 1e-12


def cells(values: list[str]) -> np.ndarray:
    return np.array(values, dtype=object)


@pytest.mark.parametrize("case", CASES, ids=[str(c["seed"]) for c in CASES])
def test_voc_box_map_is_siim_covids_grader(case):
    score = voc_box_map(cells(case["truth_words"]), cells(case["pred_words"]))
    assert abs(score - case["voc_box_map"]) <= TOL


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["coco_box_map"] is not None], ids=lambda c: str(c["seed"])
)
def test_coco_box_map_is_vinbigdatas_grader(case):
    score = coco_box_map(cells(case["truth"]), cells(case["pred"]))
    assert abs(score - case["coco_box_map"]) <= TOL


def test_the_cases_are_varied():
    assert len(CASES) == 13
    assert len({round(c["voc_box_map"], 6) for c in CASES}) == 13
    with_coco = [c for c in CASES if c["coco_box_map"] is not None]
    assert len(with_coco) == 9 and len({round(c["coco_box_map"], 6) for c in with_coco}) == 9
    # the last case puts 112 tied predictions on one image: COCO keeps the first 100 by confidence
    assert len(CASES[-1]["pred"][0].split()) == 112 * 6


def test_voc_by_hand():
    # class a: a false box at 0.9 before the true match at 0.8, and an image with neither (0, 0): the pairs
    # (0, .9), (1, .8), (0, 0) give precision 1/2 at the one recall step, AP 0.5
    truth = cells(["a 1 0 0 10 10", ""])
    pred = cells(["a 0.9 20 20 30 30 a 0.8 0 0 10 10", ""])
    assert voc_box_map(truth, pred) == pytest.approx(0.5)
    # IoU 49/151 < 0.5 matches nothing at the default, but does at iou 0.3
    shifted = cells(["a 0.8 3 3 13 13", ""])
    # (0, .8), (1, 0), (0, 0): the true box is found only at the last threshold, where 1 of 3 pairs is true
    assert voc_box_map(truth, shifted) == pytest.approx(1 / 3)
    assert voc_box_map(truth, shifted, iou=0.3) == pytest.approx(1.0)
    # a class the answers lack is not averaged in; no box at all in the answers scores 0, as the grader
    assert voc_box_map(truth, cells(["a 0.8 0 0 10 10 z 0.9 0 0 10 10", ""])) == pytest.approx(1.0)
    assert voc_box_map(cells(["", ""]), pred) == 0.0


def test_coco_by_hand_with_the_graders_annotation_ids():
    # Two true boxes of class 0, both predicted exactly. COCO reads a match with annotation id 0 as none, and
    # the grader numbers the true boxes from 0: the match of the first true box counts as a false positive.
    # TP then FP over 2 true boxes: precision 1 up to recall 0.5, read at 51 of the 101 recall points.
    truth = cells(["0 1 0 0 10 10 0 1 50 50 10 10"])
    pred = cells(["0 0.9 50 50 10 10 0 0.8 0 0 10 10"])
    assert coco_box_map(truth, pred) == pytest.approx(51 / 101)  # pycocotools gives 0.504950495049505
    # corners are read as COCO's [x, y, width, height]: (10, 10, 16, 16) against (10, 10, 20, 20) is [10, 26]^2
    # in [10, 30]^2 there, IoU 256/400 = 0.64, a match at 0.4 (as corners it would be 36/100, none)
    second = cells(["0 1 0 0 1 1 0 1 10 10 20 20"])
    assert coco_box_map(second, cells(["0 0.9 10 10 16 16"])) == pytest.approx(51 / 101)
    assert coco_box_map(second, cells(["0 0.9 10 10 16 16"]), iou=0.7) == 0.0
    # class labels are numbers: "0.0" names class 0
    assert coco_box_map(second, cells(["0.0 0.9 10 10 20 20"])) == pytest.approx(51 / 101)


def test_malformed_cells_blame_the_right_side():
    truth, good = cells(["a 1 0 0 10 10"]), cells(["a 0.9 0 0 10 10"])
    with pytest.raises(InvalidPrediction, match="6 tokens each"):
        voc_box_map(truth, cells(["a 0.9 0 0 10"]))
    with pytest.raises(InvalidPrediction, match="5 numbers"):
        voc_box_map(truth, cells(["a high 0 0 10 10"]))
    with pytest.raises(CompetitionError, match="the answers"):
        voc_box_map(cells(["a 1 0 0"]), good)
    with pytest.raises(InvalidPrediction, match="class number"):
        coco_box_map(cells(["0 1 0 0 10 10"]), cells(["opacity 0.9 0 0 10 10"]))
    with pytest.raises(CompetitionError, match="no box"):
        coco_box_map(cells([""]), cells(["0 0.9 0 0 10 10"]))
    # every row holds the class and nothing is false: the grader asserts, the AP is undefined
    with pytest.raises(CompetitionError, match="undefined"):
        voc_box_map(truth, good)


def test_graded_through_score_frame():
    spec = MetricSpec("voc_box_map", False, "id", ("PredictionString",))
    answers = pd.DataFrame({"id": ["x", "y"], "PredictionString": ["a 1 0 0 10 10", ""]})
    submission = pd.DataFrame(
        {"id": ["y", "x"], "PredictionString": ["", "a 0.9 20 20 30 30 a 0.8 0 0 10 10"]}
    )
    assert score_frame(submission, answers, spec) == pytest.approx(0.5)
    coco = MetricSpec("coco_box_map", False, "id", ("PredictionString",), params={"iou": 0.7})
    answers = pd.DataFrame({"id": ["x"], "PredictionString": ["0 1 0 0 1 1 0 1 10 10 20 20"]})
    submission = pd.DataFrame({"id": ["x"], "PredictionString": ["0 0.9 10 10 19 19"]})
    assert score_frame(submission, answers, coco) == pytest.approx(51 / 101, abs=1e-6)
    with pytest.raises(CompetitionError, match="iou"):
        get_metric("coco_box_map").resolve_params({"iou": 1.5})
