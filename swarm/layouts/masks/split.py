"""The harness split of masks as arrays or images in a folder per example (`swarm.layouts.masks.reader`):
google-research-identify-contrails-reduce-global-warming, vesuvius-challenge-ink-detection.

There is no labelled table: each training example is a folder (`train/<record_id>/`, `train/<fragment>/`) holding
its inputs and its mask file (`human_pixel_masks.npy`, `inklabels.png`), and the sample a row per test folder with
the mask run-length encoded (and contrails' image size). The split holds out whole example folders, as MLE-bench's
`prepare.py` draws its test (vesuvius: one of its two fragments, the other left to train on): a held-out example's
inputs are placed in a folder of the test folder under its view id (every test and held-out folder
then copied under a fresh id: vesuvius' `a` and the held-out fragment under two fresh letters), its label files
(every file the test folders lack: vesuvius' `ir.png` and `inklabels_rle.csv` too) stay out, records naming it in
side files (`train_metadata.json`) are hidden, the sample lists it among the test examples with its size, and
`labels.csv` holds its mask as `prepare.py` writes the answers (`swarm.layouts.masks.reader.rle_string`: pixels numbered
down each column, or along each row where the competition's own encoding files do so; "-" for an empty mask).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_ids import fresh_sample_ids, keyed_view
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.new_ids import held_out_ids
from swarm.evaluation.split import described_split, split_whole
from swarm.evaluation.view_files import HeldKeys, extracted_archives, fresh_view, link_held_inputs
from swarm.evaluation.view_tables import write_sample
from swarm.layouts.masks.reader import SIZE_COLUMNS, mask_examples, read_mask, rle_string


def held_masks(fields: dict, held: pd.DataFrame, id_col: str, sample: pd.DataFrame) -> pd.DataFrame:
    """The held-out examples as the sample's rows: the id, the mask run-length encoded, the sample's size
    columns (`height`, `width`) from the mask's shape. NoHoldout where a mask file cannot be read as one."""
    rows = []
    for example, path in zip(held[id_col], held[fields["target"]], strict=True):
        try:
            mask = read_mask(str(path))
        except (OSError, ValueError) as exc:
            raise NoHoldout(f"the mask of held-out example {example} cannot be read: {exc}") from None
        size = dict(zip(SIZE_COLUMNS, mask.shape, strict=True))
        sizes = {c: str(size[str(c).lower()]) for c in sample.columns if str(c).lower() in SIZE_COLUMNS}
        rows.append({id_col: example, fields["target"]: rle_string(mask, fields["order"]), **sizes})
    return pd.DataFrame(rows, columns=[c for c in sample.columns if c in rows[0]])


def split_mask_folders(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out whole example folders and write the view (see the module docstring); NoHoldout saying why where
    no training folder has a mask or a held-out mask cannot be read."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    id_col, target, public, seed = spec.id_column, fields["target"], competition.public_dir, request.seed
    train = mask_examples(str(public), fields, id_col)
    if train.empty:
        raise NoHoldout(f"no example folder of {fields['train_dir']}/ holds its {fields['mask']}")
    chosen, why, held_rows, kept = split_whole(request, train, id_col)
    if kept.empty:
        raise NoHoldout(
            f"the split {chosen!r} leaves no example folder of {fields['train_dir']}/ to train on"
        )
    held = held_masks(fields, held_rows, id_col, sample)
    test_ids = [str(i).strip() for i in sample[id_col]]
    rng = np.random.default_rng(seed + 1)
    original, ids, rekeyed = held_out_ids(train, held, id_col, test_ids, rng, always_new=False)

    # The view's files: a held-out example's inputs where the test's are (not its mask), records naming it hidden.
    dest = fresh_view(root)
    skip = {competition.sample_submission, *extracted_archives(public)}
    held_keys = HeldKeys(id_col, held, original, ids, test_ids, set(kept[id_col]))
    file_dirs, hidden = link_held_inputs(public, dest, spec, train, held_keys, skip)

    # The view's sample: the held-out examples among the test's, with their sizes; every one under a fresh id.
    order = rng.permutation(len(sample) + len(held))
    view = keyed_view(
        competition,
        train,
        held_keys,
        hidden,
        dest,
        file_dirs,
        {dest / competition.sample_submission.name},
        order,
    )
    fresh, sample = fresh_sample_ids(view, sample, root, seed)
    ids = fresh.held if fresh.fresh else ids
    write_sample(sample, held, ids, spec, order, dest / competition.sample_submission.name)
    return SplitParts(
        labels=held[[target]].reset_index(drop=True),
        held=held.assign(**{id_col: ids}),
        ids=ids,
        split=described_split(  # not "a regression target": the masks are not a column
            chosen,
            why,
            f"whole example folders held out, each one's inputs moved to {fields['test_dir']}/ without "
            f"its {fields['mask']}",
        ),
        n_train=len(kept),
        rekeyed=rekeyed,
        classes={target: None},
        table=f"{fields['train_dir']}/ ({len(train)} example folders, the mask of each in {fields['mask']})",
        hidden=hidden,
        file_dirs=file_dirs,
        fresh=fresh,
    )
