"""The test side of a streamed parquet split under fresh ids (`swarm.layouts.parquet_batches.split`): the fresh
ids and group values as drawn (`FreshSide`), and each test-side group's file written anew in the view's test folder
under its fresh value, its ids renamed (`write_group_files`), a row group at a time, in its source's schema and
compression, so no file linked from the public dir is written through.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from swarm.atomic import PUBLIC
from swarm.evaluation.fresh_files import drawn_stamp
from swarm.evaluation.holdout_record import NoHoldout
from swarm.evaluation.view_files import FileGroups, _group_files
from swarm.layouts.tables.streamed import CHUNK_ROWS

WRITTEN_CODECS = {"none", "snappy", "gzip", "brotli", "zstd", "lz4"}  # what pyarrow's parquet writer takes
ROW_GROUP_CHUNKS = 4  # a group file's row groups are rewritten in pieces of at most this many CHUNK_ROWS


@dataclass(frozen=True)
class FreshSide:
    """The view's test side under fresh ids (`_fresh_test_side`): the fresh ids in the view's test table's order,
    each test and held-out row's own id and fresh one (the test's first, in the test table's order), the groups'
    own values, fresh values and whether each is held out, and each row's group (an index into those)."""

    order: list[str]
    own: np.ndarray
    fresh: np.ndarray
    n_test: int
    group_values: list[str]
    fresh_values: list[str]
    group_of: np.ndarray

    @property
    def held(self) -> list[str]:
        """The held-out rows' fresh ids, in the held-out table's order."""
        return [str(i) for i in self.fresh[self.n_test :].tolist()]

    def sample_ids(self, own: pd.Series) -> list[str]:
        """The fresh ids of the sample's rows (`own`: their ids as text)."""
        test_own, test_fresh = self.own[: self.n_test], self.fresh[: self.n_test]
        sorter = np.argsort(test_own, kind="stable")
        wanted = own.astype(str).str.strip().astype(np.int64).to_numpy()
        at = np.clip(np.searchsorted(test_own, wanted, sorter=sorter), 0, max(0, len(test_own) - 1))
        found = sorter[at]
        if len(test_own) == 0 or not np.array_equal(test_own[found], wanted):
            raise NoHoldout("the sample submission names ids the test table does not have")
        return [str(i) for i in test_fresh[found].tolist()]


def write_group_files(
    public: Path,
    dest: Path,
    groups: FileGroups,
    side: FreshSide,
    held_groups: set[str],
    id_col: str,
    skip: set[Path],
    seed: int,
) -> list[str]:
    """Every test-side group's file (the test's, and the held-out groups' from the training folder) written
    anew in the view's test folder under its fresh value, its ids renamed (`_rewrite_ids`), in a seeded order,
    each stamped with a public test file's mtime; the sources leave the view. Returns the folders involved."""
    test_files = _group_files(groups.test_dir)
    skip.update(test_files.values())
    if not test_files:
        raise NoHoldout(f"{groups.test_dir.name}/ holds no files of the test's {groups.column}s")
    example_value, example = next(iter(test_files.items()))
    prefix, suffix = example.stem[: len(example.stem) - len(example_value)], example.suffix
    target_dir = dest / groups.test_dir.relative_to(public)
    target_dir.mkdir(parents=True, exist_ok=True)
    mtimes = [os.stat(p).st_mtime_ns for p in test_files.values()]
    rng = np.random.default_rng(seed + 4)
    by_group = np.argsort(side.group_of, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(side.group_of, minlength=len(side.group_values)))])
    for k in rng.permutation(len(side.group_values)):
        value = side.group_values[int(k)]
        source = groups.train_files.get(value) if value in held_groups else test_files.get(value)
        if source is None:
            continue
        skip.add(source)
        rows = by_group[bounds[k] : bounds[k + 1]]
        own, fresh = side.own[rows], side.fresh[rows]
        at = np.argsort(own)
        target = target_dir / f"{prefix}{side.fresh_values[int(k)]}{suffix}"
        stamp = drawn_stamp(mtimes, rng)
        _rewrite_ids(source, target, id_col, own[at], fresh[at], stamp)
    train_dir = next(iter(groups.train_files.values())).parent
    return sorted({str(groups.test_dir.relative_to(public)), str(train_dir.relative_to(public))})


def _rewrite_ids(
    source: Path, target: Path, id_col: str, own: np.ndarray, fresh: np.ndarray, mtime_ns: int | None
) -> None:
    """`source` written to `target` in its schema and compression, a row group at a time (one of more than
    ROW_GROUP_CHUNKS x CHUNK_ROWS rows written as several of that many, so memory stays bounded), each value of
    its `id_col` (`own`, sorted) replaced by its fresh one (where the file has no such column, its rows as they
    are); staged beside `target`, then moved into place, stamped `mtime_ns`. NoHoldout where a row names an id
    its group's rows do not have."""
    reader = pq.ParquetFile(source)
    schema = reader.schema_arrow
    at = schema.get_field_index(id_col)
    staged = target.with_name(f".{target.name}.staged")
    try:
        with pq.ParquetWriter(staged, schema, compression=compression(source)) as writer:
            for k in range(reader.num_row_groups):
                for batch in reader.iter_batches(batch_size=ROW_GROUP_CHUNKS * CHUNK_ROWS, row_groups=[k]):
                    table = pa.Table.from_batches([batch], schema=schema)
                    if at >= 0:
                        table = table.set_column(
                            at, schema.field(at), _renamed(table.column(at), own, fresh, source.name)
                        )
                    writer.write_table(table, row_group_size=max(1, table.num_rows))
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
    staged.chmod(PUBLIC)
    if mtime_ns is not None:
        os.utime(staged, ns=(mtime_ns, mtime_ns))
    os.replace(staged, target)


def _renamed(ids: pa.ChunkedArray, own: np.ndarray, fresh: np.ndarray, name: str) -> pa.Array:
    """`ids` (each one of `own`, sorted) as their `fresh` ones, in their type; NoHoldout for one not in `own`
    (`name`: the file they are read from)."""
    values = ids.to_numpy().astype(np.int64)
    found = np.clip(np.searchsorted(own, values), 0, max(0, len(own) - 1))
    if len(values) and (len(own) == 0 or not np.array_equal(own[found], values)):
        raise NoHoldout(f"{name} names ids that its group's rows in the tables do not have")
    return pa.array(fresh[found] if len(own) else values).cast(ids.type)


def compression(path: Path) -> str:
    """The codec of `path`'s first column chunk, as pyarrow's writer names it (snappy where it has no rows, or
    its codec is one pyarrow does not write: LZO)."""
    meta = pq.ParquetFile(path).metadata
    if meta.num_row_groups == 0 or meta.num_columns == 0:
        return "snappy"
    codec = meta.row_group(0).column(0).compression.lower()
    named = {"uncompressed": "none", "lz4_raw": "lz4"}.get(codec, codec)
    return named if named in WRITTEN_CODECS else "snappy"
