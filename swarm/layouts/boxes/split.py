"""The harness split of labelled boxes a row (`swarm.layouts.boxes.reader`): vinbigdata-chest-xray-abnormalities-detection.

`train.csv` has a row per box (several per image, from several radiologists), no test table, and the sample a
row per test image (`image_id`, `PredictionString`). The split holds out whole images, as MLE-bench's
`prepare.py` draws its test: a held-out image's box rows leave `train.csv`, its file (`train/<image_id>.dicom`)
is linked where the test files are, side files named by it are hidden, and the sample lists it among the test
images; `labels.csv` holds its boxes as the submission's string, written as `prepare.py` writes the answers
(`swarm.layouts.boxes.reader.box_strings`: the first box of each (image, class), `0 0 1 1` for a box without corners).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from swarm.evaluation.fresh_ids import fresh_sample_ids, keyed_view
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.labelled_data import read_labelled_table
from swarm.evaluation.new_ids import held_out_ids
from swarm.evaluation.split import check_split, choose_split, competition_split_hint, split_rows
from swarm.evaluation.table_io import write_public_csv
from swarm.evaluation.view_files import HeldKeys, extracted_archives, fresh_view, link_held_inputs
from swarm.evaluation.view_tables import write_sample
from swarm.layouts.boxes.reader import box_strings


@dataclass(frozen=True)
class BoxRows:
    """Where the labels are boxes a row: the labelled table and its columns (`swarm.layouts.boxes.reader.box_row_fields`)."""

    train: Path
    fields: dict
    target: str


def split_box_rows(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out whole examples and write the view (see the module docstring); NoHoldout saying why when a
    held-out example's input cannot be found."""
    spec, public = request.spec, request.competition.public_dir
    targets = [c for c in request.sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    layout = BoxRows(public / fields["train"], fields, targets[0])
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    fraction, split, seed = request.fraction, request.split, request.seed
    max_train_mb = request.max_train_mb
    id_col, target = spec.id_column, layout.target
    train = read_labelled_table(layout.train, max_train_mb)
    row_ids = train[id_col].str.strip()
    if (row_ids == "").any():
        raise NoHoldout(f"{layout.train.name} has box rows without an {id_col}, so their example is unknown")
    chosen, why = choose_split(
        check_split(split), competition_split_hint(competition), train, None, False, id_col
    )
    positions, _, _ = split_rows(chosen, train, row_ids, fraction, seed)
    whole = row_ids.isin(set(row_ids.iloc[positions])).to_numpy()  # an example is held out with all its boxes
    held_rows, kept = train[whole], train[~whole]
    if kept.empty:
        raise NoHoldout(f"the split {chosen!r} leaves no boxes to train on once whole {id_col}s are held out")
    held = box_strings(held_rows, layout.fields, id_col, target)
    test_ids = [str(i).strip() for i in sample[id_col]]
    rng = np.random.default_rng(seed + 1)
    original, ids, rekeyed = held_out_ids(train, held, id_col, test_ids, rng, always_new=False)

    # The view's files: a held-out example's input where the test's are, side files named by it hidden.
    public, dest = competition.public_dir, fresh_view(root)
    skip = {layout.train, competition.sample_submission, *extracted_archives(public)}
    held_keys = HeldKeys(id_col, held, original, ids, test_ids, set(kept[id_col].str.strip()))
    file_dirs, hidden = link_held_inputs(public, dest, spec, train, held_keys, skip)

    # The view's tables: the box rows of the kept examples; the held-out ones listed among the sample's.
    write_public_csv(kept, dest / layout.train.name)
    order = rng.permutation(len(sample) + len(held))
    own = {dest / layout.train.name, dest / competition.sample_submission.name}
    view = keyed_view(competition, train, held_keys, hidden, dest, file_dirs, own, order)
    fresh, sample = fresh_sample_ids(view, sample, root, seed)  # every image under a fresh id, unless kept
    ids = fresh.held if fresh.fresh else ids
    write_sample(sample, held, ids, spec, order, dest / competition.sample_submission.name)

    n_boxes = len(held_rows)
    return SplitParts(
        labels=held[[target]].reset_index(drop=True),
        held=held.assign(**{id_col: ids}),
        ids=ids,
        split=(
            chosen,
            f"{why}; a held-out {id_col}'s box rows leave {layout.train.name}, its {target} is their boxes",
        ),
        n_train=len(kept),
        rekeyed=rekeyed,
        classes={target: None},
        table=f"{layout.train.name} ({n_boxes} box rows under {len(held)} {id_col}s, a {target} each)",
        hidden=hidden,
        file_dirs=file_dirs,
        fresh=fresh,
    )
