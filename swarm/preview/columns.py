"""The "Columns by kind" part of the data preview: what a practitioner wants to know per kind of column.

Text: length distribution and two examples; datetime: range in train and test and whether test lies after
train; file references: how many, their folders and extensions, and for images the size and mode of a sample;
high-cardinality codes: levels and how many test values train never saw.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from swarm.formats.columns import column_kinds, resolve_file

TABLES = ("train.csv", "test.csv")
EXAMPLE_CHARS = 160
IMAGE_SAMPLE = 5


def _short(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _text_line(values: pd.Series, info: dict) -> str:
    values = values.dropna().astype(str)
    chars = values.str.len()
    words = values.str.split().str.len()
    q = chars.quantile([0.1, 0.5, 0.9]).round().astype(int).tolist()
    examples = " | ".join(repr(_short(v, EXAMPLE_CHARS)) for v in values.head(2))
    return (
        f"free text: {values.nunique():,} distinct, chars p10/p50/p90 {q[0]}/{q[1]}/{q[2]}, "
        f"median {int(words.median())} words; e.g. {examples}"
    )


def _datetime_line(info: dict) -> str:
    parts = ["datetime"]
    if "train_range" in info:
        parts.append(f"train {info['train_range'][0]} .. {info['train_range'][1]}")
    if "test_range" in info:
        parts.append(f"test {info['test_range'][0]} .. {info['test_range'][1]}")
        parts.append("test lies after train" if info.get("test_after_train") else "test overlaps train")
    return "; ".join(parts)


def _image_facts(paths: list[str]) -> str:
    try:
        from PIL import Image
    except ImportError:
        return "image size unknown (Pillow not installed)"
    seen = []
    for path in paths[:IMAGE_SAMPLE]:
        try:
            with Image.open(path) as image:
                seen.append(f"{image.size[0]}x{image.size[1]} {image.mode}")
        except OSError as exc:
            seen.append(f"unreadable ({exc.__class__.__name__})")
    counts = pd.Series(seen).value_counts()
    return "sample of images: " + ", ".join(f"{k} ({v})" for k, v in counts.items())


def _file_line(values: pd.Series, info: dict, data_dir: Path) -> str:
    values = values.dropna().astype(str)
    paths = [p for p in (resolve_file(v, info, str(data_dir)) for v in values.head(200)) if p]
    exts = pd.Series([os.path.splitext(p)[1].lower() or "(none)" for p in paths]).value_counts()
    folders = ", ".join(f"{f}/" for f in info.get("folders", []))
    line = (
        f"file references ({info.get('match')}s of files in {folders or 'the data dir'}): "
        f"{len(paths)} of the first {min(len(values), 200)} found, extensions "
        + ", ".join(f"{e} ({n})" for e, n in exts.items())
    )
    if info.get("image") and paths:
        line += "; " + _image_facts(paths)
    return line


GROUPED = {
    "numeric": "numeric",
    "categorical": "categorical (few levels)",
    "identifier": "identifiers (unique per row; no signal)",
    "constant": "constant (no signal)",
}


def _detail(name: str, info: dict, train: pd.DataFrame, test: pd.DataFrame | None, data_dir: Path) -> str:
    """One line for a column whose kind needs more than its name: text, datetime, files, many-level codes."""
    kind = info["kind"]
    both = train[name] if test is None or name not in test else pd.concat([train[name], test[name]])
    if kind == "text":
        what = _text_line(both, info)
    elif kind == "datetime":
        what = _datetime_line(info)
    elif kind == "file":
        what = _file_line(both, info, data_dir)
    else:
        unseen = ""
        if test is not None and name in test:
            new = ~test[name].dropna().isin(set(train[name].dropna()))
            unseen = f", {new.mean():.0%} of test values unseen in train"
        what = f"high-cardinality code: {info['levels']:,} levels{unseen}"
    return f"  {_short(name, 40)}: {what}"


def describe_columns(data_dir: str | Path, max_rows: int = 50_000, max_columns: int = 30) -> str | None:
    """The "Columns by kind" block for train.csv (with test.csv), or None when there is no train.csv."""
    root = Path(data_dir)
    train_path, test_path = root / TABLES[0], root / TABLES[1]
    if not train_path.is_file():
        return None
    try:
        train = pd.read_csv(train_path, nrows=max_rows, low_memory=False)
        test = pd.read_csv(test_path, nrows=max_rows, low_memory=False) if test_path.is_file() else None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return None
    shared = [c for c in train.columns if test is None or c in test.columns]
    kinds = column_kinds(train[shared], test, data_dir=str(root))
    only_train = [c for c in train.columns if c not in shared]
    lines = ["Columns by kind (train.csv with test.csv):"]
    for kind, label in GROUPED.items():
        names = [str(n) for n, info in kinds.items() if info["kind"] == kind]
        if names:
            shown = ", ".join(_short(n, 30) for n in names[:max_columns])
            more = f" and {len(names) - max_columns} more" if len(names) > max_columns else ""
            lines.append(f"  {label}: {shown}{more}")
    detailed = [n for n, info in kinds.items() if info["kind"] not in GROUPED]
    for name in detailed[:max_columns]:
        lines.append(_detail(name, kinds[name], train, test, root))
    if len(detailed) > max_columns:
        lines.append(f"  ... and {len(detailed) - max_columns} more columns")
    if only_train:
        lines.append(f"  only in train.csv (targets?): {', '.join(_short(c, 30) for c in only_train[:10])}")
    return "\n".join(lines)
