"""The plain layout: a labelled table (`train.csv`, a labels table beside the inputs' files, JSON records, a parquet
table, or training files labelled by their names) beside a test table or the sample's ids, split row by row (or by
groups, in time, ...: `swarm.evaluation.split`). A table over evaluation.max_train_mb is streamed in chunks
(`streamed`), a parquet table whose inputs a group column files is split by whole groups (`parquet_batches`), and
versions of one image in folders (`variants`) or records linked by tokens (`token_tables`) are read through it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition, MetricSpec
from swarm.evaluation.fresh_ids import ViewRows, fresh_view_ids, keep_ids_reason, kept_ids
from swarm.evaluation.holdout_record import (
    TEST,
    TRAIN,
    Holdout,
    NoHoldout,
    SplitParts,
    SplitRequest,
    write_view_ids,
)
from swarm.evaluation.labelled_data import TooLarge, find_test_table, read_labelled_examples
from swarm.evaluation.labels import closed_classes, is_classification, renamed_target, submission_labels
from swarm.evaluation.listed_items import listed_items_fillers
from swarm.evaluation.new_ids import held_out_ids
from swarm.evaluation.saved_split import save_parts, save_split
from swarm.evaluation.side_files import hide_side_files, records_naming
from swarm.evaluation.split import (
    check_split,
    choose_split,
    competition_hint,
    competition_split_hint,
    split_rows,
)
from swarm.evaluation.table_io import is_parquet, read_csv_as_text, write_public_table
from swarm.evaluation.tfrecord_split import LabelledRows, split_tfrecords
from swarm.evaluation.view_files import (
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
from swarm.layouts.tables.streamed import held_share, side_tables, stream_split
from swarm.layouts.token_tables.split import split_token_tables, token_tables_layout
from swarm.layouts.variants.split import split_variant_folders


def split_tables(request: SplitRequest, labels_table: str | None = None) -> Holdout:
    """The split of the labelled table (`labels_table`, else competition.json's, names it where several hold
    labels): the held-out rows leave it and join the test table and the sample under fresh ids, their files moved
    to the test side, side files hidden."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    fraction, split, seed, max_train_mb = request.fraction, request.split, request.seed, request.max_train_mb
    public = competition.public_dir
    targets = [c for c in sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    test_ids = [str(i).strip() for i in sample[spec.id_column]]
    # The labelled examples, their labels in the submission's columns, and the held-out rows.
    try:
        chosen = labels_table or competition_hint(competition, "labels_table")
        data = read_labelled_examples(competition, spec, targets, sample, test_ids, max_train_mb, chosen)
    except TooLarge as big:  # streamed in chunks instead, where the layout is plain enough
        options = {"fraction": fraction, "split": split, "seed": seed}
        return _build_streamed(competition, spec, root, big, sample, test_ids, targets, **options)
    train, layout, records = data.train, data.layout, data.records
    if layout is None and is_parquet(data.path):  # inputs filed by a group column: as when streamed (icecube)
        grouped = _parquet_groups_holdout(
            request, data.path, data.test_path, targets, data.path.name, whole=True
        )
        if grouped is not None:
            return grouped
    if layout is not None and layout["kind"] == "variants":  # versions of one image in folders (alaska2)
        parts = split_variant_folders(request, layout, train)
        return save_parts(request, parts)
    test_columns = None if data.test is None else list(data.test.columns)
    renamed = renamed_target(train, spec, list(sample.columns), test_columns)
    labels = submission_labels(train.rename(columns=renamed), spec, list(sample.columns))
    if (
        layout is None and data.path.name == TRAIN and data.test is None
    ):  # only ids and labels: inputs elsewhere?
        parts = _split_without_inputs(request, train, labels)
        if parts is not None:
            return save_parts(request, parts)
    wide = not all(c in train.columns or c in renamed.values() for c in labels.columns)
    strata = labels.astype(str).agg("|".join, axis=1)
    classification = is_classification(spec, labels, wide)
    hint = competition_split_hint(competition)
    groups = file_groups(public, data.test, train, spec.id_column) if layout is None else None
    chosen, why = choose_split(
        check_split(split), hint, train, data.test, classification, spec.id_column, groups and groups.column
    )
    positions, held, kept = split_rows(chosen, train, strata, fraction, seed)
    id_col = spec.id_column
    rng = np.random.default_rng(seed + 1)
    # File paths are not ids: files labelled by their names always get new ones in the test ids' format.
    original, ids, rekeyed = held_out_ids(train, held, id_col, test_ids, rng, always_new=layout is not None)
    folders = keyed_folders(public, test_ids, original) if layout is None else None
    inputs_elsewhere = set(train.columns) <= {id_col, *labels.columns}  # a labels table, not records
    if layout is None and data.path.name != TRAIN and folders is None and inputs_elsewhere:
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

    # The view's files: the held-out examples' files moved to the test side, side files hidden, the rest linked.
    dest = fresh_view(root)
    # The archives whose contents the competition's view extracted stay out: they hold the held-out examples'
    # files under their training names (train.zip's `cat.12.jpg`), and the extracted copies are split above.
    skip = {data.path, data.test_path, competition.sample_submission, *extracted_archives(public)}
    kept_ids = set(kept[id_col].str.strip()) if id_col in kept.columns else set()
    if layout is None:
        file_dirs = link_keyed_files(public, dest, folders, original, ids, skip, kept_ids)
        by_column = link_column_keyed_files(public, dest, data.test, held, kept, id_col, skip)
        by_group = link_group_files(public, dest, groups, held, kept, skip) if groups else []
        file_dirs = sorted({*file_dirs, *by_column, *by_group})
        test_dir = folders[0][0] if folders else None
    else:
        file_dirs = link_labelled_files(public, dest, layout, original, ids, skip)
        test_dir = public / layout["test"]
    # Held-out images' records move from training TFRecords to the test ones (siim-isic, cassava).
    held_names = dict(zip(original, ids, strict=True)) if original else {}
    label_columns = (*renamed, *(c for c in labels.columns if c in train.columns), *spec.target_columns)
    labelled = LabelledRows(
        train, id_col, tuple(label_columns), None if test_columns is None else tuple(test_columns)
    )
    hidden = split_tfrecords(public, dest, held_names, labelled, skip, rng)
    hidden += hide_side_files(public, dest, train, held, spec, set(test_ids), test_dir, skip, kept_ids)
    mirror(public, dest, skip)

    # The view's tables: the labelled table without the held-out rows, which join the test table and sample.
    back = {id_col: data.id_name}  # the tables' own name for the id
    if records is not None:
        write_records([records[i] for i in kept.index], str(dest / data.path.name), like=str(data.path))
    elif layout is None:
        write_public_table(kept.rename(columns=back), dest / data.path.name, data.path)
    order = rng.permutation(len(sample) + len(held))
    fillers = {}
    if folders is not None:  # a sample listing each test row's own items lists the held-out rows' (AI4Code)
        held_files = [folders[1][1].get(str(o).strip()) for o in original]
        fillers = listed_items_fillers(sample, id_col, targets, folders[0][1], held_files)
    # Every test and held-out row under a fresh id (its files in the test folder renamed alike), unless ids are kept.
    own = {dest / data.path.name, dest / data.test_path.name, dest / competition.sample_submission.name}
    view_rows = ViewRows(
        competition,
        train,
        data.test,
        id_col,
        {id_col, data.id_name},
        test_ids,
        ids,
        [str(i).strip() for i in original] or ids,
        hidden,
        dest,
        dest / test_dir.relative_to(public) if test_dir is not None else None,
        own,
        order,
    )
    fresh = fresh_view_ids(view_rows, seed)
    test_table = data.test
    if fresh.fresh:
        fresh_of, ids = fresh.renamed(test_ids, ids), fresh.held
        sample = sample.assign(**{id_col: fresh.test})
        if test_table is not None:
            own_ids = test_table[id_col].str.strip()
            test_table = test_table.assign(**{id_col: own_ids.map(fresh_of).fillna(own_ids)})
    if records is not None and data.test_records is not None:
        held_records = [records[i] for i in positions]
        test_records = (
            data.test_records if not fresh.fresh else renamed_records(data.test_records, id_col, fresh_of)
        )
        write_test_records(test_records, held_records, ids, id_col, order, data.test_path, dest)
    elif test_table is not None:
        appended = held.assign(**{id_col: ids}).rename(columns=back)
        write_test_csv(
            test_table.rename(columns=back), appended, order, dest / data.test_path.name, data.test_path
        )
    write_sample(sample, held, ids, spec, order, dest / competition.sample_submission.name, fillers)
    if fresh.fresh:
        write_view_ids(root, {"test": fresh.test, "held": ids}, {"test": test_ids, "held": original or ids})

    return save_split(
        root,
        spec,
        labels,
        held,
        ids,
        positions=positions,
        split=(chosen, why),
        fraction=fraction,
        seed=seed,
        n_train=len(kept),
        rekeyed=rekeyed,
        classes=closed_classes(labels, classification and not wide),
        table=data.name + "".join(f" ({old} as {new})" for old, new in renamed.items()),
        hidden=hidden,
        file_dirs=file_dirs,
        fresh=fresh,
        public=public,
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
) -> Holdout | None:
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
    return save_parts(request, replace(parts, fraction=share))


def _build_streamed(
    competition: Competition,
    spec: MetricSpec,
    root: Path,
    big: TooLarge,
    sample: pd.DataFrame,
    test_ids: list[str],
    targets: list[str],
    *,
    fraction: float,
    split: str,
    seed: int,
) -> Holdout:
    """build_holdout for a labelled CSV over evaluation.max_train_mb (swarm/layouts/tables/streamed.py): streamed
    in chunks, rows held out at random; a parquet table whose inputs a group column names, whole groups held out
    (swarm/layouts/parquet_batches/split.py); refused, in one sentence after `big`'s, where the layout is not plain."""
    public, path = competition.public_dir, big.path
    test_path = find_test_table(public, path)
    if is_parquet(path):
        request = SplitRequest(competition, spec, root, sample, fraction, split, seed)
        grouped = _parquet_groups_holdout(request, path, test_path, targets, str(big), whole=False)
        if grouped is not None:
            return grouped
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
    id_col = spec.id_column
    share = held_share(path, fraction, len(sample))
    dest = fresh_view(root)
    streamed = stream_split(path, dest / path.name, id_col, share, seed)
    held = streamed.held
    if held.empty or streamed.n_kept == 0:
        raise NoHoldout(f"{big}, and streaming it left no rows to hold out or none to train on")
    test = read_csv_as_text(test_path)
    renamed = renamed_target(held, spec, list(sample.columns), list(test.columns))
    labels = submission_labels(held.rename(columns=renamed), spec, list(sample.columns))
    wide = not all(c in held.columns or c in renamed.values() for c in labels.columns)
    classification = is_classification(spec, labels, wide)
    rng = np.random.default_rng(seed + 1)
    known = (
        held
        if streamed.largest_id is None
        else pd.concat([held, pd.DataFrame({id_col: [str(streamed.largest_id)]})])
    )
    _, ids, rekeyed = held_out_ids(known, held, id_col, test_ids, rng, always_new=False)
    mirror(public, dest, skip)
    order = rng.permutation(len(sample) + len(held))
    write_test_csv(test, held.assign(**{id_col: ids}), order, dest / test_path.name)
    write_sample(sample, held, ids, spec, order, dest / competition.sample_submission.name)
    return save_split(
        root,
        spec,
        labels.reset_index(drop=True),
        held,
        ids,
        positions=np.arange(len(held)),
        split=("random", f"{big}: streamed, each row held out with probability {share:.3g}"),
        fraction=share,
        seed=seed,
        n_train=streamed.n_kept,
        rekeyed=rekeyed,
        classes=closed_classes(labels, classification and not wide),
        table=path.name + "".join(f" ({old} as {new})" for old, new in renamed.items()),
        hidden=[],
        fresh=kept_ids(
            keep_ids_reason(competition, held, test, id_col)
            or "the labelled table is streamed, so the harness never holds every training id to draw fresh ids "
            "apart from"
        ),
    )
