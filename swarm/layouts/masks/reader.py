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

Shared by the harness (swarm/layouts/masks/split.py), the keyed layout's reader (swarm/layouts/keyed/reader.py:
masks of images keyed by the id and a class) and the offline coder; the solutions the
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


def fitted_model(new_model, features: np.ndarray, labels: np.ndarray):
    """A model fitted on the pixels, or the constant share of mask pixels where they are all of one kind."""
    if labels.min() == labels.max():
        return float(labels[0])
    model = new_model()
    model.fit(features, labels)
    return model


def mask_proba(model, features: np.ndarray) -> np.ndarray:
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
        model = fitted_model(new_model, *drawn_pixels(data_dir, fields, fit, MASK_FIT_PIXELS, seed, above))
        probas, truths = [], []
        for example in valid or chosen:
            folder = os.path.join(data_dir, fields["train_dir"], example)
            height, width = example_shape(folder, fields["inputs"])
            _, rows = grid_pixels(height, width, MASK_PREDICTED_PIXELS)
            if not valid:  # the rows below those the model was fitted on
                rows = rows[rows >= int(np.ceil(height * above)) * width]
            probas.append(mask_proba(model, mask_pixel_features(folder, fields["inputs"], rows)))
            truths.append(read_mask(os.path.join(folder, fields["mask"])).ravel()[rows])
        proba, truth = np.concatenate(probas), np.concatenate(truths)
        dices = [global_dice(proba >= cut, truth) for cut in MASK_THRESHOLDS]
        threshold, dice = float(MASK_THRESHOLDS[int(np.argmax(dices))]), float(max(dices))
    model = fitted_model(new_model, *drawn_pixels(data_dir, fields, chosen, MASK_FIT_PIXELS, seed))
    strings = []
    for example in test_ids:
        folder = os.path.join(data_dir, fields["test_dir"], str(example).strip())
        height, width = example_shape(folder, fields["inputs"])
        step, rows = grid_pixels(height, width, MASK_PREDICTED_PIXELS)
        proba = mask_proba(model, mask_pixel_features(folder, fields["inputs"], rows))
        coarse = proba.reshape(len(range(0, height, step)), len(range(0, width, step)))
        mask = spread_grid(coarse >= threshold, step, height, width).reshape(height, width)
        strings.append(rle_string(mask, fields.get("order", "columns")))
    return strings, dice


def find_masks(probe) -> dict | None:
    """The fields of a mask file in a folder per example (see `mask_fields`) where no labelled table is named."""
    if probe.labelled_table:
        return None
    return mask_fields(probe.data_dir, probe.sample)


def read_masks_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the training example folders with their mask files; the sample's rows."""
    train = mask_examples(data_dir, fields, sample.columns[0]).head(max_rows)
    return train, sample.drop(columns=[fields["target"]])
