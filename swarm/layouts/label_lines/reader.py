"""Label sets in text lines, the test examples marked `?`, the submission a row per (example, class) under one
number (mlsp-2013-birds: `essential_data/rec_labels_test_hidden.txt` holds `rec_id,<class>,<class>...` for each
training recording, `rec_id,?` for each test one, and the sample's `Id` is `rec_id * 100 + class` with a 0/1
`Probability`, 19 classes a recording).

`label_lines_fields(data_dir, sample_ids, targets)` finds the labels file and the id's multiplier;
`read_label_lines(path)` reads it (id -> class list, None for `?`); `label_line_rows(...)` gives a row per
(example, class) with the class and the numbers of the tables that hold a line of numbers per example (the
recordings' segment histograms) as features, which the offline coder then models like any table.

Shared by the harness (swarm/layouts/label_lines/split.py) and the offline coder; the solutions the offline
coder writes embed this module's source, so it uses only os, numpy and pandas.
"""

import os

import numpy as np
import pandas as pd

UNKNOWN_LABELS = "?"
LINE_SUFFIXES = (".txt", ".csv")
LINE_MULTIPLIERS = (10, 100, 1000, 10_000)
MAX_LINE_FILE_BYTES = 50_000_000  # a labels file or a feature table larger than this is not read as lines
CLASS_COLUMN = "class"


def text_files(data_dir: str, depth: int = 2) -> list:
    """The .txt and .csv files under `data_dir` (at most `depth` folders down) small enough to read, relative
    paths, sorted."""
    found = []
    for parent, subdirs, files in os.walk(data_dir):
        level = os.path.relpath(parent, data_dir).count(os.sep) + (parent != data_dir)
        if level >= depth:
            subdirs[:] = []
        for name in files:
            path = os.path.join(parent, name)
            if name.lower().endswith(LINE_SUFFIXES) and os.path.getsize(path) <= MAX_LINE_FILE_BYTES:
                found.append(os.path.relpath(path, data_dir))
    return sorted(found)


def split_lines(path: str) -> list:
    """The file's lines after its header, split at commas and stripped; [] when it cannot be read as text."""
    try:
        with open(path, encoding="utf-8") as handle:
            rows = handle.read().splitlines()[1:]
    except (OSError, UnicodeDecodeError):
        return []
    return [[part.strip() for part in row.split(",")] for row in rows if row.strip()]


def read_label_lines(path: str) -> dict | None:
    """{example id: sorted class list, or None where the labels are `?`} of a labels file whose lines are
    `<id>[,<class>...]` or `<id>,?` under a header; None when it is not one (a line whose first field or a class
    is not a whole number, an id twice, or no `?` line)."""
    labels: dict = {}
    for parts in split_lines(path):
        if not parts[0].isdigit() or int(parts[0]) in labels:
            return None
        rest = [p for p in parts[1:] if p != ""]
        if rest == [UNKNOWN_LABELS]:
            labels[int(parts[0])] = None
        elif all(p.isdigit() for p in rest):
            labels[int(parts[0])] = sorted(int(p) for p in rest)
        else:
            return None
    return labels if any(v is None for v in labels.values()) and labels else None


def label_lines_fields(data_dir: str, sample_ids: list, targets: list) -> dict | None:
    """{"labels_file", "multiplier", "classes"} when the sample has one target and whole-number ids
    `<example> * multiplier + <class>`, the same `classes` (0..n-1) for every example, and a labels file
    (read_label_lines) whose `?` examples are exactly the sample's, with every known class below n; else None."""
    text = [str(i).strip() for i in sample_ids]
    if len(targets) != 1 or not text or not all(t.isdigit() for t in text):
        return None
    ids = [int(t) for t in text]  # Python ints: ids past 64 bits (38-digit UIDs' tails) divide exactly too
    for multiplier in LINE_MULTIPLIERS:
        wanted = {i // multiplier for i in ids}
        classes = {i % multiplier for i in ids}
        count = len(classes)
        if classes != set(range(count)) or len(ids) != count * len(wanted):
            continue
        for name in text_files(data_dir):
            labels = read_label_lines(os.path.join(data_dir, name))
            if labels is None or {k for k, v in labels.items() if v is None} != wanted:
                continue
            if all(c < count for v in labels.values() if v for c in v):
                return {"labels_file": name, "multiplier": multiplier, "classes": count}
    return None


def number_tables(data_dir: str, examples: set) -> dict:
    """{relative path: {example id: [numbers]}} of the text tables whose lines are `<id>,<number>,...`, one line
    per example and every example there, the same count of numbers on each (the recordings' histograms of
    segment features): the examples' features."""
    tables = {}
    for name in text_files(data_dir):
        rows: dict = {}
        for parts in split_lines(os.path.join(data_dir, name)):
            if not parts[0].isdigit() or int(parts[0]) in rows or len(parts) < 2:
                rows = {}
                break
            try:
                rows[int(parts[0])] = [float(p) for p in parts[1:]]
            except ValueError:
                rows = {}
                break
        widths = {len(v) for v in rows.values()}
        distinct = {x for v in rows.values() for x in v}
        if rows and set(rows) == examples and len(widths) == 1 and len(distinct) > 2:  # not a fold table
            tables[name] = rows
    return tables


def label_line_rows(data_dir: str, fields: dict, id_col: str, target: str, labelled: bool) -> pd.DataFrame:
    """A row per (example, class): the id `<example> * multiplier + <class>` in `id_col`, the class,
    the numbers of each number table (`<table>_<k>`), and, when `labelled`, `target` 1 where the example has the
    class, else 0; the labelled examples when `labelled`, the `?` ones otherwise."""
    labels = read_label_lines(os.path.join(data_dir, fields["labels_file"])) or {}
    chosen = [k for k, v in labels.items() if (v is not None) == labelled]
    multiplier, classes = fields["multiplier"], fields["classes"]
    examples = np.repeat(np.array(chosen, dtype=np.int64), classes)
    kinds = np.tile(np.arange(classes), len(chosen))
    frame = pd.DataFrame({id_col: examples * multiplier + kinds, CLASS_COLUMN: kinds})
    for name, rows in number_tables(data_dir, set(labels)).items():
        stem = os.path.splitext(os.path.basename(name))[0]
        width = len(next(iter(rows.values())))
        values = np.array([rows[k] for k in chosen], dtype=float).reshape(len(chosen), width)
        for k in range(width):
            frame[f"{stem}_{k}"] = np.repeat(values[:, k], classes)
    if labelled:
        frame[target] = [int(c in labels[e]) for e, c in zip(examples.tolist(), kinds.tolist(), strict=True)]
    return frame


def find_label_lines(probe) -> dict | None:
    """The label sets in text lines (see `label_lines_fields`) where no labelled table is named, else None."""
    if probe.labelled_table:
        return None
    return label_lines_fields(probe.data_dir, probe.ids, probe.targets)


def read_label_lines_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): a row per (example, class), named as the sample's rows."""
    id_col, target = sample.columns[0], sample.columns[1]
    train = label_line_rows(data_dir, fields, id_col, target, labelled=True).head(max_rows)
    return train, label_line_rows(data_dir, fields, id_col, target, labelled=False).head(max_rows)
