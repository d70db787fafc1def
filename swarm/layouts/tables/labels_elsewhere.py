"""Where the labels seem to be when no table holds them, for the one sentence that says why a competition is not
split: BSON documents (cdiscount's `train.bson`), or a file in each training example's folder
that no rule reads (a mask array or image beside a run-length encoded sample is split, `swarm.layouts.masks.split`:
vesuvius' `train/<n>/inklabels.png`; a labels table per folder, `swarm.layouts.folder_rows.split`:
smartphone-decimeter's `ground_truth.csv`), or a training table keyed by the id without the targets, from whose
rows they would be derived (h-and-m's `transactions_train.csv`).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from swarm.evaluation.table_io import table_header

LABEL_FILE_WORDS = ("mask", "label", "truth", "target", "annotation")
MAX_SCANNED = 200_000  # entries of the training folders looked at, at most
SHARED_ID_ROWS = 200_000  # a keyed training table's first rows, read for ids the sample lists too


def labels_elsewhere(public: Path, id_column: str, targets: list[str], sample: Path | None = None) -> str:
    """A clause ("; ...") naming where the labelled examples seem to be and why the harness does not split them,
    or "" when nothing is found."""
    bson = sorted(
        p.name
        for p in public.iterdir()
        if p.is_file() and p.suffix.lower() == ".bson" and "train" in p.name.lower()
    )
    if bson:
        return (
            f"; the labelled examples seem to be the BSON documents of {', '.join(bson)}, which the harness does "
            "not split"
        )
    for folder in sorted(p for p in public.iterdir() if p.is_dir() and "train" in p.name.lower()):
        names, example = _label_files(folder)
        if names:
            count = max(names.values())
            found = sorted(n for n, c in names.items() if c == count)[:3]
            return (
                f"; the labels seem to be the {', '.join(found)} file(s) in each of {count} example folders of "
                f"{folder.name}/ (e.g. {example[found[0]]}), which no rule of the harness turns into the "
                f"submission's {', '.join(targets[:4])}"
            )
    keyed = [
        p.name
        for p in sorted(public.iterdir())
        if p.is_file()
        and p.suffix.lower() in (".csv", ".parquet")
        and "train" in p.name.lower()
        and id_column in table_header(p)
    ]
    if keyed:
        shared = _shared_ids(public / keyed[0], sample, id_column) if sample is not None else False
        repeated = (
            f", and the sample asks about the same {id_column}s (it lists them all), so a held-out row would "
            "repeat a test id"
            if shared
            else ""
        )
        return (
            f"; {', '.join(keyed[:3])} has {id_column} but not {', '.join(targets[:4])}: the targets would be derived "
            f"from its rows, by no rule the harness knows{repeated}"
        )
    return ""


def _shared_ids(table: Path, sample: Path, id_column: str) -> bool:
    """Whether the first SHARED_ID_ROWS rows of a CSV table name an id the sample lists (h-and-m's customers
    are both: the sample asks about every customer); False for a table not read so."""
    if table.suffix.lower() != ".csv":
        return False
    try:
        ids = set(
            pd.read_csv(sample, usecols=[id_column], dtype=str, keep_default_na=False)[id_column].str.strip()
        )
        head = pd.read_csv(
            table, usecols=[id_column], dtype=str, keep_default_na=False, nrows=SHARED_ID_ROWS
        )[id_column].str.strip()
    except (OSError, ValueError, pd.errors.ParserError, UnicodeDecodeError):
        return False
    return bool(head.isin(ids).any())


def _label_files(folder: Path) -> tuple[Counter, dict[str, str]]:
    """The names of files below `folder` that speak of labels and occur in at least two of its folders, with how
    often, and an example path of each (relative to the public dir)."""
    names: Counter = Counter()
    example: dict[str, str] = {}
    for seen, path in enumerate(folder.rglob("*")):
        if seen >= MAX_SCANNED:
            break
        if path.parent == folder or not any(w in path.name.lower() for w in LABEL_FILE_WORDS):
            continue
        if path.is_file():
            names[path.name] += 1
            shown = str(path.relative_to(folder.parent))
            example[path.name] = min(example.get(path.name, shown), shown)
    return Counter({n: c for n, c in names.items() if c >= 2}), example
