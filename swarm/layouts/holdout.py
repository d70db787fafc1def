"""The harness's own validation split: labelled training rows the solution predicts without their labels.

Before the search, `build_holdout` takes a seeded slice of the labelled rows and builds the public dir the
sandbox sees (`<run>/harness/public/`):

- the labelled table (`train.csv`, `train_labels.csv`, ...) without the held-out rows;
- `test.csv` with the held-out rows appended (their target columns removed) and shuffled in;
- `sample_submission.csv` with their ids added in the same order;
- every other public file linked in as it is; when ids key files in a folder (images, audio), the held-out
  rows' files are placed where the test files are, under their (new) ids;
- every test and held-out row under a fresh id (`fresh_ids`), their files copied under it, unless ids are kept.

The labels stay in `<run>/harness/labels.csv` (mode 0600, never mounted into a sandbox), written in the
submission's columns, so the grader's own `score_frame` scores the held-out part of every submission
(`swarm.evaluation.harness`).

This module is the builder, step by step; each step's work lives in a module of its own:

- `holdout_record`: the `Holdout` record saved as holdout.json, and `NoHoldout`;
- `labelled_data`: where the labelled examples are (a table, a labels table, JSON records, files labelled by
  their names) and reading them; `composite`: ids joined from columns of the test table; `position_records`
  and `position_split`: records whose targets are arrays, a row per position (stanford-covid-vaccine);
  `long_classes`: a wide labelled table whose test rows are (example, class) pairs (rsna-2022-cervical-spine);
  `box_split`: a row per labelled box, a string of boxes per example (vinbigdata-chest-xray);
  `sentence_split`: sentences a line, a word taken out of each held-out one (billion-word-imputation);
  `first_visits`: a row per visit, the test giving each key's first and the sample every step (osic);
  `level_split`: examples at two levels, each with rows in the sample (siim-covid19-detection's studies, images);
  `bson_split`: a document per example in BSON files, streamed (cdiscount);
  `qa_split`: questions with annotated answers, a record a line (tensorflow2-question-answering);
  `keyed_split`: rows keyed by the id and another column, the id beginning with its input folder's name
  (uw-madison-gi-tract-image-segmentation); `folder_rows_split`: a labels table in each example folder, its rows
  keyed by the folder and a time (smartphone-decimeter-2022); `token_tables`: inputs in JSON tables linked by
  tokens (3d-object-detection-for-autonomous-vehicles); `mask_split`: a mask file in a folder per example, run-length encoded in the sample (contrails);
  `pixel_targets`: target images, a submission row per pixel (denoising-dirty-documents); `grouped_split`: test
  rows grouped under one submission id (rsna-breast-cancer-detection); `twin_tables`: whole groups whose inputs
  are `train_<x>.csv`/`test_<x>.csv` pairs (nfl-player-contact-detection); `variant_split`: versions of one
  image in folders, held out by name (alaska2-image-steganalysis);
- `labels`: the targets in the submission's columns, and the private labels.csv;
- `split`: the split kinds, choosing one and drawing the held-out rows;
- `new_ids`: the ids the held-out rows get where theirs could collide with a test id (where ids are kept);
- `fresh_ids`, `fresh_files`: fresh ids for every test and held-out row of the view, their files renamed alike,
  unless the ids carry meaning;
- `view_files`, `side_files`, `view_tables`: the sandbox's view on disk (linked files, side files hidden, the
  test table and sample submission with the held-out rows among the test rows).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition, MetricSpec
from swarm.competitions.validation import group_columns
from swarm.evaluation.fresh_files import copy_test_side
from swarm.evaluation.fresh_ids import (
    FreshIds,
    ViewRows,
    fresh_groups,
    fresh_view_ids,
    keep_ids_reason,
    kept_ids,
    rename_in_tables,
    side_columns,
    tfrecords_in_view,
)
from swarm.evaluation.fresh_keys import KeyedView, fresh_keys
from swarm.evaluation.holdout_record import (
    TEST,
    TRAIN,
    Holdout,
    NoHoldout,
    SplitParts,
    SplitRequest,
    harness_root,
    write_view_ids,
)
from swarm.evaluation.labelled_data import (
    TooLarge,
    find_test_table,
    read_labelled_examples,
    read_labelled_table,
)
from swarm.evaluation.labels import (
    closed_classes,
    is_classification,
    label_strata,
    renamed_target,
    submission_labels,
    write_labels,
)
from swarm.evaluation.listed_items import listed_items_fillers
from swarm.evaluation.new_ids import held_out_ids, rekey_groups
from swarm.evaluation.side_files import hide_side_files, records_naming
from swarm.evaluation.split import (
    check_split,
    choose_split,
    competition_hint,
    competition_split_hint,
    split_rows,
)
from swarm.evaluation.table_io import is_parquet, read_csv_as_text, write_public_csv, write_public_table
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
    seal,
)
from swarm.evaluation.view_tables import renamed_records, write_sample, write_test_csv, write_test_records
from swarm.formats.probe import Probe
from swarm.formats.records import write_records
from swarm.layouts.boxes.split import box_rows_layout, split_box_rows
from swarm.layouts.composite.split import (
    CompositeKey,
    composite_key,
    composite_split,
    joined_ids,
    write_composite_tests,
)
from swarm.layouts.grouped.detect import grouped_rows
from swarm.layouts.grouped.split import split_grouped_rows
from swarm.layouts.keyed.split import keyed_rows_layout, split_keyed_rows
from swarm.layouts.long_classes.detect import LongClasses, long_classes
from swarm.layouts.long_classes.split import split_long_classes
from swarm.layouts.positions.records import position_layout
from swarm.layouts.positions.split import build_position_holdout
from swarm.layouts.registry import Layout, find_layout
from swarm.layouts.sentences.split import sentence_lines_layout, split_sentence_lines
from swarm.layouts.tables.streamed import held_share, side_tables, stream_split
from swarm.layouts.token_tables.split import split_token_tables, token_tables_layout
from swarm.layouts.twins.split import split_twin_tables, twin_tables
from swarm.layouts.variants.split import split_variant_folders
from swarm.layouts.visits.split import first_visits_layout, split_first_visits

__all__ = ["Holdout", "NoHoldout", "build_holdout", "check_split", "harness_root"]


def build_holdout(
    competition: Competition,
    root: Path,
    *,
    fraction: float,
    split: str = "auto",
    seed: int = 0,
    max_train_mb: float = 2048.0,
    labels_table: str | None = None,
) -> Holdout:
    """Build the split into `root` (public/, labels.csv, holdout.json); raises NoHoldout saying why not.
    `labels_table` (else competition.json's `labels_table`) names the labelled table where several hold labels."""
    spec = competition.metric
    if spec is None:
        raise NoHoldout("the competition has no metric to score held-out rows with")
    if fraction <= 0:
        raise NoHoldout("evaluation.holdout_fraction is 0")
    public = competition.public_dir
    sample = read_csv_as_text(competition.sample_submission)
    request = SplitRequest(competition, spec, root, sample, fraction, split, seed, max_train_mb)
    targets = [c for c in sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    probe = Probe(
        public, [p.name for p in public.iterdir()], sample, spec.id_column, targets, competition.description
    )
    if spec.key_columns:  # rows keyed by the id and another column (uw-madison's id and class)
        keyed = keyed_rows_layout(public, spec, sample)
        if keyed is not None:
            parts = split_keyed_rows(request, keyed)
            return _save_split(root, spec, **vars(parts), public=public, fraction=fraction, seed=seed)
        found = find_layout(probe)  # a labels table per example folder (smartphone)
        if found is not None:
            return _save_layout_split(request, *found)
        joined = " and ".join((spec.id_column, *spec.key_columns))
        raise NoHoldout(
            f"the sample keys each row by {joined} together ({spec.id_column} repeats), and the harness splits such "
            "rows only where train.csv holds them with one target and each id begins with the name of its input "
            "folder, or where each example folder holds a labels table with the sample's columns"
        )
    test_ids = [str(i).strip() for i in sample[spec.id_column]]
    key = composite_key(public, spec.id_column, targets, competition.sample_submission, test_ids)
    if key is not None:
        return _build_composite(
            competition,
            spec,
            root,
            key,
            sample,
            fraction=fraction,
            split=split,
            seed=seed,
            max_train_mb=max_train_mb,
        )
    visits = first_visits_layout(public, spec.id_column, targets, sample)
    if visits is not None:  # a row per visit; the test gives each key's first, the sample every step (osic)
        parts = _with_fresh_keys(
            request, split_first_visits(request, visits), visits.key, visits.train, visits.test
        )
        return _save_split(root, spec, **vars(parts), public=public, fraction=fraction, seed=seed)
    positional = position_layout(public, spec.id_column, targets, test_ids, max_train_mb)
    if positional is not None:  # records of per-position arrays (stanford-covid-vaccine)
        return build_position_holdout(request, positional)
    # Layouts whose own module splits them: a row per (example, class) of a wide table (rsna-2022-cervical-spine),
    # test rows grouped under one submission id (rsna-breast-cancer-detection).
    for find, split_layout in ((long_classes, split_long_classes), (grouped_rows, split_grouped_rows)):
        layout = find(public, spec.id_column, targets)
        if layout is not None:
            parts = split_layout(request, layout)  # type: ignore[arg-type]
            key = layout.key if isinstance(layout, LongClasses) else layout.keys[0]  # type: ignore[union-attr]
            parts = _with_fresh_keys(request, parts, key, layout.train, layout.test)  # type: ignore[union-attr]
            return _save_split(root, spec, **vars(parts), public=public, fraction=fraction, seed=seed)
    boxes = box_rows_layout(public, spec.id_column, targets, sample)
    if boxes is not None:  # a row per labelled box, a string of boxes per example (vinbigdata)
        parts = split_box_rows(request, boxes)
        return _save_split(root, spec, **vars(parts), public=public, fraction=fraction, seed=seed)
    # sentences a line, a word taken out of each test sentence (billion-word-imputation)
    lines = sentence_lines_layout(competition, targets)
    if lines is not None:
        parts = split_sentence_lines(request, lines)
        return _save_split(root, spec, **vars(parts), public=public, fraction=fraction, seed=seed)
    # Whole groups whose inputs are train_/test_ table pairs (nfl-player-contact-detection).
    twins = twin_tables(public, spec.id_column, targets, test_ids)
    if twins is not None:  # fresh groups: the first twin's test table lists them, the other twins follow
        parts = _with_fresh_keys(
            request, split_twin_tables(request, twins), twins.group, twins.labels, twins.twins[0][1]
        )
        return _save_split(root, spec, **vars(parts), public=public, fraction=fraction, seed=seed)
    found = find_layout(probe)  # examples beyond a labelled table, each layout split by its own module
    if found is not None:
        return _save_layout_split(request, *found)

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
        return _save_split(root, spec, **vars(parts), public=public, fraction=fraction, seed=seed)
    test_columns = None if data.test is None else list(data.test.columns)
    renamed = renamed_target(train, spec, list(sample.columns), test_columns)
    labels = submission_labels(train.rename(columns=renamed), spec, list(sample.columns))
    if (
        layout is None and data.path.name == TRAIN and data.test is None
    ):  # only ids and labels: inputs elsewhere?
        parts = _split_without_inputs(request, train, labels)
        if parts is not None:
            return _save_split(root, spec, **vars(parts), public=public, fraction=fraction, seed=seed)
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

    return _save_split(
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


def _with_fresh_keys(
    request: SplitRequest, parts: SplitParts, key: str, train: Path, test: Path
) -> SplitParts:
    """`parts` of a layout whose ids begin with an example's key, every test and held-out example under a fresh
    key (`swarm.evaluation.fresh_keys`), or kept saying why."""
    competition = request.competition
    labelled = read_labelled_table(train, request.max_train_mb)
    own = (train.name, test.name, competition.sample_submission.name)
    view = KeyedView(competition, request.spec, request.root, key, test.name, labelled, request.sample, own)
    return fresh_keys(view, parts, request.seed)


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


def _save_layout_split(request: SplitRequest, layout: Layout, fields: dict) -> Holdout:
    """The split of a registered layout, saved (a split that seals its own Holdout is returned as it is)."""
    parts = layout.split(request, fields)
    if isinstance(parts, Holdout):
        return parts
    public, spec = request.competition.public_dir, request.spec
    return _save_split(
        request.root, spec, **vars(parts), public=public, fraction=request.fraction, seed=request.seed
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
    public = competition.public_dir
    return _save_split(root, spec, **vars(parts), public=public, fraction=share, seed=request.seed)


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
    return _save_split(
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


def _build_composite(
    competition: Competition,
    spec: MetricSpec,
    root: Path,
    key: CompositeKey,
    sample: pd.DataFrame,
    *,
    fraction: float,
    split: str,
    seed: int,
    max_train_mb: float,
) -> Holdout:
    """build_holdout for a composite-id layout: the held-out rows leave the labelled table and join the test
    table (its columns only, the first key column re-keyed where it could collide), whole groups of the first key
    column unless a split is set; the sample lists their joined ids; labels.csv holds those ids' targets."""
    train = read_labelled_table(key.train, max_train_mb)
    labels = submission_labels(train, spec, list(sample.columns))
    classification = is_classification(spec, labels, False)
    chosen, why = composite_split(
        check_split(split), competition_split_hint(competition), key, train, classification
    )
    positions, held, kept = split_rows(chosen, train, label_strata(labels), fraction, seed)
    rng = np.random.default_rng(seed + 1)
    moved, rekeyed = rekey_groups(held, key.keys[0], train, key.test_frame, rng)
    ids = joined_ids(moved, key.keys).tolist()
    if len(set(ids)) < len(ids) or set(ids) & set(key.test_ids):
        raise NoHoldout(
            f"the held-out rows' {', '.join(key.keys)} do not give one new id each, so their predictions could "
            "not be told apart"
        )

    public, dest = competition.public_dir, fresh_view(root)
    skip = {key.train, key.test, competition.sample_submission, *extracted_archives(public)}
    named = held.assign(**{spec.id_column: joined_ids(held, key.keys)})  # side files named by original ids
    hidden = hide_side_files(public, dest, train, named, spec, set(key.test_ids), None, skip)
    mirror(public, dest, skip)
    write_public_csv(kept, dest / key.train.name)
    # Every test and held-out group of the first key column under a fresh value, unless ids are kept.
    own_tables = {dest / key.train.name, dest / key.test.name, dest / competition.sample_submission.name}
    fresh = _fresh_composite(competition, key, train, moved, hidden, dest, own_tables, seed)
    if isinstance(fresh, tuple):
        test_values, held_values = fresh
        column = key.keys[0]
        test_frame = key.test_frame.assign(**{column: key.test_frame[column].str.strip().map(test_values)})
        moved = moved.assign(**{column: moved[column].astype(str).str.strip().map(held_values)})
        view_test_ids = joined_ids(test_frame, key.keys).tolist()
        sample = sample.assign(
            **{
                spec.id_column: sample[spec.id_column]
                .str.strip()
                .map(dict(zip(key.test_ids, view_test_ids, strict=True)))
            }
        )
        own_test_ids, own_held_ids = key.test_ids, joined_ids(held, key.keys).tolist()
        key = replace(key, test_frame=test_frame, test_ids=view_test_ids)
        ids = joined_ids(moved, key.keys).tolist()
        write_view_ids(
            root, {"test": view_test_ids, "held": ids}, {"test": own_test_ids, "held": own_held_ids}
        )
    write_composite_tests(
        key, moved, ids, sample, spec.id_column, rng, dest / competition.sample_submission.name
    )
    return _save_split(
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
        classes=closed_classes(labels, classification),
        table=key.train.name,
        hidden=hidden,
        key_columns=key.keys,
        fresh=FreshIds([], []) if isinstance(fresh, tuple) else kept_ids(fresh),
    )


def _fresh_composite(
    competition: Competition,
    key: CompositeKey,
    train: pd.DataFrame,
    moved: pd.DataFrame,
    hidden: list[str],
    dest: Path,
    own_tables: set[Path],
    seed: int,
) -> tuple[dict[str, str], dict[str, str]] | str:
    """Fresh values of the first key column for the test and held-out groups (`fresh_groups`), side tables keyed
    by that column rewritten under them (as `fresh_view_ids` does), or why the ids are kept: they carry meaning
    (`keep_ids_reason`), TFRecords hold them, a side table names them in another column or cannot be rewritten,
    or their format."""
    column = key.keys[0]
    groups = {*key.test_frame[column].astype(str).str.strip(), *moved[column].astype(str).str.strip()}
    sides = side_columns(dest, groups, {column}, own_tables)
    found = sides if isinstance(sides, dict) else {}
    odd = [(p, c) for p, cols in found.items() for c in cols if c != column]
    records = tfrecords_in_view(dest, hidden)
    reason = (
        keep_ids_reason(competition, train, key.test_frame, column)
        or (
            f"{records[0]} holds the ids inside its records (TFRecords are not rewritten)"
            if records
            else None
        )
        or (sides if isinstance(sides, str) else None)
        or (f"{odd[0][0].relative_to(dest)}'s {odd[0][1]} names the rows too" if odd else None)
    )
    if reason is not None:
        return reason
    taken = set(train[column].astype(str).str.strip())
    drawn = fresh_groups(key.test_frame, moved, column, taken, seed)
    if isinstance(drawn, str):
        return drawn
    rename_in_tables(list(found), {column}, {**drawn[0], **drawn[1]})
    return drawn


def _ids_note(fresh: FreshIds | None) -> str:
    """What the run says of its ids before the first step (`Holdout.describe_ids`): why they are kept, or a caveat
    where fresh; "" where the layout's own split keeps them."""
    return "" if fresh is None else fresh.kept or fresh.note


def _save_split(
    root: Path,
    spec: MetricSpec,
    labels: pd.DataFrame,
    held: pd.DataFrame,
    ids: list[str],
    *,
    positions: np.ndarray | None,
    split: tuple[str, str],
    fraction: float,
    seed: int,
    n_train: int,
    rekeyed: bool,
    classes: dict[str, list[str]],
    table: str,
    hidden: list[str],
    file_dirs: list[str] | None = None,
    key_columns: list[str] | None = None,
    shifted: bool = False,
    fresh: FreshIds | None = None,
    public: Path | None = None,
) -> Holdout:
    """Write the held-out rows' private labels (with a grouped metric's groups, champs's `type`, beside them)
    and the split's record, and seal the harness dir. Where the split placed files and fresh ids did not copy them
    (ids kept, or files not named by the ids), the view's test folders are copied anew (`_copy_test_folders`;
    `public`: the competition's public dir)."""
    saved = labels if positions is None else labels.iloc[positions]
    label_frame = pd.DataFrame({spec.id_column: ids}).join(saved.reset_index(drop=True))
    # The key columns completing the id (uw-madison's class); log_mae's groups, masked_mae's mask, jigsaw's identities.
    for group in (*spec.key_columns, *group_columns(spec)):
        if group in held.columns and group not in label_frame.columns:
            label_frame[group] = held[group].astype(str).to_numpy()
    write_labels(root, label_frame, spec)
    note = _ids_note(fresh)
    linked = fresh is None or not fresh.fresh or not fresh.files_renamed
    if linked and file_dirs and public is not None:  # held-out files were linked to the test side: copied
        copied = _copy_test_folders(root / "public", public, seed)
        note = "; ".join(n for n in (note, copied) if n)
    holdout = Holdout(
        root=root,
        id_column=spec.id_column,
        target_columns=list(labels.columns),
        ids=ids,
        split=split[0],
        split_reason=split[1],
        fraction=fraction,
        seed=seed,
        n_train=n_train,
        rekeyed=rekeyed,
        file_dirs=file_dirs or [],
        classes=classes,
        table=table,
        hidden_side_files=hidden,
        key_columns=key_columns or [],
        shifted=shifted,
        fresh_ids=fresh is not None and fresh.fresh,
        ids_note=note,
    )
    seal(holdout)
    return holdout


def _copy_test_folders(dest: Path, public: Path, seed: int) -> str:
    """Where a split moved held-out files to the test side and fresh ids did not copy them, every file of each
    top-level view folder named with "test" copied anew with a public test file's mtime
    (`fresh_files.copy_test_side`); a note where some stay linked."""
    rng = np.random.default_rng(seed + 4)
    notes = []
    for folder in sorted(p for p in dest.iterdir() if p.is_dir() and "test" in p.name.lower()):
        notes.append(copy_test_side(folder, public / folder.name, rng))
    return "; ".join(n for n in notes if n)
