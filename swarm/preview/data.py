"""A short, size-bounded text description of a competition's data directory, for prompts.

`preview(data_dir, max_chars)` gives a file tree (large directories collapsed to counts per extension), the
kind of every train/test column (swarm/preview/columns.py: text, datetime, file references, codes...), then
per CSV/TSV its shape and a line per column (dtype, missing %, unique count, min/max/mean for numbers or the
top values for text), and per JSON/JSONL its top-level structure. Huge CSVs are read only in part (and the
preview says so); wide tables list their first columns and count the rest. Unreadable files (binary, bad
encoding, empty, malformed) are described, never raised. The result never exceeds `max_chars`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from swarm.preview.columns import describe_columns

TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".zip", ".xz")
JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
JSON_MAX_BYTES = 20_000_000
SNIFF_BYTES = 65_536
_COUNT_CAP = 100_000
_PRIORITY_PREFIXES = ("train", "test", "sample_submission", "sample", "val")


@dataclass
class _Limits:
    max_rows: int = 100_000
    max_cells: int = 5_000_000
    max_columns: int = 30
    max_entries: int = 10
    max_depth: int = 3
    max_described: int = 20


@dataclass
class _Tree:
    lines: list[str] = field(default_factory=list)
    describable: list[tuple[int, Path]] = field(default_factory=list)


def preview(
    data_dir: str | Path,
    max_chars: int = 6000,
    *,
    max_rows: int = 100_000,
    max_columns: int = 30,
    max_entries: int = 10,
    max_depth: int = 3,
) -> str:
    """Describe `data_dir` (or a single file) in at most `max_chars` characters."""
    if max_chars < 0:
        raise ValueError(f"max_chars must be >= 0, got {max_chars}")
    if max_rows < 1 or max_columns < 1 or max_entries < 1 or max_depth < 0:
        raise ValueError("max_rows, max_columns and max_entries must be >= 1 and max_depth >= 0")
    root = Path(data_dir)
    if not root.exists():
        raise FileNotFoundError(f"data directory not found: {root}")
    limits = _Limits(max_rows=max_rows, max_columns=max_columns, max_entries=max_entries, max_depth=max_depth)

    if root.is_file():
        tree = _Tree([f"{root.name} ({_size(root)})"], [(0, root)] if _describable(root) else [])
        base = root.parent
    else:
        tree = _Tree([f"{root.name or str(root)}/"])
        _walk(root, 1, tree, limits, {_real(root)})
        base = root

    tree_budget = max(max_chars * 2 // 5, min(max_chars, 300))
    text = _fit_lines(["Files:", *tree.lines], tree_budget, "tree")
    kinds = describe_columns(root, max_rows=min(max_rows, 50_000)) if root.is_dir() else None
    if kinds and max_chars - len(text) > 600:
        text += "\n\n" + _fit_lines(kinds.split("\n"), (max_chars - len(text)) // 3, "column kinds")
    remaining = sorted(tree.describable, key=lambda item: _priority(item[0], item[1], base))
    described = 0
    for index, (_, path) in enumerate(remaining[: limits.max_described]):
        room = max_chars - len(text) - 80
        if room <= 200:
            text += f"\n\n[{len(remaining) - index} data files not described to fit {max_chars} chars]"
            return text[:max_chars]
        block = "\n\n" + describe_file(path, limits, name=_rel(path, base))
        if len(block) > room:
            text += _fit_lines(block.split("\n"), room, "description")
            left = len(remaining) - index - 1
            if left > 0:
                text += f"\n\n[{left} more data files not described to fit {max_chars} chars]"
            return text[:max_chars]
        text += block
        described += 1
    if len(remaining) > described:
        text += f"\n\n[{len(remaining) - described} more data files not described]"
    return text[:max_chars]


# -- file tree ------------------------------------------------------------------------------------------


def _walk(directory: Path, depth: int, tree: _Tree, limits: _Limits, seen: set[str]) -> None:
    indent = "  " * depth
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        tree.lines.append(f"{indent}[cannot list: {exc.strerror or exc}]")
        return
    dirs = [e for e in entries if _is_dir(e)]
    files = [e for e in entries if not _is_dir(e)]
    shown = files
    if len(files) > limits.max_entries:
        # data files (train/test/... first) win the few visible places; the rest are counted
        ranked = sorted(files, key=lambda e: (not _describable(Path(e.path)), _name_rank(e.name), e.name))
        keep = {e.name for e in ranked[: max(limits.max_entries // 2, 1)]}
        shown = [e for e in files if e.name in keep]
    for entry in shown:
        path = Path(entry.path)
        tree.lines.append(f"{indent}{entry.name} ({_size(path)})")
        if _describable(path):
            tree.describable.append((depth, path))
    if len(shown) < len(files):
        shown_names = {e.name for e in shown}
        rest = [e for e in files if e.name not in shown_names]
        tree.lines.append(f"{indent}... {len(rest)} more files ({_ext_summary(Path(e.path) for e in rest)})")
        tree.describable.extend((depth, Path(e.path)) for e in rest if _describable(Path(e.path)))
    for entry in dirs[: limits.max_entries]:
        path = Path(entry.path)
        real = _real(path)
        if real in seen:
            tree.lines.append(f"{indent}{entry.name}/ [link to a directory already shown]")
        elif depth >= limits.max_depth:
            tree.lines.append(f"{indent}{entry.name}/ ({_count_summary(path)})")
        else:
            tree.lines.append(f"{indent}{entry.name}/")
            _walk(path, depth + 1, tree, limits, seen | {real})
    if len(dirs) > limits.max_entries:
        tree.lines.append(f"{indent}... {len(dirs) - limits.max_entries} more directories")


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _real(path: Path) -> str:
    try:
        return os.path.realpath(path)
    except OSError:
        return str(path)


def _count_summary(directory: Path) -> str:
    paths: list[Path] = []
    capped = False
    for current, dirnames, filenames in os.walk(directory, onerror=lambda _: None):
        dirnames.sort()
        paths.extend(Path(current, name) for name in filenames)
        if len(paths) >= _COUNT_CAP:
            capped = True
            break
    if not paths:
        return "empty"
    summary = _ext_summary(paths)
    return f"{_COUNT_CAP:,}+ files, first ones: {summary}" if capped else summary


def _ext_summary(paths) -> str:
    counts: Counter[str] = Counter()
    total = 0
    for path in paths:
        counts[_suffix(path) or "(no extension)"] += 1
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    parts = [f"{n:,} {ext}" for ext, n in counts.most_common(5)]
    if len(counts) > 5:
        parts.append(f"{sum(counts.values()) - sum(n for _, n in counts.most_common(5)):,} other")
    return f"{sum(counts.values()):,} files, {_human(total)}: " + ", ".join(parts)


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes[-2:]]
    if len(suffixes) == 2 and suffixes[1] in COMPRESSED_SUFFIXES and len(suffixes[0]) <= 5:
        return "".join(suffixes)
    return suffixes[-1] if suffixes else ""


def _table_sep(path: Path) -> str | None:
    """The column separator when `path` is a (possibly compressed) CSV/TSV, else None."""
    suffix = _suffix(path)
    for compressed in ("", *COMPRESSED_SUFFIXES):
        base = suffix[: len(suffix) - len(compressed)] if compressed else suffix
        if (not compressed or suffix.endswith(compressed)) and base in TABLE_SUFFIXES:
            return TABLE_SUFFIXES[base]
    return None


def _describable(path: Path) -> bool:
    return _table_sep(path) is not None or _suffix(path) in JSON_SUFFIXES


def _name_rank(name: str) -> int:
    name = name.lower()
    return next((i for i, p in enumerate(_PRIORITY_PREFIXES) if name.startswith(p)), len(_PRIORITY_PREFIXES))


def _priority(depth: int, path: Path, base: Path) -> tuple[int, int, str]:
    return (depth, _name_rank(path.name), _rel(path, base))


def _rel(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def _size(path: Path) -> str:
    try:
        return _human(path.stat().st_size)
    except OSError as exc:
        return f"size unknown: {exc.strerror or exc}"


def _human(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


def _fit_lines(lines: list[str], budget: int, what: str) -> str:
    """Join lines, dropping the last ones (with a note) so the result fits `budget`."""
    text = "\n".join(lines)
    if len(text) <= budget:
        return text
    kept: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        note = f"\n[{what} cut: {len(lines) - i} more lines]"
        if used + len(line) + 1 + len(note) > budget:
            return ("\n".join(kept) + note)[:budget]
        kept.append(line)
        used += len(line) + 1
    return text[:budget]  # pragma: no cover


# -- per-file descriptions -------------------------------------------------------------------------------


def describe_file(path: Path, limits: _Limits | None = None, name: str | None = None) -> str:
    """A few lines about one data file; problems are described, never raised."""
    limits = limits or _Limits()
    name = name or path.name
    try:
        size = path.stat().st_size
        if size == 0:
            return f"{name}: empty file (0 bytes)"
        suffix = _suffix(path)
        if suffix == ".json":
            return f"{name}: " + _describe_json(path, size)
        if suffix in JSON_SUFFIXES:
            return f"{name}: " + _describe_jsonl(path)
        sep = _table_sep(path)
        if sep is None:
            return f"{name}: {_human(size)}"
        return _describe_table(path, name, size, sep, limits)
    except Exception as exc:  # a preview must never take the run down
        return f"{name}: could not be read ({type(exc).__name__}: {_short(str(exc), 200)})"


def _sniff(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(SNIFF_BYTES)


def _encoding(head: bytes, whole: bool) -> str | None:
    """'utf-8' when the sample decodes, else None. When `head` is only the start of the file, a
    multi-byte character cut at its very end is fine."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if whole or exc.start < len(head) - 4:
            return None
    return "utf-8"


def _describe_table(path: Path, name: str, size: int, sep: str, limits: _Limits) -> str:
    suffix = _suffix(path)
    compressed = suffix.endswith(COMPRESSED_SUFFIXES)
    notes: list[str] = []
    encoding = "utf-8"
    head = b""
    if not compressed:
        head = _sniff(path)
        if b"\x00" in head:
            return f"{name}: binary content ({_human(size)}), not a text table; not read"
        if _encoding(head, whole=len(head) < SNIFF_BYTES) is None:
            encoding = "latin-1"
            notes.append("not valid UTF-8, read as latin-1")
    if compressed:
        notes.append(f"{suffix[-3:].lstrip('.')}-compressed")

    read_kwargs = {"sep": sep, "encoding": encoding, "encoding_errors": "replace", "low_memory": False}
    try:
        header = pd.read_csv(path, nrows=0, **read_kwargs)
    except pd.errors.EmptyDataError:
        return f"{name}: no columns (the file holds only blank lines or whitespace; {_human(size)})"
    n_cols = max(len(header.columns), 1)
    nrows = min(limits.max_rows, max(limits.max_cells // n_cols, 1_000))
    try:
        frame = pd.read_csv(path, nrows=nrows + 1, **read_kwargs)
    except pd.errors.ParserError as exc:
        frame = pd.read_csv(path, nrows=nrows + 1, on_bad_lines="skip", **read_kwargs)
        notes.append(f"malformed rows skipped ({_short(str(exc), 120)})")
    partial = len(frame) > nrows
    if partial:
        frame = frame.iloc[:nrows]
        estimate = _estimate_rows(head, size) if head else None
        about = f", about {estimate:,} rows in all" if estimate else ""
        shape = f"first {nrows:,} rows read of a {_human(size)} file{about}; {frame.shape[1]} columns"
    else:
        shape = f"{_plural(len(frame), 'row')} x {_plural(frame.shape[1], 'column')}"
    columns = list(frame.columns)
    if len(columns) > limits.max_columns:
        notes.append(f"first {limits.max_columns} columns shown")
    lines = [f"{name}: {shape}" + (f" ({'; '.join(notes)})" if notes else "")]
    for col in columns[: limits.max_columns]:
        lines.append("  " + _describe_column(col, frame[col]))
    if len(columns) > limits.max_columns:
        rest = frame.iloc[:, limits.max_columns :].dtypes.astype(str)
        kinds = ", ".join(f"{n} {dtype}" for dtype, n in Counter(rest).most_common(4))
        lines.append(f"  ... and {len(rest)} more columns ({kinds})")
    return "\n".join(lines)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _estimate_rows(head: bytes, size: int) -> int | None:
    lines = head.count(b"\n")
    return int(size * lines / len(head)) - 1 if lines and head else None


def _describe_column(name: object, series: pd.Series) -> str:
    label = _short(str(name), 40)
    n = len(series)
    missing = int(series.isna().sum())
    pct = 100.0 * missing / n if n else 0.0
    parts = [f"{label}: {series.dtype}", f"{pct:.1f}% missing"]
    values = series.dropna()
    if values.empty:
        parts.append("all missing" if n else "no rows")
        return ", ".join(parts)
    try:
        parts.append(f"{values.nunique():,} unique")
    except TypeError:
        parts.append("unhashable values")
        return ", ".join(parts)
    if pd.api.types.is_bool_dtype(values):
        parts.append(f"{values.mean():.1%} true")
    elif pd.api.types.is_numeric_dtype(values):
        parts.append(f"min {_num(values.min())}, max {_num(values.max())}, mean {_num(values.mean())}")
    else:
        top = values.astype(str).value_counts().head(3)
        shown = ", ".join(f"{_short(v, 25)!r} ({c:,})" for v, c in top.items())
        parts.append(f"top: {shown}")
    return ", ".join(parts)


def _num(value: object) -> str:
    try:
        return f"{float(value):.4g}"
    except (TypeError, ValueError):
        return _short(str(value), 25)


def _short(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _describe_json(path: Path, size: int) -> str:
    if size > JSON_MAX_BYTES:
        return f"JSON, {_human(size)}: too large to parse for a preview"
    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return f"not UTF-8 text ({_human(size)}), not read as JSON"
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg} at line {exc.lineno}; {_human(size)})"
    return "JSON " + _structure(data)


def _structure(data: object) -> str:
    if isinstance(data, dict):
        keys = list(data)
        shown = ", ".join(f"{_short(str(k), 30)} ({_kind(data[k])})" for k in keys[:15])
        more = f", ... {len(keys) - 15} more" if len(keys) > 15 else ""
        return f"object with {len(keys)} keys: {shown}{more}"
    if isinstance(data, list):
        first = f"; first item: {_kind(data[0])}" if data else ""
        if data and isinstance(data[0], dict):
            first += " with keys " + ", ".join(_short(str(k), 30) for k in list(data[0])[:15])
        return f"array of {len(data):,} items{first}"
    return f"scalar {_kind(data)}: {_short(repr(data), 60)}"


def _kind(value: object) -> str:
    if isinstance(value, list):
        return f"list[{len(value)}]"
    if isinstance(value, dict):
        return f"object[{len(value)}]"
    return type(value).__name__ if value is not None else "null"


def _describe_jsonl(path: Path) -> str:
    with path.open("rb") as handle:
        first = handle.readline(1_000_000)
    try:
        record = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return "JSON lines, but the first line is not valid JSON"
    return "JSON lines; first record: " + _structure(record)
