"""The harness split of rows keyed by the id and another column (the metric's key columns, else the sample's own) whose ids begin with the
name of the folder holding their inputs: uw-madison-gi-tract-image-segmentation.

train.csv has a row per (slice, organ): `id` (`case<c>_day<d>_slice_<s>`), `class`, and the organ's mask run-length
encoded (`segmentation`, which the sample calls `predicted`); each slice's image lies in its scan's folder
(`train/case<c>/case<c>_day<d>/scans/slice_<s>_<width>_<height>_<spacing>.png`), the folder whose name and a `_`
begin the id. The split holds out whole folders (scans), as MLE-bench's `prepare.py` moves whole days of cases to
its test: every row of a held-out scan leaves train.csv and joins test.csv and the sample (its id and key columns,
the sample's filler target), its folder is linked where the test scans are (`test/case<c>/case<c>_day<d>/`), and
labels.csv holds the masks with what the metric reads beside them (each slice's image size, read from its image,
where the metric takes it from the answers).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image, UnidentifiedImageError

from swarm.competitions.competition import MetricSpec
from swarm.competitions.validation import group_columns
from swarm.evaluation.fresh_ids import kept_ids
from swarm.evaluation.holdout_record import TEST, TRAIN, NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.new_ids import check_apart_from_test
from swarm.evaluation.side_files import hide_side_files
from swarm.evaluation.split import described_split, split_whole
from swarm.evaluation.table_io import read_csv_as_text, write_public_csv
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror, move_folders
from swarm.evaluation.view_tables import block_order, write_sample, write_test_csv
from swarm.layouts.keyed.reader import id_folders, image_paths

FOLDER = "__folder__"  # the column of each row's input folder, relative to the training folder
SIZE_WORDS = ("height", "width")  # columns the metric reads beside the labels that an image's size gives


def image_sizes(root: Path, examples: list[str]) -> dict[str, tuple[int, int]]:
    """example -> (height, width) of its image under `root` (`swarm.layouts.keyed.reader.image_paths`); NoHoldout naming
    the first example whose image is missing or cannot be read."""
    paths = image_paths(str(root), examples)
    sizes = {}
    for example in examples:
        try:
            if example not in paths:
                raise OSError(f"no file under {root.name}/ is named by it")
            with Image.open(paths[example]) as image:
                width, height = image.size
        except (OSError, UnidentifiedImageError) as exc:
            raise NoHoldout(
                f"the image of held-out row {example} cannot be read for its size: {exc}"
            ) from None
        sizes[example] = (height, width)
    return sizes


def split_keyed_rows(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out whole input folders with every row of their ids and write the view (see the module docstring);
    NoHoldout saying why where a held-out id is also a test id, a needed image size cannot be read, or nothing is
    left to train on."""
    competition, spec, sample = request.competition, request.spec, request.sample
    id_col, public = spec.id_column, competition.public_dir
    target, train_target = fields["target"], fields["source"]
    train_dir, test_dir = public / fields["train_dir"], public / fields["test_dir"]
    train = _with_folders(read_csv_as_text(public / fields["train"]), id_col, train_dir)
    folders = pd.DataFrame({FOLDER: sorted(set(train[FOLDER]) - {""})})
    chosen, why, held_folders, _ = split_whole(request, folders, FOLDER)
    in_held = train[FOLDER].isin(set(held_folders[FOLDER]))
    held, kept = train[in_held].reset_index(drop=True), train[~in_held].drop(columns=[FOLDER])
    test_ids = set(sample[id_col].str.strip())
    check_apart_from_test(held[id_col].str.strip(), test_ids, id_col)
    _add_image_sizes(held, spec, train_dir)
    dest = fresh_view(request.root)
    hidden = _write_view_files(request, fields, train, held, held_folders[FOLDER], dest)
    held_ids = _write_view_tables(request, kept, held, test_dir, dest, fields["keys"])
    return SplitParts(
        labels=held[[train_target]].rename(columns={train_target: target}),
        held=held.drop(columns=[FOLDER]),
        ids=held_ids,
        split=described_split(
            chosen,
            why,
            f"whole folders of {train_dir.name}/ held out with every row of their ids, moved where the test's are",
        ),
        n_train=len(kept),
        classes={target: None},
        table=(
            f"{TRAIN} ({len(train)} rows of {len(folders)} folders, keyed by {' and '.join([id_col, *fields['keys']])}"
            + (f", {train_target} as {target})" if train_target != target else ")")
        ),
        hidden=hidden,
        file_dirs=[str(test_dir.relative_to(public))],
        fresh=kept_ids(
            f"the ids carry meaning: they name each example's scan and its place in it ({held_ids[0]}: the slices "
            f"of a scan are neighbours, which a solution may use), and its folders and files under {test_dir.name}/"
        ),
    )


def _with_folders(train: pd.DataFrame, id_col: str, train_dir: Path) -> pd.DataFrame:
    """train.csv with each row's input folder (FOLDER: relative to the training folder, "" where its id names
    none)."""
    ids = train[id_col].str.strip()
    folder_of = id_folders(str(train_dir), ids.unique().tolist())
    named = ids.map(lambda i: os.path.relpath(folder_of[i], train_dir) if i in folder_of else "")
    return train.assign(**{FOLDER: named.to_numpy()})


def _add_image_sizes(held: pd.DataFrame, spec: MetricSpec, train_dir: Path) -> None:
    """What the metric reads beside the labels and train.csv lacks, added to the held-out rows: each one's image
    size (height, width), read from its image."""
    sized = [
        c for c in group_columns(spec) if c not in held.columns and any(w in c.lower() for w in SIZE_WORDS)
    ]
    if not sized:
        return
    examples = held[spec.id_column].str.strip()
    sizes = image_sizes(train_dir, examples.unique().tolist())
    for column in sized:
        axis = 0 if "height" in column.lower() else 1
        held[column] = [str(sizes[e][axis]) for e in examples]


def _write_view_files(
    request: SplitRequest,
    fields: dict,
    train: pd.DataFrame,
    held: pd.DataFrame,
    held_folders: pd.Series,
    dest: Path,
) -> list[str]:
    """The view's files: each held-out folder where the test's are, side files naming its rows hidden (which are
    returned), the rest linked as it is."""
    competition, spec, public = request.competition, request.spec, request.competition.public_dir
    train_dir, test_dir = public / fields["train_dir"], public / fields["test_dir"]
    skip = {public / fields["train"], competition.sample_submission, *extracted_archives(public)}
    test_path = public / TEST
    if test_path.is_file():
        skip.add(test_path)
    move_folders(public, dest, train_dir, test_dir, held_folders, skip)
    test_ids = set(request.sample[spec.id_column].str.strip())
    hidden = hide_side_files(public, dest, train.drop(columns=[FOLDER]), held, spec, test_ids, test_dir, skip)
    mirror(public, dest, skip)
    return hidden


def _write_view_tables(
    request: SplitRequest, kept: pd.DataFrame, held: pd.DataFrame, test_dir: Path, dest: Path, keys: list[str]
) -> list[str]:
    """The view's tables: train.csv without the held-out rows; test.csv (where there is one) and the sample with
    them (their `keys` beside the id), a scan's rows together. Returns the held-out rows' ids."""
    competition, spec, sample = request.competition, request.spec, request.sample
    id_col, test_path = spec.id_column, competition.public_dir / TEST
    write_public_csv(kept, dest / TRAIN)
    test_folders = id_folders(str(test_dir), sorted(set(sample[id_col].str.strip())))
    groups = [str(test_folders.get(i, i)) for i in sample[id_col].str.strip()] + held[FOLDER].tolist()
    order = block_order(groups, np.random.default_rng(request.seed + 1))
    if test_path.is_file():
        write_test_csv(read_csv_as_text(test_path), held, order, dest / TEST, test_path)
    fillers = {c: held[c].tolist() for c in keys}
    held_ids = held[id_col].tolist()
    write_sample(sample, held, held_ids, spec, order, dest / competition.sample_submission.name, fillers)
    return held_ids
