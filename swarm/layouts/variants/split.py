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

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition
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
    competition, spec, sample, seed = request.competition, request.spec, request.sample, request.seed
    _check_split(request.split)
    id_col = spec.id_column
    frame = examples[[FILE_COLUMN]].assign(
        name=examples[FILE_COLUMN].map(lambda path: path.rsplit("/", 1)[-1])
    )
    names = sorted(set(frame["name"]))
    if len(names) < MIN_LABELLED_ROWS:
        raise NoHoldout(f"the folders {', '.join(layout['folders'])} hold only {len(names)} files each")
    rng = np.random.default_rng(seed)
    count = max(1, min(len(names) - 1, round(request.fraction * len(names))))
    held_names = [names[i] for i in sorted(rng.permutation(len(names))[:count])]
    held = _drawn_versions(layout, held_names, rng)
    test_ids = [str(i).strip() for i in sample[id_col]]
    ids = new_ids(count, test_ids, set(test_ids), np.random.default_rng(seed + 1))
    dest = fresh_view(request.root)
    _write_view_files(competition, dest, layout, frame, set(held_names), held, ids)
    order = np.random.default_rng(seed + 2).permutation(len(sample) + count)
    own_held = list(held[FILE_COLUMN])
    view = _view_rows(competition, id_col, (test_ids, ids), own_held, dest, layout["test"], order)
    fresh, sample = fresh_sample_ids(view, sample, request.root, seed)
    ids = fresh.held if fresh.fresh else ids
    write_sample(
        sample, held.assign(**{id_col: ids}), ids, spec, order, dest / competition.sample_submission.name
    )
    labels = held[[layout["target"]]].rename(columns={layout["target"]: spec.target_columns[0]})
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
        n_train=int((~frame["name"].isin(set(held_names))).sum()),
        rekeyed=True,
        classes=closed_classes(labels, classification),
        table=f"{', '.join(layout['folders'])} (versions of {len(names)} images, {layout['negative']} the originals)",
        hidden=[],
        file_dirs=[*layout["folders"], layout["test"]],
        fresh=fresh,
    )


def _check_split(split: str) -> None:
    """NoHoldout where the split asked for would part a file's versions (any but `auto`, random or a group's)."""
    if split not in ("auto", "random") and not split.startswith("group:"):
        raise NoHoldout(
            f"evaluation.split {split!r} would part the versions of one image between train and test, and the "
            "originals would give the altered ones away: use auto"
        )


def _drawn_versions(layout: dict, held_names: list[str], rng: np.random.Generator) -> pd.DataFrame:
    """The version of each held-out file that joins the test folder, drawn as `prepare.py` draws the test's: the
    original half the time, else one altered version at random; its path and its label (1: altered)."""
    altered = [f for f in layout["folders"] if f != layout["negative"]]
    chosen = [
        layout["negative"] if rng.random() < 0.5 else altered[int(rng.integers(len(altered)))]
        for _ in held_names
    ]
    prefix = "" if layout["train"] == "." else f"{layout['train']}/"
    return pd.DataFrame(
        {
            FILE_COLUMN: [
                f"{prefix}{folder}/{name}" for folder, name in zip(chosen, held_names, strict=True)
            ],
            layout["target"]: [str(int(folder != layout["negative"])) for folder in chosen],
        }
    )


def _write_view_files(
    competition: Competition,
    dest: Path,
    layout: dict,
    frame: pd.DataFrame,
    leaving: set[str],
    held: pd.DataFrame,
    ids: list[str],
) -> None:
    """The view's files: every version of a held-out file (`leaving`: their names) out of the training folders,
    the drawn one linked in the test folder under its new id, the rest linked as it is."""
    public = competition.public_dir
    skip = {competition.sample_submission, *extracted_archives(public)}
    skip |= {
        public / path for path, name in zip(frame[FILE_COLUMN], frame["name"], strict=True) if name in leaving
    }
    for path, new in zip(held[FILE_COLUMN], ids, strict=True):
        source = public / path
        link(source, dest / layout["test"] / (new if layout["test_match"] == "name" else new + source.suffix))
    mirror(public, dest, skip)


def _view_rows(
    competition: Competition,
    id_col: str,
    ids: tuple[list[str], list[str]],
    own_held: list[str],
    dest: Path,
    test_folder: str,
    order: np.ndarray,
) -> ViewRows:
    """What `fresh_sample_ids` needs of the view (`ids`: the test ids and the held-out rows' new ids; `own_held`:
    the held-out versions' paths). Every test image and held-out version gets a fresh id, no training id to keep
    them apart from: the training files are versions named alike."""
    test_ids, held_ids = ids
    return ViewRows(
        competition,
        pd.DataFrame({id_col: []}),
        None,
        id_col,
        {id_col},
        test_ids,
        held_ids,
        own_held,
        [],
        dest,
        dest / test_folder,
        {dest / competition.sample_submission.name},
        order,
    )
