"""Miniatures of alaska2-image-steganalysis' versions of one image in folders (`Cover/` and its altered
twins): the census's (`alaska2`) and one with real images for the no-key run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.images import bright_or_dark_image
from tests.layouts.kit import dirs

ALASKA_ALGORITHMS = ("JMiPOD", "JUNIWARD", "UERD")


def alaska2(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """alaska2-image-steganalysis: `Cover/<nnnnn>.jpg` (originals, 5 digits from 00001), the same names in
    `JMiPOD/`, `JUNIWARD/`, `UERD/` (the images with a hidden message), `Test/<nnnn>.jpg` (4 digits from 0001,
    each the original or one altered version of an unseen image, half and half), `sample_submission.csv` `Id`,
    `Label` = 0; scored by the weighted AUC."""
    public, private = dirs(root, "tpr_weighted_auc", ALASKA_DESCRIPTION)
    rng = np.random.default_rng(157)
    names = [f"{k:05d}.jpg" for k in range(1, n_train + 1)]
    for folder in ("Cover", *ALASKA_ALGORITHMS):
        for name in names:
            path = public / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(f"{folder}/{name}".encode() + bytes([int(folder != "Cover")]) * 40)
    ids, labels = [f"{k:04d}.jpg" for k in range(1, n_test + 1)], []
    for test_id in ids:
        altered = bool(rng.random() < 0.5)
        labels.append(int(altered))
        folder = str(rng.choice(ALASKA_ALGORITHMS)) if altered else "Cover"
        path = public / "Test" / test_id
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"{folder}/test {test_id}".encode() + bytes([int(altered)]) * 40)
    pd.DataFrame({"Id": ids, "Label": 0}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"Id": ids, "Label": labels}).to_csv(private / "test.csv", index=False)
    return root


ALASKA_DESCRIPTION = """# ALASKA2 Image Steganalysis

Detect secret data hidden within digital images.

## Evaluation

Submissions are evaluated on the weighted AUC. [...] tpr_thresholds = [0.0, 0.4, 1.0], weights = [2, 1]

## Data

`Cover/` holds the unaltered images, `JMiPOD/`, `JUNIWARD/` and `UERD/` the same images with a hidden message.
Predict for each image in `Test/` the probability (`Label`) that it holds one.
"""


def variant_folders_competition(root: Path, n_train: int = 60, n_test: int = 30) -> Path:
    """alaska2-image-steganalysis's layout (alaska2) with real images: each original in `Cover/` is dark, its
    versions in `JMiPOD/`, `JUNIWARD/`, `UERD/` bright (the "hidden message" shows), each test image the
    original or one version, half and half."""
    alaska2(root, n_train=n_train, n_test=n_test)
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    rng = np.random.default_rng(11)
    for folder in ("Cover", *ALASKA_ALGORITHMS):
        for path in sorted((public / folder).iterdir()):
            bright_or_dark_image(path, folder != "Cover", rng)
    answers = pd.read_csv(private / "test.csv", dtype=str)
    for test_id, label in zip(answers["Id"], answers["Label"], strict=True):
        bright_or_dark_image(public / "Test" / test_id, label == "1", rng)
    return root
