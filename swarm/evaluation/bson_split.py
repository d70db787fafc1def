"""The harness split of documents in BSON files (`swarm.bson_records`): cdiscount-image-classification-challenge.

`train.bson` holds a document per product (`_id`, `category_id`, `imgs`: its pictures; about 52 GB in MLE-bench),
`test.bson` the same without `category_id`, `train_example.bson` the first training documents, and the sample a
row per test product. Both files are streamed a document at a time. The split draws training documents at random
(each with the chance that holds out about min(fraction, MAX_HELD_DOCUMENTS) of them, as `prepare.py` draws its
test at random): a held-out document leaves the view's `train.bson` (and any other training BSON file) and joins
its `test.bson` at a random place without the target fields, byte for byte otherwise; the sample lists it;
`labels.csv` holds its targets. The view's two files are copies (the rest of the view is linked), so the split is
refused, saying so, where the disk does not have room for them.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.bson_records import bson_fields, documents, scalars, without_fields
from swarm.evaluation.fresh_ids import kept_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror
from swarm.evaluation.view_tables import interleaved, write_sample

MAX_HELD_DOCUMENTS = 50_000  # held-out documents at most (about): each is a test row scored at every step
SIZE_PROBE = 1_000  # documents whose mean size estimates how many a file holds
DISK_MARGIN = 1.1  # room asked for beyond the two copies


@dataclass(frozen=True)
class BsonFiles:
    """The labelled BSON file, the test one, and other training BSON files holding labelled documents."""

    train: Path
    test: Path
    others: tuple[Path, ...]


def bson_layout(public: Path, id_column: str, targets: list[str]) -> BsonFiles | None:
    """The BSON layout of a public dir (`swarm.bson_records.bson_fields`), or None."""
    found = bson_fields(str(public), [p.name for p in public.iterdir()], id_column, targets)
    if found is None:
        return None
    return BsonFiles(
        public / found["train"], public / found["test"], tuple(public / n for n in found["others"])
    )


def _mean_size(path: Path) -> float:
    sizes = [len(d) for _, d in zip(range(SIZE_PROBE), documents(path), strict=False)]
    return float(np.mean(sizes)) if sizes else 1.0


def split_bson(request: SplitRequest, files: BsonFiles) -> SplitParts:
    """Hold out training documents as test documents and write the view (see the module docstring); NoHoldout
    where a split other than a random one is asked for, the disk has no room for the copies, or no document is
    drawn."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    fraction, split, seed = request.fraction, request.split, request.seed
    id_col = spec.id_column
    targets = [c for c in sample.columns if c != id_col and c not in spec.passthrough_columns]
    if split not in ("auto", "random"):
        raise NoHoldout(
            f"{files.train.name} holds documents drawn at random only; the split {split!r} does not apply"
        )
    needed = (files.train.stat().st_size + files.test.stat().st_size) * DISK_MARGIN
    root.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(root).free
    if needed > free:
        raise NoHoldout(
            f"the view needs copies of {files.train.name} and {files.test.name} without the held-out documents "
            f"({needed / 1e9:.1f} GB) and {root} has {free / 1e9:.1f} GB free"
        )
    estimated = files.train.stat().st_size / _mean_size(files.train)
    chance = min(fraction, MAX_HELD_DOCUMENTS / max(estimated, 1.0))
    rng = np.random.default_rng(seed)

    dest = fresh_view(root)
    held_rows, kept, held_path = [], 0, root / "held.bson"
    offsets: list[tuple[int, int]] = []  # each held-out document's place in held.bson, without its targets
    with open(dest / files.train.name, "wb") as train_out, open(held_path, "wb") as held_out:
        for document in documents(files.train):
            if rng.random() < chance:
                fields = scalars(document)
                held_rows.append(
                    {id_col: str(fields.get(id_col)), **{t: str(fields.get(t)) for t in targets}}
                )
                bare = without_fields(document, set(targets))
                offsets.append((held_out.tell(), len(bare)))
                held_out.write(bare)
            else:
                train_out.write(document)
                kept += 1
    if not held_rows or not kept:
        held_path.unlink()
        raise NoHoldout(
            f"{files.train.name}: the draw held out {len(held_rows)} of {len(held_rows) + kept} documents"
        )
    held = pd.DataFrame(held_rows)
    test_ids = {str(i).strip() for i in sample[id_col]}
    clash = sorted(set(held[id_col]) & test_ids)
    if clash:
        held_path.unlink()
        raise NoHoldout(f"held-out document {clash[0]} of {files.train.name} has a test {id_col}")
    _write_test_with(files.test, dest / files.test.name, held_path, offsets, rng)
    held_path.unlink()
    held_ids = set(held[id_col])
    for other in files.others:  # train_example.bson: its held-out documents leave it too
        with open(dest / other.name, "wb") as out:
            out.writelines(d for d in documents(other) if str(scalars(d).get(id_col)) not in held_ids)
    for path in (dest / files.train.name, dest / files.test.name, *(dest / o.name for o in files.others)):
        path.chmod(0o644)
    public = competition.public_dir
    mirror(
        public,
        dest,
        {files.train, files.test, *files.others, competition.sample_submission, *extracted_archives(public)},
    )

    ids = held[id_col].tolist()
    order = np.random.default_rng(seed + 1).permutation(len(sample) + len(ids))
    write_sample(sample, held, ids, spec, order, dest / competition.sample_submission.name)
    return SplitParts(
        labels=held[targets],
        held=held[[id_col]],
        ids=ids,
        split=(
            "random",
            f"{files.train.name} holds a document per example: {len(ids)} drawn at random, each joining "
            f"{files.test.name} without its {', '.join(targets)}",
        ),
        n_train=kept,
        rekeyed=False,
        classes={t: None for t in targets},
        table=f"{files.train.name} ({len(ids)} documents)",
        hidden=[o.name for o in files.others],
        file_dirs=[],
        fresh=kept_ids(
            f"the ids live inside the BSON documents of {files.test.name}, which are streamed, not rewritten"
        ),
    )


def _write_test_with(
    source: Path, target: Path, held_path: Path, offsets: list[tuple[int, int]], rng: np.random.Generator
) -> None:
    """Copy the test file a document at a time with the held-out documents (read from `held_path` at `offsets`,
    in a random order) each placed before a random test document (or at the end)."""
    estimated = int(source.stat().st_size / _mean_size(source))
    slots = np.sort(rng.integers(0, estimated + 1, size=len(offsets)))
    order = rng.permutation(len(offsets))
    with open(held_path, "rb") as held, open(target, "wb") as out:

        def read(k: int) -> bytes:
            start, length = offsets[k]
            held.seek(start)
            return held.read(length)

        out.writelines(interleaved(documents(source), (read(k) for k in order), slots))
