"""Rows keyed by the id and other columns, each id beginning with the name of the folder holding its input:
uw-madison-gi-tract-image-segmentation. train.csv has a row per (slice, organ): `id` (`case<c>_day<d>_slice_<s>`),
`class`, the mask run-length encoded down each column (`segmentation`, empty where the organ is absent); the sample
the test rows' `id`, `class` and `predicted`. A slice's image is
`<train|test>/case<c>/case<c>_day<d>/scans/slice_<s>_<width>_<height>_....png`: under the folder whose name and a `_`
begin the id, the file whose name begins with the rest of the id.

`find_keyed` is the layout's one detector (the harness's split, swarm/layouts/keyed/split.py, and the offline coder
find it alike); `id_folders` and `image_paths` find each id's folder and image; `read_keyed_examples` reads
train.csv and the sample's keys; `slice_mask_predictions` is the offline coder's model where the target is a mask,
a pixel classifier per class. Embedded in the solutions that read the layout: the standard library, numpy and
pandas (PIL where an image is read).
"""

import os

import numpy as np
import pandas as pd

from swarm.formats.csv_tables import read_csv_as_meant
from swarm.layouts.masks.reader import (
    EMPTY_MASK,
    MASK_EXAMPLES,
    MASK_FIT_PIXELS,
    MASK_THRESHOLDS,
    fitted_model,
    global_dice,
    grid_pixels,
    looks_like_rle,
    mask_proba,
    rle_string,
    spread_grid,
)

KEYED_TRAIN = "train.csv"  # the table of labelled rows, keyed as the sample's
KEYED_FOLDER_SHARE = (
    0.9  # share of a side's ids that must begin with the name of a folder under its top folder
)
SLICE_PREDICTED_PIXELS = (
    16_384  # pixels of an image predicted at most (a grid of every n-th pixel beyond that)
)


def keyed_by(sample: pd.DataFrame) -> list:
    """The sample's columns after the id that complete it where it repeats (uw-madison's `class`), up to its one
    run-length encoded column; [] where the id names each row once."""
    ids = sample.iloc[:, 0].astype(str).str.strip()
    if ids.is_unique:
        return []
    keys = []
    for column in sample.columns[1:]:
        if looks_like_rle(sample[column]):
            break
        keys.append(column)
        if not pd.concat([ids, *(sample[k].astype(str) for k in keys)], axis=1).duplicated().any():
            return keys
    return []


def find_keyed(probe) -> dict | None:
    """`keyed_fields` of the probed dir, its keys those the harness knows (the metric's key columns) or else the
    sample's own (`keyed_by`)."""
    keys = probe.key_columns or keyed_by(probe.sample)
    if not keys or KEYED_TRAIN not in probe.names:
        return None
    targets = [c for c in probe.targets if c not in keys]
    return keyed_fields(probe.data_dir, probe.id_column, keys, targets, probe.sample)


def keyed_fields(data_dir: str, id_col: str, keys: list, targets: list, sample: pd.DataFrame) -> dict | None:
    """{"train", "id", "keys", "target", "source", "train_dir", "test_dir"} where the sample keys each row by the
    id and `keys`, train.csv holds those columns and the one target (`target`; the same column, or the one other,
    as `source`), and most ids of both sides begin with the name of a folder under a top-level folder with "train"
    (`train_dir`) and one with "test" (`test_dir`) in its name; None otherwise."""
    path = os.path.join(data_dir, KEYED_TRAIN)
    columns = list(pd.read_csv(path, nrows=0).columns)
    others = [c for c in columns if c not in (id_col, *keys)]
    if len(targets) != 1 or not {id_col, *keys} <= set(columns):
        return None
    source = targets[0] if targets[0] in columns else (others[0] if len(others) == 1 else None)
    if source is None:
        return None
    train_ids = pd.read_csv(path, dtype=str, keep_default_na=False, usecols=[id_col])[id_col]
    fields = {"train": KEYED_TRAIN, "id": id_col, "keys": list(keys), "target": targets[0], "source": source}
    for side, ids in (("test", sample[id_col]), ("train", train_ids)):
        folder = _folder_of_ids(data_dir, list(dict.fromkeys(ids.astype(str).str.strip())), side)
        if folder is None:
            return None
        fields[side + "_dir"] = folder
    return fields


def _folder_of_ids(data_dir: str, ids: list, word: str) -> str | None:
    """The top-level folder (its name holding `word`) under which most `ids` begin with a folder's name."""
    tops = sorted(n for n in os.listdir(data_dir) if os.path.isdir(os.path.join(data_dir, n)))
    for name in (n for n in tops if word in n.lower()):
        if ids and len(id_folders(os.path.join(data_dir, name), ids)) >= KEYED_FOLDER_SHARE * len(ids):
            return name
    return None


def read_keyed_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): train.csv's rows; the sample's ids and keys."""
    train = read_csv_as_meant(os.path.join(data_dir, fields["train"]), nrows=max_rows)
    return train, sample[[fields["id"], *fields["keys"]]].copy()


def keyed_masks(fields: dict, sample: pd.DataFrame, train: pd.DataFrame) -> bool:
    """Whether the keyed rows' target is a mask: run-length encoded in the sample and in train.csv."""
    source = train[fields["source"]] if fields["source"] in train.columns else pd.Series([], dtype=str)
    return looks_like_rle(sample[fields["target"]].astype(str)) and looks_like_rle(source)


def id_folders(root: str, ids) -> dict:
    """id -> the folder under `root` whose name is the id or, with a `_` after it, begins it (the longest such
    name: `case1_day2` over `case1` for `case1_day2_slice_0003`); a name two folders share names neither."""
    by_name = {}
    for current, dirs, _ in os.walk(root):
        for name in dirs:
            by_name[name] = None if name in by_name else os.path.join(current, name)
    found = {}
    for example in ids:
        cuts = [len(example)] + [i for i in range(len(example) - 1, 0, -1) if example[i] == "_"]
        for cut in cuts:  # the longest name first
            folder = by_name.get(example[:cut])
            if folder is not None:
                found[example] = folder
                break
    return found


def image_paths(root: str, ids) -> dict:
    """id -> its image under `root`: in the folder `id_folders` finds, the file whose name begins with the rest of
    the id and then `_` or `.` (`slice_0003` of `case1_day2_slice_0003`: `scans/slice_0003_266_266_1.50_1.50.png`)."""
    by_folder = {}
    for example, folder in id_folders(root, ids).items():
        by_folder.setdefault(folder, []).append(example)
    found = {}
    for folder, examples in by_folder.items():
        files = {}
        for parent, _, names in sorted(os.walk(folder)):
            for name in sorted(names):
                stem = name.split(".")[0]
                for cut in [len(stem)] + [i for i, c in enumerate(stem) if c == "_"]:
                    files.setdefault(stem[:cut], os.path.join(parent, name))
        for example in examples:
            path = files.get(example[len(os.path.basename(folder)) + 1 :])
            if path is not None:
                found[example] = path
    return found


def read_slice_image(path: str) -> np.ndarray:
    """An image as a 2-D float array (channels averaged); PIL is imported here, where images are read."""
    from PIL import Image

    with Image.open(path) as image:
        array = np.asarray(image, dtype=np.float32)
    return array.mean(axis=2) if array.ndim == 3 else array


def rle_mask(text, height: int, width: int) -> np.ndarray:
    """A run-length encoding (pixels numbered from 1 down each column; empty or "-" for none) as a height x width
    boolean array."""
    flat = np.zeros(height * width, dtype=bool)
    numbers = [int(v) for v in str(text if isinstance(text, str) else "").replace(EMPTY_MASK, " ").split()]
    for start, length in zip(numbers[0::2], numbers[1::2], strict=False):
        flat[start - 1 : start - 1 + length] = True
    return flat.reshape(width, height).T


def slice_pixel_features(image: np.ndarray) -> np.ndarray:
    """An image's pixels a row each (row-major): the value, the value over the image's largest, and the pixel's row
    and column as shares of the image's height and width."""
    height, width = image.shape
    rows, cols = np.mgrid[0:height, 0:width]
    top = float(image.max()) or 1.0
    return np.column_stack(
        [image.ravel(), image.ravel() / top, rows.ravel() / height, cols.ravel() / width]
    ).astype(np.float32)


def _slice_probabilities(model, image: np.ndarray) -> np.ndarray:
    """The model's probability for each pixel of an image: predicted on a grid of every n-th pixel where the image
    has more than SLICE_PREDICTED_PIXELS, each prediction standing for its n x n block (a 266 x 266 slice: every
    third pixel), so that thousands of test slices are predicted in minutes."""
    height, width = image.shape
    step, _ = grid_pixels(height, width, SLICE_PREDICTED_PIXELS)
    features = slice_pixel_features(image).reshape(height, width, -1)[::step, ::step]
    coarse = mask_proba(model, features.reshape(-1, features.shape[-1])).reshape(features.shape[:2])
    return spread_grid(coarse, step, height, width)


def _slice_pixels(rows: pd.DataFrame, paths: dict, fields: dict, max_rows: int, seed: int) -> tuple:
    """(features, 0/1 labels) of pixels drawn from the images of `rows` (a class's labelled rows): from each, its
    mask pixels and as many others, at random (seeded)."""
    rng = np.random.default_rng(seed)
    per_image = max(2, max_rows // max(1, len(rows)))
    parts, labels = [], []
    for example, text in zip(rows[fields["id"]], rows[fields["source"]], strict=True):
        image = read_slice_image(paths[example])
        mask = rle_mask(text, *image.shape).ravel()
        inside, outside = np.flatnonzero(mask), np.flatnonzero(~mask)
        inside = rng.permutation(inside)[: per_image // 2]
        chosen = np.concatenate([inside, rng.permutation(outside)[: max(len(inside), per_image // 2)]])
        parts.append(slice_pixel_features(image)[chosen])
        labels.append(mask[chosen].astype(int))
    return np.concatenate(parts), np.concatenate(labels)


def slice_mask_predictions(
    data_dir: str, fields: dict, train: pd.DataFrame, test: pd.DataFrame, new_model, seed: int
) -> tuple:
    """(each test row's mask as a run-length string, empty for none; the validation's mean global Dice over the
    classes): for each value of the key (each organ) a classifier of pixels (`new_model()`) over the image's values
    and positions, fitted on pixels drawn from up to MASK_EXAMPLES of its labelled images, its cut-off the one that
    gives the best global Dice on a fifth of them, then refitted on all of them."""
    id_col, key = fields["id"], fields["keys"][-1]
    train = train.assign(**{id_col: train[id_col].astype(str).str.strip()})
    train_paths = image_paths(os.path.join(data_dir, fields["train_dir"]), train[id_col].unique())
    test_ids = test[id_col].astype(str).str.strip()
    test_paths = image_paths(os.path.join(data_dir, fields["test_dir"]), test_ids.unique())
    train = train[train[id_col].isin(train_paths)]
    strings = np.full(len(test), "", dtype=object)
    dices = []
    for value in sorted(set(test[key].astype(str))):
        rows = train[train[key].astype(str) == value]
        rows = rows.iloc[np.random.default_rng(seed).permutation(len(rows))[:MASK_EXAMPLES]]
        if rows.empty:
            continue
        valid, fit = rows.iloc[: len(rows) // 5], rows.iloc[len(rows) // 5 :]
        threshold = 0.5
        if len(valid):
            model = fitted_model(new_model, *_slice_pixels(fit, train_paths, fields, MASK_FIT_PIXELS, seed))
            probas, truths = [], []
            for example, text in zip(valid[id_col], valid[fields["source"]], strict=True):
                image = read_slice_image(train_paths[example])
                probas.append(_slice_probabilities(model, image))
                truths.append(rle_mask(text, *image.shape).ravel())
            proba, truth = np.concatenate(probas), np.concatenate(truths)
            found = [global_dice(proba >= cut, truth) for cut in MASK_THRESHOLDS]
            threshold = float(MASK_THRESHOLDS[int(np.argmax(found))])
            dices.append(max(found))
        model = fitted_model(new_model, *_slice_pixels(rows, train_paths, fields, MASK_FIT_PIXELS, seed))
        for position in np.flatnonzero((test[key].astype(str) == value).to_numpy()):
            path = test_paths.get(test_ids.iloc[position])
            if path is not None:
                image = read_slice_image(path)
                mask = (_slice_probabilities(model, image) >= threshold).reshape(image.shape)
                strings[position] = "" if not mask.any() else rle_string(mask)
    return strings.tolist(), float(np.mean(dices)) if dices else float("nan")
