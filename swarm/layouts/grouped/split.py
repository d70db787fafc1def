"""The harness split of test rows grouped under one submission id (`swarm.layouts.grouped.detect`).

rsna-breast-cancer-detection labels each image (`train.csv`: `patient_id`, `laterality`, ..., `cancer`), while
`test.csv` names each image's breast (`prediction_id` = `<patient_id>_<laterality>`) and the submission has a row
per breast. The split holds out whole groups of the first key column (a patient's images, as MLE-bench's
`prepare.py` draws its test), and whole ids in any case, so that no id has rows on both sides: each held-out row
joins `test.csv` in its columns, its id joined from its keys (the first key re-keyed where it is a test value),
whole groups shuffled in among the test's; the sample lists each held-out id once; `labels.csv` holds each id's
target, which its rows must agree on (MLE-bench takes the first: "the rest will be identical duplicates"). A
held-out group's inputs (`train_images/<patient_id>/`) are linked where the test's are, under its key; files named
by another column (`<image_id>.dcm` in one folder) likewise; side files keyed by it are hidden.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_keys import with_fresh_keys
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.labelled_data import read_labelled_table
from swarm.evaluation.labels import closed_classes, is_classification, label_strata, submission_labels
from swarm.evaluation.new_ids import rekey_groups
from swarm.evaluation.side_files import hide_side_files
from swarm.evaluation.split import check_split, choose_split, competition_split_hint, split_rows
from swarm.evaluation.table_io import write_public_csv
from swarm.evaluation.view_files import (
    extracted_archives,
    fresh_view,
    keyed_folders,
    keyed_test_inputs,
    link_column_keyed_files,
    link_keyed_files,
    mirror,
)
from swarm.evaluation.view_tables import write_sample_in_order
from swarm.layouts.composite.reader import joined_ids
from swarm.layouts.composite.split import group_order
from swarm.layouts.grouped.detect import GroupedRows, grouped_layout_of


def split_grouped_rows(request: SplitRequest, layout: GroupedRows) -> SplitParts:
    """Hold out whole groups and write the view (see the module docstring); NoHoldout saying why when an id's
    rows disagree on its target, or a held-out group's inputs cannot be found."""
    spec, sample = request.spec, request.sample
    train = read_labelled_table(layout.train, request.max_train_mb)
    keys, id_col = list(layout.keys), layout.id_column
    per_row = submission_labels(
        train, spec, list(sample.columns)
    )  # each row's targets, in the sample's columns
    row_ids = joined_ids(train, keys)
    _check_agreement(per_row, row_ids, layout)
    classification = is_classification(spec, per_row, False)
    chosen, why, whole = _held_ids(request, layout, train, per_row, row_ids, classification)
    held, kept = train[whole], train[~whole]
    if kept.empty:
        raise NoHoldout(f"the split {chosen!r} leaves no rows to train on once whole {id_col}s are held out")
    rng = np.random.default_rng(request.seed + 1)
    moved, rekeyed = rekey_groups(held, keys[0], train, layout.test_frame, rng)
    moved_ids = joined_ids(moved, keys)
    ids = _view_ids(layout, moved_ids, row_ids[whole])
    firsts = ~moved_ids.duplicated().to_numpy()
    labels = per_row[whole][firsts].reset_index(drop=True)
    dest = fresh_view(request.root)
    file_dirs, hidden = _write_view_files(request, layout, train, (held, kept), moved, dest)
    rows = _write_view_tables(request, layout, kept, (moved, moved_ids), ids, rng, dest)
    return SplitParts(
        labels=labels,
        held=rows[firsts].reset_index(drop=True),
        ids=ids,
        split=(chosen, f"{why}; each held-out {id_col} moves whole, as its rows of {layout.test.name}"),
        n_train=len(kept),
        rekeyed=rekeyed,
        classes=closed_classes(labels, classification),
        table=f"{layout.train.name} ({len(held)} rows under {len(ids)} {id_col}s, each {' + '.join(keys)})",
        hidden=hidden,
        file_dirs=file_dirs,
        key_columns=keys,
    )


def _held_ids(
    request: SplitRequest,
    layout: GroupedRows,
    train: pd.DataFrame,
    per_row: pd.DataFrame,
    row_ids: pd.Series,
    classification: bool,
) -> tuple[str, str, np.ndarray]:
    """(split, why, which rows are held out): the rows the split draws (`_choose`), and every other row of their
    ids, so that an id is held out with all its rows."""
    hint = competition_split_hint(request.competition)
    chosen, why = _choose(check_split(request.split), hint, layout, train, classification)
    strata = label_strata(per_row)
    positions, _, _ = split_rows(chosen, train, strata, request.fraction, request.seed, layout.test_frame)
    return chosen, why, row_ids.isin(set(row_ids.iloc[positions])).to_numpy()


def _view_ids(layout: GroupedRows, moved_ids: pd.Series, own_ids: pd.Series) -> list[str]:
    """The held-out ids in the view, once each (`moved_ids`: joined from each held-out row's keys, re-keyed);
    NoHoldout where one is a test id or two of their own ids (`own_ids`) became one."""
    id_col = layout.id_column
    ids = list(pd.unique(moved_ids))
    test_ids = set(layout.test_frame[id_col].str.strip())
    if set(ids) & test_ids or len(ids) != len(pd.unique(own_ids)):
        raise NoHoldout(
            f"the held-out rows' {', '.join(layout.keys)} do not give one new {id_col} each, so their predictions "
            "could not be told apart"
        )
    return ids


def _write_view_files(
    request: SplitRequest,
    layout: GroupedRows,
    train: pd.DataFrame,
    rows: tuple[pd.DataFrame, pd.DataFrame],
    moved: pd.DataFrame,
    dest: Path,
) -> tuple[list[str], list[str]]:
    """The view's files: a held-out group's inputs where the test's are (under its key in the view: `moved`'s),
    side files keyed by it hidden, the rest linked. Returns the folders involved and the side files hidden;
    NoHoldout where the test's inputs are named by the first key and the held-out groups' cannot be found."""
    competition, spec, public = request.competition, request.spec, request.competition.public_dir
    held, kept = rows
    test, id_col, first_key = layout.test_frame, layout.id_column, layout.keys[0]
    skip = {layout.train, layout.test, competition.sample_submission, *extracted_archives(public)}
    original = list(pd.unique(held[first_key].str.strip()))
    new_keys = list(pd.unique(moved[first_key].str.strip()))
    test_keys = list(pd.unique(test[first_key].str.strip()))
    kept_keys = set(kept[first_key].str.strip())
    folders = keyed_folders(public, test_keys, original)
    file_dirs = link_keyed_files(public, dest, folders, original, new_keys, skip, kept_keys)
    if folders is None:
        file_dirs = link_column_keyed_files(public, dest, test, held, kept, id_col, skip)
        if not file_dirs and keyed_test_inputs(public, test_keys):
            raise NoHoldout(
                f"the test's inputs are named by {first_key} in a test folder, but no folder beside it holds the "
                f"held-out {first_key}s' inputs, so a held-out example would have no input in the sandbox"
            )
    named = held.assign(**{id_col: held[first_key].str.strip()})  # side files are named by the original keys
    test_dir = folders[0][0] if folders else None
    hidden = hide_side_files(public, dest, train, named, spec, set(test_keys), test_dir, skip, kept_keys)
    mirror(public, dest, skip)
    return file_dirs, hidden


def _write_view_tables(
    request: SplitRequest,
    layout: GroupedRows,
    kept: pd.DataFrame,
    moved: tuple[pd.DataFrame, pd.Series],
    ids: list[str],
    rng: np.random.Generator,
    dest: Path,
) -> pd.DataFrame:
    """The view's tables: the labelled table without the held-out groups, their rows (`moved`: as re-keyed, and
    each one's id in the view) among the test's, whole groups shuffled in; the sample lists each held-out id
    (`ids`) once, in the test table's order (sorted where the sample's ids are). Returns the held-out rows as the
    test table has them."""
    sample, id_col, test = request.sample, layout.id_column, layout.test_frame
    moved_rows, moved_ids = moved
    write_public_csv(kept, dest / layout.train.name)
    rows = moved_rows.reindex(columns=test.columns, fill_value="").assign(**{id_col: moved_ids.to_numpy()})
    combined = pd.concat([test, rows], ignore_index=True)
    combined = combined.iloc[group_order(combined[layout.keys[0]], rng)]
    write_public_csv(combined, dest / layout.test.name)
    order = list(pd.unique(combined[id_col].str.strip()))
    listed = sample[id_col].astype(str).str.strip().tolist()
    if listed == sorted(listed):  # the sample lists the ids sorted (MLE-bench's groupby): so does the view's
        order = sorted(order)
    write_sample_in_order(sample, ids, order, id_col, dest / request.competition.sample_submission.name)
    return rows


def _check_agreement(per_row: pd.DataFrame, row_ids: pd.Series, layout: GroupedRows) -> None:
    """NoHoldout where the rows of one id carry different targets: which of them is the id's label would be a
    guess."""
    differing = per_row.groupby(row_ids.to_numpy()).nunique() > 1
    bad = differing.any(axis=1)
    if bad.any():
        example = str(bad[bad].index[0])
        columns = ", ".join(differing.columns[differing.loc[example]])
        raise NoHoldout(
            f"the rows of {layout.id_column} {example!r} in {layout.train.name} carry different {columns} values, "
            f"so a held-out {layout.id_column}'s label would be ambiguous"
        )


def _choose(
    split: str, hint: str | None, layout: GroupedRows, train: pd.DataFrame, classification: bool
) -> tuple[str, str]:
    """(split, why): a set split or competition.json's hint wins (whole ids still move together); else whole
    groups of the first key column."""
    if split != "auto" or hint:
        return choose_split(split, hint, train, layout.test_frame, classification)
    first = layout.keys[0]
    return (
        f"group:{first}",
        f"the test rows of one {layout.id_column} ({' + '.join(layout.keys)}) are scored as one, so the rows of "
        f"each {first} move together",
    )


def split_groups(request: SplitRequest, fields: dict) -> SplitParts:
    """`split_grouped_rows` of the layout the reader found, every test and held-out group under a fresh key (or
    kept, saying why)."""
    layout = grouped_layout_of(request.competition.public_dir, request.spec.id_column, fields)
    parts = split_grouped_rows(request, layout)
    return with_fresh_keys(request, parts, layout.keys[0], layout.train, layout.test)
