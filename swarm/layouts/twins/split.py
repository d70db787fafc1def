"""The harness split of a layout whose inputs are twin tables of groups: nfl-player-contact-detection's.

The labels table (`train_labels.csv`) has a row per example (`contact_id`, a contact of two players at one
step) and a group column (`game_play`); the inputs are tables in twins, `train_<x>.csv` and `test_<x>.csv`
(`player_tracking`, `baseline_helmets`, `video_metadata`), each holding the group column, and files named by a
group and a tail (`train/<game_play>_Endzone.mp4`, `test/...`); the test examples are listed by the sample alone,
each id starting with its group (`<game_play>_<step>_<p1>_<p2>`). MLE-bench's `prepare.py` draws whole game plays
for its test, so the harness holds out whole groups: their rows of every `train_<x>.csv` move to `test_<x>.csv`,
their files from the train folder to the test folder, their ids join the sample and their labels stay in
labels.csv. `twin_tables` recognises the layout from the public dir and the sample's ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_keys import with_fresh_keys
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.labelled_data import check_size, read_labelled_table
from swarm.evaluation.labels import closed_classes, is_classification, label_strata, submission_labels
from swarm.evaluation.side_files import hide_side_files
from swarm.evaluation.split import check_split, choose_split, competition_split_hint, split_rows
from swarm.evaluation.table_io import read_csv_as_text, write_public_csv
from swarm.evaluation.view_files import extracted_archives, fresh_view, link, mirror
from swarm.evaluation.view_tables import sample_rows
from swarm.layouts.composite.split import group_order
from swarm.layouts.twins.reader import group_of, twin_group_values

NAMED_SHARE = 0.5  # a test folder whose files follow the groups: at least this share named `<group>_...`


@dataclass(frozen=True)
class TwinTables:
    """Where examples are grouped and their inputs are in twin tables, as `twin_tables` found them."""

    labels: Path  # the labelled table: a row per example, its id, targets and group
    group: str  # the group column, in the labels table and in both tables of every twin
    twins: tuple[tuple[Path, Path], ...]  # (train_<x>.csv, test_<x>.csv)
    test_groups: frozenset[str]  # the groups of the test twins' rows


def split_twin_tables(request: SplitRequest, layout: TwinTables) -> SplitParts:
    """Hold out whole groups and write the view (see the module docstring); NoHoldout saying why where a
    held-out group or id is also the test's."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    fraction, split, seed = request.fraction, request.split, request.seed
    max_train_mb = request.max_train_mb
    for path in (p for twin in layout.twins for p in twin):
        check_size(path, max_train_mb)
    train = read_labelled_table(layout.labels, max_train_mb)
    id_col, group = spec.id_column, layout.group
    per_row = submission_labels(train, spec, list(sample.columns))
    classification = is_classification(spec, per_row, False)
    chosen, why = _choose(
        check_split(split), competition_split_hint(competition), layout, train, classification
    )
    positions, _, _ = split_rows(chosen, train, label_strata(per_row), fraction, seed)
    groups = train[group].str.strip()
    held_groups = set(groups.iloc[positions])
    whole = groups.isin(held_groups).to_numpy()  # a group is held out with all its examples
    held, kept = train[whole], train[~whole]
    if kept.empty:
        raise NoHoldout(f"the split {chosen!r} leaves no rows to train on once whole {group}s are held out")
    ids = held[id_col].str.strip().tolist()
    test_ids = set(sample[id_col].astype(str).str.strip())
    if held_groups & layout.test_groups or set(ids) & test_ids:
        raise NoHoldout(
            f"some held-out {group}s or {id_col}s are also the test's, so their rows could not be told apart"
        )

    # The view: every twin's held-out rows on its test side, the groups' files in the test folder.
    public, dest = competition.public_dir, fresh_view(root)
    rng = np.random.default_rng(seed + 1)
    skip = {layout.labels, competition.sample_submission, *extracted_archives(public)}
    for train_path, test_path in layout.twins:
        _move_twin_rows(train_path, test_path, group, held_groups, dest, rng)
        skip |= {train_path, test_path}
    file_dirs = _move_group_files(public, dest, held_groups, layout.test_groups, skip)
    hidden = hide_side_files(
        public, dest, train, held, spec, test_ids, None, skip, set(kept[id_col].str.strip())
    )
    mirror(public, dest, skip)
    write_public_csv(kept, dest / layout.labels.name)
    full = pd.concat([sample, sample_rows(sample, id_col, ids)], ignore_index=True)
    all_groups = set(layout.test_groups) | held_groups
    order = group_order(full[id_col].astype(str).str.strip().map(lambda i: group_of(i, all_groups)), rng)
    write_public_csv(full.iloc[order], dest / competition.sample_submission.name)

    labels = per_row[whole].reset_index(drop=True)
    return SplitParts(
        labels=labels,
        held=held.reset_index(drop=True),
        ids=ids,
        split=(chosen, f"{why}; their rows of every train_/test_ table pair move to the test side"),
        n_train=len(kept),
        classes=closed_classes(labels, classification),
        table=f"{layout.labels.name} ({len(held)} rows of {len(held_groups)} {group}s)",
        hidden=hidden,
        file_dirs=file_dirs,
    )


def _choose(
    split: str, hint: str | None, layout: TwinTables, train: pd.DataFrame, classification: bool
) -> tuple[str, str]:
    """(split, why): a set split or competition.json's hint wins (whole groups still move together); else
    whole groups."""
    if split != "auto" or hint:
        return choose_split(split, hint, train, None, classification)
    twins = ", ".join(test.name for _, test in layout.twins)
    return (
        f"group:{layout.group}",
        f"the test's examples are whole {layout.group}s, whose inputs are the rows of {twins}",
    )


def _move_twin_rows(
    train_path: Path, test_path: Path, group: str, held: set[str], dest: Path, rng: np.random.Generator
) -> None:
    """`train_<x>.csv` without the held-out groups' rows, `test_<x>.csv` with them (whole groups shuffled)."""
    train, test = read_csv_as_text(train_path), read_csv_as_text(test_path)
    moving = train[group].str.strip().isin(held).to_numpy()
    write_public_csv(train[~moving], dest / train_path.name)
    combined = pd.concat(
        [test, train[moving].reindex(columns=test.columns, fill_value="")], ignore_index=True
    )
    write_public_csv(combined.iloc[group_order(combined[group], rng)], dest / test_path.name)


def _move_group_files(
    public: Path, dest: Path, held: set[str], test_groups: frozenset[str], skip: set[Path]
) -> list[str]:
    """Link the held-out groups' files (named `<group>_<tail>` or `<group>.<ext>`) from a train folder into its
    test twin (`train/` -> `test/`), where most of the test folder's files are named by test groups; adds them
    to `skip`. Returns the folders involved (relative)."""
    folders = []
    for train_dir in sorted(p for p in public.iterdir() if p.is_dir() and "train" in p.name.lower()):
        test_dir = public / train_dir.name.lower().replace("train", "test")
        if not test_dir.is_dir():
            continue
        test_files = [p for p in test_dir.rglob("*") if p.is_file()]
        named = sum(_file_group(p.name, test_groups) is not None for p in test_files)
        if not test_files or named < NAMED_SHARE * len(test_files):
            continue
        for path in sorted(p for p in train_dir.rglob("*") if p.is_file()):
            if _file_group(path.name, held) is not None:
                link(path, dest / test_dir.name / path.relative_to(train_dir))
                skip.add(path)
        folders += [train_dir.name, test_dir.name]
    return folders


def _file_group(name: str, groups: set[str] | frozenset[str]) -> str | None:
    """The group a file name starts with, followed by `_` or `.`."""
    return group_of(name.replace(".", "_", 1) if "." in name else name, groups)


def split_twins(request: SplitRequest, fields: dict) -> SplitParts:
    """`split_twin_tables` of the layout the reader found, every test and held-out group under a fresh value (the
    first twin's test table lists them, the other twins follow), or kept, saying why."""
    layout = twin_layout(request.competition.public_dir, fields)
    parts = split_twin_tables(request, layout)
    return with_fresh_keys(request, parts, layout.group, layout.labels, layout.twins[0][1])


def twin_layout(public: Path, fields: dict) -> TwinTables:
    """The layout the reader found (`swarm.layouts.twins.reader.find_twins`'s fields), with its tables' paths and
    the groups of the test twins' rows."""
    twins = tuple((public / a, public / b) for a, b in fields["twins"])
    test_groups = frozenset(twin_group_values(str(twins[0][1]), fields["group"]))
    return TwinTables(public / fields["labels"], fields["group"], twins, test_groups)
