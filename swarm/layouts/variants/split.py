"""The harness split of versions of the same files in folders: alaska2-image-steganalysis's layout.

`Cover/00001.jpg` is an original image and `JMiPOD/00001.jpg`, `JUNIWARD/00001.jpg`, `UERD/00001.jpg` the same
image with a message hidden three ways (swarm.layouts.file_labels.reader' "variants"); each test image (`Test/0001.jpg`) is
one version of an image the training folders lack, the original half the time (MLE-bench's `prepare.py`), and the
submission says how likely it is altered. A held-out example is a file name: all its versions leave the
training folders (an original beside its altered twin would give the label away), and one of them, drawn as
`prepare.py` draws the test's, joins the test folder under a new id in the test ids' format, labelled 1 where it is
altered.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_ids import ViewRows, fresh_sample_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.labelled_data import MIN_LABELLED_ROWS
from swarm.evaluation.labels import closed_classes, is_classification
from swarm.evaluation.new_ids import new_ids
from swarm.evaluation.view_files import extracted_archives, fresh_view, link, mirror
from swarm.evaluation.view_tables import write_sample
from swarm.layouts.file_labels.reader import FILE_COLUMN


def split_variant_folders(request: SplitRequest, layout: dict, examples: pd.DataFrame) -> SplitParts:
    """Hold out whole file names and write the view (see the module docstring); `examples` are every version's
    file (`file_label_frame`). NoHoldout where the split is set to one that would part a file's versions, or too
    few files are there to split."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    fraction, split, seed = request.fraction, request.split, request.seed
    if split not in ("auto", "random") and not split.startswith("group:"):
        raise NoHoldout(
            f"evaluation.split {split!r} would part the versions of one image between train and test, and the "
            "originals would give the altered ones away: use auto"
        )
    public, target, id_col = competition.public_dir, layout["target"], spec.id_column
    frame = examples[[FILE_COLUMN]].assign(
        name=examples[FILE_COLUMN].map(lambda path: path.rsplit("/", 1)[-1])
    )
    names = sorted(set(frame["name"]))
    if len(names) < MIN_LABELLED_ROWS:
        raise NoHoldout(f"the folders {', '.join(layout['folders'])} hold only {len(names)} files each")
    rng = np.random.default_rng(seed)
    count = max(1, min(len(names) - 1, round(fraction * len(names))))
    held_names = [names[i] for i in sorted(rng.permutation(len(names))[:count])]
    altered = [f for f in layout["folders"] if f != layout["negative"]]
    # the original half the time, else one altered version at random (prepare.py)
    chosen = [
        layout["negative"] if rng.random() < 0.5 else altered[int(rng.integers(len(altered)))]
        for _ in held_names
    ]
    prefix = "" if layout["train"] == "." else f"{layout['train']}/"
    held = pd.DataFrame(
        {
            FILE_COLUMN: [
                f"{prefix}{folder}/{name}" for folder, name in zip(chosen, held_names, strict=True)
            ],
            target: [str(int(folder != layout["negative"])) for folder in chosen],
        }
    )
    test_ids = [str(i).strip() for i in sample[id_col]]
    ids = new_ids(count, test_ids, set(test_ids), np.random.default_rng(seed + 1))

    # The view: every version of a held-out file out of the training folders, the drawn one in the test folder.
    dest = fresh_view(root)
    leaving = set(held_names)
    skip = {competition.sample_submission, *extracted_archives(public)}
    skip |= {
        public / path for path, name in zip(frame[FILE_COLUMN], frame["name"], strict=True) if name in leaving
    }
    for path, new in zip(held[FILE_COLUMN], ids, strict=True):
        source = public / path
        link(source, dest / layout["test"] / (new if layout["test_match"] == "name" else new + source.suffix))
    mirror(public, dest, skip)
    order = np.random.default_rng(seed + 2).permutation(len(sample) + count)
    # Every test image and held-out version under a fresh id (no training id to keep them apart from: the
    # training files are versions named alike).
    view = ViewRows(
        competition,
        pd.DataFrame({id_col: []}),
        None,
        id_col,
        {id_col},
        test_ids,
        ids,
        list(held[FILE_COLUMN]),
        [],
        dest,
        dest / layout["test"],
        {dest / competition.sample_submission.name},
        order,
    )
    fresh, sample = fresh_sample_ids(view, sample, root, seed)
    ids = fresh.held if fresh.fresh else ids
    write_sample(
        sample, held.assign(**{id_col: ids}), ids, spec, order, dest / competition.sample_submission.name
    )

    labels = held[[target]].rename(columns={target: spec.target_columns[0]})
    classification = is_classification(spec, labels, False)
    return SplitParts(
        labels=labels,
        held=held.assign(**{id_col: ids}),
        ids=ids,
        split=(
            "group:file name",
            f"every version of a held-out image leaves {', '.join(layout['folders'])}; one, the original half the "
            f"time, joins {layout['test']}/ as the test's were drawn",
        ),
        n_train=int((~frame["name"].isin(leaving)).sum()),
        rekeyed=True,
        classes=closed_classes(labels, classification),
        table=f"{', '.join(layout['folders'])} (versions of {len(names)} images, {layout['negative']} the originals)",
        hidden=[],
        file_dirs=[*layout["folders"], layout["test"]],
        fresh=fresh,
    )
