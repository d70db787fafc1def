"""A harness split of a labelled parquet table too large to read whole, whose inputs are filed by a group column:
icecube-neutrinos-in-deep-ice's `train_meta.parquet` (about 119 million events in MLE-bench's public dir, over
evaluation.max_train_mb), whose `batch_id` names `train/batch_<n>.parquet`.

Whole groups are drawn from the group column alone (read by itself), about min(fraction of the rows,
max(MIN_HELD, min(2 x the test rows, MAX_HELD))) rows of them, as the CSV stream (swarm/evaluation/large_table.py)
aims, with a ceiling: MLE-bench's icecube test has 13 million events. The
table is then streamed a record batch at a time: kept rows are written to the view's copy in their own types,
held-out rows are kept in memory. The test table is streamed likewise into the view, each held-out group's rows
(without the targets) written between two of its batches drawn at random; the sample follows the test table's
order, and the groups' files move to the test folder as in the whole-table split.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from swarm.atomic import PUBLIC
from swarm.competitions.competition import Competition, MetricSpec
from swarm.evaluation.fresh_ids import kept_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts
from swarm.evaluation.labels import closed_classes, is_classification, submission_labels
from swarm.evaluation.large_table import CHUNK_ROWS, MIN_HELD
from swarm.evaluation.side_files import hide_side_files
from swarm.evaluation.split import check_split
from swarm.evaluation.table_io import frame_as_text
from swarm.evaluation.view_files import (
    FileGroups,
    extracted_archives,
    fresh_view,
    link_group_files,
    mirror,
    named_files,
)
from swarm.evaluation.view_tables import write_sample_in_order

MAX_HELD = 1_000_000  # held-out rows aimed at, at most: kept in memory as text, and scored at every step


def parquet_file_groups(
    public: Path, train_path: Path, test_path: Path, id_col: str, targets: list[str]
) -> FileGroups | None:
    """`swarm.evaluation.view_files.file_groups` for tables too large to read whole: each column of both tables
    (not the id or a target) read by itself, as its distinct values."""
    if not test_path.is_file():
        return None
    train_names = set(pq.read_schema(train_path).names)
    listed: dict[Path, dict[str, Path]] = {}
    for column in pq.read_schema(test_path).names:
        if column == id_col or column in targets or column not in train_names:
            continue
        values = _column(train_path, column)
        distinct = pc.unique(values)
        if len(distinct) == len(values):  # no two rows share a value: not a group
            continue
        test_values = set(_text(pc.unique(_column(test_path, column)))) - {""}
        groups = named_files(public, column, set(_text(distinct)), test_values, listed)
        if groups is not None:
            return groups
    return None


def split_large_parquet(
    competition: Competition,
    spec: MetricSpec,
    root: Path,
    path: Path,
    test_path: Path,
    groups: FileGroups,
    sample: pd.DataFrame,
    *,
    why_streamed: str,
    fraction: float,
    split: str,
    seed: int,
) -> SplitParts:
    """Hold out whole groups of `path`, streamed (see the module docstring); NoHoldout in one sentence where the
    split asked for is not the group split, or a held-out id is also the test's."""
    if check_split(split) not in ("auto", f"group:{groups.column}"):
        raise NoHoldout(
            f"{why_streamed}: it is streamed with whole {groups.column}s held out, and the split {split!r} "
            "needs it whole"
        )
    for table in (path, test_path):  # a named range index is no column: a copy of some rows cannot keep it
        ranges = (pq.read_schema(table).pandas_metadata or {}).get("index_columns", [])
        named = [
            i["name"] for i in ranges if isinstance(i, dict) and i.get("kind") == "range" and i.get("name")
        ]
        if named:
            raise NoHoldout(
                f"{why_streamed}, and {table.name} keeps {named[0]!r} as a range index, which a streamed copy of "
                "some of its rows cannot keep"
            )
    id_col, column = spec.id_column, groups.column
    held_groups = _draw_groups(path, column, fraction, len(sample), seed)
    public, dest = competition.public_dir, fresh_view(root)
    held_table, n_kept = _stream_kept(path, dest / path.name, column, held_groups)
    held = frame_as_text(held_table.to_pandas())
    ids = held[id_col].str.strip().tolist()
    test_ids = set(sample[id_col].astype(str).str.strip())
    if test_ids & set(ids):
        raise NoHoldout(f"some held-out {id_col}s are also the test's, so their rows could not be told apart")
    rng = np.random.default_rng(seed + 1)
    order = _stream_test(test_path, dest / test_path.name, held_table, column, id_col, rng)
    skip = {path, test_path, competition.sample_submission, *extracted_archives(public)}
    file_dirs = link_group_files(public, dest, groups, held, held.iloc[:0], skip)
    # Side files keyed by a held-out id (the held-out rows stand for the table, which is never read whole).
    hidden = hide_side_files(public, dest, held, held, spec, test_ids, groups.test_dir, skip)
    mirror(public, dest, skip)
    write_sample_in_order(sample, ids, order, id_col, dest / competition.sample_submission.name)
    labels = submission_labels(held, spec, list(sample.columns))
    classification = is_classification(spec, labels, False)
    return SplitParts(
        labels=labels.reset_index(drop=True),
        held=held,
        ids=ids,
        split=(
            f"group:{column}",
            f"{why_streamed}: streamed, whole {column}s held out, whose values name the inputs' files",
        ),
        n_train=n_kept,
        classes=closed_classes(labels, classification),
        table=f"{path.name} ({len(held)} rows of {len(held_groups)} {column}s)",
        hidden=hidden,
        file_dirs=file_dirs,
        fresh=kept_ids(
            f"{path.name} is streamed, and the ids live inside the input files its {column}s name, which are not "
            "rewritten"
        ),
    )


def _column(path: Path, column: str) -> pa.ChunkedArray:
    return pq.read_table(path, columns=[column]).column(column)


def _text(values: pa.Array | pa.ChunkedArray) -> list[str]:
    return [str(v).strip() if v is not None else "" for v in values.to_pylist()]


def _draw_groups(path: Path, column: str, fraction: float, test_rows: int, seed: int) -> set[str]:
    """Whole groups in a seeded order until about min(fraction of the rows, max(MIN_HELD, 2 x test_rows)) rows
    are held out; at least one group, never all."""
    counts = pc.value_counts(_column(path, column))
    values = _text(counts.field("values"))
    sizes = counts.field("counts").to_numpy()
    if len(values) < 2:
        raise NoHoldout(f"{path.name} has fewer than 2 {column}s to hold out whole")
    aim = min(fraction * sizes.sum(), max(MIN_HELD, min(2 * test_rows, MAX_HELD)))
    order = np.random.default_rng(seed).permutation(len(values))
    taken = np.cumsum(sizes[order]) < aim
    want = min(len(values) - 1, max(1, int(taken.sum()) + 1))
    return {values[i] for i in order[:want]}


def _group_mask(batch: pa.RecordBatch, column: str, held: set[str]) -> np.ndarray:
    values = batch.column(column).to_pandas().astype(str).str.strip()
    return values.isin(held).to_numpy()


def _stream_kept(source: Path, target: Path, column: str, held: set[str]) -> tuple[pa.Table, int]:
    """Copy `source` to `target` (same schema) without the held-out groups' rows, which are returned."""
    reader = pq.ParquetFile(source)
    parts, kept = [], 0
    with pq.ParquetWriter(target, reader.schema_arrow) as writer:
        for batch in reader.iter_batches(batch_size=CHUNK_ROWS):
            mask = _group_mask(batch, column, held)
            writer.write_batch(batch.filter(pa.array(~mask)))
            parts.append(batch.filter(pa.array(mask)))
            kept += int((~mask).sum())
    target.chmod(PUBLIC)
    if kept == 0:
        raise NoHoldout(f"holding out whole {column}s of {source.name} leaves no rows to train on")
    return pa.Table.from_batches(parts, schema=reader.schema_arrow), kept


def _stream_test(
    source: Path, target: Path, held: pa.Table, column: str, id_col: str, rng: np.random.Generator
) -> list[str]:
    """Copy the test table to `target` with each held-out group's rows (in the test table's columns) written
    after one of its batches drawn at random; returns the ids in the order written."""
    reader = pq.ParquetFile(source)
    schema = reader.schema_arrow
    rows = held.select([c for c in schema.names if c in held.column_names])
    by_group = rows.column(column).to_pandas().astype(str).str.strip()
    groups = list(dict.fromkeys(by_group))
    batches = max(1, reader.metadata.num_rows // CHUNK_ROWS + 1)
    slots = rng.integers(0, batches, len(groups))
    order: list[str] = []

    def write(writer: pq.ParquetWriter, table: pa.Table) -> None:
        writer.write_table(table.cast(schema) if table.schema != schema else table)
        order.extend(_text(table.column(id_col)))

    waiting = dict.fromkeys(groups)
    with pq.ParquetWriter(target, schema) as writer:
        for k, batch in enumerate(reader.iter_batches(batch_size=CHUNK_ROWS)):
            write(writer, pa.Table.from_batches([batch], schema=schema))
            for group in [g for g, slot in zip(groups, slots, strict=True) if slot == k]:
                write(writer, _in_columns(rows.filter(pa.array((by_group == group).to_numpy())), schema))
                waiting.pop(group)
        for group in waiting:  # drawn past the batches the reader gave: at the end
            write(writer, _in_columns(rows.filter(pa.array((by_group == group).to_numpy())), schema))
    target.chmod(PUBLIC)
    return order


def _in_columns(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """`table` with `schema`'s columns, in its order (a column the labelled table lacks: nulls)."""
    columns = [
        table.column(f.name) if f.name in table.column_names else pa.nulls(len(table), f.type) for f in schema
    ]
    return pa.table(columns, schema=schema)
