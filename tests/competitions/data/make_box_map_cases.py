"""Writes box_map_cases.json: seeded box cases scored by MLE-bench's own grade.py of
vinbigdata-chest-xray-abnormalities-detection (pycocotools' COCOeval) and siim-covid19-detection (sklearn).

Not a test: run once by hand, in a venv with pycocotools, pandas and scikit-learn, as
`python make_box_map_cases.py <dir> box_map_cases.json`, where <dir> holds the two graders from openai/mle-bench
(783b15a) as `vin_grade.py` and `siim_grade.py` and `mlebench/grade_helpers.py` defining InvalidSubmissionError.
One line of vin_grade.py is changed for numpy 2, with the same meaning: `int(np.where(image_ids == image_id)[0])`
to `int(np.where(image_ids == image_id)[0][0])`. tests/competitions/test_box_metrics.py reads the file.
"""

# ruff: noqa
import contextlib, io, json, sys
import numpy as np, pandas as pd

# Stays: the graders are loose files in <dir>, not a package, and import mlebench.grade_helpers from there.
sys.path.insert(0, sys.argv[1])
import vin_grade, siim_grade


def boxes(rng, n, classes, conf=True):
    out = []
    for _ in range(n):
        c = int(rng.choice(classes))
        x, y = rng.integers(0, 80, 2)
        w, h = rng.integers(2, 40, 2)
        out.append(
            (
                c,
                round(float(rng.uniform(0.05, 1)), 3) if conf else 1.0,
                int(x),
                int(y),
                int(x + w),
                int(y + h),
            )
        )
    return out


def jitter(rng, box):
    c, _, x1, y1, x2, y2 = box
    d = rng.integers(-6, 7, 4)
    return (
        c,
        round(float(rng.uniform(0.05, 1)), 3),
        int(x1 + d[0]),
        int(y1 + d[1]),
        int(x2 + d[2]),
        int(y2 + d[3]),
    )


def cell(bs):
    return " ".join(f"{c} {s:g} {a} {b} {x} {y}" for c, s, a, b, x, y in bs)


cases = []
for seed in range(12):
    rng = np.random.default_rng(seed)
    n_img = int(rng.integers(3, 12))
    classes = list(range(int(rng.integers(1, 5))))
    truth, pred = [], []
    for i in range(n_img):
        t = boxes(rng, int(rng.integers(0, 4)), classes, conf=False)
        if not t:
            t = [(14, 1.0, 0, 0, 1, 1)] if seed % 2 == 0 else []
        p = [jitter(rng, b) for b in t if rng.random() < 0.8]
        p += boxes(rng, int(rng.integers(0, 3)), classes + [9])
        truth.append(t)
        pred.append(p)
    ids = [f"img{i:02d}" for i in range(n_img)]
    # vinbigdata: answers one row per true box (an image without boxes gets none: skip such cases there)
    coco = None
    if all(truth):
        rows = [
            dict(image_id=i, class_id=b[0], x_min=b[2], y_min=b[3], x_max=b[4], y_max=b[5])
            for i, t in zip(ids, truth)
            for b in t
        ]
        sub = pd.DataFrame(
            {"image_id": ids, "PredictionString": [cell(p) if p else "14 1 0 0 1 1" for p in pred]}
        )
        pred_v = [p if p else [(14, 1.0, 0, 0, 1, 1)] for p in pred]
        with contextlib.redirect_stdout(io.StringIO()):
            coco = float(vin_grade.grade(sub, pd.DataFrame(rows)))
    else:
        pred_v = pred
    # siim-covid: labels are words
    name = lambda c: f"c{c}"
    words = lambda bs: " ".join(f"{name(c)} {s:g} {a} {b} {x} {y}" for c, s, a, b, x, y in bs)
    sub_s = pd.DataFrame({"id": ids, "PredictionString": [words(p) for p in pred]})
    ans_s = pd.DataFrame({"id": ids, "PredictionString": [words(t) for t in truth]})
    try:
        voc = float(siim_grade.grade(sub_s, ans_s))
    except AssertionError:
        voc = None
    cases.append(
        {
            "seed": seed,
            "truth": [cell(t) for t in truth],
            "pred": [cell(p) for p in pred_v],
            "truth_words": list(ans_s.PredictionString),
            "pred_words": list(sub_s.PredictionString),
            "coco_box_map": coco,
            "voc_box_map": voc,
        }
    )
# many tied predictions on one image: COCO keeps the 100 most confident (ties in the submission's order)
rng = np.random.default_rng(99)
truth = [[(0, 1.0, 10, 10, 30, 30), (0, 1.0, 50, 50, 70, 80), (1, 1.0, 5, 5, 9, 9)], [(1, 1.0, 0, 0, 20, 20)]]
pred0 = [(0, 0.5, int(x), int(y), int(x) + 20, int(y) + 25) for x, y in rng.integers(0, 60, (110, 2))]
pred0 += [(0, 0.5, 10, 10, 30, 30), (1, 0.9, 5, 5, 9, 9)]
pred = [pred0, [(1, 0.5, 0, 0, 20, 20), (1, 0.5, 1, 1, 21, 21)]]
ids = ["a", "b"]
rows = [
    dict(image_id=i, class_id=b[0], x_min=b[2], y_min=b[3], x_max=b[4], y_max=b[5])
    for i, t in zip(ids, truth)
    for b in t
]
sub = pd.DataFrame({"image_id": ids, "PredictionString": [cell(p) for p in pred]})
with contextlib.redirect_stdout(io.StringIO()):
    coco = float(vin_grade.grade(sub, pd.DataFrame(rows)))
sub_s = pd.DataFrame({"id": ids, "PredictionString": [cell(p) for p in pred]})
ans_s = pd.DataFrame({"id": ids, "PredictionString": [cell(t) for t in truth]})
voc = float(siim_grade.grade(sub_s, ans_s))
cases.append(
    {
        "seed": "ties",
        "truth": [cell(t) for t in truth],
        "pred": [cell(p) for p in pred],
        "truth_words": [cell(t) for t in truth],
        "pred_words": [cell(p) for p in pred],
        "coco_box_map": coco,
        "voc_box_map": voc,
    }
)
json.dump(cases, open(sys.argv[2], "w"), indent=1)
print([(c["coco_box_map"], c["voc_box_map"]) for c in cases])
