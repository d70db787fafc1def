"""Labelled examples whose labels are in file names or folder names, not in a table.

Three layouts of MLE-bench's competitions: the class in each training file's name (`train/cat.0.jpg`,
`train/dog.1.jpg`; `train2/..._Train0_1.aif`, where the last part is the label) or in its folder
(`train/<class>/<file>.png`), with the test files beside them in a folder named by the sample submission's ids
(`test/1.jpg`); or versions of the same examples in folders beside the test folder, one of originals and the
others altered (alaska2-image-steganalysis: `Cover/00001.jpg`, `JMiPOD/00001.jpg`, `JUNIWARD/`, `UERD/` beside
`Test/0001.jpg`), an altered version labelled 1 and an original 0. `find_file_labels(data_dir, test_ids, target, sample_values, description)` finds such a layout
and says how to read it (a small JSON-able dict); `file_label_frame(data_dir, layout)` reads the training
examples as a table (`input_file`: the path relative to data_dir, and the target column), `test_file_paths` the test
files of the sample's ids.

Shared by the harness (which splits these examples) and the offline coder; the solutions the offline coder
writes embed this module's source, so it uses only os, re and pandas.
"""

import os
import re

import pandas as pd

FILE_COLUMN = (
    "input_file"  # the column of the examples' file paths (not "file": an id column may be so named)
)
NAME_SEPARATORS = r"[._-]"
MATCH_SHARE = 0.9  # share of test ids that must name files in the test folder
MAX_FILES = 2_000_000
# A folder of unaltered versions among folders of the same files altered: its name says so.
ORIGINALS = re.compile(r"cover|original|clean|pristine|unaltered", re.IGNORECASE)


def _files_in(folder: str) -> list[str]:
    try:
        return sorted(entry.name for entry in os.scandir(folder) if entry.is_file())
    except OSError:
        return []


def _subdirs(folder: str) -> list[str]:
    try:
        return sorted(entry.name for entry in os.scandir(folder) if entry.is_dir())
    except OSError:
        return []


def _file_folders(data_dir: str, depth: int = 2) -> list[str]:
    """Folders under data_dir (relative), to `depth` levels."""
    found = []
    for folder, dirs, _files in os.walk(data_dir):
        rel = os.path.relpath(folder, data_dir)
        if rel != "." and rel.count(os.sep) + 1 >= depth:
            dirs[:] = []
        dirs.sort()
        if rel != ".":
            found.append(rel)
    return found


def _test_folder(data_dir: str, test_ids: list[str]) -> tuple[str, str] | None:
    """(folder, "name" | "stem"): the folder whose files the test ids name; the first with 'test' in its path."""
    wanted = {str(i).strip() for i in test_ids}
    if not wanted:
        return None
    matches = []
    for rel in _file_folders(data_dir):
        names = _files_in(os.path.join(data_dir, rel))
        for match, keys in (("name", set(names)), ("stem", {os.path.splitext(n)[0] for n in names})):
            if len(wanted & keys) >= MATCH_SHARE * len(wanted):
                matches.append((rel, match))
                break
    matches.sort(key=lambda item: "test" not in item[0].lower())
    return matches[0] if matches else None


def _train_folder(data_dir: str, test_folder: str) -> str | None:
    """The test folder's twin ('test' read as 'train'), else the one folder beside it named like training data."""
    twin = re.sub("test", "train", test_folder, flags=re.IGNORECASE)
    if twin != test_folder and os.path.isdir(os.path.join(data_dir, twin)):
        return twin
    parent = os.path.dirname(test_folder)
    candidates = [
        os.path.join(parent, name) if parent else name
        for name in _subdirs(os.path.join(data_dir, parent))
        if "train" in name.lower()
    ]
    return candidates[0] if len(candidates) == 1 else None


def _tokens(name: str) -> list[str]:
    return re.split(NAME_SEPARATORS, os.path.splitext(name)[0])


def _name_label_position(train_names: list[str], test_names: list[str]) -> int | None:
    """Which part of a training file's name is its label (0: the first, -1: the last), or None: a part with few
    values, each shared by many files, that the test files' names never show there (of two such, the one with
    fewer values, then the shorter: `0`/`1` rather than two recording dates)."""
    best = None
    for position in (0, -1):
        values = [parts[position] for parts in map(_tokens, train_names) if len(parts) >= 2]
        if len(values) < MATCH_SHARE * len(train_names):
            continue
        distinct = set(values)
        test_values = {parts[position] for parts in map(_tokens, test_names) if len(parts) >= 2}
        if not 2 <= len(distinct) <= len(values) / 2 or distinct & test_values:
            continue
        rank = (len(distinct), sum(map(len, distinct)) / len(distinct))  # fewer values, then shorter ones
        if best is None or rank < best[1]:
            best = (position, rank)
    return best[0] if best else None


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def positive_class(description: str, classes: list[str]) -> str:
    """The class a probability is for, read from the description ('1 = dog', 'dog (1)', 'probability that
    the image is a dog'), else the last class in sorted order."""
    text = description or ""
    names = "|".join(re.escape(c) for c in sorted(classes, key=len, reverse=True))
    for pattern in (
        rf"\b1\s*(?:=|:|means|is|for)\s*(?:an?\s+|the\s+)?({names})\b",
        rf"\b({names})\s*(?:=|:|\(|is)\s*1\b",
        rf"probabilit(?:y|ies)\b[^.\n]{{0,80}}?\b({names})\b",
    ):
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return next(c for c in classes if c.lower() == found.group(1).lower())
    return sorted(classes)[-1]


def find_file_labels(
    data_dir: str,
    test_ids: list[str],
    target: str,
    sample_values: list[str] | None = None,
    description: str = "",
) -> dict | None:
    """How to read training examples labelled by their file or folder names (see the module doc), or None.

    The layout dict: {"kind": "names" | "folders" | "variants", "train": folder, "test": folder, "test_match":
    "name" | "stem", "position": which part of the name (names), "target": the submission's target column,
    "positive": the class that is 1 when the submission wants numbers (a probability) and the labels are words,
    else None, "classes": the labels found}; for variants also "folders" (the versions' folders) and "negative"
    (the originals')."""
    test = _test_folder(data_dir, test_ids)
    if test is None:
        return None
    test_folder, test_match = test
    train_folder = _train_folder(data_dir, test_folder)
    if train_folder is None:
        return _variant_folders(data_dir, test_folder, test_match, target, sample_values)
    root = os.path.join(data_dir, train_folder)
    classes_dirs = [d for d in _subdirs(root) if _files_in(os.path.join(root, d))]
    loose = _files_in(root)
    layout = {"train": train_folder, "test": test_folder, "test_match": test_match, "target": target}
    if len(classes_dirs) >= 2 and len(loose) <= 0.1 * sum(
        len(_files_in(os.path.join(root, d))) for d in classes_dirs
    ):
        layout.update(kind="folders", position=None, classes=classes_dirs)
    else:
        position = _name_label_position(loose, _files_in(os.path.join(data_dir, test_folder)))
        if position is None:
            return None
        classes = sorted({_tokens(n)[position] for n in loose if len(_tokens(n)) >= 2})
        layout.update(kind="names", position=position, classes=classes)
    wants_numbers = bool(sample_values) and all(_is_number(str(v)) for v in sample_values)
    words = not all(_is_number(c) for c in layout["classes"])
    two = len(layout["classes"]) == 2
    layout["positive"] = (
        positive_class(description, layout["classes"]) if wants_numbers and words and two else None
    )
    if wants_numbers and words and not two:
        return None  # a number per example, but many named classes: not a layout this reads
    return layout


def _variant_folders(
    data_dir: str, test_folder: str, test_match: str, target: str, sample_values: list[str] | None
) -> dict | None:
    """The layout of versions of the same files in the folders beside the test folder (see the module doc):
    at least two folders holding the same file names (MATCH_SHARE of the first's), one of them named as the
    originals (ORIGINALS), for a submission of numbers (the chance a file is altered); else None."""
    if not sample_values or not all(_is_number(str(v)) for v in sample_values):
        return None
    parent = os.path.dirname(test_folder)
    test_name = os.path.basename(test_folder)
    folders = [d for d in _subdirs(os.path.join(data_dir, parent)) if d != test_name]
    names = {d: set(_files_in(os.path.join(data_dir, parent, d))) for d in folders}
    originals = [d for d in folders if ORIGINALS.search(d) and names[d]]
    if len(originals) != 1:
        return None
    base = names[originals[0]]
    versions = [d for d in folders if names[d] and len(base & names[d]) >= MATCH_SHARE * len(base)]
    if len(versions) < 2:
        return None
    return {
        "kind": "variants",
        "train": parent or ".",
        "folders": versions,
        "negative": originals[0],
        "test": test_folder,
        "test_match": test_match,
        "target": target,
        "positive": None,
        "classes": ["0", "1"],
    }


def file_label_frame(data_dir: str, layout: dict) -> pd.DataFrame:
    """The training examples: `input_file` (the path relative to data_dir) and the target column (the label, or 1/0
    for the positive class)."""
    root = os.path.join(data_dir, layout["train"])
    files, labels = [], []
    if layout["kind"] == "variants":  # every version of every file: 0 for the originals, 1 for the others
        prefix = "" if layout["train"] == "." else f"{layout['train']}/"
        for folder in layout["folders"]:
            for name in _files_in(os.path.join(root, folder)):
                files.append(f"{prefix}{folder}/{name}")
                labels.append(0 if folder == layout["negative"] else 1)
        return pd.DataFrame({FILE_COLUMN: files, layout["target"]: labels})
    if layout["kind"] == "folders":
        for label in layout["classes"]:
            for name in _files_in(os.path.join(root, label)):
                files.append(f"{layout['train']}/{label}/{name}")
                labels.append(label)
    else:
        for name in _files_in(root):
            parts = _tokens(name)
            if len(parts) >= 2 and parts[layout["position"]] in layout["classes"]:
                files.append(f"{layout['train']}/{name}")
                labels.append(parts[layout["position"]])
    values = pd.Series(labels, dtype=object)
    if layout.get("positive") is not None:
        values = (values == layout["positive"]).astype(int)
    return pd.DataFrame({FILE_COLUMN: files, layout["target"]: values})


def test_file_paths(data_dir: str, layout: dict, ids) -> list:
    """The test file (relative to data_dir) each id names, None where there is none."""
    names = _files_in(os.path.join(data_dir, layout["test"]))
    by_key = {n if layout["test_match"] == "name" else os.path.splitext(n)[0]: n for n in names}
    paths = []
    for value in ids:
        name = by_key.get(str(value).strip())
        paths.append(f"{layout['test']}/{name}" if name else None)
    return paths


WIDE_LABEL = "label"  # the column of class values read from file names when the submission is wide


def labelled_files(probe) -> dict | None:
    """The layout of training files labelled by their names or folders (`find_file_labels`) for the probed
    sample's targets, or None: a wide submission (a column per class) reads the labels as class values, which must
    all be its columns."""
    targets = probe.targets
    wide = len(targets) > 1
    shown = None if wide else probe.sample[targets[0]].astype(str).tolist()
    found = find_file_labels(
        probe.data_dir, probe.ids, WIDE_LABEL if wide else targets[0], shown, probe.description
    )
    if found is not None and wide and not set(found["classes"]) <= set(targets):
        return None
    return found
