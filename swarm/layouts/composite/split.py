"""Composite ids: where the sample submission's ids join a few columns of the test table with `_` (text
normalization's `<sentence_id>_<token_id>`).

No table then holds the id column, so the split finds the key columns (`composite_key`) and the labelled table
named with `train` that holds them and the targets. Rows that share the first key column's value (a sentence's
tokens) form one example, so they are held out together (`composite_split`), join the test table together and
are shuffled in as a group (`group_order`), each under its joined id (`joined_ids`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition
from swarm.evaluation.fresh_ids import (
    FreshIds,
    fresh_groups,
    keep_ids_reason,
    kept_ids,
    rename_in_tables,
    side_columns,
    tfrecords_in_view,
)
from swarm.evaluation.holdout_record import TRAIN, NoHoldout, SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.labelled_data import read_labelled_table
from swarm.evaluation.labels import closed_classes, is_classification, label_strata, submission_labels
from swarm.evaluation.new_ids import rekey_groups
from swarm.evaluation.side_files import hide_side_files
from swarm.evaluation.split import check_split, choose_split, competition_split_hint, split_rows
from swarm.evaluation.table_io import read_csv_as_text, write_public_csv
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror
from swarm.evaluation.view_tables import sample_rows
from swarm.layouts.composite.reader import composite_labelled_tables, joined_ids


@dataclass
class CompositeKey:
    """Where the sample submission's ids join a few columns of the test table with `_` (text normalization's
    `<sentence_id>_<token_id>`): the tables and those columns, as `composite_key` found them."""

    train: Path  # the labelled table: named with `train`, holding the target and key columns
    test: Path  # the test table: named with `test`, the sample's ids joined from its `keys`
    keys: list[str]
    test_frame: pd.DataFrame  # the test table as text
    test_ids: list[str]  # each test row's joined id, in the table's order


def composite_split(
    split: str, hint: str | None, key: CompositeKey, train: pd.DataFrame, classification: bool
) -> tuple[str, str]:
    """(split, why): a set split or competition.json's hint wins; else, where the ids join several columns, the
    first one's groups (a sentence's tokens) move together, so that no example is half in train."""
    if split != "auto" or hint or len(key.keys) < 2:
        return choose_split(split, hint, train, key.test_frame, classification)
    column = key.keys[0]
    return (
        f"group:{column}",
        f"the ids join {', '.join(key.keys)}, so the rows of each {column} move together",
    )


def group_order(values: pd.Series, rng: np.random.Generator) -> np.ndarray:
    """Row positions that shuffle whole groups of equal `values` (keeping each group's rows in their order)."""
    codes, uniques = pd.factorize(values.astype(str).str.strip())
    rank = rng.permutation(len(uniques))
    return np.argsort(rank[codes], kind="stable")


def write_composite_tests(
    key: CompositeKey,
    moved: pd.DataFrame,
    ids: list[str],
    sample: pd.DataFrame,
    id_col: str,
    rng: np.random.Generator,
    sample_path: Path,
) -> None:
    """The view's test table (the held-out rows appended with its columns only, whole groups of the first key
    column shuffled) and its sample submission listing the same ids in the same order (filler targets for the
    held-out rows, `sample_rows`)."""
    rows = moved.reindex(columns=key.test_frame.columns, fill_value="")
    combined = pd.concat([key.test_frame, rows], ignore_index=True)
    order = group_order(combined[key.keys[0]], rng)
    write_public_csv(combined.iloc[order], sample_path.parent / key.test.name)
    full = pd.concat([sample, sample_rows(sample, id_col, ids)], ignore_index=True)
    position = pd.Series(np.arange(len(full)), index=full[id_col].astype(str).str.strip().to_numpy())
    in_order = np.asarray(key.test_ids + ids, dtype=object)[order]
    write_public_csv(full.iloc[position.loc[in_order].to_numpy()], sample_path)


def split_composite(request: SplitRequest, fields: dict) -> SplitParts:
    """The split of a composite-id layout: the held-out rows leave the labelled table and join the test table (its
    columns only, the first key column re-keyed where it could collide), whole groups of the first key column
    unless a split is set; the sample lists their joined ids, labels.csv holds those ids' targets."""
    key = composite_key(request.competition.public_dir, fields, request)
    competition, spec, sample, seed = request.competition, request.spec, request.sample, request.seed
    train = read_labelled_table(key.train, request.max_train_mb)
    labels = submission_labels(train, spec, list(sample.columns))
    classification = is_classification(spec, labels, False)
    chosen, why = composite_split(
        check_split(request.split), competition_split_hint(competition), key, train, classification
    )
    positions, held, kept = split_rows(chosen, train, label_strata(labels), request.fraction, seed)
    rng = np.random.default_rng(seed + 1)
    moved, rekeyed = rekey_groups(held, key.keys[0], train, key.test_frame, rng)
    ids = joined_ids(moved, key.keys).tolist()
    if len(set(ids)) < len(ids) or set(ids) & set(key.test_ids):
        raise NoHoldout(
            f"the held-out rows' {', '.join(key.keys)} do not give one new id each, so their predictions could "
            "not be told apart"
        )
    dest = fresh_view(request.root)
    hidden = _write_view_files(request, key, train, held, dest)
    write_public_csv(kept, dest / key.train.name)
    # Every test and held-out group of the first key column under a fresh value, unless ids are kept.
    own_tables = {dest / key.train.name, dest / key.test.name, dest / competition.sample_submission.name}
    fresh = _fresh_composite(competition, key, train, moved, hidden, dest, own_tables, seed)
    if isinstance(fresh, tuple):
        key, moved, sample, ids = _under_fresh_values(request, key, held, moved, fresh)
    write_composite_tests(
        key, moved, ids, sample, spec.id_column, rng, dest / competition.sample_submission.name
    )
    return SplitParts(
        labels,
        held,
        ids,
        positions=positions,
        split=(chosen, why),
        n_train=len(kept),
        rekeyed=rekeyed,
        classes=closed_classes(labels, classification),
        table=key.train.name,
        hidden=hidden,
        file_dirs=[],
        key_columns=key.keys,
        fresh=FreshIds([], []) if isinstance(fresh, tuple) else kept_ids(fresh),
    )


def _write_view_files(
    request: SplitRequest, key: CompositeKey, train: pd.DataFrame, held: pd.DataFrame, dest: Path
) -> list[str]:
    """The view's files: side files naming the held-out rows by their joined ids hidden (which are returned), the
    rest linked (the tables are written by the split)."""
    competition, spec, public = request.competition, request.spec, request.competition.public_dir
    skip = {key.train, key.test, competition.sample_submission, *extracted_archives(public)}
    named = held.assign(**{spec.id_column: joined_ids(held, key.keys)})  # side files named by original ids
    hidden = hide_side_files(public, dest, train, named, spec, set(key.test_ids), None, skip)
    mirror(public, dest, skip)
    return hidden


def _under_fresh_values(
    request: SplitRequest,
    key: CompositeKey,
    held: pd.DataFrame,
    moved: pd.DataFrame,
    fresh_values: tuple[dict[str, str], dict[str, str]],
) -> tuple[CompositeKey, pd.DataFrame, pd.DataFrame, list[str]]:
    """The test table, the held-out rows (`moved`, as re-keyed) and the sample under the first key column's fresh
    values (`fresh_values`: the test groups' and the held-out groups'), view_ids.csv saved. Returns the layout with
    its test table renamed, the held-out rows, the sample and the held-out rows' ids in the view."""
    test_values, held_values = fresh_values
    column, sample, id_col = key.keys[0], request.sample, request.spec.id_column
    test_frame = key.test_frame.assign(**{column: key.test_frame[column].str.strip().map(test_values)})
    moved = moved.assign(**{column: moved[column].astype(str).str.strip().map(held_values)})
    view_test_ids = joined_ids(test_frame, key.keys).tolist()
    view_of = dict(zip(key.test_ids, view_test_ids, strict=True))
    sample = sample.assign(**{id_col: sample[id_col].str.strip().map(view_of)})
    own_test_ids, own_held_ids = key.test_ids, joined_ids(held, key.keys).tolist()
    key = replace(key, test_frame=test_frame, test_ids=view_test_ids)
    ids = joined_ids(moved, key.keys).tolist()
    write_view_ids(
        request.root, {"test": view_test_ids, "held": ids}, {"test": own_test_ids, "held": own_held_ids}
    )
    return key, moved, sample, ids


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


def composite_key(public: Path, fields: dict, request: SplitRequest) -> CompositeKey:
    """The layout the reader found (`swarm.layouts.composite.reader.find_composite`'s fields) with its tables read;
    NoHoldout where several tables could be the labelled one (but train.csv, which is taken first)."""
    spec, sample = request.spec, request.sample
    targets = [c for c in sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    names = sorted(path.name for path in public.iterdir())
    skip = (request.competition.sample_submission.name, fields["test"])
    needed = [*targets, *fields["keys"]]
    tables = composite_labelled_tables(str(public), names, spec.id_column, needed, skip)
    if len(tables) > 1 and tables[0] != TRAIN:
        raise NoHoldout(
            f"several tables hold the labels ({', '.join(tables)}), so which rows are labelled is ambiguous"
        )
    test = read_csv_as_text(public / fields["test"])
    keys = list(fields["keys"])
    return CompositeKey(
        public / fields["train"], public / fields["test"], keys, test, joined_ids(test, keys).tolist()
    )
