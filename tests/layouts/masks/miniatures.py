"""Miniatures of masks in a folder per example: google-research-identify-contrails' `.npy` masks (`contrails`)
and vesuvius-challenge-ink-detection's fragments of slices (`vesuvius`, `vesuvius_fragments`), as the census
copies them and as the no-key runs read them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

from tests.layouts.kit import dirs, rle


def contrails(root: Path, n_train: int = 12, n_test: int = 3, size: int = 16) -> Path:
    """google-research-identify-contrails-reduce-global-warming: `train/<record_id>/band_08.npy` .. `band_16.npy`
    (size x size x 8 frames, float32 temperatures), `human_pixel_masks.npy` (size x size x 1, int32),
    `human_individual_masks.npy` (size x size x 1 x 3 annotators); `test/<record_id>/` the bands only; `validation/`
    as train; `train_metadata.json`, `validation_metadata.json` (a record per `record_id`); `sample_submission.csv`
    `record_id`, `encoded_pixels` ("1 3 10 5" or "-"), `height`, `width`. The metric: `rle_dice_global`. A contrail
    is a line two pixels wide across most records, colder in band 15 than in band 14 at the labelled frame (4)."""
    public, private = dirs(root, "rle_dice_global", "# Contrails\n\nScored by the global Dice coefficient.\n")
    rng = np.random.default_rng(151)
    ids = [str(10**18 + int(v)) for v in rng.choice(10**18, n_train + n_test + 2, replace=False)]
    train, test, valid = ids[:n_train], ids[n_train : n_train + n_test], ids[n_train + n_test :]
    rows, cols = np.mgrid[0:size, 0:size]
    answers = []
    for folder, group in (("train", train), ("test", test), ("validation", valid)):
        for k, record in enumerate(group):
            out = public / folder / record
            out.mkdir(parents=True)
            angle, offset = rng.uniform(0, np.pi), rng.uniform(-size / 4, size / 4)
            distance = (cols - size / 2) * np.sin(angle) - (rows - size / 2) * np.cos(angle) - offset
            mask = (np.abs(distance) < 1.0) & (k % 4 != 3)  # every fourth record has no contrail
            for band in range(8, 17):
                values = 250 + 5 * rng.standard_normal((size, size, 8))
                if band == 15:
                    values[..., 4] -= 12 * mask
                np.save(out / f"band_{band:02d}.npy", values.astype(np.float32))
            if folder == "test":
                answers.append(
                    {"record_id": record, "encoded_pixels": rle(mask), "height": size, "width": size}
                )
            else:
                np.save(out / "human_pixel_masks.npy", mask[..., None].astype(np.int32))
                np.save(
                    out / "human_individual_masks.npy",
                    np.stack([mask] * 3, -1)[:, :, None, :].astype(np.int32),
                )
    for name, group in (("train_metadata.json", train), ("validation_metadata.json", valid)):
        (public / name).write_text(json.dumps([{"record_id": i, "row_min": 0.0} for i in group]))
    pd.DataFrame(answers).to_csv(private / "answers.csv", index=False)
    placeholders = (["1 3 10 5", "-"] * n_test)[:n_test]
    pd.DataFrame({"record_id": test, "encoded_pixels": placeholders, "height": size, "width": size}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def vesuvius(root: Path) -> Path:
    """vesuvius-challenge-ink-detection: `train/1/`, `train/2/` (`inklabels.png`, `inklabels_rle.csv`, `ir.png`,
    `mask.png`, `surface_volume/00.tif` ..), `test/a/` (`mask.png`, `surface_volume/`), `sample_submission.csv`
    `Id` = `a`, `Predicted` = "1 1 5 1": `vesuvius_fragments` at its smallest. The metric: `rle_fbeta` (F0.5)."""
    return vesuvius_fragments(root, layers=6, scale=0.5)


def vesuvius_fragments(root: Path, layers: int = 20, scale: float = 1.0) -> Path:
    """vesuvius-challenge-ink-detection's layout with data: two training fragments (`train/1/`, `train/2/`) and a
    test one (`test/a/`) of about 48 x 64 to 64 x 80 pixels (times `scale`), each with `mask.png` (the fragment's
    pixels: an ellipse), `surface_volume/00.tif` .. (`layers` 16-bit slices; ink strokes brighter in the middle
    third of them); the training ones also `inklabels.png` (0/255), `inklabels_rle.csv` (`Id`, `Predicted`: pixels
    numbered along each row) and `ir.png` (the photo the labels were drawn on: ink dark). `sample_submission.csv`
    `Id` = `a`, `Predicted` = "1 1 5 1"; `private/answers.csv` the test fragment's ink. The metric: `rle_fbeta`."""
    public, private = dirs(root, "rle_fbeta", "# Vesuvius\n\nScored by F0.5 on ink pixels.\n", {"beta": 0.5})
    rng = np.random.default_rng(1677)
    for side, fragment, (height, width) in (
        ("train", "1", (48, 64)),
        ("train", "2", (64, 80)),
        ("test", "a", (40, 56)),
    ):
        height, width = max(8, int(height * scale)), max(8, int(width * scale))
        rows, cols = np.mgrid[0:height, 0:width]
        inside = ((rows - height / 2) / (height / 2)) ** 2 + ((cols - width / 2) / (width / 2)) ** 2 < 1
        ink = np.zeros((height, width), dtype=bool)
        for _ in range(max(2, height * width // 300)):  # strokes: short bars two or three pixels wide
            top, left = rng.integers(0, height - 3), rng.integers(0, width - 8)
            if rng.random() < 0.5:
                ink[top : top + rng.integers(2, 4), left : left + rng.integers(4, 9)] = True
            else:
                ink[max(0, top - 4) : top + 3, left : left + rng.integers(2, 4)] = True
        ink &= inside
        out = public / side / fragment
        (out / "surface_volume").mkdir(parents=True)
        Image.fromarray((inside * 255).astype(np.uint8)).save(out / "mask.png")
        for layer in range(layers):
            values = 20_000 + 1_500 * rng.standard_normal((height, width))
            if layers // 3 <= layer < 2 * layers // 3:
                values += 4_000 * ink
            values = np.where(inside, values, 0).clip(0, 65_535).astype(np.uint16)
            Image.fromarray(values).save(out / "surface_volume" / f"{layer:02d}.tif")
        encoded = rle(ink.T)  # along each row: the transposed mask down each column
        if side == "train":
            Image.fromarray((ink * 255).astype(np.uint8)).save(out / "inklabels.png")
            pd.DataFrame({"Id": [fragment], "Predicted": [encoded]}).to_csv(
                out / "inklabels_rle.csv", index=False
            )
            photo = 200 - 120 * ink + 10 * rng.standard_normal((height, width))
            Image.fromarray(photo.clip(0, 255).astype(np.uint8)).save(out / "ir.png")
        else:
            pd.DataFrame({"Id": [fragment], "Predicted": [encoded]}).to_csv(
                private / "answers.csv", index=False
            )
    pd.DataFrame({"Id": ["a"], "Predicted": ["1 1 5 1"]}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def mask_folders_competition(root: Path) -> Path:
    """google-research-identify-contrails-reduce-global-warming's layout (contrails): a folder per record of
    band arrays, its mask file beside them in train/ only, and the sample's masks run-length encoded beside
    the image's height and width."""
    return contrails(root, n_train=25, n_test=12, size=16)


def ink_fragments_competition(root: Path) -> Path:
    """vesuvius-challenge-ink-detection's layout (vesuvius_fragments): two training fragments, each a folder
    of 16-bit slices (more than the offline coder reads) beside its ink labels as an image and as run-length
    encodings numbered along each row, and one test fragment."""
    return vesuvius_fragments(root, layers=20)
