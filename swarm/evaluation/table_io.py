"""Reading and writing the public tables of a harness split as text.

Every table is read as strings exactly as written (no NaN parsing, no number formats), so a table the split
rewrites keeps every value the solution would have seen; JSON records (`swarm.formats.records`) are read as a frame
and also as they are, so they can be written back in their own form; parquet tables (icecube's
`train_meta.parquet`) are read as text too and written back in their own column types (`write_public_table`).
"""

from __future__ import annotations

import codecs
import io
from pathlib import Path

import pandas as pd

from swarm.atomic import PUBLIC, write_bytes_atomic, write_text_atomic
from swarm.evaluation.holdout_record import NoHoldout
from swarm.formats.parquet_tables import is_parquet_name, parquet_columns
from swarm.formats.records import is_records_file, read_records, records_frame


class NotUtf8(NoHoldout, ValueError):
    """A CSV the harness cannot read as UTF-8 text: the split stops saying which file (a NoHoldout), and where a
    side table is read only if it can be, it is skipped as any unreadable table is (a ValueError)."""


def first_not_utf8(paths: list[Path]) -> str | None:
    """Which of `paths` is not UTF-8 text, and where, in words (the first found), or None: each file decoded as a
    stream, a megabyte at a time, so that a large table is never held whole."""
    for path in paths:
        decoder, done = codecs.getincrementaldecoder("utf-8")(), 0
        try:
            with open(path, "rb") as handle:
                while chunk := handle.read(2**20):
                    decoder.decode(chunk)
                    done += len(chunk)
                decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            byte = exc.object[exc.start : exc.start + 1].hex()
            return f"{Path(path).name} is not UTF-8 text (byte 0x{byte} near byte {done + exc.start})"
        except OSError:
            continue
    return None


def read_csv_as_text(path: Path) -> pd.DataFrame:
    """A CSV as strings, exactly as written (no NaN parsing), so rewritten files keep every value. NotUtf8 naming
    the file where its bytes are not UTF-8 (Latin-1 text, say): pandas' own error names no file."""
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start : exc.start + 1].hex()
        raise NotUtf8(
            f"{Path(path).name} is not UTF-8 text (byte 0x{byte}: {exc.reason}); the harness and the offline "
            "coder read CSV tables as UTF-8, so save it as UTF-8"
        ) from None


def write_public_csv(frame: pd.DataFrame, path: Path) -> None:
    """A public file the sandbox reads (any uid)."""
    write_text_atomic(path, frame.to_csv(index=False), mode=PUBLIC)


def is_parquet(path: Path) -> bool:
    return is_parquet_name(path.name)


def read_parquet_as_text(path: Path) -> pd.DataFrame:
    """A parquet table as strings (numbers as Python writes them, which read back exactly; nulls as ""). pyarrow
    is imported only here and below: a machine without it runs every competition but those with parquet tables."""
    try:
        import pyarrow as pa

        frame = pd.read_parquet(path)
    except ImportError:
        raise needs_pyarrow(path) from None
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise NoHoldout(f"{path.name} cannot be read as a parquet table: {exc}") from None
    return frame_as_text(frame)


def needs_pyarrow(path: Path) -> NoHoldout:
    return NoHoldout(f"{path.name} is a parquet table, and reading it needs pyarrow (pip install pyarrow)")


def frame_as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame read from parquet as strings (numbers as Python writes them, which read back exactly; nulls as
    ""); a named index (`event_id`) is a column of the table."""
    if frame.index.name is not None:
        frame = frame.reset_index()
    return frame.astype(object).where(frame.notna(), "").astype(str)


def parquet_size_mb(path: Path) -> float:
    """A parquet table's size unpacked (its row groups' byte sizes), in MB: what reading it costs, where the
    file's own size can be a tenth of that."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        meta = pq.read_metadata(path)
    except ImportError:
        return path.stat().st_size / 1e6
    except (OSError, pa.ArrowException):
        return path.stat().st_size / 1e6
    return sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)) / 1e6


def write_public_table(frame: pd.DataFrame, path: Path, like: Path) -> None:
    """A public table in the form of `like`, the table it was read from: parquet in `like`'s column types
    (text read back as numbers, booleans, times; "" as null), else CSV."""
    if not is_parquet(like):
        write_public_csv(frame, path)
        return
    import pyarrow.parquet as pq

    kinds = pq.read_schema(like).empty_table().to_pandas().dtypes  # the pandas types a reader gets
    typed = pd.DataFrame({c: _typed(frame[c], kinds[c] if c in kinds.index else None) for c in frame.columns})
    buffer = io.BytesIO()
    typed.to_parquet(buffer, index=False)
    write_bytes_atomic(path, buffer.getvalue(), mode=PUBLIC)


def _typed(text: pd.Series, kind) -> pd.Series:
    """A column of text as `kind` ("" as null; text where `kind` is None or not a number, boolean or time)."""
    values = text.astype(str).reset_index(drop=True)
    blank = values == ""
    if kind is None:
        return values
    if pd.api.types.is_bool_dtype(kind):
        return values.map({"True": True, "False": False}).astype(kind)
    if pd.api.types.is_numeric_dtype(kind):
        return pd.to_numeric(values.mask(blank, None)).astype(kind)
    if pd.api.types.is_datetime64_any_dtype(kind):
        return pd.to_datetime(values.mask(blank, None), format="ISO8601").astype(kind)
    return values.mask(blank, None).astype(kind)


def table_header(path: Path) -> list[str]:
    """The column names of a CSV, parquet or JSON records file (the fields of its first 1,000 records); []
    when it cannot be read; NoHoldout for a parquet table where pyarrow is missing."""
    try:
        if is_parquet(path):
            return [str(c) for c in parquet_columns(str(path))]
    except ImportError:  # a parquet table where pyarrow is missing: the run says so rather than "no labels"
        raise needs_pyarrow(path) from None
    except (ValueError, OSError):  # pyarrow's errors on a broken file are ArrowInvalid (ValueError), OSErrors
        return []
    try:
        if is_records_file(str(path)):
            return [str(c) for c in records_frame(read_records(str(path), limit=1000)).columns]
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError):
        return []


def read_table(path: Path) -> tuple[pd.DataFrame, list | None]:
    """A labelled or test table as text; JSON records (swarm.formats.records) also as they are, to be written back in
    their own form."""
    if is_parquet(path):
        return read_parquet_as_text(path), None
    if not is_records_file(str(path)):
        return read_csv_as_text(path), None
    try:
        records = read_records(str(path))
    except (ValueError, UnicodeDecodeError) as exc:
        raise NoHoldout(f"{path.name} cannot be read as JSON records: {exc}") from None
    return records_frame(records), records
