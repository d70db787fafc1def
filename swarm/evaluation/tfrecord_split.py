"""Held-out images in the view's TFRecords: moved from the training files to the test files, without labels.

siim-isic-melanoma-classification and cassava-leaf-disease-classification ship their images twice: as JPEG files
and as TFRecords of `tf.train.Example` records (`train00-2071.tfrec`: `image`, `image_name`, `target`, ...;
`test00-687.tfrec`: the same but the labels). A held-out image's record leaves the training files (whose other
records are copied byte for byte) and joins the test files with the test records' fields only, under its id in
the view; the test files' records and the held-out ones are shuffled over the test files, whose names keep
saying how many records each holds (`<name>-<count>.tfrec`). Where the records name no labelled id, or there are
no test TFRecords to follow, the training TFRecords are left out of the view instead (`side_files`). Where fresh
ids are drawn (`swarm.evaluation.fresh_ids`), the test files are written once more with each record's fresh id.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd

from swarm.evaluation.side_files import on_test_side
from swarm.formats.tfrecords import (
    CRC_BATCH_BYTES,
    TFRECORD_SUFFIXES,
    TFRecordError,
    bytes_value,
    features,
    first_value,
    frames,
    read_records,
    without_fields,
)

LABEL_CHECK_RECORDS = 200  # the first training records on which a field is compared with the labels
LABEL_AGREEMENT = 0.9  # a field whose values are a label's on this share of them is that label
_COUNTED = re.compile(r"^(.*-)(\d+)(\.[A-Za-z]+)$")  # `train00-2071.tfrec`: the count after the last dash


def split_tfrecords(
    public: Path,
    dest: Path,
    held: dict[str, str],
    labelled: LabelledRows,
    skip: set[Path],
    rng: np.random.Generator,
) -> list[str]:
    """Move the held-out images' records (`held`: each one's labelled id -> its id in the view) from the
    training TFRecords to the test TFRecords of the view `dest` (see the module docstring); adds the files
    handled to `skip`. Returns them (relative), or [] when the layout does not fit (nothing handled).

    Memory stays bounded by a batch of records (`CRC_BATCH_BYTES`): kept records are copied as they are read,
    held-out ones go to a spool file beside the view (removed after), and the test files are written from
    references to their records."""
    files = sorted(
        p
        for p in public.rglob("*")
        if p.suffix.lower() in TFRECORD_SUFFIXES and p not in skip and p.is_file()
    )
    test_files = [p for p in files if on_test_side(public, p)]
    train_files = [p for p in files if not on_test_side(public, p)]
    if not train_files or not test_files or not held:
        return []
    spool = dest.parent / "held_out.tfrec.spool"  # beside the view, never in it
    written: list[Path] = []
    try:
        layout = _layout(train_files[0], test_files[0], labelled)
        if layout is None:
            return []
        moved = _move_held_out(public, dest, train_files, held, layout, spool, written)
        tests = [[(path, r.offset, len(r.raw)) for r in read_records(path)] for path in test_files]
        counts = [len(refs) for refs in tests]
        for k, i in enumerate(rng.permutation(len(moved))):  # dealt over the test files, each then shuffled
            tests[k % len(tests)].append(moved[i])
        for path, refs, count in zip(test_files, tests, counts, strict=True):
            shuffled = [refs[i] for i in rng.permutation(len(refs))]
            written.append(_destination(public, dest, path, count, len(refs)))
            _write_refs(written[-1], shuffled)
    except (OSError, TFRecordError):
        for path in written:  # the view falls back to leaving the training TFRecords out
            path.unlink(missing_ok=True)
        return []
    finally:
        spool.unlink(missing_ok=True)
    skip.update(train_files + test_files)
    return [str(p.relative_to(public)) for p in train_files + test_files]


Ref = tuple[Path, int, int]  # a framed record: the file, its offset and length there


def _move_held_out(
    public: Path,
    dest: Path,
    train_files: list[Path],
    held: dict[str, str],
    layout: tuple[set[str], str],
    spool: Path,
    written: list[Path],
) -> list[Ref]:
    """Copy each training file's kept records to the view (its count in its name updated; the path added to
    `written`); write the held-out ones, with the test records' fields only and their ids in the view, to
    `spool`. Returns their references."""
    keep, id_key = layout
    refs: list[Ref] = []
    pending: list[bytes] = []
    with open(spool, "wb") as out:

        def flush() -> None:
            for raw in frames(pending):  # their CRCs computed together
                refs.append((spool, out.tell(), len(raw)))
                out.write(raw)
            pending.clear()

        size = 0
        for path in train_files:
            partial = dest.parent / "kept.tfrec.partial"  # beside the view until complete
            count = kept = 0
            with open(partial, "wb") as copy:
                for record in read_records(path):
                    count += 1
                    name = (bytes_value(record.data, id_key) or b"").decode("utf-8", "replace")
                    if name not in held:
                        copy.write(record.raw)
                        kept += 1
                        continue
                    renamed = (id_key, held[name].encode()) if held[name] != name else None
                    pending.append(without_fields(record.data, keep, renamed))
                    size += len(pending[-1])
                    if size >= CRC_BATCH_BYTES:
                        flush()
                        size = 0
            written.append(_destination(public, dest, path, count, kept))
            partial.replace(written[-1])
        flush()
    return refs


def _write_refs(path: Path, refs: list[Ref]) -> None:
    """Write the framed records at `refs`, in order, as one TFRecord file."""
    handles: dict[Path, BinaryIO] = {}
    try:
        with open(path, "wb") as out:
            for source, offset, length in refs:
                if source not in handles:
                    handles[source] = open(source, "rb")  # noqa: SIM115 (closed below, one per source)
                handles[source].seek(offset)
                out.write(handles[source].read(length))
    finally:
        for handle in handles.values():
            handle.close()


@dataclass(frozen=True)
class LabelledRows:
    """What tells a record's labels apart: the labelled table (as text), its id column, its label columns (the
    targets under its own names and the submission's), and the test table's columns (None: no test table)."""

    table: pd.DataFrame
    id_column: str
    labels: tuple[str, ...]
    test_columns: tuple[str, ...] | None


def _layout(train_file: Path, test_file: Path, labelled: LabelledRows) -> tuple[set[str], str] | None:
    """(the fields a held-out record keeps, the key whose bytes value is its id), from the first records of each
    side; None where a side is empty or no feature names a labelled id.

    A held-out record keeps the test records' fields but the labels, which MLE-bench's test TFRecords may hold
    (they are Kaggle's training files renamed): a field named as a label column, or as a column of the labelled
    table that the test table lacks (siim-isic's `diagnosis`), or whose values are a label's on most of the
    first records (cassava's `target` for train.csv's `label`)."""
    first_test = next(read_records(test_file), None)
    train_records = [
        r.data for _, r in zip(range(LABEL_CHECK_RECORDS), read_records(train_file), strict=False)
    ]
    if first_test is None or not train_records:
        return None
    test_keys = set(features(first_test.data))
    ids = set(labelled.table[labelled.id_column].astype(str).str.strip())
    id_key = next(
        (
            key
            for key in features(train_records[0])
            if key in test_keys
            and (bytes_value(train_records[0], key) or b"").decode("utf-8", "replace") in ids
        ),
        None,
    )
    if id_key is None:
        return None
    train_only = (
        set() if labelled.test_columns is None else set(labelled.table.columns) - set(labelled.test_columns)
    )
    drop = {key for key in test_keys if key in set(labelled.labels) | train_only}
    table = labelled.table.set_index(labelled.table[labelled.id_column].str.strip())
    by_id = table[~table.index.duplicated()]  # an id's first row (a table may repeat ids)
    label_columns = [c for c in labelled.labels if c in by_id.columns]
    names = [first_value(data, id_key) for data in train_records]
    known = [(data, name) for data, name in zip(train_records, names, strict=True) if name in by_id.index]
    for key in test_keys - drop - {id_key}:
        pairs = [
            (_canonical(first_value(data, key)), [_canonical(by_id.at[name, c]) for c in label_columns])
            for data, name in known
        ]
        for k in range(len(label_columns)):
            same = sum(value == truths[k] for value, truths in pairs)
            if pairs and same >= LABEL_AGREEMENT * len(pairs):
                drop.add(key)
    return test_keys - drop, id_key


def _canonical(value: object) -> str:
    """A value as text, numbers in one form (`1` == `1.0`)."""
    text = "" if value is None else str(value).strip()
    try:
        return repr(float(text))
    except ValueError:
        return text


def _destination(public: Path, dest: Path, path: Path, count: int, new_count: int) -> Path:
    """Where the view keeps a rewritten TFRecord file: its own path, the count in its name updated."""
    relative = path.relative_to(public)
    counted = _COUNTED.match(relative.name)
    name = relative.name
    if counted and int(counted.group(2)) == count:
        name = f"{counted.group(1)}{new_count}{counted.group(3)}"
    target = dest / relative.parent / name
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def rename_ids_in_tfrecords(paths: list[Path], renamed: dict[str, str]) -> str | None:
    """Rewrite the view's test TFRecords with each record's id under its fresh id (`renamed`: each test and
    held-out id in the view -> its fresh one), the id's key found as the feature whose value is such an id. All
    or nothing: each file is written beside itself first, and they replace the files (new files where links to
    the public ones were) only once all are written. None, or why the ids cannot be renamed there."""
    partials = [path.with_name(path.name + ".fresh") for path in paths]
    try:
        for path, partial in zip(paths, partials, strict=True):
            problem = _rewrite_ids(path, partial, renamed)
            if problem is not None:
                break
    except (OSError, TFRecordError) as exc:
        problem = f"the test TFRecords cannot be rewritten under fresh ids ({exc})"
    if problem is not None:
        for partial in partials:
            partial.unlink(missing_ok=True)
        return problem
    for path, partial in zip(paths, partials, strict=True):
        partial.chmod(0o644)
        os.replace(partial, path)
    return None


def _rewrite_ids(source: Path, target: Path, renamed: dict[str, str]) -> str | None:
    """`source`'s records written to `target` under their fresh ids (their CRCs computed a batch at a time);
    why not where a record names no id of `renamed`."""
    id_key: str | None = None
    pending: list[bytes] = []
    size = 0
    with open(target, "wb") as out:
        for record in read_records(source):
            if id_key is None:
                id_key = next(
                    (k for k in features(record.data) if first_value(record.data, k) in renamed), None
                )
            name = first_value(record.data, id_key) if id_key is not None else None
            if id_key is None or name not in renamed:
                return f"{source.name} holds a record whose id is no test or held-out row's"
            keep = set(features(record.data))
            pending.append(without_fields(record.data, keep, (id_key, renamed[name].encode())))
            size += len(pending[-1])
            if size >= CRC_BATCH_BYTES:
                out.writelines(frames(pending))
                pending, size = [], 0
        out.writelines(frames(pending))
    return None
