"""The harness split of a submission with a row per (example, class) (`swarm.layouts.long_classes.detect`).

rsna-2022-cervical-spine-fracture-detection labels a study per row of `train.csv` (`patient_overall`, `C1`..`C7`),
while `test.csv` and the submission have a row per (study, class): `row_id` = `<StudyInstanceUID>_<class>`,
`fractured` that class's value. The split holds out whole studies: each leaves `train.csv` and joins `test.csv`
as a row per class the test table names (`row_id`, the key, the class, in the test table's columns), under a new
key where its own is a test study's; the sample lists their rows; `labels.csv` holds each row's value in the
submission's columns (`row_id`, `fractured`). Studies are shuffled in among the test's, keeping the test table's
arrangement (a study's rows together, or a class's). Where the key names the inputs (a folder of DICOM files per
study: `train_images/<study>/`), a held-out study's inputs are linked where the test's are, under its key; side
files keyed by held-out studies (`train_bounding_boxes.csv`'s rows, `segmentations/<study>.nii`) are hidden.

Where a column of the labelled table lists each example's classes instead (`image`, `labels` = `scab
frog_eye_leaf_spot`) and the sample alone lists the test's rows (`Id` = `<image>_<class>`), each held-out example
joins the sample as a row per class, its label 1 where its list names the class, else 0; its image is linked where
the test's are. Where a test table lists such test examples a row each, the split refuses (it adds no rows to it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition
from swarm.evaluation.fresh_keys import with_fresh_keys
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.labelled_data import read_labelled_table
from swarm.evaluation.labels import closed_classes, is_classification
from swarm.evaluation.new_ids import rekey_groups
from swarm.evaluation.split import check_split, choose_split, competition_split_hint, split_rows
from swarm.evaluation.table_io import read_csv_as_text, write_public_csv
from swarm.evaluation.view_files import HeldKeys, extracted_archives, fresh_view, link_held_inputs
from swarm.evaluation.view_tables import write_sample_in_order
from swarm.formats.label_sets import class_sets, key_and_class
from swarm.layouts.long_classes.detect import LongClasses, long_layout_of
from swarm.layouts.long_classes.reader import listed_rows


def split_long_classes(request: SplitRequest, layout: LongClasses) -> SplitParts:
    """Hold out whole examples of the wide table and write the view (see the module docstring); NoHoldout
    saying why when the wide table cannot give every held-out row a label, or a held-out example's inputs
    cannot be found."""
    competition, spec, sample = request.competition, request.spec, request.sample
    train = _read_wide(layout, request.max_train_mb)
    key, classes = layout.key, list(layout.classes)
    wide = _class_values(train, layout)
    classification = is_classification(spec, wide, True)
    chosen, why = choose_split(
        check_split(request.split), competition_split_hint(competition), train, None, classification
    )
    # Strata: the first class the test names (rsna's `patient_overall`, any fracture). The classes' combination
    # is nearly one per example, where a stratified draw would take the first combinations in sorted order.
    strata = wide[classes[0]].str.strip()
    _, held, kept = split_rows(chosen, train, strata, request.fraction, request.seed)
    rng = np.random.default_rng(request.seed + 1)
    test = _test_rows(competition, sample, layout)
    moved, rekeyed = rekey_groups(held, key, train, test, rng)
    rows, labels = _long_rows(layout, wide.loc[held.index], moved, test.columns)
    ids = rows[layout.id_column].tolist()
    if len(set(ids)) < len(ids) or set(ids) & set(test[layout.id_column].str.strip()):
        raise NoHoldout(
            f"the held-out rows' {key} and {layout.class_column} do not give one new {layout.id_column} each, "
            "so their predictions could not be told apart"
        )
    dest = fresh_view(request.root)
    file_dirs, hidden = _link_held_examples(request, layout, train, (held, kept, moved), test, dest)
    _write_view_tables(request, layout, kept, (test, rows), ids, rng, dest)
    n = len(classes)
    by = f" (by {classes[0]})" if chosen == "stratified" else ""
    listing = (layout.test or competition.sample_submission).name
    columns = f"lists of {n} classes in {layout.labels}" if layout.labels else f"{n} class columns"
    return SplitParts(
        labels=labels,
        held=rows,
        ids=ids,
        split=(chosen, f"{why}{by}; each held-out {key} moves whole, as its {n} rows of {listing}"),
        n_train=len(kept),
        rekeyed=rekeyed,
        classes=closed_classes(labels, classification),
        table=f"{layout.train.name}'s {columns} ({len(held)} {key}s, a row per {layout.class_column})",
        hidden=hidden,
        file_dirs=file_dirs,
        key_columns=[key, layout.class_column],
    )


def _read_wide(layout: LongClasses, max_train_mb: float) -> pd.DataFrame:
    """The wide table, an example a row; NoHoldout where a key is on several rows (or blank), so which class
    values belong to a held-out example would be ambiguous."""
    train = read_labelled_table(layout.train, max_train_mb)
    key = layout.key
    if train[key].str.strip().duplicated().any() or (train[key].str.strip() == "").any():
        raise NoHoldout(
            f"{layout.train.name} has a {key!r} on several rows (or none), so which {layout.class_column} "
            "values belong to a held-out example is ambiguous"
        )
    return train


def _class_values(train: pd.DataFrame, layout: LongClasses) -> pd.DataFrame:
    """Each example's value of each class, as text: the wide table's class columns, or 1 where the example's list
    names the class, else 0; NoHoldout where a list names another class."""
    if not layout.labels:
        return train[list(layout.classes)]
    sets = class_sets(train[layout.labels], list(layout.classes))
    if sets is None:
        raise NoHoldout(
            f"{layout.train.name}'s {layout.labels} names classes besides the {len(layout.classes)} the sample's "
            f"ids end with ({', '.join(layout.classes[:5])}), so a held-out example's rows could not be labelled"
        )
    return pd.DataFrame({c: [str(int(c in s)) for s in sets] for c in layout.classes}, index=train.index)


def _test_rows(competition: Competition, sample: pd.DataFrame, layout: LongClasses) -> pd.DataFrame:
    """The test's rows as text, a row per (example, class): the long test table (checked against the sample), or
    the sample's own rows with their keys and classes where it alone lists them; NoHoldout where a test table
    lists examples beside a column of lists."""
    if layout.test is None:
        fields = {"key": layout.key, "class_column": layout.class_column, "classes": layout.classes}
        return listed_rows(sample[[layout.id_column]], fields)
    if layout.labels:
        raise NoHoldout(
            f"{layout.test.name} lists the test's {layout.key}s a row each beside a sample with a row per "
            f"({layout.key}, class), a test table the harness adds no held-out {layout.key}s to"
        )
    test = read_csv_as_text(layout.test)
    _check_sample_lists_test(competition, sample, test, layout)
    return test


def _check_sample_lists_test(
    competition: Competition, sample: pd.DataFrame, test: pd.DataFrame, layout: LongClasses
) -> None:
    """NoHoldout where the sample does not list the test table's ids once each: the held-out rows could not be
    listed in the test table's order."""
    listed = sample[layout.id_column].astype(str).str.strip()
    if not listed.is_unique or set(listed) != set(test[layout.id_column].str.strip()):
        raise NoHoldout(
            f"{competition.sample_submission.name} does not list {layout.test.name}'s {layout.id_column}s once "
            "each, so the held-out rows could not be listed in the test table's order"
        )


def _link_held_examples(
    request: SplitRequest,
    layout: LongClasses,
    train: pd.DataFrame,
    examples: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame],
    test: pd.DataFrame,
    dest: Path,
) -> tuple[list[str], list[str]]:
    """The view's files: a held-out example's inputs where the test's are, under its key in the view, side files
    keyed by it hidden, the rest linked (`link_held_inputs`; `examples`: the held-out, the kept and the re-keyed
    held-out rows). Returns the folders involved and the side files hidden."""
    competition, spec, public = request.competition, request.spec, request.competition.public_dir
    held, kept, moved = examples
    key = layout.key
    tables = {layout.train, competition.sample_submission, *([layout.test] if layout.test else [])}
    skip = {*tables, *extracted_archives(public)}
    original = held[key].str.strip().tolist()
    test_keys = list(pd.unique(test[key].str.strip()))
    named = held.assign(
        **{spec.id_column: held[key].str.strip()}
    )  # side files are named by the original keys
    new_keys = moved[key].str.strip().tolist()
    held_keys = HeldKeys(key, named, original, new_keys, test_keys, set(kept[key].str.strip()))
    return link_held_inputs(public, dest, spec, train, held_keys, skip)


def _write_view_tables(
    request: SplitRequest,
    layout: LongClasses,
    kept: pd.DataFrame,
    tables: tuple[pd.DataFrame, pd.DataFrame],
    ids: list[str],
    rng: np.random.Generator,
    dest: Path,
) -> None:
    """The view's tables: the wide table without the held-out examples; the test table with their rows
    (`tables`: the test's rows and theirs in its columns), arranged as the test's (`_arranged`), where there is
    one; the sample in its order."""
    test, rows = tables
    write_public_csv(kept, dest / layout.train.name)
    combined = pd.concat([test, rows], ignore_index=True)
    combined = combined.iloc[_arranged(combined, test, layout, rng)]
    if layout.test is not None:
        write_public_csv(combined, dest / layout.test.name)
    order = combined[layout.id_column].str.strip().tolist()
    path = dest / request.competition.sample_submission.name
    write_sample_in_order(request.sample, ids, order, layout.id_column, path)


def _long_rows(
    layout: LongClasses, values: pd.DataFrame, moved: pd.DataFrame, columns: pd.Index
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the held-out examples as test rows: a row per class, in the test table's columns, each under its view
    key; their targets in the submission's column, from `values`, their values of each class), a study's rows in
    the order of `layout.classes`."""
    key, cls = layout.key, layout.class_column
    parts = []
    for label in layout.classes:
        part = moved.reindex(columns=[c for c in columns if c in moved.columns])
        part = part.assign(**{key: moved[key].str.strip(), cls: label})
        part[layout.id_column] = part[key] + "_" + label
        part[layout.target] = values[label].str.strip().to_numpy()
        part["_example"] = np.arange(len(moved))
        parts.append(part.reset_index(drop=True))
    long = pd.concat(parts, ignore_index=True).sort_values("_example", kind="stable").reset_index(drop=True)
    rows = long.reindex(columns=list(columns), fill_value="")
    labels = long[[layout.target]].reset_index(drop=True)
    return rows, labels


def _arranged(
    combined: pd.DataFrame, test: pd.DataFrame, layout: LongClasses, rng: np.random.Generator
) -> np.ndarray:
    """Row positions of the test table with the held-out rows, examples shuffled among the test's and arranged
    as the test table is: each example's rows together (in class order), else each class's rows together (the
    examples in one shuffled order in every class: MLE-bench's test.csv, melted a class at a time), else at
    random."""
    keys = combined[layout.key].str.strip()
    key_codes, uniques = pd.factorize(keys)
    rank = rng.permutation(len(uniques))[key_codes]
    order = {label: k for k, label in enumerate(layout.classes)}
    class_rank = combined[layout.class_column].str.strip().map(order).fillna(len(order)).to_numpy()
    if _in_runs(test[layout.key]):
        return np.lexsort((class_rank, rank))
    if _in_runs(test[layout.class_column]):
        return np.lexsort((rank, class_rank))
    return rng.permutation(len(combined))


def _in_runs(values: pd.Series) -> bool:
    """Whether equal values stand together (each in one run of rows)."""
    text = values.astype(str).str.strip()
    return int((text != text.shift()).sum()) == text.nunique()


def split_long_class_rows(request: SplitRequest, fields: dict) -> SplitParts:
    """`split_long_classes` of the layout the reader found, every test and held-out example under a fresh key (or
    kept, saying why)."""
    spec, public = request.spec, request.competition.public_dir
    targets = [c for c in request.sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    layout = long_layout_of(public, spec.id_column, targets[0], fields)
    parts = split_long_classes(request, layout)
    if layout.test is not None:
        return with_fresh_keys(request, parts, layout.key, layout.train, layout.test)
    classes = set(layout.classes)
    return with_fresh_keys(request, parts, layout.key, layout.train, None, lambda i: _key_of(i, classes))


def _key_of(identifier: str, classes: set[str]) -> str:
    """The key an id `<key>_<class>` begins with (the id itself where it ends with no class)."""
    pair = key_and_class(identifier, classes)
    return identifier if pair is None else pair[0]
