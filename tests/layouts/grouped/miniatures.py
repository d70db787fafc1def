"""Miniatures of rsna-breast-cancer-detection's test rows grouped under one submission id (a row per image, a
submission row per breast): the census's (`rsna_breast`) and a larger one for the no-key run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, write_files


def rsna_breast(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """rsna-breast-cancer-detection: `train.csv` a row per image (`site_id`, `patient_id`, `image_id`, `laterality`
    L/R, `view` CC/MLO, `age`, `cancer` (the same on a breast's images), `biopsy`, `invasive`, `BIRADS`, `implant`,
    `density`, `machine_id`, `difficult_negative_case`), `test.csv` a row per image (`site_id`, `patient_id`,
    `image_id`, `laterality`, `view`, `age`, `implant`, `machine_id`, `prediction_id` = `<patient_id>_<laterality>`),
    `sample_submission.csv` a row per prediction_id in sorted order (`prediction_id`, `cancer` = train's mean),
    images `train_images/<patient_id>/<image_id>.dcm` and `test_images/...` (patients disjoint), and the answers
    in `private/answers.csv`. Here a left breast of a patient aged 66 or more has cancer."""
    public, _ = dirs(
        root, "probabilistic_f1", "# RSNA Screening Mammography\n\nScored by probabilistic F1.\n"
    )
    rng = np.random.default_rng(131)
    patients = [int(v) for v in rng.choice(65000, n_train + n_test, replace=False)]
    rows = []
    for k, patient in enumerate(patients):
        age = float(rng.integers(40, 80))
        for side in ("L", "R"):
            cancer = int(age >= 66 and side == "L")  # learnable from the rows' own columns
            for view in ("CC", "MLO"):
                rows.append(
                    {
                        "site_id": 1 + k % 2,
                        "patient_id": patient,
                        "image_id": int(rng.integers(10**8, 2 * 10**9)),
                        "laterality": side,
                        "view": view,
                        "age": age,
                        "cancer": cancer,
                        "biopsy": cancer,
                        "invasive": cancer,
                        "BIRADS": "" if cancer else 1,
                        "implant": 0,
                        "density": rng.choice(["A", "B", "C", "D"]),
                        "machine_id": int(rng.choice([29, 49, 210])),
                        "difficult_negative_case": False,
                    }
                )
    table = pd.DataFrame(rows)
    in_train = table["patient_id"].isin(patients[:n_train])
    train, answers = table[in_train], table[~in_train].copy()
    train.to_csv(public / "train.csv", index=False)
    answers["prediction_id"] = answers["patient_id"].astype(str) + "_" + answers["laterality"]
    test_columns = ["site_id", "patient_id", "image_id", "laterality", "view", "age", "implant", "machine_id"]
    answers[[*test_columns, "prediction_id"]].to_csv(public / "test.csv", index=False)
    truth = answers[["prediction_id", "cancer"]].groupby("prediction_id").first().reset_index()
    truth.to_csv(root / "prepared" / "private" / "answers.csv", index=False)
    truth.assign(cancer=train["cancer"].mean()).to_csv(public / "sample_submission.csv", index=False)
    for folder, part in (("train_images", train), ("test_images", answers)):
        write_files(
            public / folder,
            [f"{p}/{i}.dcm" for p, i in zip(part["patient_id"], part["image_id"], strict=True)],
        )
    return root


def grouped_rows_competition(root: Path) -> Path:
    """rsna-breast-cancer-detection's layout (rsna_breast): an image per row of train.csv and test.csv, a
    submission row per breast (`prediction_id` = `<patient_id>_<laterality>`)."""
    return rsna_breast(root, n_train=120, n_test=30)
