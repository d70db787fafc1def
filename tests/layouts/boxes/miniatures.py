"""Miniatures of vinbigdata-chest-xray-abnormalities-detection's labelled boxes, a row per box: the census's
(`vinbigdata`) and a larger one for the no-key run (`box_rows_competition`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, hexes

VINBIG_CLASSES = ("Aortic enlargement", "Atelectasis", "Calcification", "Cardiomegaly")  # class_id 0..3


VINBIG_READERS = ("R8", "R9", "R10", "R11")


def vinbigdata(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """vinbigdata-chest-xray-abnormalities-detection: `train.csv` a row per box (`image_id` 32 hex digits,
    `class_name`, `class_id`, `rad_id`, `x_min`, `y_min`, `x_max`, `y_max`; three radiologists an image, "No
    finding" rows class 14 without corners), `train/<image_id>.dicom`, `test/<image_id>.dicom`, no test.csv,
    `sample_submission.csv` `image_id`, `PredictionString` = `14 1 0 0 1 1`; `private/answers.csv` the test's box
    rows (the first of each (image, class)) and `private/gold_submission.csv` their strings, as `prepare.py`
    writes them. Here images whose id starts with a digit show findings, and their files are larger. The metric:
    `coco_box_map`."""
    public, private = dirs(root, "coco_box_map", "# VinBigData Chest X-ray\n\nScored by mAP at IoU 0.4.\n")
    rng = np.random.default_rng(141)
    ids = hexes(rng, n_train + n_test, 32)
    rows = []
    for image in ids:
        readers = rng.choice(VINBIG_READERS, 3, replace=False)
        found = image[0].isdigit()
        for reader in readers:
            if not found:
                rows.append([image, "No finding", 14, reader, None, None, None, None])
                continue
            for class_id in sorted(rng.choice(len(VINBIG_CLASSES), 2, replace=False)):
                x, y = float(rng.integers(100, 2000)), float(rng.integers(100, 2000))
                box = [x, y, x + float(rng.integers(50, 600)), y + float(rng.integers(50, 600))]
                rows.append([image, VINBIG_CLASSES[class_id], int(class_id), reader, *box])
    columns = ["image_id", "class_name", "class_id", "rad_id", "x_min", "y_min", "x_max", "y_max"]
    table = pd.DataFrame(rows, columns=columns)
    train, answers = (
        table[table["image_id"].isin(ids[:n_train])],
        table[table["image_id"].isin(ids[n_train:])],
    )
    train.to_csv(public / "train.csv", index=False)
    answers = answers.groupby(["image_id", "class_id"]).first().reset_index().fillna(0)
    answers.loc[answers["class_id"] == 14, ["x_max", "y_max"]] = 1.0
    answers.to_csv(private / "answers.csv", index=False)
    gold = answers.assign(
        PredictionString=[
            f"{r.class_id} 1.0 {r.x_min} {r.y_min} {r.x_max} {r.y_max}" for r in answers.itertuples()
        ]
    )
    gold.groupby("image_id")["PredictionString"].agg(" ".join).reset_index().to_csv(
        private / "gold_submission.csv", index=False
    )
    pd.DataFrame({"image_id": ids[n_train:], "PredictionString": "14 1 0 0 1 1"}).to_csv(
        public / "sample_submission.csv", index=False
    )
    for folder, group in (("train", ids[:n_train]), ("test", ids[n_train:])):
        (public / folder).mkdir()
        for image in group:  # an image with findings is a larger file: a feature that tells them
            (public / folder / f"{image}.dicom").write_bytes(
                b"DICM" + bytes(400 if image[0].isdigit() else 40)
            )
    return root


def box_rows_competition(root: Path) -> Path:
    """vinbigdata-chest-xray-abnormalities-detection's layout (vinbigdata): a row per box in train.csv (three
    readers an image, "No finding" without corners), DICOM files named by the image ids, no test table, and a
    string of boxes per image in the sample."""
    return vinbigdata(root, n_train=80, n_test=24)
