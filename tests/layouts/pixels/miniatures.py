"""Miniatures of denoising-dirty-documents' target images, a submission row per pixel: the census's
(`denoising`) and one with stained pages and their clean twins for the no-key run
(`denoising_competition`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

from tests.layouts.kit import dirs


def denoising(root: Path, n_train: int = 12, n_test: int = 3) -> Path:
    """denoising-dirty-documents: `train/<n>.png` (noisy) and `train_cleaned/<n>.png` (the labels: clean
    images), `test/<n>.png` (numbered as Kaggle's train images, from 2: no `1.png`), `sampleSubmission.csv`
    long: `id` = `<image>_<row>_<col>` per pixel, `value` = 1 (here 3x4-pixel images)."""
    public, _ = dirs(root, "rmse", "# Denoising dirty documents\n\nScored by the RMSE over pixels.\n")
    rng = np.random.default_rng(125)
    numbers = sorted(int(n) for n in rng.choice(np.arange(2, 200), n_train + n_test, replace=False))
    test_numbers = [numbers[k] for k in rng.choice(len(numbers), n_test, replace=False)]
    for folder in ("train", "train_cleaned", "test"):
        (public / folder).mkdir()
    for n in numbers:
        pixels = rng.integers(0, 256, size=(3, 4), dtype=np.uint8)
        if n in test_numbers:
            Image.fromarray(pixels, mode="L").save(public / "test" / f"{n}.png")
        else:
            Image.fromarray(pixels, mode="L").save(public / "train" / f"{n}.png")
            Image.fromarray(np.where(pixels > 100, 255, pixels).astype(np.uint8), mode="L").save(
                public / "train_cleaned" / f"{n}.png"
            )
    ids = [f"{n}_{r}_{c}" for n in sorted(test_numbers) for r in range(1, 4) for c in range(1, 5)]
    pd.DataFrame({"id": ids, "value": 1}).to_csv(public / "sampleSubmission.csv", index=False)
    return root


def denoising_competition(root: Path, n_train: int = 16, n_test: int = 4) -> Path:
    """denoising-dirty-documents' layout: `train/<n>.png` (stained, noisy pages), `train_cleaned/<n>.png` (the
    labels: the same pages clean, dark strokes on white), `test/<n>.png`, `sampleSubmission.csv` a row per
    pixel `<n>_<row>_<col>` (1-based), `value` 1; the answers each test pixel's clean grey / 255, scored by
    RMSE."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    for folder in ("train", "train_cleaned", "test"):
        (public / folder).mkdir(parents=True)
    private.mkdir(parents=True)
    rng = np.random.default_rng(29)
    numbers = [int(n) for n in rng.choice(np.arange(2, 300), n_train + n_test, replace=False)]
    answers = []
    for k, n in enumerate(numbers):
        clean = np.full((24, 32), 255.0)
        for _ in range(6):  # dark strokes: short bars of "text"
            r, c = int(rng.integers(1, 22)), int(rng.integers(0, 26))
            clean[r : r + 2, c : c + int(rng.integers(3, 7))] = rng.uniform(10, 60)
        stain = np.linspace(rng.uniform(0.55, 0.8), rng.uniform(0.85, 1.0), 32)[None, :]
        dirty = np.clip(clean * stain + rng.normal(0, 8, size=clean.shape), 0, 255).astype(np.uint8)
        test = k >= n_train
        Image.fromarray(dirty, mode="L").save(public / ("test" if test else "train") / f"{n}.png")
        if test:
            rows, cols = np.indices(clean.shape)
            ids = [f"{n}_{r + 1}_{c + 1}" for r, c in zip(rows.ravel(), cols.ravel(), strict=True)]
            answers.append(pd.DataFrame({"id": ids, "value": clean.astype(np.uint8).ravel() / 255.0}))
        else:
            Image.fromarray(clean.astype(np.uint8), mode="L").save(public / "train_cleaned" / f"{n}.png")
    truth = pd.concat(answers, ignore_index=True)
    truth.to_csv(private / "answers.csv", index=False)
    truth.assign(value=1).to_csv(public / "sampleSubmission.csv", index=False)
    (public / "description.md").write_text(
        "# Denoising dirty documents\n\n## Evaluation\n\nSubmissions are evaluated on the root mean squared "
        "error between the cleaned pixel intensities and the actual grayscale pixel intensities.\n"
    )
    return root
