"""The harness split of documents in BSON files (`swarm.layouts.bson.reader`): cdiscount-image-classification-challenge.

`train.bson` holds a document per product (`_id`, `category_id`, `imgs`: its pictures; about 52 GB in MLE-bench),
`test.bson` the same without `category_id`, `train_example.bson` the first training documents, and the sample a
row per test product. The split draws training documents at random (each with the chance that holds out about
min(fraction, MAX_HELD_DOCUMENTS) of them, as `prepare.py` draws its test at random): a held-out document leaves
the view's `train.bson` (and any other training BSON file) and joins its `test.bson` at a random place with the
fields a test document has, in the test's order (cdiscount's: `_id`, `imgs`; so no target, and no field order or
size that a test document would not have), byte for byte otherwise; `labels.csv` holds its targets.

Held-out documents look like test documents by their ids too: every document of the view's
`test.bson`, test and held-out alike, gets a fresh `_id` of the test ids' own format and range, none a training
id or a test id (`swarm.evaluation.fresh_ids`: numbers drawn as dense as the test's lie), ascending in the file's
order as MLE-bench's own test file is; it is written into the document as it is copied, in the BSON type the test
documents give their `_id` (int32 stays int32, int64 int64; a held-out document's takes the test's type), every
other element byte for byte and the document's length written anew. The sample lists the rows in the file's order,
`view_ids.csv` which fresh id is which product's, so the harness scores the held-out rows and maps the test rows'
predictions back to their own ids. Ids are kept (the run says why) where competition.json says `keep_ids`, the ids
follow a date, or the test's `_id` is of a BSON type written here only as it is (neither a number, a string nor
an ObjectId). Where `train_example.bson` is the first documents of `train.bson` (MLE-bench's), the view's is the
first as many documents of the view's `train.bson`; any other training BSON file just loses the held-out documents.

What the split costs: `train.bson` is read once and copied without the held-out documents (each document's
top-level scalars read for its id), the held-out documents (at most about MAX_HELD_DOCUMENTS) staged once in
`held.bson`; `test.bson` is read once and copied with them inserted, each document's `_id` element rewritten
(the document's bytes copied once, its pictures never decoded); `train_example.bson` is compared with the first
documents of `train.bson` and written again. In memory: the training and test ids (8 bytes each where numbers,
about 60 MB for cdiscount's 7 million, a few copies of it while the fresh ids are drawn), the held-out documents'
offsets and targets. The view's copies are new
files written into the fresh view before anything is linked into it (so no public file is written through a link),
given their public files' mtimes; the rest of the view is linked. The split is refused, saying so, where the disk
does not have room for the copies.
"""

from __future__ import annotations

import os
import struct
from array import array
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition
from swarm.evaluation.fresh_files import DISK_MARGIN, short_of_room
from swarm.evaluation.fresh_ids import FreshIds, draw_fresh_ids, draw_fresh_numbers, keep_ids_reason, kept_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror
from swarm.evaluation.view_tables import interleaved, write_sample
from swarm.layouts.bson.reader import _elements, bson_table, documents, scalars

MAX_HELD_DOCUMENTS = 50_000  # held-out documents at most (about): each is a test row scored at every step
SIZE_PROBE = (
    1_000  # documents whose mean size estimates how many a file holds (and whose fields a test one has)
)
INT32, INT64, STRING, OBJECT_ID = 0x10, 0x12, 0x02, 0x07  # the BSON types of an `_id` written afresh
NUMBERS = (INT32, INT64)


@dataclass(frozen=True)
class BsonFiles:
    """The labelled BSON file, the test one, and other training BSON files holding labelled documents."""

    train: Path
    test: Path
    others: tuple[Path, ...]


def bson_files(public: Path, fields: dict) -> BsonFiles:
    """The BSON files the reader found (`swarm.layouts.bson.reader.find_bson`'s fields) as paths."""
    return BsonFiles(
        public / fields["train"], public / fields["test"], tuple(public / n for n in fields["others"])
    )


def _mean_size(path: Path) -> float:
    sizes = [len(d) for _, d in zip(range(SIZE_PROBE), documents(path), strict=False)]
    return float(np.mean(sizes)) if sizes else 1.0


def field_names(document: bytes) -> list[str]:
    """The names of a document's top-level elements, in its order."""
    return [name for _, name, _, _ in _elements(document)]


def kind_of(document: bytes, name: str) -> int | None:
    """The BSON type of a document's top-level element `name`, None where it has none."""
    return next((kind for kind, found, _, _ in _elements(document) if found == name), None)


def select_fields(document: bytes, names: list[str]) -> bytes:
    """The document with only its top-level elements named in `names`, in that order, each byte for byte (a
    held-out product with the fields a test product has, in the test's order)."""
    found = {name: document[start:end] for _, name, start, end in _elements(document)}
    body = b"".join(found[name] for name in names if name in found)
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def with_value(document: bytes, name: str, value: str, kind: int) -> bytes:
    """The document with its top-level element `name` holding `value` (text: a number, a string, an ObjectId's 24
    hex digits) in BSON type `kind`, in that element's place, every other element byte for byte and the document's
    length written anew: int32 where the number fits it, else int64 (as pymongo writes a large one), int64, string
    and ObjectId as such. ValueError where the document has no such element or `kind` is none of these."""
    for _, found, start, end in _elements(document):
        if found != name:
            continue
        key = name.encode("utf-8") + b"\x00"
        if kind in NUMBERS:
            number = int(value)
            if kind == INT32 and -(2**31) <= number < 2**31:
                element = bytes([INT32]) + key + struct.pack("<i", number)
            else:
                element = bytes([INT64]) + key + struct.pack("<q", number)
        elif kind == STRING:
            text = value.encode("utf-8") + b"\x00"
            element = bytes([STRING]) + key + struct.pack("<i", len(text)) + text
        elif kind == OBJECT_ID and len(value) == 24:
            element = bytes([OBJECT_ID]) + key + bytes.fromhex(value)
        else:
            raise ValueError(f"a BSON {name} of type {kind:#x} is not one the harness writes afresh")
        body = document[4:start] + element + document[end:-1]
        return struct.pack("<i", len(body) + 5) + body + b"\x00"
    raise ValueError(f"a BSON document without {name}")


class _TakenIds:
    """The ids the fresh ones must not be: as 8-byte numbers where the ids are numbers (millions of them), else
    as text."""

    def __init__(self, numbers: bool) -> None:
        self.numbers = numbers
        self.as_numbers = array("q")
        self.as_text: set[str] = set()

    def add(self, value: object) -> None:
        if self.numbers and isinstance(value, int) and not isinstance(value, bool):
            self.as_numbers.append(value)
        elif not self.numbers:
            self.as_text.add(str(value))

    def draw(self, test_ids: list[str], n_held: int, rng: np.random.Generator) -> FreshIds:
        """Fresh ids for the test and held-out documents, ascending (handed out in the file's order), none taken
        and none a test id."""
        order = np.arange(len(test_ids) + n_held)
        if not self.numbers:
            return draw_fresh_ids(order, test_ids, self.as_text | set(test_ids), n_held, rng)
        try:
            numbers = [int(i) for i in test_ids]
        except ValueError:
            return kept_ids("the sample's ids are not the numbers the test documents' _ids are")
        taken = np.unique(np.concatenate([np.frombuffer(self.as_numbers, dtype=np.int64), numbers]))
        return draw_fresh_numbers(order, numbers, taken, n_held, rng)


def split_bson(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out training documents as test documents, every test-side document under a fresh id, and write the
    view (see the module docstring); NoHoldout where a split other than a random one is asked for, the disk has
    no room for the copies, no document is drawn, or the test file's documents are not the sample's rows."""
    files = bson_files(request.competition.public_dir, fields)
    spec, sample, root = request.spec, request.sample, request.root
    id_col = spec.id_column
    targets = [c for c in sample.columns if c != id_col and c not in spec.passthrough_columns]
    _check_split_fits(request, files)
    chance = _held_chance(files.train, request.fraction)
    rng = np.random.default_rng(request.seed)
    shape = _test_shape(files.test, id_col, targets)
    reason = _kept_reason(request, files, shape.kind)
    taken = _TakenIds(numbers=shape.kind in NUMBERS)
    dest, held_path = fresh_view(root), root / "held.bson"
    drawn = _hold_out_documents(files.train, dest / files.train.name, held_path, shape, chance, rng, taken)
    held = pd.DataFrame(drawn.rows)
    own_held = held[id_col].tolist()
    test_ids = [str(i).strip() for i in sample[id_col]]
    fresh_rng = np.random.default_rng(request.seed + 2)
    fresh = kept_ids(reason) if reason else taken.draw(test_ids, len(held), fresh_rng)
    rows = _write_test_side(files, dest, held_path, drawn.offsets, (test_ids, own_held), fresh, shape, rng)
    _write_others(files, dest, set(own_held), id_col)
    _date_copies_and_link(request.competition, files, dest)
    ids = own_held
    if fresh.fresh:
        fresh = _fresh_in_file_order(root, rows, [*fresh.test, *fresh.held], test_ids, own_held)
        sample, ids = sample.assign(**{id_col: fresh.test}), fresh.held
    write_sample(sample, held, ids, spec, np.asarray(rows), dest / request.competition.sample_submission.name)
    return SplitParts(
        labels=held[targets],
        held=held[[id_col]].assign(**{id_col: ids}),
        ids=ids,
        split=(
            "random",
            f"{files.train.name} holds a document per example: {len(ids)} drawn at random, each joining "
            f"{files.test.name} without its {', '.join(targets)}",
        ),
        n_train=drawn.kept,
        rekeyed=fresh.fresh,
        classes={t: None for t in targets},
        table=f"{files.train.name} ({len(ids)} documents)",
        hidden=[o.name for o in files.others],
        file_dirs=[],
        fresh=fresh,
    )


def _check_split_fits(request: SplitRequest, files: BsonFiles) -> None:
    """NoHoldout where a split other than a random one is asked for, or the disk lacks room for the view's copies
    of the training and test files."""
    split, root = request.split, request.root
    if split not in ("auto", "random"):
        raise NoHoldout(
            f"{files.train.name} holds documents drawn at random only; the split {split!r} does not apply"
        )
    needed = files.train.stat().st_size + files.test.stat().st_size
    root.mkdir(parents=True, exist_ok=True)
    free = short_of_room(root, needed)
    if free is not None:
        raise NoHoldout(
            f"the view needs copies of {files.train.name} and {files.test.name} without the held-out documents "
            f"({needed * DISK_MARGIN / 1e9:.1f} GB) and {root} has {free / 1e9:.1f} GB free"
        )


def _held_chance(train: Path, fraction: float) -> float:
    """The chance each training document is held out with: `fraction`, or less where that would hold out more
    than about MAX_HELD_DOCUMENTS (the file's documents estimated from its size and its first documents')."""
    estimated = train.stat().st_size / _mean_size(train)
    return min(fraction, MAX_HELD_DOCUMENTS / max(estimated, 1.0))


@dataclass(frozen=True)
class _TestShape:
    """What a test document looks like: the name of its id and its BSON type, and its fields in order (no
    target); `targets`: the fields a held-out document's labels are read from."""

    id_col: str
    kind: int | None
    fields: list[str]
    targets: list[str]


def _test_shape(test: Path, id_col: str, targets: list[str]) -> _TestShape:
    """The test documents' shape, read from the first SIZE_PROBE of them."""
    test_probe = list(islice(documents(test), SIZE_PROBE))
    test_fields = [
        n for n in dict.fromkeys(n for d in test_probe for n in field_names(d)) if n not in targets
    ]
    return _TestShape(id_col, kind_of(test_probe[0], id_col), test_fields, targets)


@dataclass(frozen=True)
class _HeldDocuments:
    """The documents drawn: each one's id and targets (`rows`), its place in the staged held.bson (offset and
    length), and how many documents the view's training file kept."""

    rows: list[dict[str, str]]
    offsets: list[tuple[int, int]]
    kept: int


def _hold_out_documents(
    source: Path,
    target: Path,
    held_path: Path,
    shape: _TestShape,
    chance: float,
    rng: np.random.Generator,
    taken: _TakenIds,
) -> _HeldDocuments:
    """Copy the training file to `target` a document at a time without those drawn (each with `chance`), which
    are staged in `held_path` with the fields a test document has, in the test's order; every document's id is
    added to `taken`. NoHoldout (held.bson removed) where the draw leaves none on either side."""
    id_col, targets = shape.id_col, shape.targets
    held_rows, kept = [], 0
    offsets: list[tuple[int, int]] = []  # each held-out document's place in held.bson, as a test one would be
    with open(target, "wb") as train_out, open(held_path, "wb") as held_out:
        for document in documents(source):
            values = scalars(document)
            taken.add(values.get(id_col))
            if rng.random() < chance:
                held_rows.append(
                    {id_col: str(values.get(id_col)), **{t: str(values.get(t)) for t in targets}}
                )
                bare = select_fields(document, shape.fields)
                offsets.append((held_out.tell(), len(bare)))
                held_out.write(bare)
            else:
                train_out.write(document)
                kept += 1
    if not held_rows or not kept:
        held_path.unlink()
        raise NoHoldout(
            f"{source.name}: the draw held out {len(held_rows)} of {len(held_rows) + kept} documents"
        )
    return _HeldDocuments(held_rows, offsets, kept)


def _write_test_side(
    files: BsonFiles,
    dest: Path,
    held_path: Path,
    offsets: list[tuple[int, int]],
    own: tuple[list[str], list[str]],
    fresh: FreshIds,
    shape: _TestShape,
    rng: np.random.Generator,
) -> list[int]:
    """The view's test file with the staged held-out documents (`_write_test_with`; `own`: the test rows' and the
    held-out rows' own ids), every document under its fresh id where ids are fresh; held.bson removed after. The
    rows in the copy's order. NoHoldout where ids are kept and a held-out document's is a test id."""
    test_ids, own_held = own
    clash = sorted(set(own_held) & set(test_ids))
    if clash and not fresh.fresh:
        held_path.unlink()
        raise NoHoldout(f"held-out document {clash[0]} of {files.train.name} has a test {shape.id_col}")
    drawn = [*fresh.test, *fresh.held] if fresh.fresh else None
    try:
        return _write_test_with(
            files.test,
            dest / files.test.name,
            held_path,
            offsets,
            test_ids,
            shape.id_col,
            rng,
            drawn,
            shape.kind,
        )
    finally:
        held_path.unlink()


def _date_copies_and_link(competition: Competition, files: BsonFiles, dest: Path) -> None:
    """The view's new BSON files given their public files' mtimes (and made readable), the rest of the public dir
    linked in."""
    for source in (files.train, files.test, *files.others):  # new files, dated as the public ones
        copy = dest / source.name
        copy.chmod(0o644)
        os.utime(copy, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns))
    public = competition.public_dir
    mirror(
        public,
        dest,
        {files.train, files.test, *files.others, competition.sample_submission, *extracted_archives(public)},
    )


def _fresh_in_file_order(
    root: Path, rows: list[int], drawn: list[str], test_ids: list[str], own_held: list[str]
) -> FreshIds:
    """Each row's fresh id: the one its document got in the file's order (`rows`: the copy's documents as rows;
    `drawn`: the fresh ids in that order); view_ids.csv saved. No file is named by an id: the ids are rewritten
    inside the documents."""
    fresh_of = dict(zip(rows, drawn, strict=True))
    fresh = FreshIds(
        [fresh_of[k] for k in range(len(test_ids))],
        [fresh_of[len(test_ids) + j] for j in range(len(own_held))],
        files_renamed=False,
    )
    write_view_ids(root, {"test": fresh.test, "held": fresh.held}, {"test": test_ids, "held": own_held})
    return fresh


def _kept_reason(request: SplitRequest, files: BsonFiles, kind: int | None) -> str | None:
    """Why the test documents keep their ids, or None: they carry meaning (`keep_ids_reason`, read from the first
    training documents), or their `_id`s are of a BSON type not written afresh here."""
    id_col = request.spec.id_column
    first = bson_table(files.train, SIZE_PROBE)
    reason = keep_ids_reason(request.competition, first, None, id_col)
    if reason is None and kind not in (*NUMBERS, STRING, OBJECT_ID):
        reason = f"the {id_col}s of {files.test.name} are of a BSON type (byte {kind}) the harness does not write afresh"
    return reason


def _write_test_with(
    source: Path,
    target: Path,
    held_path: Path,
    offsets: list[tuple[int, int]],
    test_ids: list[str],
    id_col: str,
    rng: np.random.Generator,
    drawn: list[str] | None,
    kind: int | None,
) -> list[int]:
    """Copy the test file a document at a time with the held-out documents (read from `held_path` at `offsets`,
    in a random order) each placed before a random test document (or at the end), the k-th document of the copy
    under `drawn[k]` where ids are fresh; the rows in the copy's order (a test row by its place in `test_ids`, the
    held-out document j as `len(test_ids) + j`). Where the test file's documents are not the sample's rows, one
    each: NoHoldout where ids are fresh (they could not be mapped back), else the rows in a random order."""
    slots = np.sort(rng.integers(0, len(test_ids) + 1, size=len(offsets)))
    order = rng.permutation(len(offsets))
    place = {own: k for k, own in enumerate(test_ids)}
    rows: list[int] = []
    mismatch = ""
    with open(held_path, "rb") as held, open(target, "wb") as out:

        def read(j: int) -> tuple[int, bytes]:
            start, length = offsets[j]
            held.seek(start)
            return len(test_ids) + j, held.read(length)

        test_documents = ((-1, d) for d in documents(source))
        for row, document in interleaved(test_documents, (read(int(j)) for j in order), slots):
            if row < 0:  # a test document: its row by its own id
                own = str(scalars(document).get(id_col)).strip()
                row = place.pop(own, -1)
                if row < 0 and not mismatch:
                    mismatch = (
                        f"{source.name} has a document whose {id_col} ({own}) the sample lists not once"
                    )
                    if drawn is not None:  # fresh ids could not be mapped back
                        raise NoHoldout(mismatch)
            if drawn is not None:
                document = with_value(document, id_col, drawn[len(rows)], kind)  # type: ignore[arg-type]
            rows.append(row)
            out.write(document)
    if place and not mismatch:
        mismatch = (
            f"the sample lists {len(place)} {id_col}s (such as {next(iter(place))}) not in {source.name}"
        )
    if mismatch and drawn is not None:
        raise NoHoldout(mismatch)
    return rng.permutation(len(test_ids) + len(offsets)).tolist() if mismatch else rows


def _first_documents(other: Path, train: Path) -> int | None:
    """How many documents `other` holds where they are the first documents of `train`, else None."""
    theirs, count = documents(train), 0
    for mine in documents(other):
        if next(theirs, None) != mine:
            return None
        count += 1
    return count


def _write_others(files: BsonFiles, dest: Path, held_ids: set[str], id_col: str) -> None:
    """The other training BSON files of the view: where one is the first documents of the training file
    (cdiscount's `train_example.bson`), the first as many of the view's; else itself without the held-out
    documents."""
    for other in files.others:
        count = _first_documents(other, files.train)
        with open(dest / other.name, "wb") as out:
            if count is not None:
                out.writelines(islice(documents(dest / files.train.name), count))
            else:
                out.writelines(d for d in documents(other) if str(scalars(d).get(id_col)) not in held_ids)
