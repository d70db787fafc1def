"""The harness split of questions with annotated answers in JSON-lines records (`swarm.qa_records`):
tensorflow2-question-answering.

The training file holds a record per question with its `annotations` (about 15 GB in MLE-bench, so both files are
streamed, a line at a time); the test file the same records without them; the sample a row per test question and
kind of answer (`<example_id>_long`, `<example_id>_short`). The split draws training records at random
(min(fraction, MAX_HELD_RECORDS) of them, as `prepare.py` draws its test at random): a held-out record leaves the
view's training file and joins its test file at a random line with the test records' fields only (no
`annotations`), the sample lists its two rows with the sample's blank, and `labels.csv` holds its true answers as
the metric reads them (`swarm.qa_records.answer_cells`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror
from swarm.evaluation.view_tables import interleaved, write_sample
from swarm.qa_records import ANSWER_KINDS, answer_cells, first_record

MAX_HELD_RECORDS = 5_000  # held-out questions at most: two scored rows each, at every step


def _count_lines(path: Path) -> int:
    with open(path, "rb") as lines:
        return sum(1 for line in lines if line.strip())


def split_qa_records(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out training records as test records and write the view (see the module docstring); NoHoldout
    where a split other than a random one is asked for, there are too few records, or a held-out id is a test
    id."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    fraction, split, seed = request.fraction, request.split, request.seed
    public = competition.public_dir
    train_path, test_path = public / fields["train"], public / fields["test"]
    if split not in ("auto", "random"):
        raise NoHoldout(
            f"{train_path.name} holds a record a line, drawn at random only; the split {split!r} does not apply"
        )
    count = _count_lines(train_path)
    aim = min(int(round(fraction * count)), MAX_HELD_RECORDS)
    if aim < 1 or aim >= count:
        raise NoHoldout(f"{train_path.name} has {count} records: none to hold out")
    rng = np.random.default_rng(seed)
    held_lines = set(rng.choice(count, aim, replace=False).tolist())
    test_fields = list(first_record(str(test_path)) or {})
    id_field, target = fields["id_field"], fields["target"]

    dest = fresh_view(root)
    held_records, cells = [], []
    with (
        open(train_path, encoding="utf-8") as lines,
        open(dest / train_path.name, "w", encoding="utf-8") as kept,
    ):
        number = 0
        for line in lines:
            if not line.strip():
                continue
            if number in held_lines:
                record = json.loads(line)
                cells.append(answer_cells(record))
                held_records.append({key: record.get(key) for key in test_fields})
            else:
                kept.write(line)
            number += 1
    (dest / train_path.name).chmod(0o644)
    test_ids = {str(i).strip() for i in sample[spec.id_column]}
    held_ids = [str(r[id_field]) for r in held_records]
    clash = [i for i in held_ids if f"{i}_long" in test_ids]
    if clash:
        raise NoHoldout(f"held-out record {clash[0]} of {train_path.name} is also a test record")
    _write_test_with(test_path, dest / test_path.name, held_records, rng)
    mirror(public, dest, {train_path, test_path, competition.sample_submission, *extracted_archives(public)})

    ids = [f"{i}_{kind}" for i in held_ids for kind in ANSWER_KINDS]
    labels = pd.DataFrame({target: [c[kind] for c in cells for kind in ANSWER_KINDS]})
    held = pd.DataFrame({spec.id_column: ids})
    order = np.random.default_rng(seed + 1).permutation(len(sample) + len(ids))
    write_sample(sample, held, ids, spec, order, dest / competition.sample_submission.name)
    return SplitParts(
        labels=labels,
        held=held,
        ids=ids,
        split=(
            "random",
            f"{train_path.name} holds a record a line: {aim} drawn at random, each joining {test_path.name} without its "
            "annotations",
        ),
        n_train=count - aim,
        rekeyed=False,
        classes={target: None},
        table=f"{train_path.name} ({aim} records, a {ANSWER_KINDS[0]} and a {ANSWER_KINDS[1]} answer each)",
        hidden=[],
        file_dirs=[],
    )


def _write_test_with(source: Path, target: Path, records: list[dict], rng: np.random.Generator) -> None:
    """Copy the test file line by line with the held-out records each inserted before a random test line (or at
    the end), in the file's one-object-a-line form."""
    count = _count_lines(source)
    slots = np.sort(rng.integers(0, count + 1, size=len(records)))
    order = rng.permutation(len(records))
    with open(source, encoding="utf-8") as lines, open(target, "w", encoding="utf-8") as out:
        tests = (line if line.endswith("\n") else line + "\n" for line in lines if line.strip())
        held = (json.dumps(records[k]) + "\n" for k in order)
        out.writelines(interleaved(tests, held, slots))
    target.chmod(0o644)
