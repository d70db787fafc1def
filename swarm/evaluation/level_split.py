"""The harness split of examples at two levels (`swarm.level_rows`): siim-covid19-detection.

The sample has a row per test study (`<study>_study`) and per test image (`<image>_image`); the study table
(`train_study_level.csv`) a row per study with 0/1 class columns, the image table (`train_image_level.csv`) a row
per image with its boxes as the submission's string and its study (`StudyInstanceUID`); each study's images lie in
its folder (`train/<study>/...`). The split holds out whole studies, as MLE-bench's `prepare.py` draws its test:
a held-out study leaves the study table and its images the image table, its folder is linked where the test's are
(`test/<study>/...`), the sample lists the study and its images with the sample's dummy strings of their level,
and `labels.csv` holds their strings as `prepare.py` writes the answers (`swarm.level_rows.level_strings`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_ids import kept_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.split import check_split, choose_split, competition_split_hint, split_rows
from swarm.evaluation.table_io import read_csv_as_text, write_public_csv
from swarm.evaluation.view_files import HeldKeys, extracted_archives, fresh_view, link_held_inputs
from swarm.evaluation.view_tables import write_sample
from swarm.level_rows import LEVEL_COLUMN, id_levels, level_strings


def split_levels(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out whole parents (studies) with their children (images) and write the view (see the module
    docstring); NoHoldout saying why where a held-out id is also a test id or nothing is left to train on."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    fraction, split, seed = request.fraction, request.split, request.seed
    id_col, public = spec.id_column, competition.public_dir
    target = next(c for c in sample.columns if c != id_col)
    parent, child, link = fields["parent"], fields["child"], fields["link"]
    parent_path = public / fields["levels"][parent]["table"]
    child_path = public / fields["levels"][child]["table"]
    parents, children = read_csv_as_text(parent_path), read_csv_as_text(child_path)
    chosen, why = choose_split(
        check_split(split), competition_split_hint(competition), parents, None, False, id_col
    )
    _, held_parents, kept_parents = split_rows(chosen, parents, parents[id_col], fraction, seed)
    if kept_parents.empty:
        raise NoHoldout(f"the split {chosen!r} leaves no {parent} of {parent_path.name} to train on")
    keys = held_parents[id_col].str.strip().str[: -len(parent) - 1]  # the study's own key, less `_study`
    in_held = children[link].str.strip().isin(set(keys))
    held = pd.concat(
        [
            level_strings(held_parents, fields, parent, id_col, target),
            level_strings(children[in_held], fields, child, id_col, target),
        ],
        ignore_index=True,
    )
    test_ids = [str(i).strip() for i in sample[id_col]]
    clash = set(held[id_col]) & set(test_ids)
    if clash:
        raise NoHoldout(
            f"held-out {id_col}s are also test ids ({sorted(clash)[0]}, ...), so they cannot be told apart"
        )
    ids = held[id_col].tolist()

    # The view's files: each held-out parent's folder where the test's are, side files naming it hidden.
    dest = fresh_view(root)
    skip = {parent_path, child_path, competition.sample_submission, *extracted_archives(public)}
    test_keys = [i[: -len(parent) - 1] for i in test_ids if i.endswith("_" + parent)]
    kept_keys = set(kept_parents[id_col].str.strip().str[: -len(parent) - 1])
    held_keys = HeldKeys(
        id_col, pd.DataFrame({id_col: keys.to_numpy()}), list(keys), list(keys), test_keys, kept_keys
    )
    file_dirs, hidden = link_held_inputs(public, dest, spec, parents, held_keys, skip)

    # The view's tables: both levels without the held-out rows; the sample with them, each with its level's dummy.
    write_public_csv(kept_parents, dest / parent_path.name)
    write_public_csv(children[~in_held], dest / child_path.name)
    shown = sample.assign(**{LEVEL_COLUMN: id_levels(sample[id_col])}).drop_duplicates(LEVEL_COLUMN)
    dummy = dict(zip(shown[LEVEL_COLUMN], shown[target], strict=True))
    order = np.random.default_rng(seed + 1).permutation(len(sample) + len(held))
    fillers = {target: [dummy[level] for level in held[LEVEL_COLUMN]]}
    write_sample(sample, held, ids, spec, order, dest / competition.sample_submission.name, fillers)
    n_children = int(in_held.sum())
    return SplitParts(
        labels=held[[target]],
        held=held.drop(columns=[LEVEL_COLUMN]),
        ids=ids,
        split=(
            chosen,
            ("" if chosen == "random" else f"{why}; ")
            + f"each held-out {parent} with its {child}s, its files moved where the test's are",
        ),
        n_train=len(kept_parents),
        rekeyed=False,
        classes={target: None},
        table=(
            f"{parent_path.name} ({len(held_parents)} rows) and {child_path.name} (their {n_children} rows), "
            f"a {target} each"
        ),
        hidden=hidden,
        file_dirs=file_dirs,
        fresh=kept_ids(_why_kept(root / "public", file_dirs)),
    )


def _why_kept(dest: Path, file_dirs: list[str]) -> str:
    """Why the ids are kept: they name the examples' folders and files, and DICOM files hold them inside."""
    dicom = any(next((dest / d).rglob("*.dcm"), None) is not None for d in file_dirs)
    inside = ", and the DICOM files hold them in their headers" if dicom else ""
    return f"the ids name the examples' folders and files{inside}, which are not rewritten"
