"""Miniatures of uw-madison-gi-tract-image-segmentation's rows keyed by the id and a class (a row per slice
and organ): the census's (`uw_madison`), one with real slice images and masks (`uw_madison_images`), and that
one for the no-key run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

from tests.layouts.kit import dirs, rle, write_files

UW_CLASSES = ("large_bowel", "small_bowel", "stomach")


def uw_madison_images(root: Path, n_cases: int = 8, days: int = 2, slices: int = 4, size: int = 20) -> Path:
    """uw-madison-gi-tract-image-segmentation's layout as `uw_madison`, with real images and the real metric: each
    slice a `size` x `size` 16-bit PNG named with its width and height as MLE-bench's files are, each organ a disc
    brighter than the background by its own amount where the organ is present (about two slices in three), its mask
    run-length encoded down each column (empty where absent); `private/test.csv` the answers with each slice's
    `image_height`, `image_width`. competition.json names `dice_hausdorff`."""
    public, private = dirs(
        root, "dice_hausdorff", "# UW-Madison GI tract\n\nScored by 0.4 Dice + 0.6 (1 - 3D Hausdorff).\n"
    )
    rng = np.random.default_rng(131)
    cases = sorted(int(c) for c in rng.choice(160, n_cases + 2, replace=False))
    rows, cols = np.mgrid[0:size, 0:size]
    centres = {"large_bowel": (0.3, 0.3), "small_bowel": (0.65, 0.35), "stomach": (0.5, 0.7)}
    brightness = {"large_bowel": 300, "small_bowel": 600, "stomach": 900}
    tables: dict[str, list] = {"train": [], "test": []}
    for k, case in enumerate(cases):
        folder = "test" if k >= n_cases else "train"
        for day in sorted(int(v) for v in rng.choice(40, days, replace=False)):
            scans = public / folder / f"case{case}" / f"case{case}_day{day}" / "scans"
            scans.mkdir(parents=True)
            for s in range(1, slices + 1):
                slice_id = f"case{case}_day{day}_slice_{s:04d}"
                image = 100 + 20 * rng.standard_normal((size, size))
                for organ in UW_CLASSES:
                    mask = np.zeros((size, size), dtype=bool)
                    if rng.random() < 0.67:
                        cy, cx = (size * (c + rng.uniform(-0.08, 0.08)) for c in centres[organ])
                        mask = (rows - cy) ** 2 + (cols - cx) ** 2 <= (size * rng.uniform(0.1, 0.16)) ** 2
                        image[mask] += brightness[organ]
                    encoded = rle(mask)
                    tables[folder].append((slice_id, organ, "" if encoded == "-" else encoded))
                name = f"slice_{s:04d}_{size}_{size}_1.50_1.50.png"
                Image.fromarray(np.clip(image, 0, 65535).astype(np.uint16)).save(scans / name)
    train = pd.DataFrame(tables["train"], columns=["id", "class", "segmentation"])
    test = pd.DataFrame(tables["test"], columns=["id", "class", "segmentation"])
    train.to_csv(public / "train.csv", index=False)
    test[["id", "class"]].to_csv(public / "test.csv", index=False)
    test[["id", "class"]].assign(predicted="1 1 5 2").to_csv(public / "sample_submission.csv", index=False)
    answers = test.rename(columns={"segmentation": "predicted"}).assign(image_height=size, image_width=size)
    answers.to_csv(private / "test.csv", index=False)
    return root


def uw_madison(root: Path, n_cases: int = 4, days: int = 2, slices: int = 3) -> Path:
    """uw-madison-gi-tract-image-segmentation: `train.csv` (`id` = `case<c>_day<d>_slice_<ssss>`, `class`,
    `segmentation` RLE, empty where the organ is absent; 3 rows a slice), `test.csv` (`id`, `class`),
    `train/case<c>/case<c>_day<d>/scans/slice_<ssss>_266_266_1.50_1.50.png`, the test cases' in `test/`,
    `sample_submission.csv` `id`, `class`, `predicted` = `1 1 5 2`; `private/test.csv` the test rows'
    `predicted` with `image_height`, `image_width`. competition.json names `rle_dice` (the Dice part of the
    metric, `dice_hausdorff`)."""
    public, _ = dirs(
        root, "rle_dice", "# UW-Madison GI tract\n\nScored by 0.4 Dice + 0.6 (1 - 3D Hausdorff).\n"
    )
    rng = np.random.default_rng(129)
    cases = sorted(int(c) for c in rng.choice(160, n_cases + 1, replace=False))

    def rows(case_ids: list[int]) -> pd.DataFrame:
        table = []
        for c in case_ids:
            for d in sorted(int(v) for v in rng.choice(40, days, replace=False)):
                for s in range(1, slices + 1):
                    for organ in UW_CLASSES:
                        mask = (
                            ""
                            if rng.random() < 0.5
                            else f"{int(rng.integers(1, 9000))} {int(rng.integers(2, 9))}"
                        )
                        table.append((f"case{c}_day{d}_slice_{s:04d}", organ, mask))
        return pd.DataFrame(table, columns=["id", "class", "segmentation"])

    train, test = rows(cases[:n_cases]), rows(cases[n_cases:])
    train.to_csv(public / "train.csv", index=False)
    test[["id", "class"]].to_csv(public / "test.csv", index=False)
    test[["id", "class"]].assign(predicted="1 1 5 2").to_csv(public / "sample_submission.csv", index=False)
    answers = test.rename(columns={"segmentation": "predicted"}).assign(image_height=266, image_width=266)
    answers.to_csv(root / "prepared" / "private" / "test.csv", index=False)  # as prepare.py, with each size
    for folder, table in (("train", train), ("test", test)):
        names = []
        for slice_id in table["id"].unique():
            case_day, s = slice_id.split("_slice_")
            names.append(f"{case_day.split('_')[0]}/{case_day}/scans/slice_{s}_266_266_1.50_1.50.png")
        write_files(public / folder, names)
    return root


def keyed_slices_competition(root: Path) -> Path:
    """uw-madison-gi-tract-image-segmentation's layout (uw_madison_images): a row per (slice, organ) keyed by
    `id` and `class`, each slice a PNG in its scan's folder, whose name begins the id; the organ's mask
    run-length encoded in train.csv, the sample's `predicted`, scored by Dice and Hausdorff."""
    return uw_madison_images(root)
