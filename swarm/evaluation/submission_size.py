"""How large a submission the harness reads: a gate before any parse, sized from the sample submission.

A solution's submission is untrusted, and pandas holds about 20 times a CSV's size in memory and takes time
that grows with the square of its columns. So before a submission is parsed, its size on disk and the columns
of its header line (a bounded read) are compared with limits drawn from the sample, with a wide margin: twice
the rows expected, each cell four times the sample's widest in its column (at least `NUMBER_CELL_BYTES`; where
a column holds text, as masks' run-length codes and box strings do, at least `TEXT_CELL_BYTES`), never less
than `MIN_BYTES` in all; and at most twice the expected columns plus ten (MLE-bench's graders read past extra
columns, so a few are tolerated, `swarm.competitions.tolerance`). A file past either limit is refused in one
sentence naming its size and the limit, before pandas sees it.
"""

from __future__ import annotations

import codecs
import csv
from dataclasses import dataclass
from typing import BinaryIO

import pandas as pd

from swarm.competitions.validation import InvalidSubmission

MIN_BYTES = 32 * 1024 * 1024
NUMBER_CELL_BYTES = 64
TEXT_CELL_BYTES = 64 * 1024
CELL_MARGIN = 4
ROW_MARGIN = 2
HEADER_CELL_BYTES = 256  # a header name's room, for the bounded read of the header line
MIN_HEADER_BYTES = 64 * 1024


@dataclass(frozen=True)
class SizeLimit:
    """The largest submission read: `max_bytes` on disk and `max_columns` in its header line."""

    max_bytes: int
    max_columns: int

    @property
    def header_bytes(self) -> int:
        """How far the header line is read to count its columns (a longer one has too many)."""
        return max(MIN_HEADER_BYTES, self.max_columns * HEADER_CELL_BYTES)

    def check(self, handle: BinaryIO, size: int, name: str) -> None:
        """Raise InvalidSubmission when the open file (`size` bytes, read from position 0) is past a limit;
        leaves the handle at position 0."""
        if size > self.max_bytes:
            raise InvalidSubmission(
                f"{name} is {_mb(size)}, larger than the {_mb(self.max_bytes)} the harness reads for this "
                "competition's sample submission, so it was not parsed"
            )
        head = handle.read(self.header_bytes + 1)
        handle.seek(0)
        line, ended, _ = head.partition(b"\n")
        if not ended and len(head) > self.header_bytes:
            raise InvalidSubmission(
                f"{name}'s header line is longer than {self.header_bytes} bytes, far wider than the "
                f"{self.max_columns} columns the harness reads, so it was not parsed"
            )
        columns = header_columns(line)
        if columns > self.max_columns:
            raise InvalidSubmission(
                f"{name} has {columns} columns, more than the {self.max_columns} the harness reads for this "
                "competition's sample submission, so it was not parsed"
            )


def header_columns(line: bytes) -> int:
    """The columns of a CSV header line, quoted commas read as a reader reads them (a BOM dropped)."""
    text = codecs.decode(line.removeprefix(codecs.BOM_UTF8), "utf-8", errors="replace").rstrip("\r")
    return len(next(csv.reader([text]), []))


def size_limit(sample: pd.DataFrame, id_column: str, rows: int, columns: int | None = None) -> SizeLimit:
    """The limit for a submission of about `rows` rows (the sample's, plus any the harness adds) and `columns`
    columns (the sample's when None), from the widest cell of each of the sample's columns (read as strings);
    the id column is never given a text column's room."""
    expected_columns = max(columns or 0, sample.shape[1])
    cells = (_cell_bytes(sample[c], text_ok=str(c) != id_column) for c in sample.columns)
    row_bytes = sum(cells) + expected_columns
    row_bytes += (expected_columns - sample.shape[1]) * NUMBER_CELL_BYTES  # columns the sample lacks
    return SizeLimit(
        max_bytes=MIN_BYTES + ROW_MARGIN * max(rows, 1) * row_bytes,
        max_columns=2 * expected_columns + 10,
    )


def _cell_bytes(cells: pd.Series, text_ok: bool) -> int:
    """The room of one cell of a column: a margin over its widest cell in the sample, more where it holds text
    (`text_ok`: a prediction's text may be far longer than the sample's placeholder)."""
    values = cells.astype(str)
    widest = int(values.str.len().max()) if len(values) else 0
    numbers = bool(len(values)) and bool(pd.to_numeric(values.str.strip(), errors="coerce").notna().all())
    floor = TEXT_CELL_BYTES if text_ok and not numbers else NUMBER_CELL_BYTES
    return max(floor, CELL_MARGIN * widest)


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 1e5 else f"{size} bytes"
