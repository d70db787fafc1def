"""The harness split of rows of a labels table in each example folder (`swarm.layouts.folder_rows.reader`): smartphone-decimeter-2022.

There is no labelled table at the top: each training example (a phone of a drive) is a folder,
`train/<drive>/<phone>/`, holding its inputs and its labels (`ground_truth.csv`, a row per second), and the sample
has a row per test example and second (`tripId` = `<drive>-<phone>`, `UnixTimeMillis`, the position). The split
holds out whole top-level folders (drives, with every phone), as MLE-bench's `prepare.py` moves whole drives (by
date) to its test: each held-out example's inputs are linked where the test's are (`test/<drive>/<phone>/`),
without its labels table; the sample lists its rows (the id, the key columns from the labels table, the sample's
filler targets), a trip's rows together; and `labels.csv` holds the labels table's targets for those rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_ids import kept_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.split import check_split, choose_split, competition_split_hint, split_rows
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror, move_folders
from swarm.evaluation.view_tables import block_order, write_sample
from swarm.layouts.folder_rows.reader import example_folders, labelled_rows

UNIT = "folder"  # the column of the units held out whole: the top-level folders under the training folder


def split_folder_rows(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out whole top-level training folders with their examples and write the view (see the module
    docstring); NoHoldout saying why where a held-out id is also a test id or nothing is left to train on."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    fraction, split, seed = request.fraction, request.split, request.seed
    id_col, public = spec.id_column, competition.public_dir
    train_dir, test_dir = public / fields["train_dir"], public / fields["test_dir"]
    folders = example_folders(str(public), fields, "train_dir")
    if not folders:
        raise NoHoldout(f"no example folder of {fields['train_dir']}/ holds its {fields['labels']}")
    unit_of = {example: Path(folder).relative_to(train_dir).parts[0] for example, folder in folders.items()}
    units = pd.DataFrame({UNIT: sorted(set(unit_of.values()))})
    chosen, why = choose_split(
        check_split(split), competition_split_hint(competition), units, None, False, UNIT
    )
    _, held_units, _ = split_rows(chosen, units, units[UNIT], fraction, seed)
    held_examples = [e for e, unit in unit_of.items() if unit in set(held_units[UNIT])]
    test_ids = set(sample[id_col].astype(str).str.strip())
    clash = set(held_examples) & test_ids
    if clash:
        raise NoHoldout(
            f"held-out {id_col}s are also test ids ({sorted(clash)[0]}, ...), so they cannot be told apart"
        )
    held = labelled_rows(str(public), fields, held_examples).astype(str)
    if held.empty:
        raise NoHoldout(f"the held-out examples' {fields['labels']} tables hold no rows")

    # The view's files: each held-out top-level folder where the test's are, without its labels tables.
    dest = fresh_view(root)
    skip = {competition.sample_submission, *extracted_archives(public)}
    move_folders(public, dest, train_dir, test_dir, held_units[UNIT], skip, left_out=fields["labels"])
    mirror(public, dest, skip)

    # The view's sample: the held-out rows among the test's, a trip's rows together.
    groups = sample[id_col].astype(str).str.strip().tolist() + held[id_col].tolist()
    order = block_order(groups, np.random.default_rng(seed + 1))
    fillers = {c: held[c].tolist() for c in fields["keys"]}
    write_sample(
        sample, held, held[id_col].tolist(), spec, order, dest / competition.sample_submission.name, fillers
    )
    return SplitParts(
        labels=held[fields["targets"]],
        held=held,
        ids=held[id_col].tolist(),
        split=(
            chosen,
            ("" if chosen == "random" else f"{why}; ")
            + f"whole folders of {fields['train_dir']}/ held out, each example's inputs moved where the test's are "
            f"without its {fields['labels']}",
        ),
        n_train=len(folders) - len(held_examples),
        classes={},  # numbers, not classes
        table=(
            f"{fields['labels']} of {len(folders)} example folders of {fields['train_dir']}/ "
            f"({len(held_examples)} held out in {len(held_units)} folders)"
        ),
        hidden=[],
        file_dirs=[fields["test_dir"]],
        fresh=kept_ids(_why_kept(str(held_units[UNIT].iloc[0]), fields["test_dir"])),
    )


def _why_kept(folder: str, test_dir: str) -> str:
    """Why the ids are kept: they begin with their folder's name, a date (smartphone's `2021-04-29-US-SJC-2`:
    a drive's day, which a solution may use), or they name the example folders, which are not renamed."""
    if not pd.isna(pd.to_datetime(folder[:10], errors="coerce", format="%Y-%m-%d")):
        return f"the ids begin with their folder's name ({folder}), which is a date: they carry meaning"
    return f"the ids name the example folders of {test_dir}/ ({folder}), which are not renamed"
