"""Keeping the held-out examples' labels out of the side files of the sandbox's view.

Besides the labelled table, a public dir may hold other files that give a held-out example's label away: a
mask or annotation named by its id, a table with a row per labelled example (champs's contributions), JSON
records naming it (3d-object-detection's annotations), or training TFRecords holding every training image with
its label. `hide_side_files` leaves such files out of the
view, or rewrites a table without the held-out examples' rows; the test's own files are never touched.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.evaluation.table_io import table_header, write_public_csv
from swarm.formats.records import is_records_file, read_records, write_records
from swarm.formats.tfrecords import TFRECORD_SUFFIXES

SIDE_TABLE_CHUNK_ROWS = 200_000  # side tables are read in chunks of this many rows to drop held-out rows
KEY_FIELD_SHARE = 0.5  # a records field naming this share of the held-out ids keys examples
SIDE_RECORDS_MAX_BYTES = 4 * 1024**3  # JSON side records up to this size are read whole to drop held-out ones


def on_test_side(public: Path, path: Path) -> bool:
    """Whether a public file is on the test side: a part of its path starts with "test"."""
    return any(part.lower().startswith("test") for part in path.relative_to(public).parts)


def hide_side_files(
    public: Path,
    dest: Path,
    train: pd.DataFrame,
    held: pd.DataFrame,
    spec: MetricSpec,
    test_ids: set[str],
    test_dir: Path | None,
    skip: set[Path],
    kept_ids: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[str]:
    """Keep the held-out examples' labels out of the side files the sandbox sees: a file named by a held-out id
    (a mask, an annotation) is left out, and a table beside the labelled one that has a row per labelled
    example (keyed by the id column, or by columns that identify one row of the labelled table: champs's
    contributions by molecule and atom pair) is rewritten without the held-out examples' rows. Test files are
    never touched (where test and train ids collide, a file under a test* path named by a test id is the
    test's). Training TFRecords not split already (`tfrecord_split`) are left out whole (siim-isic's and cassava's
    hold every training image with its label, and they are not named by ids). JSON side records on the training side lose the records that name a
    held-out id in any field (3d-object-detection's annotations keyed by sample token). Adds what it handled to
    `skip`; returns the side files changed (relative)."""
    ids = set(held[spec.id_column].str.strip()) if spec.id_column in held.columns else set()
    files_of = ids - kept_ids  # a file a kept row names too (hms's EEG of several windows) stays for it
    changed = []
    for path in sorted(public.rglob("*")):
        if path in skip or not path.is_file() or (test_dir is not None and test_dir in path.parents):
            continue
        test_side = on_test_side(public, path)
        named = {path.name, path.stem} & files_of and not (test_side and {path.name, path.stem} & test_ids)
        if named or (path.suffix.lower() in TFRECORD_SUFFIXES and not test_side):
            skip.add(path)
            changed.append(str(path.relative_to(public)))
        elif path.parent == public and path.suffix.lower() == ".csv":
            keys = _example_keys(table_header(path), train, spec)
            kept = _without_held_rows(path, keys, held) if keys else None
            if kept is not None:
                write_public_csv(kept, dest / path.name)
                skip.add(path)
                changed.append(path.name)
        elif is_records_file(str(path)) and not test_side and path.stat().st_size <= SIDE_RECORDS_MAX_BYTES:
            records = _records_without_held(path, ids)
            if records is not None:
                rel = path.relative_to(public)
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                write_records(records, str(dest / rel), like=str(path))
                skip.add(path)
                changed.append(str(rel))
    return changed


def _records_without_held(path: Path, ids: set[str]) -> list | None:
    """The JSON records without those whose key field names a held-out example (3d-object-detection's
    `sample_annotation.json`: the boxes of each `sample_token`), or None when none does (or it is not records).
    The key field names at least half of the held-out ids, so that a count or a size that happens to equal a
    numeric id is not taken for one."""
    try:
        records = read_records(str(path))
    except (ValueError, UnicodeDecodeError, OSError):
        return None
    seen: dict[str, set[str]] = {}
    for record in records:
        for field, value in record.items():
            if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value) in ids:
                seen.setdefault(field, set()).add(str(value))
    # The one field naming the most held-out ids (the first of a tie, in the records' field order): sample.json's
    # `token`, not its `prev` and `next`, which name the neighbours of samples that stay.
    order = {field: k for k, field in enumerate(dict.fromkeys(f for r in records for f in r))}
    best = max(seen.items(), key=lambda item: (len(item[1]), -order[item[0]]), default=None)
    if best is None or len(best[1]) < KEY_FIELD_SHARE * len(ids):
        return None
    kept = [r for r in records if str(r.get(best[0])) not in ids]
    return kept if len(kept) < len(records) else None


def _example_keys(header: list[str], train: pd.DataFrame, spec: MetricSpec) -> list[str] | None:
    """The columns by which a side table's rows name labelled examples: the id column, else the columns it
    shares with the labelled table when together they identify one of its rows; None when neither."""
    if spec.id_column in header:
        return [spec.id_column]
    shared = [c for c in header if c in train.columns and c not in spec.target_columns]
    if shared and not train.duplicated(subset=shared).any():
        return shared
    return None


def _without_held_rows(path: Path, keys: list[str], held: pd.DataFrame) -> pd.DataFrame | None:
    """The table without the rows whose `keys` name a held-out example (read in chunks), or None when no row
    does (or it is not a readable CSV)."""
    wanted = pd.MultiIndex.from_frame(held[keys].apply(lambda column: column.str.strip()))
    parts, dropped = [], False
    try:
        for chunk in pd.read_csv(path, dtype=str, keep_default_na=False, chunksize=SIDE_TABLE_CHUNK_ROWS):
            names = pd.MultiIndex.from_frame(chunk[keys].apply(lambda column: column.str.strip()))
            drop = names.isin(wanted)
            dropped |= bool(drop.any())
            parts.append(chunk[~drop])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, KeyError):
        return None
    return pd.concat(parts, ignore_index=True) if dropped else None


RECORDS_PROBED_MB = 64  # test-side JSON files larger than this are not read for the ids they name


def records_naming(public: Path, test_ids: list[str], shown: int = 3) -> str:
    """ "; the test's inputs seem to be records in <files> naming the test ids, which the harness does not move":
    the test-side JSON files (up to RECORDS_PROBED_MB each) whose text holds the first test id; "" where none."""
    if not test_ids:
        return ""
    needle = f'"{test_ids[0]}"'
    found = []
    for path in sorted(public.rglob("*.json")):
        readable = on_test_side(public, path) and path.stat().st_size <= RECORDS_PROBED_MB * 1e6
        if readable and needle in path.read_text(encoding="utf-8", errors="replace"):
            found.append(str(path.relative_to(public)))
    if not found:
        return ""
    more = f" and {len(found) - shown} more" if len(found) > shown else ""
    return (
        f" (the test's inputs seem to be records in {', '.join(found[:shown])}{more} naming the test ids, which the "
        "harness does not move)"
    )
