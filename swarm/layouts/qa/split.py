"""The harness split of questions with annotated answers in JSON-lines records (`swarm.layouts.qa.reader`):
tensorflow2-question-answering.

The training file holds a record per question with its `annotations` (about 15 GB in MLE-bench, so both files are
streamed, a line at a time); the test file the same records without them; the sample a row per test question and
kind of answer (`<example_id>_long`, `<example_id>_short`). The split draws training records at random
(min(fraction, MAX_HELD_RECORDS) of them, as `prepare.py` draws its test at random): a held-out record leaves the
view's training file and joins its test file at a random line with the test records' fields only (no
`annotations`), the sample lists its two rows with the sample's blank, and `labels.csv` holds its true answers as
the metric reads them (`swarm.layouts.qa.reader.answer_cells`). Every record of the view's test file, test and held-out
alike, gets a fresh id in the test ids' format (signed 64-bit numbers: `swarm.evaluation.fresh_ids`), none a
training record's (their ids are read from each kept line's last id key as it streams by), unless ids are kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_ids import FreshIds, draw_fresh_ids, keep_ids_reason
from swarm.evaluation.fresh_ids import kept_ids as kept_ids_because
from swarm.evaluation.fresh_keys import rekeyed as with_fresh_key
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror
from swarm.evaluation.view_tables import interleaved, renamed_records, write_sample
from swarm.layouts.qa.reader import ANSWER_KINDS, answer_cells, first_record

MAX_HELD_RECORDS = 5_000  # held-out questions at most: two scored rows each, at every step


def _count_lines(path: Path) -> int:
    with open(path, "rb") as lines:
        return sum(1 for line in lines if line.strip())


def split_qa_records(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out training records as test records and write the view (see the module docstring); NoHoldout
    where a split other than a random one is asked for, there are too few records, or a held-out id is a test
    id."""
    competition, sample = request.competition, request.sample
    public = competition.public_dir
    train_path, test_path = public / fields["train"], public / fields["test"]
    count, aim = _count_and_aim(train_path, request)
    rng = np.random.default_rng(request.seed)
    held_lines = set(rng.choice(count, aim, replace=False).tolist())
    test_fields = list(first_record(str(test_path)) or {})
    id_field, target = fields["id_field"], fields["target"]
    dest = fresh_view(request.root)
    drawn = _stream_train(train_path, dest / train_path.name, held_lines, test_fields, id_field)
    own_sample = [str(i).strip() for i in sample[request.spec.id_column]]
    test_ids = list(dict.fromkeys(i.rsplit("_", 1)[0] for i in own_sample))
    held_ids = [str(r[id_field]) for r in drawn.records]
    clash = [i for i in held_ids if i in set(test_ids)]
    if clash:
        raise NoHoldout(f"held-out record {clash[0]} of {train_path.name} is also a test record")
    slots = np.sort(rng.integers(0, len(test_ids) + 1, size=len(drawn.records)))
    placed = rng.permutation(len(drawn.records))
    view_order = np.fromiter(
        interleaved(range(len(test_ids)), (len(test_ids) + k for k in placed), slots), dtype=np.int64
    )
    fresh = _fresh_record_ids(request, drawn.kept_ids, id_field, (test_ids, held_ids), view_order)
    renamed = fresh.renamed(test_ids, held_ids) if fresh.fresh else {}
    moved = renamed_records(drawn.records, id_field, renamed) if fresh.fresh else drawn.records
    _write_test_with(test_path, dest / test_path.name, moved, slots, placed, id_field, renamed)
    mirror(public, dest, {train_path, test_path, competition.sample_submission, *extracted_archives(public)})
    ids = _write_sample(request, dest, held_ids, renamed, own_sample)
    return SplitParts(
        labels=pd.DataFrame({target: [c[kind] for c in drawn.cells for kind in ANSWER_KINDS]}),
        held=pd.DataFrame({request.spec.id_column: ids}),
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
        fresh=fresh,
    )


def _count_and_aim(train_path: Path, request: SplitRequest) -> tuple[int, int]:
    """The training file's records and how many to hold out (min(fraction of them, MAX_HELD_RECORDS)); NoHoldout
    where a split other than a random one is asked for, or none would be held out or none kept."""
    if request.split not in ("auto", "random"):
        raise NoHoldout(
            f"{train_path.name} holds a record a line, drawn at random only; the split {request.split!r} does not "
            "apply"
        )
    count = _count_lines(train_path)
    aim = min(int(round(request.fraction * count)), MAX_HELD_RECORDS)
    if aim < 1 or aim >= count:
        raise NoHoldout(f"{train_path.name} has {count} records: none to hold out")
    return count, aim


@dataclass(frozen=True)
class _HeldRecords:
    """The held-out records (the test records' fields only), their answers as the metric reads them (`cells`),
    and the kept lines' ids (None where a line has none)."""

    records: list[dict]
    cells: list[dict]
    kept_ids: list[str | None]


def _stream_train(
    source: Path, target: Path, held_lines: set[int], test_fields: list[str], id_field: str
) -> _HeldRecords:
    """Copy the training file to `target` a line at a time without the records numbered in `held_lines` (blank
    lines not counted), which are parsed and returned; a kept line's id is read without parsing it (`line_id`)."""
    held_records, cells, kept_line_ids = [], [], []
    with open(source, encoding="utf-8") as lines, open(target, "w", encoding="utf-8") as kept:
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
                kept_line_ids.append(line_id(line, id_field))
            number += 1
    target.chmod(0o644)
    return _HeldRecords(held_records, cells, kept_line_ids)


def _fresh_record_ids(
    request: SplitRequest,
    kept_line_ids: list[str | None],
    id_field: str,
    own: tuple[list[str], list[str]],
    view_order: np.ndarray,
) -> FreshIds:
    """Fresh ids for the test records and the held-out ones (`own`: their ids; `view_order`: the view's test
    file's order), none a kept training record's, a test id or a held-out id; or why ids are kept."""
    test_ids, held_ids = own
    train_ids = pd.DataFrame({id_field: [i for i in kept_line_ids if i is not None]})
    reason = keep_ids_reason(request.competition, train_ids, None, id_field)
    if reason is not None:
        return kept_ids_because(reason)
    taken = {*train_ids[id_field], *test_ids, *held_ids}
    return draw_fresh_ids(view_order, test_ids, taken, len(held_ids), np.random.default_rng(request.seed + 2))


def _write_sample(
    request: SplitRequest, dest: Path, held_ids: list[str], renamed: dict[str, str], own_sample: list[str]
) -> list[str]:
    """The view's sample: the test rows and two rows (a kind of answer each) per held-out record, shuffled, under
    their fresh ids where ids are `renamed` (view_ids.csv saved). Returns the held-out rows' ids in the view."""
    spec, sample = request.spec, request.sample
    own = [f"{i}_{kind}" for i in held_ids for kind in ANSWER_KINDS]
    ids = [with_fresh_key(i, renamed) for i in own]
    held = pd.DataFrame({spec.id_column: ids})
    order = np.random.default_rng(request.seed + 1).permutation(len(sample) + len(ids))
    if renamed:
        view_sample = [with_fresh_key(i, renamed) for i in own_sample]
        write_view_ids(request.root, {"test": view_sample, "held": ids}, {"test": own_sample, "held": own})
        sample = sample.assign(**{spec.id_column: view_sample})
    write_sample(sample, held, ids, spec, order, dest / request.competition.sample_submission.name)
    return ids


def _write_test_with(
    source: Path,
    target: Path,
    records: list[dict],
    slots: np.ndarray,
    placed: np.ndarray,
    id_field: str,
    renamed: dict[str, str],
) -> None:
    """Copy the test file line by line with the held-out records each inserted before the test line numbered by
    its slot (or at the end), in `placed` order, in the file's one-object-a-line form; where ids are `renamed`,
    each test record is written again under its fresh id, as the held-out ones are (one JSON style for all)."""
    with open(source, encoding="utf-8") as lines, open(target, "w", encoding="utf-8") as out:
        tests = (line if line.endswith("\n") else line + "\n" for line in lines if line.strip())
        if renamed:
            tests = (_dumped(renamed_records([json.loads(line)], id_field, renamed)[0]) for line in tests)
        held = (_dumped(records[k]) for k in placed)
        out.writelines(interleaved(tests, held, slots))
    target.chmod(0o644)


def _dumped(record: dict) -> str:
    return json.dumps(record) + "\n"


def line_id(line: str, id_field: str) -> str | None:
    """The id of a record a JSON line holds, read from the line's last `"<id_field>":` without parsing the rest
    (a training line can be megabytes): a key inside a string would be escaped (`\\"`), so it is the record's."""
    at = line.rfind(f'"{id_field}":')
    if at < 0:
        return None
    value = line[at + len(id_field) + 3 :].lstrip()
    end = next((k for k, char in enumerate(value[1:], 1) if char == '"'), None) if value[:1] == '"' else None
    if end is not None:
        return value[1:end]
    digits = re.match(r"-?\d+", value)
    return digits.group(0) if digits else None
