"""What each column of a competition's tables is: numeric, categorical, high-cardinality code, free text,
datetime, identifier, file reference or constant.

Shared by the data preview (what a prompt shows), the offline coder (which features it builds) and the
solutions the offline coder writes without data (this module's source is embedded into them, so it uses only
os, re, numpy and pandas; Pillow is optional and only read for image sizes).

`column_kinds(train, test, skip, data_dir)` returns {column: info}, where info is a small JSON-able dict with
"kind" and what the kind needs: "levels" (categorical codes), "words"/"chars" (text), "test_after_train" and
ranges (datetime), "folders", "suffix", "match", "image" and, for sound clips (swarm/formats/audio.py), "audio"
(file references, folders relative to data_dir).
"""

import os
import re

import numpy as np
import pandas as pd

from swarm.formats.audio import AUDIO_SUFFIXES

KINDS = ("numeric", "categorical", "high_cardinality", "text", "datetime", "identifier", "file", "constant")
MAX_LEVELS = 50  # more distinct values than this: a high-cardinality code (or text, or an identifier)
UNIQUE_SHARE = 0.95  # a string column this unique that is neither text nor a file names rows: an identifier
TEXT_WORDS = 3.0  # mean words per value from which a many-valued string column is free text
TEXT_CHARS = 30.0
DATE_SHARE = 0.9  # share of sampled values that must parse as dates
SAMPLE = 500
FILE_SHARE = 0.8  # share of sampled values that must name an existing file
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")
_DATE_SHAPE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{1,2}:\d{2}")
_ID_NAME = re.compile(
    r"(^|[_\s-])(id|uuid|key|index|idx)$|^id[_\s-]|^(id|uuid|key|index|idx)$", re.IGNORECASE
)
_MAX_DIRS = 200
_MAX_LISTED = 500_000


def _strings(values: pd.Series) -> pd.Series:
    return values.dropna().astype(str).str.strip()


def _sample(values: pd.Series, n: int = SAMPLE) -> pd.Series:
    values = values.dropna()
    if len(values) <= n:
        return values
    return values.sample(n, random_state=0)


def _as_datetimes(values: pd.Series) -> pd.Series:
    """Values parsed as datetimes (NaT where they do not parse)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pd.to_datetime(values.astype(str), errors="coerce", format="mixed")


def looks_like_dates(values: pd.Series) -> bool:
    """Whether a string column holds dates or times (most sampled values have a date shape and parse)."""
    sample = _strings(_sample(values))
    if sample.empty or pd.api.types.is_numeric_dtype(values):
        return False
    shaped = sample.str.contains(_DATE_SHAPE).mean()
    return bool(shaped >= DATE_SHARE and _as_datetimes(sample).notna().mean() >= DATE_SHARE)


def _is_integer_valued(values: pd.Series) -> bool:
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return False
    arr = values.dropna().to_numpy(dtype=float)
    return bool(arr.size and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))


def _numeric_identifier(name: str, values: pd.Series) -> bool:
    """Unique integers that are named like an id or number the rows consecutively."""
    values = values.dropna()
    if len(values) < 2 or not _is_integer_valued(values) or values.nunique() < len(values):
        return False
    span = float(values.max() - values.min()) + 1
    return bool(_ID_NAME.search(str(name))) or span <= 1.1 * len(values)


class FileIndex:
    """The files under a data dir, by name and by stem, per folder (folders relative to the dir)."""

    def __init__(self, data_dir: str) -> None:
        self.root = data_dir
        self.folders: dict[str, tuple[set, set, dict]] = {}
        listed = 0
        for folder, dirs, files in os.walk(data_dir):
            dirs.sort()
            depth = os.path.relpath(folder, data_dir).count(os.sep)
            if depth >= 3:
                dirs[:] = []
            if not files:
                continue
            rel = os.path.relpath(folder, data_dir)
            stems: dict = {}
            for name in files:
                stems.setdefault(os.path.splitext(name)[0], name)
            self.folders[rel] = (set(files), set(stems), stems)
            listed += len(files)
            if len(self.folders) >= _MAX_DIRS or listed >= _MAX_LISTED:
                break

    def locate(self, values: list[str]) -> tuple[str, list[str], str | None] | None:
        """How `values` name files: ("path" | "name" | "stem", folders holding them, suffix), or None."""
        if not values:
            return None
        paths = [v for v in values if os.path.isfile(os.path.join(self.root, v))]
        if len(paths) >= FILE_SHARE * len(values):
            return "path", sorted({os.path.dirname(v) or "." for v in paths}), _common_suffix(paths)
        for match in ("name", "stem"):
            found: dict[str, int] = {}
            for rel, (names, stems, _) in self.folders.items():
                hits = sum(1 for v in values if v in (names if match == "name" else stems))
                if hits:
                    found[rel] = hits
            if found and sum(found.values()) >= FILE_SHARE * len(values):
                folders = sorted(found, key=lambda rel: -found[rel])
                if match == "name":
                    suffix = _common_suffix(values)
                else:
                    stems = self.folders[folders[0]][2]
                    suffix = _common_suffix([stems[v] for v in values if v in stems])
                return match, folders, suffix
        return None


def _common_suffix(names: list[str]) -> str | None:
    """The files' most common extension as written (`.PNG` stays upper-case: the path is built with it)."""
    suffixes = pd.Series([os.path.splitext(n)[1] for n in names])
    return str(suffixes.mode().iloc[0]) if len(suffixes) and suffixes.mode().iloc[0] else None


def _file_info(train: pd.Series, test: pd.Series, index: FileIndex | None) -> dict | None:
    if index is None or pd.api.types.is_numeric_dtype(train):
        return None
    values = [str(v) for v in _strings(_sample(pd.concat([train, test], ignore_index=True), 200))]
    found = index.locate(values)
    if found is None:
        return None
    match, folders, suffix = found
    kind = (suffix or "").lower()  # `.PNG` is an image as `.png` is
    info = {"kind": "file", "match": match, "folders": folders, "suffix": suffix,
            "image": bool(kind in IMAGE_SUFFIXES)}  # fmt: skip
    if kind in AUDIO_SUFFIXES:  # marked only where true, so other files' kinds read as they always did
        info["audio"] = True
    return info


def _datetime_info(train: pd.Series, test: pd.Series) -> dict:
    train_dates, test_dates = _as_datetimes(train.dropna()), _as_datetimes(test.dropna())
    info: dict = {"kind": "datetime", "test_after_train": False}
    if train_dates.notna().any():
        info["train_range"] = [str(train_dates.min()), str(train_dates.max())]
    if test_dates.notna().any():
        info["test_range"] = [str(test_dates.min()), str(test_dates.max())]
        if train_dates.notna().any():
            info["test_after_train"] = bool(test_dates.min() >= train_dates.max())
    return info


def column_info(
    name: str, train: pd.Series, test: pd.Series | None = None, index: FileIndex | None = None
) -> dict:
    """The kind of one column from its train and test values (see the module docstring)."""
    test = test if test is not None else train.iloc[:0]
    both = pd.concat([train, test], ignore_index=True)
    values = both.dropna()
    levels = int(values.nunique()) if len(values) else 0
    if levels <= 1:
        return {"kind": "constant"}
    if pd.api.types.is_bool_dtype(values) or pd.api.types.is_numeric_dtype(values):
        if _numeric_identifier(name, values):
            return {"kind": "identifier"}
        return {"kind": "numeric"}
    files = _file_info(train, test, index)
    if files is not None:
        return files
    if looks_like_dates(values):
        return _datetime_info(train, test)
    strings = _strings(_sample(values, 2000))
    words = float(strings.str.split().str.len().mean())
    chars = float(strings.str.len().mean())
    if levels > MAX_LEVELS and (words >= TEXT_WORDS or chars >= TEXT_CHARS):
        return {"kind": "text", "words": round(words, 1), "chars": round(chars, 1)}
    if levels <= MAX_LEVELS:
        return {"kind": "categorical", "levels": levels}
    if levels >= UNIQUE_SHARE * len(values):
        return {"kind": "identifier"}
    return {"kind": "high_cardinality", "levels": levels}


def column_kinds(
    train: pd.DataFrame,
    test: pd.DataFrame | None = None,
    skip: tuple = (),
    data_dir: str | None = None,
) -> dict[str, dict]:
    """{column: info} for every column of `train` but those in `skip` (targets), in train's order."""
    index = FileIndex(str(data_dir)) if data_dir and os.path.isdir(str(data_dir)) else None
    kinds = {}
    for name in train.columns:
        if name in skip:
            continue
        other = test[name] if test is not None and name in test.columns else None
        kinds[name] = column_info(str(name), train[name], other, index)
    return kinds


def resolve_file(value: str, info: dict, data_dir: str) -> str | None:
    """The path of the file a file-reference value names (trying each of its folders), or None."""
    value = str(value).strip()
    if info.get("match") == "path":
        path = os.path.join(data_dir, value)
        return path if os.path.isfile(path) else None
    name = value if info.get("match") == "name" else value + (info.get("suffix") or "")
    for folder in info.get("folders") or ["."]:
        path = os.path.join(data_dir, folder, name)
        if os.path.isfile(path):
            return path
    return None


# Names that mark a labelled-table column as the labels where several could stand for a renamed target.
LABEL_NAMES = ("target", "label", "labels", "answer", "y")
# Words that mark a labels table as weaker than its twin (freesound's train_noisy.csv beside train_curated.csv).
WEAK_TABLE_WORDS = ("noisy", "extra", "external", "additional", "pseudo", "weak")


def main_labels_table(names: list) -> str | None:
    """Of several labels tables, the one whose name has none of WEAK_TABLE_WORDS where exactly one has none
    (train_curated.csv beside train_noisy.csv), else None. The harness holds rows out of it and the offline coder
    reads it."""
    plain = [n for n in names if not any(w in os.path.basename(str(n)).lower() for w in WEAK_TABLE_WORDS)]
    return plain[0] if len(plain) == 1 and len(names) > 1 else None


def all_numbers(values: pd.Series) -> bool:
    """Whether every non-empty cell of a column is a number (and there is one)."""
    cells = values.dropna().astype(str).str.strip()
    cells = cells[(cells != "") & (cells.str.lower() != "nan")]
    return bool(len(cells)) and bool(pd.to_numeric(cells, errors="coerce").notna().all())


def renamed_source(candidates: list, numeric: dict, numbers: bool | None) -> str | None:
    """Of the labelled table's columns known only for labelled rows (`candidates`; `numeric`: which hold only
    numbers), the one that stands for a target the submission names otherwise (chaii's `answer_text` for
    `PredictionString`): the one of the target's kind (`numbers` True: numbers; False: text, where any column
    is text; None: either), else the one of those named like labels (`target`); None where no single one fits.
    The harness (swarm/evaluation/labels.py) and the offline coder (swarm/offline_coder/inference.py) read it alike."""
    if numbers is True:
        candidates = [c for c in candidates if numeric[c]]
    elif numbers is False and any(not numeric[c] for c in candidates):
        candidates = [c for c in candidates if not numeric[c]]
    if len(candidates) != 1:
        candidates = [c for c in candidates if str(c).strip().lower() in LABEL_NAMES]
    return candidates[0] if len(candidates) == 1 else None
