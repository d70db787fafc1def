"""The plain layout: a labelled table (`train.csv`, a labels table beside the inputs' files, JSON records, a parquet
table, or training files labelled by their names) beside a test table or the sample's ids, split row by row (or by
groups, in time, ...: `swarm.evaluation.split`). A table over evaluation.max_train_mb is streamed in chunks
(`streamed`), a parquet table whose inputs a group column files is split by whole groups (`parquet_batches`), and
versions of one image in folders (`variants`) or records linked by tokens (`token_tables`) are read through it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition, MetricSpec
from swarm.evaluation.fresh_ids import FreshIds, ViewRows, fresh_view_ids, keep_ids_reason, kept_ids
from swarm.evaluation.holdout_record import (
    TEST,
    TRAIN,
    NoHoldout,
    SplitParts,
    SplitRequest,
    write_view_ids,
)
from swarm.evaluation.labelled_data import TooLarge
from swarm.evaluation.labels import (
    closed_classes,
    is_classification,
    label_strata,
    renamed_target,
    submission_labels,
)
from swarm.evaluation.listed_items import listed_items_fillers
from swarm.evaluation.new_ids import held_out_ids
from swarm.evaluation.side_files import hide_side_files, records_naming
from swarm.evaluation.split import (
    check_split,
    choose_split,
    competition_hint,
    competition_split_hint,
    split_rows,
)
from swarm.evaluation.split_relation import relation_lines
from swarm.evaluation.table_io import is_parquet, read_csv_as_text, write_public_table
from swarm.evaluation.tfrecord_split import LabelledRows, split_tfrecords
from swarm.evaluation.view_files import (
    FileGroups,
    KeyedFolders,
    extracted_archives,
    file_groups,
    files_ending_with_ids,
    fresh_view,
    keyed_folders,
    link_column_keyed_files,
    link_group_files,
    link_keyed_files,
    link_labelled_files,
    mirror,
)
from swarm.evaluation.view_tables import renamed_records, write_sample, write_test_csv, write_test_records
from swarm.formats.records import write_records
from swarm.layouts.tables.labelled import LabelledExamples, find_test_table, read_labelled_examples
from swarm.layouts.tables.streamed import StreamedRows, held_share, side_tables, stream_split
from swarm.layouts.token_tables.split import split_token_tables, token_tables_layout
from swarm.layouts.variants.split import split_variant_folders


def split_tables(request: SplitRequest, labels_table: str | None = None) -> SplitParts:
    """The split of the labelled table (`labels_table`, else competition.json's, names it where several hold
    labels): the held-out rows leave it and join the test table and the sample under fresh ids, their files moved
    to the test side, side files hidden."""
    spec, sample = request.spec, request.sample
    targets = [c for c in sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    test_ids = [str(i).strip() for i in sample[spec.id_column]]
    try:
        data = _read_examples(request, targets, test_ids, labels_table)
    except TooLarge as big:  # streamed in chunks instead, where the layout is plain enough
        return _build_streamed(request, big, test_ids, targets)
    other = _split_by_other_layout(request, data, targets)
    if other is not None:
        return other
    test_columns = None if data.test is None else list(data.test.columns)
    labels = _table_labels(data.train, spec, list(sample.columns), test_columns)
    # train.csv without a test table beside it: only ids and labels, the inputs elsewhere?
    if data.layout is None and data.path.name == TRAIN and data.test is None:
        parts = _split_without_inputs(request, data.train, labels.frame)
        if parts is not None:
            return parts
    rows = _held_rows(request, data, labels, test_ids)
    files = _write_view_files(request, data, labels, rows, test_ids)
    fresh, ids = _write_view_tables(request, data, rows, files, targets, test_ids)
    skip = (spec.id_column, *targets, *labels.frame.columns, *labels.renamed)
    share = len(rows.held) / len(data.train)
    return SplitParts(
        labels.frame,
        rows.held,
        ids,
        positions=rows.positions,
        split=(rows.chosen, rows.why),
        n_train=len(rows.kept),
        rekeyed=rows.rekeyed,
        classes=closed_classes(labels.frame, rows.classification and not labels.wide),
        table=labels.described(data.name),
        hidden=files.hidden,
        file_dirs=files.file_dirs,
        fresh=fresh,
        fraction=share if abs(share - request.fraction) > 0.01 else None,
        relation=relation_lines(
            rows.chosen, data.train, data.test, rows.positions, skip, data.train.index.isin(rows.kept.index)
        ),
    )


def _read_examples(
    request: SplitRequest, targets: list[str], test_ids: list[str], labels_table: str | None
) -> LabelledExamples:
    """The labelled examples and the test table beside them (`read_labelled_examples`; `labels_table`, else
    competition.json's, names the labelled table where several could be); TooLarge over evaluation.max_train_mb."""
    competition, spec, sample = request.competition, request.spec, request.sample
    chosen = labels_table or competition_hint(competition, "labels_table")
    return read_labelled_examples(competition, spec, targets, sample, test_ids, request.max_train_mb, chosen)


def _split_by_other_layout(
    request: SplitRequest, data: LabelledExamples, targets: list[str]
) -> SplitParts | None:
    """The split of a layout read through the labelled table: a parquet table whose inputs a group column files,
    split by whole groups as when streamed (icecube); versions of one image in folders (alaska2). None otherwise."""
    if data.layout is None and is_parquet(data.path):
        grouped = _parquet_groups_holdout(
            request, data.path, data.test_path, targets, data.path.name, whole=True
        )
        if grouped is not None:
            return grouped
    if data.layout is not None and data.layout["kind"] == "variants":
        return split_variant_folders(request, data.layout, data.train)
    return None


@dataclass(frozen=True)
class _TableLabels:
    """The labelled rows' targets in the submission's columns (`frame`), the labelled table's name for the one
    the sample names otherwise (`renamed`: its column -> the sample's), and whether the sample's targets are class
    columns the table holds as values of one column (`wide`)."""

    frame: pd.DataFrame
    renamed: dict[str, str]
    wide: bool

    def described(self, table: str) -> str:
        """The labelled table's name in the split's description, with the targets it names otherwise."""
        return table + "".join(f" ({old} as {new})" for old, new in self.renamed.items())


def _table_labels(
    train: pd.DataFrame, spec: MetricSpec, sample_columns: list[str], test_columns: list[str] | None
) -> _TableLabels:
    """The labelled rows' targets as the submission has them (`renamed_target`, `submission_labels`)."""
    renamed = renamed_target(train, spec, sample_columns, test_columns)
    labels = submission_labels(train.rename(columns=renamed), spec, sample_columns)
    wide = not all(c in train.columns or c in renamed.values() for c in labels.columns)
    return _TableLabels(labels, renamed, wide)


@dataclass(frozen=True)
class _HeldRows:
    """The rows a plain table's split holds out: the split chosen and why, the held-out rows (`held`, at
    `positions` of the labelled table) and the kept ones, whether the targets are classes, the column whose values
    name the rows' files (if any), the held-out rows' own ids (`original`, empty where the table has no id column)
    and their ids in the view (`ids`: new ones where `rekeyed`), the folders the ids name files in, and the
    generator the view's order is then drawn from."""

    chosen: str
    why: str
    positions: np.ndarray
    held: pd.DataFrame
    kept: pd.DataFrame
    classification: bool
    groups: FileGroups | None
    original: list[str]
    ids: list[str]
    rekeyed: bool
    folders: KeyedFolders | None
    rng: np.random.Generator


def _held_rows(
    request: SplitRequest, data: LabelledExamples, labels: _TableLabels, test_ids: list[str]
) -> _HeldRows:
    """Choose the split (`choose_split`: stratified by the labels where they are classes, by groups of the rows'
    files, in time, ...), hold out its rows and give them their ids in the view; NoHoldout where their inputs could
    not follow them (`_check_inputs_found`)."""
    competition, spec, train, layout = request.competition, request.spec, data.train, data.layout
    public, id_col = competition.public_dir, spec.id_column
    strata = label_strata(labels.frame)
    classification = is_classification(spec, labels.frame, labels.wide)
    hint = competition_split_hint(competition)
    groups = file_groups(public, data.test, train, id_col) if layout is None else None
    chosen, why = choose_split(
        check_split(request.split), hint, train, data.test, classification, id_col, groups and groups.column
    )
    positions, held, kept = split_rows(
        chosen, train, strata, request.fraction, request.seed, data.test, (id_col,), request.fold
    )
    rng = np.random.default_rng(request.seed + 1)
    # File paths are not ids: files labelled by their names always get new ones in the test ids' format.
    original, ids, rekeyed = held_out_ids(train, held, id_col, test_ids, rng, always_new=layout is not None)
    folders = keyed_folders(public, test_ids, original) if layout is None else None
    inputs_elsewhere = set(train.columns) <= {id_col, *labels.frame.columns}  # a labels table, not records
    _check_inputs_found(public, data, inputs_elsewhere, folders, test_ids)
    return _HeldRows(
        chosen, why, positions, held, kept, classification, groups, original, ids, rekeyed, folders, rng
    )


def _check_inputs_found(
    public: Path,
    data: LabelledExamples,
    inputs_elsewhere: bool,
    folders: KeyedFolders | None,
    test_ids: list[str],
) -> None:
    """NoHoldout where the labelled table is a labels table (`inputs_elsewhere`: its ids and labels only; not
    train.csv) whose ids name no files in a folder beside the test files: a held-out example would have no input
    in the sandbox."""
    if data.layout is not None or data.path.name == TRAIN or folders is not None or not inputs_elsewhere:
        return
    near = files_ending_with_ids(public, test_ids)
    named = (
        f"; files such as {', '.join(near)} end with the ids, but the harness matches ids to whole file names"
        if near
        else ""
    )
    raise NoHoldout(
        f"the ids of {data.path.name} name no files in a folder beside the test files (are the inputs in an "
        f"archive?), so a held-out example would have no input in the sandbox{named}"
    )


@dataclass(frozen=True)
class _ViewFiles:
    """The view's files as written: its root (`dest`), the folders whose files the ids key, the test folder the
    ids name files in (if any), and the side files hidden or rewritten without the held-out rows."""

    dest: Path
    file_dirs: list[str]
    test_dir: Path | None
    hidden: list[str]


def _write_view_files(
    request: SplitRequest, data: LabelledExamples, labels: _TableLabels, rows: _HeldRows, test_ids: list[str]
) -> _ViewFiles:
    """The view's files: the held-out examples' files moved to the test side (their TFRecords' records too:
    siim-isic, cassava), side files hidden, the rest linked."""
    competition, spec, train = request.competition, request.spec, data.train
    public, id_col = competition.public_dir, spec.id_column
    dest = fresh_view(request.root)
    # The archives whose contents the competition's view extracted stay out: they hold the held-out examples'
    # files under their training names (train.zip's `cat.12.jpg`), and the extracted copies are split above.
    skip = {data.path, data.test_path, competition.sample_submission, *extracted_archives(public)}
    kept_own = set(rows.kept[id_col].str.strip()) if id_col in rows.kept.columns else set()
    file_dirs, test_dir = _link_held_files(public, dest, data, rows, id_col, skip, kept_own)
    held_names = dict(zip(rows.original, rows.ids, strict=True)) if rows.original else {}
    label_columns = (
        *labels.renamed,
        *(c for c in labels.frame.columns if c in train.columns),
        *spec.target_columns,
    )
    test_columns = None if data.test is None else tuple(data.test.columns)
    labelled = LabelledRows(train, id_col, tuple(label_columns), test_columns)
    hidden = split_tfrecords(public, dest, held_names, labelled, skip, rows.rng)
    hidden += hide_side_files(public, dest, train, rows.held, spec, set(test_ids), test_dir, skip, kept_own)
    mirror(public, dest, skip)
    return _ViewFiles(dest, file_dirs, test_dir, hidden)


def _link_held_files(
    public: Path,
    dest: Path,
    data: LabelledExamples,
    rows: _HeldRows,
    id_col: str,
    skip: set[Path],
    kept_own: set[str],
) -> tuple[list[str], Path | None]:
    """The held-out examples' files linked where the test's are, under their ids in the view (and added to
    `skip`): for a table, the files its ids key in folders, those a test column names and those a group column's
    values name; for files labelled by their names, each held-out file. The folders involved, and the test folder
    the ids name files in (if any)."""
    if data.layout is not None:
        file_dirs = link_labelled_files(public, dest, data.layout, rows.original, rows.ids, skip)
        return file_dirs, public / data.layout["test"]
    folders, held, kept = rows.folders, rows.held, rows.kept
    file_dirs = link_keyed_files(public, dest, folders, rows.original, rows.ids, skip, kept_own)
    by_column = link_column_keyed_files(public, dest, data.test, held, kept, id_col, skip)
    by_group = link_group_files(public, dest, rows.groups, held, kept, skip) if rows.groups else []
    return sorted({*file_dirs, *by_column, *by_group}), folders[0][0] if folders else None


def _write_view_tables(
    request: SplitRequest,
    data: LabelledExamples,
    rows: _HeldRows,
    files: _ViewFiles,
    targets: list[str],
    test_ids: list[str],
) -> tuple[FreshIds, list[str]]:
    """The view's tables: the labelled table without the held-out rows, which join the test table and the sample
    in a random order, every test and held-out row under a fresh id (its files in the test folder renamed alike)
    unless ids are kept. Returns the view's ids and the held-out rows' ids in it."""
    competition, spec, sample, dest = request.competition, request.spec, request.sample, files.dest
    id_col = spec.id_column
    _write_kept_rows(data, rows.kept, id_col, dest)
    order = rows.rng.permutation(len(sample) + len(rows.held))
    fillers = {}
    if (
        rows.folders is not None
    ):  # a sample listing each test row's own items lists the held-out rows' (AI4Code)
        held_files = [rows.folders[1][1].get(str(o).strip()) for o in rows.original]
        fillers = listed_items_fillers(sample, id_col, targets, rows.folders[0][1], held_files)
    # Every test and held-out row under a fresh id (its files in the test folder renamed alike), unless ids are kept.
    fresh = fresh_view_ids(_view_rows(competition, data, rows, files, id_col, test_ids, order), request.seed)
    ids, test_table, fresh_of = rows.ids, data.test, None
    if fresh.fresh:
        fresh_of, ids = fresh.renamed(test_ids, ids), fresh.held
        sample = sample.assign(**{id_col: fresh.test})
        if test_table is not None:
            own_ids = test_table[id_col].str.strip()
            test_table = test_table.assign(**{id_col: own_ids.map(fresh_of).fillna(own_ids)})
    _write_test_side(data, rows, test_table, fresh_of, ids, id_col, order, dest)
    write_sample(sample, rows.held, ids, spec, order, dest / competition.sample_submission.name, fillers)
    if fresh.fresh:
        own_held = rows.original or [""] * len(
            ids
        )  # a table without ids: held-out rows had none of their own
        write_view_ids(request.root, {"test": fresh.test, "held": ids}, {"test": test_ids, "held": own_held})
    return fresh, ids


def _write_kept_rows(data: LabelledExamples, kept: pd.DataFrame, id_col: str, dest: Path) -> None:
    """The view's labelled table: its kept rows, as records or as a table in its own format and under its own
    name for the id (files labelled by their names have no table)."""
    if data.records is not None:
        write_records([data.records[i] for i in kept.index], str(dest / data.path.name), like=str(data.path))
    elif data.layout is None:
        write_public_table(kept.rename(columns={id_col: data.id_name}), dest / data.path.name, data.path)


def _view_rows(
    competition: Competition,
    data: LabelledExamples,
    rows: _HeldRows,
    files: _ViewFiles,
    id_col: str,
    test_ids: list[str],
    order: np.ndarray,
) -> ViewRows:
    """What `fresh_view_ids` needs of the view built so far (all but its test table and sample)."""
    dest, public = files.dest, competition.public_dir
    own = {dest / data.path.name, dest / data.test_path.name, dest / competition.sample_submission.name}
    return ViewRows(
        competition,
        data.train,
        data.test,
        id_col,
        {id_col, data.id_name},
        test_ids,
        rows.ids,
        [str(i).strip() for i in rows.original] or rows.ids,
        files.hidden,
        dest,
        dest / files.test_dir.relative_to(public) if files.test_dir is not None else None,
        own,
        order,
    )


def _write_test_side(
    data: LabelledExamples,
    rows: _HeldRows,
    test_table: pd.DataFrame | None,
    fresh_of: dict[str, str] | None,
    ids: list[str],
    id_col: str,
    order: np.ndarray,
    dest: Path,
) -> None:
    """The view's test table: the test rows (`test_table`, under their ids in the view) and the held-out ones
    (under `ids`) in `order`, as records where the labelled table is records (the test records renamed by
    `fresh_of`, each row's fresh id, where ids are fresh), else as a table under its own name for the id."""
    if data.records is not None and data.test_records is not None:
        held_records = [data.records[i] for i in rows.positions]
        test_records = (
            data.test_records if fresh_of is None else renamed_records(data.test_records, id_col, fresh_of)
        )
        write_test_records(test_records, held_records, ids, id_col, order, data.test_path, dest)
    elif test_table is not None:
        back = {id_col: data.id_name}  # the tables' own name for the id
        appended = rows.held.assign(**{id_col: ids}).rename(columns=back)
        write_test_csv(
            test_table.rename(columns=back), appended, order, dest / data.test_path.name, data.test_path
        )


def _split_without_inputs(
    request: SplitRequest, train: pd.DataFrame, labels: pd.DataFrame
) -> SplitParts | None:
    """Where train.csv has no test table beside it: None where it holds inputs besides the ids and labels, or the
    ids name files (the usual split follows them); the split of records in JSON tables linked by tokens where the
    test's inputs are such records (3d-object-detection); else NoHoldout, as a held-out example would have no
    input."""
    public, id_col, sample = request.competition.public_dir, request.spec.id_column, request.sample
    if not set(train.columns) <= {id_col, *labels.columns}:
        return None
    test_ids = [str(i).strip() for i in sample[id_col]]
    if keyed_folders(public, test_ids, train[id_col].str.strip().tolist()) is not None:
        return None
    fields = token_tables_layout(public, test_ids)
    if fields is not None:
        return split_token_tables(request, fields)
    raise NoHoldout(
        f"{TRAIN} holds only ids and labels, there is no test table and the ids name no files, so a held-out example "
        f"would have no input in the sandbox{records_naming(public, test_ids)}"
    )


def _parquet_groups_holdout(
    request: SplitRequest, path: Path, test_path: Path, targets: list[str], why: str, *, whole: bool
) -> SplitParts | None:
    """Whole groups of a parquet table held out and its test twin streamed, where a column's values name the
    inputs' files (icecube's `batch_id`: swarm/layouts/parquet_batches/split.py, which draws fresh ids for the test
    side's events and files); None where no column does, or (`whole`: a table small enough to read whole, which
    the other splits can take) where the split asked for is not that group's."""
    from swarm.layouts.parquet_batches.split import (  # pyarrow only here
        parquet_file_groups,
        split_large_parquet,
    )

    competition, spec, root = request.competition, request.spec, request.root
    groups = parquet_file_groups(competition.public_dir, path, test_path, spec.id_column, targets)
    if groups is None or (whole and check_split(request.split) not in ("auto", f"group:{groups.column}")):
        return None
    options = {
        "why_streamed": why,
        "fraction": request.fraction,
        "split": request.split,
        "seed": request.seed,
    }
    try:
        parts = split_large_parquet(
            competition, spec, root, path, test_path, groups, request.sample, **options
        )
    except NoHoldout:
        if whole:  # read whole, the table's other splits may take it (a named range index, say)
            return None
        raise
    share = len(parts.held) / (len(parts.held) + parts.n_train)  # the share held out, not the one asked
    return replace(parts, fraction=share)


def _build_streamed(
    request: SplitRequest, big: TooLarge, test_ids: list[str], targets: list[str]
) -> SplitParts:
    """build_holdout for a labelled CSV over evaluation.max_train_mb (swarm/layouts/tables/streamed.py): streamed
    in chunks, rows held out at random; a parquet table whose inputs a group column names, whole groups held out
    (swarm/layouts/parquet_batches/split.py); refused, in one sentence after `big`'s, where the layout is not plain."""
    competition, spec, sample, path = request.competition, request.spec, request.sample, big.path
    test_path = find_test_table(competition.public_dir, path)
    if is_parquet(path):
        grouped = _parquet_groups_holdout(request, path, test_path, targets, str(big), whole=False)
        if grouped is not None:
            return grouped
    skip = _check_streamable(competition, big, test_path, request.split)
    share = held_share(path, request.fraction, len(sample))
    dest = fresh_view(request.root)
    streamed = stream_split(path, dest / path.name, spec.id_column, share, request.seed)
    held = streamed.held
    if held.empty or streamed.n_kept == 0:
        raise NoHoldout(f"{big}, and streaming it left no rows to hold out or none to train on")
    test = read_csv_as_text(test_path)
    labels = _table_labels(held, spec, list(sample.columns), list(test.columns))
    classification = is_classification(spec, labels.frame, labels.wide)
    rng = np.random.default_rng(request.seed + 1)
    ids, rekeyed = _streamed_ids(streamed, spec.id_column, test_ids, rng)
    mirror(competition.public_dir, dest, skip)
    order = rng.permutation(len(sample) + len(held))
    write_test_csv(test, held.assign(**{spec.id_column: ids}), order, dest / test_path.name)
    write_sample(sample, held, ids, spec, order, dest / competition.sample_submission.name)
    return SplitParts(
        labels.frame.reset_index(drop=True),
        held,
        ids,
        positions=np.arange(len(held)),
        split=("random", f"{big}: streamed, each row held out with probability {share:.3g}"),
        fraction=share,
        n_train=streamed.n_kept,
        rekeyed=rekeyed,
        classes=closed_classes(labels.frame, classification and not labels.wide),
        table=labels.described(path.name),
        hidden=[],
        file_dirs=[],
        fresh=kept_ids(
            keep_ids_reason(competition, held, test, spec.id_column)
            or "the labelled table is streamed, so the harness never holds every training id to draw fresh ids "
            "apart from"
        ),
    )


def _check_streamable(competition: Competition, big: TooLarge, test_path: Path, split: str) -> set[Path]:
    """The public files the streamed view rewrites or leaves out; NoHoldout, in one sentence after `big`'s, where
    the table cannot be split a chunk at a time: a split other than a random one is asked for, it is no CSV beside
    a test table, or another table or a folder beside it could hold the held-out rows' labels or inputs."""
    public, path = competition.public_dir, big.path
    if check_split(split) not in ("auto", "random"):
        raise NoHoldout(
            f"{big}: it is split at random, a chunk at a time, and the split {split!r} needs it whole"
        )
    if path.suffix.lower() != ".csv" or not test_path.is_file():
        raise NoHoldout(
            f"{big}, and only a CSV beside {TEST}, or a parquet table whose inputs a group column names, is split "
            "a chunk at a time"
        )
    skip = {path, test_path, competition.sample_submission, *extracted_archives(public)}
    others = side_tables(public, skip)
    folders = sorted(str(p.relative_to(public)) for p in public.iterdir() if p.is_dir())
    if others or folders:
        raise NoHoldout(
            f"{big}, and {(others or folders)[0]} beside it could hold the held-out rows' labels or inputs, which "
            "a split a chunk at a time does not follow"
        )
    return skip


def _streamed_ids(
    streamed: StreamedRows, id_col: str, test_ids: list[str], rng: np.random.Generator
) -> tuple[list[str], bool]:
    """The streamed held-out rows' ids in the view and whether they are new (`held_out_ids`: new ones where theirs
    could clash), none of them the largest whole-number id the stream saw (the other training ids are not kept)."""
    held = streamed.held
    known = (
        held
        if streamed.largest_id is None
        else pd.concat([held, pd.DataFrame({id_col: [str(streamed.largest_id)]})])
    )
    _, ids, rekeyed = held_out_ids(known, held, id_col, test_ids, rng, always_new=False)
    return ids, rekeyed
