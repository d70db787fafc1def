"""A sample whose value for each test row lists that row's own items: AI4Code's `cell_order` holds the cell ids
of the test notebook as its JSON file lists them. The held-out rows' sample values must list their own notebooks'
cells, not the first test row's: a submission that keeps the sample's order (a valid, if weak, answer) would
otherwise name cells the notebook lacks, and be refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

MAX_CHECKED_ROWS = 50  # test rows read to recognise the layout
MAX_FILE_BYTES = 20_000_000


def file_items(path: Path) -> list[str] | None:
    """The keys of the first object-valued field of a JSON file's top-level object, in file order (a notebook's
    `cell_type`: its cell ids); None when the file is no such JSON."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(content, dict):
        return None
    field = next((v for v in content.values() if isinstance(v, dict)), None)
    return [str(k) for k in field] if field else None


def listed_items_column(
    sample: pd.DataFrame, id_col: str, targets: list[str], test_files: dict[str, Path]
) -> str | None:
    """The target whose value in each test row (the first MAX_CHECKED_ROWS) is the row's file's items joined by
    spaces (file_items); None when there is none."""
    rows = sample.head(MAX_CHECKED_ROWS)
    if rows.empty:
        return None
    items = {}
    for test_id in rows[id_col].astype(str).str.strip():
        path = test_files.get(test_id)
        items[test_id] = file_items(path) if path is not None and path.is_file() else None
    if any(v is None for v in items.values()):
        return None
    for target in targets:
        values = rows[target].astype(str).str.strip()
        ids = rows[id_col].astype(str).str.strip()
        if all(" ".join(items[i]) == v for i, v in zip(ids, values, strict=True)):
            return target
    return None


def listed_items_fillers(
    sample: pd.DataFrame,
    id_col: str,
    targets: list[str],
    test_files: dict[str, Path],
    held_files: list[Path | None],
) -> dict[str, list[str]]:
    """{target: the held-out rows' sample values} where the sample lists each test row's own items: each held-out
    row's file's items, joined by spaces ("" where it has none); {} otherwise."""
    column = listed_items_column(sample, id_col, targets, test_files)
    if column is None:
        return {}
    return {column: [" ".join((file_items(p) or []) if p is not None else []) for p in held_files]}
