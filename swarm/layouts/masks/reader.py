"""Masks as arrays or images in a folder per example, scored as run-length encodings:
google-research-identify-contrails-reduce-global-warming has `train/<record_id>/` with the inputs
(`band_08.npy` .. `band_16.npy`, each height x width x time) and the labels (`human_pixel_masks.npy`, height x
width x 1; `human_individual_masks.npy`, one mask per annotator), `test/<record_id>/` with the inputs only, and a
sample of `record_id`, `encoded_pixels` (run-length encoded, "-" for an empty mask), `height`, `width`.
vesuvius-challenge-ink-detection has `train/<fragment>/` with the inputs (`mask.png`, `surface_volume/00.tif` ..
`64.tif`, 16-bit) and the labels (`inklabels.png`; `inklabels_rle.csv`, the same run-length encoded; `ir.png`, the
photo they were drawn on), `test/a/` with the inputs only, and a sample of `Id`, `Predicted`; its encodings number
the pixels along each row, which the training folders' own encoding file shows.

`mask_fields(data_dir, sample)` recognises the layout; `read_mask(path)` reads a mask file as a 2-D boolean
array; `rle_string(mask, order)` writes it as MLE-bench's `rle_encode` does (pixels numbered down each column, then
across: the transposed array flattened; 1-based starts; or along each row, then down), "-" where it is empty;
`mask_pixel_features(...)` gives an example's pixels a row each, a column per input channel; `drawn_pixels(...)` draws
training pixels from several examples, every mask pixel and as many others; `mask_predictions(...)` is the offline
coder's model: a pixel classifier over the inputs' channels, its threshold chosen for the global Dice on a fifth
of the examples.

The second part reads masks of images keyed by the id and a class (uw-madison-gi-tract-image-segmentation: a
row per slice and organ in train.csv, each slice a PNG in its scan's folder, whose name begins the id):
`id_folders` and `image_paths` find each id's folder and image, `slice_fields` recognises the layout, and
`slice_mask_predictions` is the offline coder's model, a pixel classifier per class.

Shared by the harness (swarm/layouts/masks/split.py, keyed_split.py) and the offline coder; the solutions the
offline coder writes embed this module's source, so it uses only os, numpy and pandas (and PIL where it reads an
image).
"""

import os

import numpy as np
import pandas as pd

MASK_IMAGE_SUFFIXES = (".png", ".tif", ".tiff")
ARRAY_SUFFIXES = (".npy", *MASK_IMAGE_SUFFIXES)  # files read as arrays: an example's inputs and its mask
MASK_WORDS = ("mask", "label", "truth", "target")  # words in the name of an example's label file
MASK_MATCH_SHARE = 0.9  # share of the sample's ids that must name folders of the test folder
MASK_PROBE_FOLDERS = 20  # example folders whose files are compared to find the inputs and the label file
SIZE_COLUMNS = ("height", "width")  # the sample's columns giving each mask's size (copied, not predicted)
EMPTY_MASK = "-"
MASK_EXAMPLES = 400  # training examples whose pixels the offline coder's model draws at most
MASK_FIT_PIXELS = 300_000  # training pixels it fits at most
MASK_INPUT_FILES = 16  # input files read at most, evenly spaced among them (vesuvius has 65 layers)
MASK_PREDICTED_PIXELS = (
    1_000_000  # pixels of an example predicted at most (a grid of every n-th pixel beyond)
)
MASK_THRESHOLDS = np.linspace(0.05, 0.95, 19)  # probability cut-offs tried for the global Dice
SLICE_PREDICTED_PIXELS = (
    16_384  # pixels of an image predicted at most (a grid of every n-th pixel beyond that)
)


def looks_like_rle(values: pd.Series) -> bool:
    """Whether every value is a run-length encoding ("start length ..." pairs of whole numbers) or empty."""
    texts = values.fillna("").astype(str).str.strip()
    texts = texts[~texts.isin(["", EMPTY_MASK])]
    return bool(texts.str.fullmatch(r"\d+ \d+( \d+ \d+)*").all())


def _mask_example_files(folder: str) -> set:
    """The files of an example folder, as paths relative to it."""
    found = set()
    for parent, _, names in os.walk(folder):
        found |= {os.path.relpath(os.path.join(parent, n), folder) for n in names}
    return found


def _subfolders(folder: str) -> list:
    return (
        sorted(n for n in os.listdir(folder) if os.path.isdir(os.path.join(folder, n)))
        if os.path.isdir(folder)
        else []
    )


def mask_fields(data_dir: str, sample: pd.DataFrame) -> dict | None:
    """{"test_dir", "train_dir", "mask", "inputs", "target"} where the sample (read as text; its first column
    the ids) has one run-length encoded column besides its size columns, its ids name the example folders of a
    folder with "test" in its name, and the training twin (its path with "train" for "test") has example folders
    that also hold one `.npy` label file (named with mask, label, truth or target; of several, the one of fewest
    dimensions: contrails' pixel masks, not the individual annotators' masks) which the test folders lack.
    `inputs` are the `.npy` files the test and training folders share. None otherwise."""
    if sample.shape[1] < 2:
        return None
    ids = set(sample.iloc[:, 0].astype(str).str.strip())
    others = [c for c in sample.columns[1:] if str(c).lower() not in SIZE_COLUMNS]
    if len(others) != 1 or not looks_like_rle(sample[others[0]]):
        return None
    for parent, subdirs, _ in os.walk(data_dir):
        for name in (d for d in sorted(subdirs) if "test" in d.lower()):
            test_dir = os.path.relpath(os.path.join(parent, name), data_dir)
            test_examples = _subfolders(os.path.join(data_dir, test_dir))
            if len(ids & set(test_examples)) < MASK_MATCH_SHARE * len(ids):
                continue
            train_dir = test_dir.replace(name, name.lower().replace("test", "train"))
            train_examples = [e for e in _subfolders(os.path.join(data_dir, train_dir)) if e not in ids]
            if not train_examples:
                continue
            fields = _folder_files(data_dir, test_dir, test_examples, train_dir, train_examples)
            if fields is not None:
                return {"test_dir": test_dir, "train_dir": train_dir, **fields, "target": str(others[0])}
    return None


def _folder_files(
    data_dir: str, test_dir: str, test_examples: list, train_dir: str, train_examples: list
) -> dict | None:
    """{"mask", "inputs", "order"} of the example folders (see mask_fields), or None."""
    probe = MASK_PROBE_FOLDERS
    test_files = [_mask_example_files(os.path.join(data_dir, test_dir, e)) for e in test_examples[:probe]]
    train_files = [_mask_example_files(os.path.join(data_dir, train_dir, e)) for e in train_examples[:probe]]
    inputs = sorted(
        n for n in set.intersection(*test_files, *train_files) if n.lower().endswith(ARRAY_SUFFIXES)
    )
    training_only = set.intersection(*train_files) - set.union(*test_files)
    labels = [
        n
        for n in training_only
        if n.lower().endswith(ARRAY_SUFFIXES)
        and any(word in os.path.basename(n).lower() for word in MASK_WORDS)
    ]
    if not inputs or not labels:
        return None
    first = os.path.join(data_dir, train_dir, train_examples[0])
    dims = {n: _dimensions(os.path.join(first, n)) for n in labels}
    fewest = min(dims.values())
    masks = [n for n in labels if dims[n] == fewest]
    if len(masks) != 1:
        return None
    if len(inputs) > MASK_INPUT_FILES:
        inputs = [inputs[int(i)] for i in np.linspace(0, len(inputs) - 1, MASK_INPUT_FILES).round()]
    encoded = [n for n in training_only if n.lower().endswith(".csv")]
    return {"mask": masks[0], "inputs": inputs, "order": _rle_order(first, masks[0], encoded)}


def _dimensions(path: str) -> int:
    """How many axes a mask file's array has (an image's: 2, or 3 with colour channels), read from its header."""
    if path.lower().endswith(".npy"):
        return np.load(path, mmap_mode="r").ndim
    from PIL import Image

    with Image.open(path) as image:
        return 2 if len(image.getbands()) == 1 else 3


def _rle_order(folder: str, mask: str, encoded: list) -> str:
    """ "rows" where a run-length encoding file of the example folder (vesuvius' `inklabels_rle.csv`: its last
    column's first cell) encodes its mask with pixels numbered along each row, else "columns" (MLE-bench's
    rle_encode: down each column)."""
    for name in sorted(encoded):
        try:
            cell = pd.read_csv(os.path.join(folder, name), dtype=str, nrows=1).iloc[0, -1]
        except (OSError, ValueError, IndexError, pd.errors.ParserError, UnicodeDecodeError):
            continue
        if isinstance(cell, str) and looks_like_rle(pd.Series([cell])):
            array = read_mask(os.path.join(folder, mask))
            if rle_string(array, "rows").split()[:2] == cell.split()[:2] != rle_string(array).split()[:2]:
                return "rows"
    return "columns"


def read_array(path: str) -> np.ndarray:
    """A `.npy` array, or an image as an array (PIL's size limit lifted: a vesuvius fragment has 141 million
    pixels)."""
    if path.lower().endswith(".npy"):
        return np.load(path)
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None
    with Image.open(path) as image:
        return np.asarray(image)


def read_mask(path: str) -> np.ndarray:
    """A mask file as a 2-D boolean array (axes of length 1 dropped: contrails' height x width x 1; an image's
    colour channels taken together: any)."""
    array = read_array(path)
    if not path.lower().endswith(".npy") and array.ndim == 3:
        array = array.max(axis=2)
    squeezed = array.reshape([n for n in array.shape if n != 1] or [1, 1])
    if squeezed.ndim != 2:
        raise ValueError(f"{path}: a mask must be 2-D once axes of length 1 are dropped, not {array.shape}")
    return squeezed > 0


def rle_string(mask: np.ndarray, order: str = "columns") -> str:
    """ "start length ..." of a 2-D mask, pixels numbered from 1 down each column, then across (MLE-bench's
    rle_encode), or with `order` "rows" along each row, then down (vesuvius); "-" where the mask is empty."""
    pixels = np.asarray(mask, dtype=bool)
    flat = np.concatenate([[0], (pixels if order == "rows" else pixels.T).ravel().astype(np.int8), [0]])
    edges = np.flatnonzero(np.diff(flat))
    if not len(edges):
        return EMPTY_MASK
    starts, ends = edges[0::2], edges[1::2]
    return " ".join(f"{s + 1} {e - s}" for s, e in zip(starts, ends, strict=True))


def mask_pixel_features(folder: str, inputs: list, rows: np.ndarray | None = None) -> np.ndarray:
    """An example's pixels a row each (row-major; only the flat pixel numbers `rows` where given), a column per
    channel of its inputs: each input array is height x width (one channel) or height x width x ... (the rest of
    its axes flattened into channels). One input is read at a time, so a large example's pixels can be drawn."""
    channels = []
    for name in inputs:
        array = read_array(os.path.join(folder, name))
        height, width = array.shape[:2]
        flat = array.reshape(height * width, -1)
        channels.append(np.asarray(flat if rows is None else flat[rows], dtype=np.float32))
    return np.concatenate(channels, axis=1)


def example_shape(folder: str, inputs: list) -> tuple:
    """(height, width) of an example: its first input's."""
    path = os.path.join(folder, inputs[0])
    if path.lower().endswith(".npy"):
        return tuple(np.load(path, mmap_mode="r").shape[:2])
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None
    with Image.open(path) as image:
        return image.size[1], image.size[0]


def grid_pixels(height: int, width: int, most: int) -> tuple:
    """(step, flat pixel numbers of every step-th row and column): the step the smallest that keeps them at or
    below `most` (1: every pixel)."""
    step = max(1, int(np.ceil(np.sqrt(height * width / most))))
    rows, cols = np.mgrid[0:height:step, 0:width:step]
    return step, (rows * width + cols).ravel()


def spread_grid(coarse: np.ndarray, step: int, height: int, width: int) -> np.ndarray:
    """A grid's values (its rows and columns) spread over the step x step blocks they stand for, flattened."""
    return np.repeat(np.repeat(coarse, step, axis=0), step, axis=1)[:height, :width].ravel()


def mask_examples(data_dir: str, fields: dict, id_col: str) -> pd.DataFrame:
    """The training examples: their ids and, as the target column, the path of each one's mask file."""
    train_dir = os.path.join(data_dir, fields["train_dir"])
    ids = [e for e in _subfolders(train_dir) if os.path.isfile(os.path.join(train_dir, e, fields["mask"]))]
    return pd.DataFrame(
        {id_col: ids, fields["target"]: [os.path.join(train_dir, e, fields["mask"]) for e in ids]}
    )


def drawn_pixels(
    data_dir: str, fields: dict, ids: list, max_rows: int, seed: int, above: float = 1.0
) -> tuple:
    """(features, 0/1 labels) of training pixels drawn from the examples `ids` in turn until about `max_rows`:
    from each, its mask pixels and as many others (at random, seeded), so that rare masks are learnt; only from
    the rows above the share `above` of each example's height where that is below 1."""
    rng = np.random.default_rng(seed)
    per_example = max(2, max_rows // max(1, len(ids)))
    parts, labels, total = [], [], 0
    for example in ids:
        folder = os.path.join(data_dir, fields["train_dir"], example)
        mask2d = read_mask(os.path.join(folder, fields["mask"]))
        mask = mask2d[: int(np.ceil(mask2d.shape[0] * above))].ravel()  # row-major: the top rows come first
        inside, outside = np.flatnonzero(mask), np.flatnonzero(~mask)
        inside = rng.permutation(inside)[: per_example // 2]
        outside = rng.permutation(outside)[: max(len(inside), per_example // 2)]
        rows = np.concatenate([inside, outside])
        parts.append(mask_pixel_features(folder, fields["inputs"], rows))
        labels.append(mask[rows].astype(int))
        total += len(rows)
        if total >= max_rows:
            break
    return np.concatenate(parts), np.concatenate(labels)


def _fitted(new_model, features: np.ndarray, labels: np.ndarray):
    """A model fitted on the pixels, or the constant share of mask pixels where they are all of one kind."""
    if labels.min() == labels.max():
        return float(labels[0])
    model = new_model()
    model.fit(features, labels)
    return model


def _mask_proba(model, features: np.ndarray) -> np.ndarray:
    if isinstance(model, float):
        return np.full(len(features), model)
    return model.predict_proba(features)[:, list(model.classes_).index(1)]


def global_dice(predicted: np.ndarray, truth: np.ndarray) -> float:
    """2 |X & Y| / (|X| + |Y|) over all pixels (1 where both are empty)."""
    total = int(predicted.sum()) + int(truth.sum())
    return 2 * int((predicted & truth).sum()) / total if total else 1.0


def mask_predictions(
    data_dir: str, fields: dict, train_ids: list, test_ids: list, new_model, seed: int
) -> tuple:
    """(each test example's mask as a run-length string, the validation's global Dice): a binary classifier of
    pixels (`new_model()`) over the inputs' channels, fitted on pixels drawn from up to MASK_EXAMPLES training
    examples; the cut-off on its probability that gives the best global Dice on a fifth of them (whole masks; with
    fewer than five, as vesuvius' two fragments, the bottom fifth of each one's rows), then refitted on all of them.
    An example of more than MASK_PREDICTED_PIXELS is predicted on a grid."""
    chosen = [str(i) for i in np.random.default_rng(seed).permutation(np.asarray(train_ids, dtype=str))]
    chosen = chosen[:MASK_EXAMPLES]
    valid = chosen[: len(chosen) // 5]
    threshold, dice = 0.5, float("nan")
    if chosen:
        fit, above = (chosen[len(valid) :], 1.0) if valid else (chosen, 0.8)
        model = _fitted(new_model, *drawn_pixels(data_dir, fields, fit, MASK_FIT_PIXELS, seed, above))
        probas, truths = [], []
        for example in valid or chosen:
            folder = os.path.join(data_dir, fields["train_dir"], example)
            height, width = example_shape(folder, fields["inputs"])
            _, rows = grid_pixels(height, width, MASK_PREDICTED_PIXELS)
            if not valid:  # the rows below those the model was fitted on
                rows = rows[rows >= int(np.ceil(height * above)) * width]
            probas.append(_mask_proba(model, mask_pixel_features(folder, fields["inputs"], rows)))
            truths.append(read_mask(os.path.join(folder, fields["mask"])).ravel()[rows])
        proba, truth = np.concatenate(probas), np.concatenate(truths)
        dices = [global_dice(proba >= cut, truth) for cut in MASK_THRESHOLDS]
        threshold, dice = float(MASK_THRESHOLDS[int(np.argmax(dices))]), float(max(dices))
    model = _fitted(new_model, *drawn_pixels(data_dir, fields, chosen, MASK_FIT_PIXELS, seed))
    strings = []
    for example in test_ids:
        folder = os.path.join(data_dir, fields["test_dir"], str(example).strip())
        height, width = example_shape(folder, fields["inputs"])
        step, rows = grid_pixels(height, width, MASK_PREDICTED_PIXELS)
        proba = _mask_proba(model, mask_pixel_features(folder, fields["inputs"], rows))
        coarse = proba.reshape(len(range(0, height, step)), len(range(0, width, step)))
        mask = spread_grid(coarse >= threshold, step, height, width).reshape(height, width)
        strings.append(rle_string(mask, fields.get("order", "columns")))
    return strings, dice


# ---- an image per id in a folder the id begins with, a mask per (image, class) row: uw-madison ------------------
# train.csv has a row per (slice, organ): `id` (`case<c>_day<d>_slice_<s>`), `class`, the mask run-length encoded
# down each column (`segmentation`, empty where the organ is absent); the sample the test rows' `id`, `class` and
# `predicted`. A slice's image is `<train|test>/case<c>/case<c>_day<d>/scans/slice_<s>_<width>_<height>_....png`:
# under the folder whose name and a `_` begin the id, the file whose name begins with the rest of the id.


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


def _keyed_by(sample: pd.DataFrame) -> list:
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


def slice_fields(data_dir: str, sample: pd.DataFrame, train: pd.DataFrame) -> dict | None:
    """{"id", "keys", "target", "source", "train_dir", "test_dir"} where the sample (read as text) keys its rows by
    the id and `keys` and has one run-length encoded `target`, the labelled table `train` has the id, the keys and
    one run-length encoded `source` column (the target, maybe renamed), and most ids of both sides have an image
    (`image_paths`) under a top-level folder with "train" and one with "test" in its name. None otherwise."""
    keys = _keyed_by(sample)
    id_col = sample.columns[0]
    others = [c for c in sample.columns[1:] if c not in keys]
    if not keys or len(others) != 1 or not looks_like_rle(sample[others[0]]):
        return None
    if not {id_col, *keys} <= set(train.columns):
        return None
    rle = [c for c in train.columns if c not in (id_col, *keys) and looks_like_rle(train[c])]
    if len(rle) != 1:
        return None
    fields = {"id": id_col, "keys": keys, "target": others[0], "source": rle[0]}
    tops = sorted(n for n in os.listdir(data_dir) if os.path.isdir(os.path.join(data_dir, n)))
    for side, ids in (("test", sample[id_col]), ("train", train[id_col])):
        wanted = list(dict.fromkeys(ids.astype(str).str.strip()))
        for name in (n for n in tops if side in n.lower()):
            if len(image_paths(os.path.join(data_dir, name), wanted)) >= MASK_MATCH_SHARE * len(wanted):
                fields[side + "_dir"] = name
                break
        else:
            return None
    return fields


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
    coarse = _mask_proba(model, features.reshape(-1, features.shape[-1])).reshape(features.shape[:2])
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
            model = _fitted(new_model, *_slice_pixels(fit, train_paths, fields, MASK_FIT_PIXELS, seed))
            probas, truths = [], []
            for example, text in zip(valid[id_col], valid[fields["source"]], strict=True):
                image = read_slice_image(train_paths[example])
                probas.append(_slice_probabilities(model, image))
                truths.append(rle_mask(text, *image.shape).ravel())
            proba, truth = np.concatenate(probas), np.concatenate(truths)
            found = [global_dice(proba >= cut, truth) for cut in MASK_THRESHOLDS]
            threshold = float(MASK_THRESHOLDS[int(np.argmax(found))])
            dices.append(max(found))
        model = _fitted(new_model, *_slice_pixels(rows, train_paths, fields, MASK_FIT_PIXELS, seed))
        for position in np.flatnonzero((test[key].astype(str) == value).to_numpy()):
            path = test_paths.get(test_ids.iloc[position])
            if path is not None:
                image = read_slice_image(path)
                mask = (_slice_probabilities(model, image) >= threshold).reshape(image.shape)
                strings[position] = "" if not mask.any() else rle_string(mask)
    return strings.tolist(), float(np.mean(dices)) if dices else float("nan")


def find_masks(probe) -> dict | None:
    """The fields of a mask file in a folder per example (see `mask_fields`) where no labelled table is named."""
    if probe.labelled_table:
        return None
    return mask_fields(probe.data_dir, probe.sample)


def read_masks_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the training example folders with their mask files; the sample's rows."""
    train = mask_examples(data_dir, fields, sample.columns[0]).head(max_rows)
    return train, sample.drop(columns=[fields["target"]])
