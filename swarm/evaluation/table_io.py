"""Reading and writing the public tables of a harness split as text.

Every table is read as strings exactly as written (no NaN parsing, no number formats), so a table the split
rewrites keeps every value the solution would have seen; JSON records (`swarm.records`) are read as a frame
and also as they are, so they can be written back in their own form.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.atomic import PUBLIC, write_text_atomic
from swarm.evaluation.holdout_record import NoHoldout
from swarm.records import is_records_file, read_records, records_frame


def read_csv_as_text(path: Path) -> pd.DataFrame:
    """A CSV as strings, exactly as written (no NaN parsing), so rewritten files keep every value."""
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def write_public_csv(frame: pd.DataFrame, path: Path) -> None:
    """A public file the sandbox reads (any uid)."""
    write_text_atomic(path, frame.to_csv(index=False), mode=PUBLIC)


def table_header(path: Path) -> list[str]:
    """The column names of a CSV or JSON records file (the fields of its first 1,000 records); [] when it cannot
    be read."""
    try:
        if is_records_file(str(path)):
            return [str(c) for c in records_frame(read_records(str(path), limit=1000)).columns]
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError):
        return []


def read_table(path: Path) -> tuple[pd.DataFrame, list | None]:
    """A labelled or test table as text; JSON records (swarm.records) also as they are, to be written back in
    their own form."""
    if not is_records_file(str(path)):
        return read_csv_as_text(path), None
    try:
        records = read_records(str(path))
    except (ValueError, UnicodeDecodeError) as exc:
        raise NoHoldout(f"{path.name} cannot be read as JSON records: {exc}") from None
    return records_frame(records), records
