"""Targets that are images, a submission row per pixel (denoising-dirty-documents): the sample's ids are
`<image>_<row>_<col>` (1-based) over the images of a test folder, and each training image has a target image of
the same name in another folder (`train/` and `train_cleaned/`), whose grey value / 255 is each pixel's answer.

`pixel_fields(data_dir, sample_ids, targets)` finds the three folders; `pixel_rows(...)` gives a row per pixel
named as the sample names it, with features of the pixel's neighbourhood and its image (and the target where
there is a target image), which the offline coder then models like any table.

Shared by the harness (swarm/layouts/pixels/split.py) and the offline coder; the solutions the offline coder
writes embed this module's source, so it uses only os, numpy and pandas (and PIL to read the images).
"""

import os

import numpy as np
import pandas as pd

PIXEL_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")
PIXEL_MATCH_SHARE = 0.9  # share of the sample's images (or training images) a folder must hold to be theirs
PIXEL_TRAIN_ROWS = 300_000  # training pixels modelled at most, drawn evenly from the images


def image_names(folder: str) -> dict:
    """stem -> file name of the images directly in `folder`."""
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    return {
        os.path.splitext(n)[0]: n
        for n in names
        if n.lower().endswith(PIXEL_SUFFIXES) and os.path.isfile(os.path.join(folder, n))
    }


def _image_folders(data_dir: str) -> list:
    """Every folder under `data_dir`, as paths relative to it, sorted."""
    found = []
    for parent, subdirs, _ in os.walk(data_dir):
        found += [os.path.relpath(os.path.join(parent, d), data_dir) for d in subdirs]
    return sorted(found)


def pixel_stems(sample_ids: list) -> list | None:
    """The image stems of ids `<stem>_<row>_<col>` in their first order, or None when an id is not so made."""
    parts = pd.Series([str(i) for i in sample_ids]).str.rsplit("_", n=2, expand=True)
    if parts.empty or parts.shape[1] != 3 or not (parts[1].str.isdigit() & parts[2].str.isdigit()).all():
        return None
    return [str(s) for s in pd.unique(parts[0])]


def pixel_fields(
    data_dir: str, sample_ids: list, targets: list, share: float = PIXEL_MATCH_SHARE
) -> dict | None:
    """{"test_dir", "train_dir", "target_dir"} (paths relative to `data_dir`) when the sample has one target and
    ids `<stem>_<row>_<col>` whose stems name the images of a folder with "test" in its path, beside a twin
    training folder (its path with "train" for "test") and a folder of target images named as the training
    images; else None."""
    stems = pixel_stems(sample_ids) if len(targets) == 1 and len(sample_ids) else None
    if not stems:
        return None
    folders = _image_folders(data_dir)
    for test_dir in (f for f in folders if "test" in f.lower()):
        if len(set(image_names(os.path.join(data_dir, test_dir))) & set(stems)) < share * len(stems):
            continue
        train_dir = test_dir.replace("test", "train")
        names = set(image_names(os.path.join(data_dir, train_dir)))
        if not names:
            continue
        for target_dir in folders:
            if target_dir in (train_dir, test_dir) or train_dir.startswith(target_dir + os.sep):
                continue
            if len(set(image_names(os.path.join(data_dir, target_dir))) & names) >= share * len(names):
                return {"test_dir": test_dir, "train_dir": train_dir, "target_dir": target_dir}
    return None


def read_grey(path: str) -> np.ndarray:
    """An image as grey values in [0, 1] (float32)."""
    from PIL import Image

    with Image.open(path) as opened:
        return np.asarray(opened.convert("L"), dtype=np.float32) / 255.0


def _window_mean(grey: np.ndarray, radius: int) -> np.ndarray:
    """Each pixel's mean over the (2 radius + 1)-square around it, edges repeated."""
    padded = np.pad(grey.astype(np.float64), radius + 1, mode="edge")
    sums = padded.cumsum(0).cumsum(1)
    size, (h, w) = 2 * radius + 1, grey.shape
    total = (
        sums[size : size + h, size : size + w] - sums[:h, size : size + w]
        - sums[size : size + h, :w] + sums[:h, :w]
    )  # fmt: skip
    return (total / size**2).astype(np.float32)


def _window_extreme(grey: np.ndarray, radius: int, pick) -> np.ndarray:
    """Each pixel's max (or min: `pick`) over the (2 radius + 1)-square around it, edges repeated."""
    padded, (h, w) = np.pad(grey, radius, mode="edge"), grey.shape
    rows = pick.reduce([padded[k : k + h, :] for k in range(2 * radius + 1)])
    return pick.reduce([rows[:, k : k + w] for k in range(2 * radius + 1)])


def pixel_features(grey: np.ndarray) -> dict:
    """Feature name -> per-pixel values (flattened row by row): the pixel, its 8 neighbours, local means,
    maxima and minima (the paper's brightness nearby), and the image's own brightness."""
    padded, (h, w) = np.pad(grey, 1, mode="edge"), grey.shape
    features = {"pixel": grey}
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr or dc:
                features[f"near_{dr + 1}{dc + 1}"] = padded[1 + dr : 1 + dr + h, 1 + dc : 1 + dc + w]
    for radius in (2, 7):
        features[f"mean_{radius}"] = _window_mean(grey, radius)
        features[f"max_{radius}"] = _window_extreme(grey, radius, np.maximum)
        features[f"min_{radius}"] = _window_extreme(grey, radius, np.minimum)
    features["below_max_7"] = features["max_7"] - grey
    features["image_mean"] = np.full_like(grey, grey.mean())
    features["image_p90"] = np.full_like(grey, np.percentile(grey, 90))
    return {name: values.ravel() for name, values in features.items()}


def pixel_rows(
    data_dir: str,
    folder: str,
    id_col: str,
    *,
    stems: list | None = None,
    target_dir: str | None = None,
    target: str | None = None,
    max_rows: int | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """A row per pixel of the images of `folder` (`stems`, else every image there; in that order), named
    `<stem>_<row>_<col>` (1-based) in `id_col`, with pixel_features; with `target_dir`, only images that have a
    target image there, and `target` its grey value / 255. `max_rows` bounds the rows, drawn evenly from the
    images at random (`seed`)."""
    names = image_names(os.path.join(data_dir, folder))
    answers = image_names(os.path.join(data_dir, target_dir)) if target_dir else {}
    stems = [s for s in (stems if stems is not None else list(names)) if s in names]
    if target_dir:
        stems = [s for s in stems if s in answers]
    budget = None if max_rows is None else max(1, max_rows // max(1, len(stems)))
    rng = np.random.default_rng(seed)
    frames = []
    for stem in stems:
        grey = read_grey(os.path.join(data_dir, folder, names[stem]))
        h, w = grey.shape
        columns = pixel_features(grey)
        rows, cols = np.divmod(np.arange(h * w), w)
        if target_dir:
            clean = read_grey(os.path.join(data_dir, target_dir, answers[stem]))
            columns[target] = clean.ravel() if clean.shape == grey.shape else np.full(h * w, np.nan)
        keep = np.arange(h * w)
        if budget is not None and budget < h * w:
            keep = np.sort(rng.choice(h * w, budget, replace=False))
        frame = pd.DataFrame({name: values[keep] for name, values in columns.items()})
        ids = pd.Series(rows[keep] + 1).astype(str) + "_" + pd.Series(cols[keep] + 1).astype(str)
        frame.insert(0, id_col, (stem + "_" + ids).to_numpy())
        frames.append(frame)
    if not frames:
        return pd.DataFrame({id_col: []})
    return pd.concat(frames, ignore_index=True)


def find_pixels(probe) -> dict | None:
    """The folders of target images (see `pixel_fields`) where no labelled table is named, else None."""
    if probe.labelled_table:
        return None
    return pixel_fields(probe.data_dir, probe.ids, probe.targets)


def read_pixels_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): a row per pixel of each image, named as the sample's rows; at most PIXEL_TRAIN_ROWS
    training pixels, drawn evenly."""
    id_col, most = sample.columns[0], min(max_rows or PIXEL_TRAIN_ROWS, PIXEL_TRAIN_ROWS)
    train = pixel_rows(
        data_dir,
        fields["train_dir"],
        id_col,
        target_dir=fields["target_dir"],
        target=sample.columns[1],
        max_rows=most,
    )
    test = pixel_rows(
        data_dir, fields["test_dir"], id_col, stems=pixel_stems(sample[id_col]), max_rows=max_rows
    )
    return train, test
