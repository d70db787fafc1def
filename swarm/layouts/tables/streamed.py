"""A harness split of a labelled CSV too large to read whole (new-york-city-taxi-fare-prediction's 55 million
rows, over evaluation.max_train_mb): the table is streamed in chunks; each row is held out at random with one
probability, chosen so that about min(fraction of the rows, max(MIN_HELD, 2 x the test rows)) are; kept rows are
written to the view's copy as they are read, and only the held-out rows are kept in memory. The held-out rows
then join the test table and the sample as in the whole-table split (swarm/layouts/holdout.py).

Only the plainest layout is streamed: a CSV of labelled rows beside test.csv, no files keyed by the ids and no
other table or records file beside them that could hold held-out rows' labels; a random split (the table is
never seen whole, so no stratified, time or group split).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.atomic import PUBLIC

CHUNK_ROWS = 1_000_000
MIN_HELD = 50_000  # held-out rows aimed at, at least (or the fraction of the rows, if fewer)
SIDE_TABLE_SUFFIXES = (".csv", ".json", ".jsonl", ".ndjson", ".parquet", ".txt", ".tsv")


@dataclass
class StreamedRows:
    """What streaming the labelled table gave: the held-out rows, the kept count, the largest whole-number id."""

    held: pd.DataFrame
    n_kept: int
    largest_id: int | None


def side_tables(public: Path, skip: set[Path]) -> list[str]:
    """Tables and records files in the public dir besides `skip` (relative paths): any could hold labels."""
    return sorted(
        str(p.relative_to(public))
        for p in public.rglob("*")
        if p.is_file() and p not in skip and p.name.lower().endswith(SIDE_TABLE_SUFFIXES)
    )


def held_share(path: Path, fraction: float, test_rows: int) -> float:
    """The probability of holding out each row: fraction, or less where that would hold out more than
    max(MIN_HELD, 2 x test_rows) rows of the table (its row count estimated from its size and first rows)."""
    head = pd.read_csv(path, dtype=str, keep_default_na=False, nrows=10_000)
    if head.empty:
        return fraction
    bytes_per_row = max(1.0, len(head.to_csv(index=False).encode()) / len(head))
    rows = path.stat().st_size / bytes_per_row
    return min(fraction, max(MIN_HELD, 2 * test_rows) / max(rows, 1.0))


def stream_split(source: Path, target: Path, id_col: str, share: float, seed: int) -> StreamedRows:
    """Copy `source` to `target` without the rows drawn at random with probability `share`, which are returned;
    rows are read as text, a chunk at a time."""
    rng = np.random.default_rng(seed)
    held, kept, largest = [], 0, None
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8", newline="") as out:
        chunks = pd.read_csv(source, dtype=str, keep_default_na=False, chunksize=CHUNK_ROWS)
        for k, chunk in enumerate(chunks):
            drawn = rng.random(len(chunk)) < share
            chunk[~drawn].to_csv(out, index=False, header=k == 0)
            held.append(chunk[drawn])
            kept += int((~drawn).sum())
            if id_col in chunk.columns:
                numbers = pd.to_numeric(chunk[id_col].str.strip(), errors="coerce")
                top = numbers.max()
                if pd.notna(top) and float(top).is_integer():
                    largest = int(top) if largest is None else max(largest, int(top))
    target.chmod(PUBLIC)
    return StreamedRows(pd.concat(held, ignore_index=True), kept, largest)
