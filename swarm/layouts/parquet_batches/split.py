"""A harness split of a labelled parquet table whose inputs are filed by a group column, streamed:
icecube-neutrinos-in-deep-ice's `train_meta.parquet` (about 119 million events in MLE-bench's public dir, over
evaluation.max_train_mb), whose `batch_id` names `train/batch_<n>.parquet`. A table small enough to read whole
takes this split too where the split is `auto` or that group's (`swarm.layouts.holdout`), so that its test
side gets fresh ids alike.

Whole groups are drawn from the group column alone (read by itself), about min(fraction of the rows,
max(MIN_HELD, min(2 x the test rows, MAX_HELD))) rows of them, as the CSV stream (swarm/layouts/tables/streamed.py)
aims, with a ceiling: MLE-bench's icecube test has 13 million events. The table is then streamed a record batch at
a time: kept rows are written to the view's copy in their own types, held-out rows are kept in memory.

Held-out rows look like test rows: every test group and held-out group gets a fresh group value (its batch number:
`draw_fresh_ids` in the test values' format, none a labelled group's), and every test and held-out row a fresh id:
distinct whole numbers drawn from the test ids' smallest on, as densely as the test ids lie, none an id of the
labelled table or of the test (`_draw_ids`, `fresh_ids.draw_numbers`). They are handed out in ascending order along
the groups in the order of their fresh values, each group's rows in the order of their own ids, so the view's test
table is sorted as the competition's is (by group, then id), ids rise within each group's file as they did, and the
pulse files' row positions (`first_pulse_index`, `last_pulse_index`) still hold. Each test-side group's file (the
test's and the held-out groups') is written anew under its fresh name in the test folder (`fresh_side`: the id
column renamed, a row group at a time, in the source's schema and compression, its row groups kept but for one of
over 4 x CHUNK_ROWS rows, written in pieces of that many; staged, then moved into place, in a seeded order, each
stamped with a public test file's mtime): every such file is written by one rule, so neither a name, a number, an
id, an inode, an mtime nor a size tells a held-out group from a test one, and no file linked from the public dir is
written through. The sample follows the view's test table; `<run>/harness/view_ids.csv` maps each fresh id back (the
harness scores the held-out rows and delivers the test rows under their own ids).

What the split costs: the labelled table is read twice (the group column, then the rows; a third time its id
column, to keep drawn ids off it), the test table is read whole (its columns in arrow: about 0.4 GB for 13 million
events of four whole-number columns, twice while it is sorted), and every test-side group file is read and
written once: at MLE-bench's scale the test's 66 batch files and about 5 held-out ones (200,000 events each, their
pulses many GB: all the test side's pulses), a one-time cost of the split, streamed a row group (at most 4 x
CHUNK_ROWS rows) at a time. Where ids are kept the harness copies the same files instead where they come to at
most `fresh_files.COPY_LIMIT_BYTES` (else links them), so the rewrite adds decoding and encoding to that copy.

Ids are kept, and the run says why, where competition.json says `"keep_ids": true`, the ids are not whole numbers,
a side table names rows by the id, or the group values are in no format fresh ones are drawn in; then the test
table is streamed into the view with each held-out group's rows (without the targets) written between two of its
batches drawn at random, and the groups' files move to the test folder (copied by the harness).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from swarm.atomic import PUBLIC
from swarm.competitions.competition import Competition, MetricSpec
from swarm.evaluation.fresh_ids import (
    INT64_END,
    TABLE_SUFFIXES,
    TRUE_WORDS,
    FreshIds,
    draw_fresh_ids,
    draw_numbers,
    kept_ids,
)
from swarm.evaluation.holdout_record import VIEW_IDS, NoHoldout, SplitParts, write_private
from swarm.evaluation.labels import closed_classes, is_classification, submission_labels
from swarm.evaluation.side_files import hide_side_files
from swarm.evaluation.split import check_split, competition_hint
from swarm.evaluation.table_io import frame_as_text, table_header
from swarm.evaluation.view_files import (
    FileGroups,
    _group_files,
    extracted_archives,
    fresh_view,
    link_group_files,
    mirror,
    named_files,
)
from swarm.evaluation.view_tables import write_sample_in_order
from swarm.layouts.parquet_batches.fresh_side import FreshSide, compression, write_group_files
from swarm.layouts.tables.streamed import CHUNK_ROWS, MIN_HELD

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
    _check_streamable((path, test_path), groups.column, why_streamed, split)
    id_col, column, public = spec.id_column, groups.column, competition.public_dir
    held_groups, train_groups = _draw_groups(path, column, fraction, len(sample), seed)
    dest = fresh_view(root)
    held_table, n_kept = _stream_kept(path, dest / path.name, column, held_groups)
    held = frame_as_text(held_table.to_pandas())
    test_ids = set(sample[id_col].astype(str).str.strip())
    if test_ids & set(held[id_col].str.strip()):
        raise NoHoldout(f"some held-out {id_col}s are also the test's, so their rows could not be told apart")
    streamed = _Streamed(path, test_path, groups, held_groups, train_groups, held_table, held)
    skip = {path, test_path, competition.sample_submission, *extracted_archives(public)}
    side = _write_test_side(competition, root, dest, streamed, sample, id_col, skip, seed)
    # Side files keyed by a held-out id (the held-out rows stand for the table, which is never read whole).
    hidden = hide_side_files(public, dest, held, held, spec, test_ids, groups.test_dir, skip)
    mirror(public, dest, skip)
    write_sample_in_order(
        side.sample, side.ids, side.order, id_col, dest / competition.sample_submission.name
    )
    labels = submission_labels(held, spec, list(side.sample.columns))
    classification = is_classification(spec, labels, False)
    return SplitParts(
        labels=labels.reset_index(drop=True),
        held=held.assign(**{id_col: side.ids}),
        ids=side.ids,
        split=(
            f"group:{column}",
            f"{why_streamed}: streamed, whole {column}s held out, whose values name the inputs' files",
        ),
        n_train=n_kept,
        classes=closed_classes(labels, classification),
        table=f"{path.name} ({len(held)} rows of {len(held_groups)} {column}s)",
        hidden=hidden,
        file_dirs=side.file_dirs,
        fresh=side.fresh,
    )


def _check_streamable(tables: tuple[Path, Path], column: str, why_streamed: str, split: str) -> None:
    """NoHoldout, in one sentence after `why_streamed`, where the split asked for is not whole groups of `column`,
    or the labelled or the test table keeps a named range index (no column: a copy of some rows cannot keep it)."""
    if check_split(split) not in ("auto", f"group:{column}"):
        raise NoHoldout(
            f"{why_streamed}: it is streamed with whole {column}s held out, and the split {split!r} "
            "needs it whole"
        )
    for table in tables:
        ranges = (pq.read_schema(table).pandas_metadata or {}).get("index_columns", [])
        named = [
            i["name"] for i in ranges if isinstance(i, dict) and i.get("kind") == "range" and i.get("name")
        ]
        if named:
            raise NoHoldout(
                f"{why_streamed}, and {table.name} keeps {named[0]!r} as a range index, which a streamed copy of "
                "some of its rows cannot keep"
            )


@dataclass(frozen=True)
class _Streamed:
    """The labelled table streamed: its path and its test twin's, the groups whose values name the inputs' files,
    the held-out groups' values and every labelled group's, and the held-out rows (in arrow, and as text)."""

    path: Path
    test_path: Path
    groups: FileGroups
    held_groups: set[str]
    train_groups: list[str]
    held_table: pa.Table
    held: pd.DataFrame


@dataclass(frozen=True)
class _TestSide:
    """The view's test side as written: the ids in the view's test table's order, the sample (under fresh ids
    where they are), the held-out rows' ids in the view, the folders of the groups' files, and the view's ids."""

    order: list[str]
    sample: pd.DataFrame
    ids: list[str]
    file_dirs: list[str]
    fresh: FreshIds


def _write_test_side(
    competition: Competition,
    root: Path,
    dest: Path,
    streamed: _Streamed,
    sample: pd.DataFrame,
    id_col: str,
    skip: set[Path],
    seed: int,
) -> _TestSide:
    """The view's test table and the test-side groups' files: under fresh group values and ids
    (`_fresh_test_side`, `write_group_files`), or, where ids are kept (`_keep_reason`, or no fresh ones could be
    drawn), the test table streamed with the held-out rows between its batches and their groups' files linked
    to the test folder."""
    public, groups, held = competition.public_dir, streamed.groups, streamed.held
    files = _test_side_files(groups, streamed.held_groups)
    reason = _keep_reason(competition, public, skip, groups, id_col, streamed.test_path, files)
    side = _fresh_test_side(root, dest, streamed, id_col, seed) if reason is None else reason
    if isinstance(side, FreshSide):
        file_dirs = write_group_files(public, dest, groups, side, streamed.held_groups, id_col, skip, seed)
        sample = sample.assign(**{id_col: side.sample_ids(sample[id_col])})
        # The fresh ids are in view_ids.csv (written with the test table); the split's record needs only that.
        return _TestSide(side.order, sample, side.held, file_dirs, FreshIds([], []))
    rng = np.random.default_rng(seed + 1)
    test_path = streamed.test_path
    order = _stream_test(test_path, dest / test_path.name, streamed.held_table, groups.column, id_col, rng)
    file_dirs = link_group_files(public, dest, groups, held, held.iloc[:0], skip)
    return _TestSide(order, sample, held[id_col].str.strip().tolist(), file_dirs, kept_ids(side))


def _test_side_files(groups: FileGroups, held_groups: set[str]) -> list[Path]:
    """The files of the test side's groups: the test's, and the held-out groups' from the training folder."""
    held_files = (groups.train_files.get(g) for g in held_groups)
    return [*_group_files(groups.test_dir).values(), *(f for f in held_files if f is not None)]


def _keep_reason(
    competition: Competition,
    public: Path,
    skip: set[Path],
    groups: FileGroups,
    id_col: str,
    test_path: Path,
    files: list[Path],
) -> str | None:
    """Why the ids are kept, or None: competition.json's `keep_ids`, ids that are not whole numbers, a group's
    file (of `files`, the test side's) that is no parquet table, or a side table (not a group's file) naming rows
    by the id column, which fresh ids would not follow."""
    hint = competition_hint(competition, "keep_ids")
    if hint is not None and hint.strip().lower() in TRUE_WORDS:
        return 'competition.json says "keep_ids": true'
    schema = pq.read_schema(test_path)
    if id_col not in schema.names or not pa.types.is_integer(schema.field(id_col).type):
        return (
            f"the {id_col}s of {test_path.name} are not whole numbers, the only ids this split draws afresh"
        )
    for file in files:
        try:
            pq.read_schema(file)
        except (OSError, ValueError):  # pyarrow's ArrowInvalid is a ValueError
            return f"{file.relative_to(public)} is not a parquet table, so the ids in it cannot be rewritten"
    folders = {groups.test_dir, next(iter(groups.train_files.values())).parent}
    for table in sorted(public.rglob("*")):
        if table in skip or table.suffix.lower() not in TABLE_SUFFIXES or not table.is_file():
            continue
        if table.parent in folders or id_col not in table_header(table):
            continue
        return f"{table.relative_to(public)} names rows by {id_col} too, and is not rewritten"
    return None


def _fresh_test_side(root: Path, dest: Path, streamed: _Streamed, id_col: str, seed: int) -> FreshSide | str:
    """Fresh group values and ids for the test's rows and the held-out ones (see the module docstring), the
    view's test table written with them and view_ids.csv saved; or why the ids are kept (nothing written then)."""
    test_path, column = streamed.test_path, streamed.groups.column
    reader = pq.ParquetFile(test_path)
    schema = reader.schema_arrow
    test = reader.read()
    if test.num_rows == 0:
        return f"{test_path.name} has no rows, so there is no range to draw fresh {id_col}s in"
    held_rows = _in_columns(
        streamed.held_table.select([c for c in schema.names if c in streamed.held_table.column_names]), schema
    )
    side = pa.concat_tables([test.cast(schema), held_rows.cast(schema)])
    if side.column(id_col).null_count or side.column(column).null_count:
        return f"some rows of {test_path.name} have no {id_col} or {column}"
    values = pc.unique(side.column(column))
    group_of = pc.index_in(side.column(column), value_set=values).to_numpy()
    names = _text(values)
    rng = np.random.default_rng(seed + 2)
    fresh_values = _fresh_group_values(names, streamed, test, rng)
    if isinstance(fresh_values, str):
        return fresh_values
    typed = pa.array(fresh_values).cast(schema.field(column).type)
    rank = np.argsort(np.argsort(typed.to_numpy(zero_copy_only=False), kind="stable"), kind="stable")
    own = side.column(id_col).to_numpy().astype(np.int64)
    if len(np.unique(own)) != len(own):
        return f"some {id_col}s repeat on the test side"
    in_view = np.lexsort((own, rank[group_of]))  # by fresh group, then by own id: the test table's sort
    ids = _draw_ids(streamed.path, id_col, own, test.num_rows, _end_of(schema.field(id_col).type), rng)
    if ids is None:
        return f"there is no room among the {id_col}s' values for {len(own)} fresh ones"
    fresh = np.empty_like(own)
    fresh[in_view] = ids
    table = side.take(pa.array(in_view))
    table = _with_column(table, schema, id_col, pa.array(ids))
    table = _with_column(table, schema, column, typed.take(pa.array(group_of[in_view])))
    _write_like(table, dest / test_path.name, test_path)
    _save_view_ids(root, fresh, own, test.num_rows)
    order = [str(i) for i in ids.tolist()]
    return FreshSide(order, own, fresh, test.num_rows, names, fresh_values, group_of)


def _fresh_group_values(
    names: list[str], streamed: _Streamed, test: pa.Table, rng: np.random.Generator
) -> list[str] | str:
    """A fresh value for each test-side group (`names`: their own values), in the test values' format, none a
    labelled group's (`draw_fresh_ids`); or why none are drawn. NoHoldout where a held-out group is also the
    test's."""
    column = streamed.groups.column
    held_flags = np.array([name in streamed.held_groups for name in names], dtype=bool)
    test_names = set(_text(pc.unique(test.column(column))))
    if any(held_flags[k] and name in test_names for k, name in enumerate(names)):
        raise NoHoldout(f"a held-out {column} is also one of the test's, so its rows could not be told apart")
    taken = set(streamed.train_groups)  # every labelled group's value, the held-out ones' too
    # Group positions as the draw counts them: the test's groups first, then the held-out ones.
    positions = np.concatenate([np.flatnonzero(~held_flags), np.flatnonzero(held_flags)])
    drawn = draw_fresh_ids(
        rng.permutation(len(names)),
        [names[k] for k in positions[: int((~held_flags).sum())]],
        taken,
        int(held_flags.sum()),
        rng,
    )
    if not drawn.fresh:
        return f"the {column}s' format is not one fresh values are drawn in ({drawn.kept})"
    fresh_values = [""] * len(names)
    for k, value in zip(positions, [*drawn.test, *drawn.held], strict=True):
        fresh_values[int(k)] = value
    return fresh_values


def _with_column(table: pa.Table, schema: pa.Schema, name: str, values: pa.Array) -> pa.Table:
    """`table` with its column `name` replaced by `values`, in the schema's type."""
    field = schema.field(name)
    return table.set_column(schema.get_field_index(name), field, values.cast(field.type))


def _save_view_ids(root: Path, fresh: np.ndarray, own: np.ndarray, n_test: int) -> None:
    """view_ids.csv: each test-side row's fresh id, its own, and whether it is a test row (the first `n_test`) or
    a held-out one."""
    frame = pd.DataFrame(
        {
            "view": fresh,
            "own": own,
            "row": np.where(np.arange(len(own)) < n_test, "test", "held"),
        }
    )
    write_private(root / VIEW_IDS, frame.to_csv(index=False))


def _end_of(kind: pa.DataType) -> int:
    """Where the range fresh ids are drawn from ends (not reached): an integer type's largest value, at most
    2**63 - 1 (numbers are drawn as 64-bit)."""
    return min(int(np.iinfo(kind.to_pandas_dtype()).max), INT64_END)


def _draw_ids(
    path: Path, id_col: str, own: np.ndarray, n_test: int, end_limit: int, rng: np.random.Generator
) -> np.ndarray | None:
    """A fresh id for each of `own` (the test side's ids, the test's first `n_test`): `fresh_ids.draw_numbers`'
    whole numbers from the test ids' smallest on, as dense as those lie, below `end_limit`, none of them one of
    `own` or an id of the labelled table (its id column streamed for each look); ascending. None where there is
    no room."""

    def taken(candidates: np.ndarray) -> np.ndarray:
        unique, back = np.unique(candidates, return_inverse=True)
        batches = (b.column(0) for b in _id_batches(path, id_col))
        return _taken(unique, itertools.chain([pa.array(own)], batches))[back]

    try:
        return draw_numbers(len(own), own[:n_test], taken, rng, limit=end_limit)
    except ValueError:
        return None


def _id_batches(path: Path, id_col: str) -> Iterator[pa.RecordBatch]:
    yield from pq.ParquetFile(path).iter_batches(batch_size=CHUNK_ROWS, columns=[id_col])


def _taken(candidates: np.ndarray, arrays: Iterable[pa.Array]) -> np.ndarray:
    """Which of the sorted `candidates` are among the values of `arrays` (streamed, one array at a time)."""
    used = np.zeros(len(candidates), dtype=bool)
    for array in arrays:
        values = np.asarray(array.to_numpy(zero_copy_only=False), dtype=np.int64)
        at = np.searchsorted(candidates, values)
        inside = at < len(candidates)
        hit = candidates[at[inside]] == values[inside]
        used[at[inside][hit]] = True
    return used


def _write_like(table: pa.Table, target: Path, like: Path) -> None:
    """`table` written to `target` (a new file of the view) with `like`'s compression, CHUNK_ROWS rows a row
    group."""
    with pq.ParquetWriter(target, table.schema, compression=compression(like)) as writer:
        for start in range(0, max(table.num_rows, 1), CHUNK_ROWS):
            writer.write_table(table.slice(start, CHUNK_ROWS))
    target.chmod(PUBLIC)


def _column(path: Path, column: str) -> pa.ChunkedArray:
    return pq.read_table(path, columns=[column]).column(column)


def _text(values: pa.Array | pa.ChunkedArray) -> list[str]:
    return [str(v).strip() if v is not None else "" for v in values.to_pylist()]


def _draw_groups(
    path: Path, column: str, fraction: float, test_rows: int, seed: int
) -> tuple[set[str], list[str]]:
    """Whole groups in a seeded order until about min(fraction of the rows, max(MIN_HELD, 2 x test_rows)) rows
    are held out, at least one group, never all; and every group's value (as text)."""
    counts = pc.value_counts(_column(path, column))
    values = _text(counts.field("values"))
    sizes = counts.field("counts").to_numpy()
    if len(values) < 2:
        raise NoHoldout(f"{path.name} has fewer than 2 {column}s to hold out whole")
    aim = min(fraction * sizes.sum(), max(MIN_HELD, min(2 * test_rows, MAX_HELD)))
    order = np.random.default_rng(seed).permutation(len(values))
    taken = np.cumsum(sizes[order]) < aim
    want = min(len(values) - 1, max(1, int(taken.sum()) + 1))
    return {values[i] for i in order[:want]}, values


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
