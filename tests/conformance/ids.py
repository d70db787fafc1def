"""Ids in the forms real competitions give them, written into a built miniature.

The miniatures' builders draw ids of one form each (short hex, small integers). Real competitions carry 38-digit
UIDs, leading zeros, dashes, spaces, accents: `rewrite_ids` takes a built competition, finds the sample's id
column and its ids on both sides (the sample's, and those of every table with a column of that name, in public/
and private/, zipped or not), maps each one-to-one onto an id of the form, and rewrites every CSV cell holding an
old id (or a path to its file) and every file or folder named by one. A miniature the form cannot be written into
(ids inside JSON, a train and a test file in one folder under restarted ids) raises `Unrepresentable`, which the
tests turn into a skip naming why.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from swarm.competitions.competition import load_competition_dir

# A file name's extension inside an id (`9ca5499d004ae545.jpg`): letters first, so UID tails are no extension.
SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{1,4}$")
# Files whose insides may hold ids the transform does not rewrite: an old id found in one makes it refuse.
OPAQUE = (".json", ".jsonl", ".bson", ".parquet", ".tfrec", ".txt")


def _uuid4(k: int) -> str:
    return str(uuid.UUID(bytes=hashlib.md5(str(k).encode()).digest(), version=4))


# Each form: the k-th id (k from 0) of a competition, distinct for distinct k.
ID_FORMS: dict[str, Callable[[int], str]] = {
    "int-beyond-int64": lambda k: str(10**25 + 7919 * k),
    "dotted-uid": lambda k: f"1.2.826.0.1.3680043.8.498.{10**37 + 104729 * k + 3}",
    "hex": lambda k: f"{(2654435761 * k + 0xABC) % 16**12:012x}",
    "uuid4": _uuid4,
    "leading-zeros": lambda k: f"{k + 1:06d}",
    "decimal-looking": lambda k: f"{k + 1}.10",
    "underscore": lambda k: f"img_{k}_a",
    "dash": lambda k: f"ID-{k:04d}-x",
    "dot": lambda k: f"r{k}.s{k % 4}",
    "space": lambda k: f"id {k}",
    "non-ascii": lambda k: f"é{k}ü",
    "cjk": lambda k: f"图像{k}",
}
RESTART = "restart"  # train ids 1..n, test ids 1..m: the two sides share ids


class Unrepresentable(Exception):
    """The form cannot be written into this miniature by renaming its ids; `str(exc)` says why."""


@dataclass
class IdMap:
    """What `rewrite_ids` did: the sample's id column and each side's old id -> new id."""

    column: str
    test: dict[str, str]
    train: dict[str, str]


def find_ids(root: Path, metric: str | None = None) -> tuple[str, list[str], list[str], bool]:
    """(the sample's id column, its ids, the other ids of that column in every table under prepared/, whether a
    table already holds test ids beside training ones) of the competition at `root`."""
    competition = load_competition_dir(root, metric)
    assert competition.metric is not None
    column = competition.metric.id_column
    test = list(dict.fromkeys(_cells(competition.sample_submission.read_bytes(), column)))
    tables = [set(_cells(data, column)) for _, data in _tables(root / "prepared")]
    train = sorted(set().union(*tables) - set(test) - {""})
    shared = any(cells - set(test) and cells & set(test) for cells in tables)
    return column, test, train, shared


def rewrite_ids(root: Path, form: str, metric: str | None = None) -> IdMap:
    """Rewrite the ids of the competition at `root` into `form` (a name of ID_FORMS, or RESTART), in place."""
    column, test, train, shared = find_ids(root, metric)
    if form == RESTART and shared:
        raise Unrepresentable("its test ids already restart: a table holds them beside training ids")
    ids = IdMap(column, *_new_ids(form, test, train))
    mapping = {**ids.test, **ids.train}
    prepared = root / "prepared"
    _refuse_opaque(prepared, mapping)
    digits = all(old.isdigit() for old in mapping)
    for path in sorted(prepared.rglob("*.csv")):
        path.write_bytes(_rewrite_table(path.read_bytes(), column, mapping, digits))
    for path in sorted(prepared.rglob("*.zip")):
        _rewrite_zip(path, column, mapping, digits)
    _rename_files(prepared, mapping)
    return ids


def _new_ids(form: str, test: list[str], train: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """(test old -> new, train old -> new); each new id keeps its old one's file extension."""
    if form == RESTART:
        return _mapped_side(test, _one_based, 0), _mapped_side(train, _one_based, 0)
    make = ID_FORMS[form]
    return _mapped_side(test, make, 0), _mapped_side(train, make, len(test))


def _one_based(k: int) -> str:
    return str(k + 1)


def _mapped_side(olds: list[str], make: Callable[[int], str], start: int) -> dict[str, str]:
    mapped = {}
    for k, old in enumerate(olds, start):
        suffix = SUFFIX.search(old)
        mapped[old] = make(k) + (suffix.group() if suffix else "")
    return mapped


def _cells(data: bytes, column: str) -> list[str]:
    """The cells of `column` (matched without case) of a CSV's bytes; [] if it has no such column."""
    rows = csv.reader(io.StringIO(data.decode("utf-8")))
    header = next(rows, [])
    keys = [k for k, name in enumerate(header) if name.lower() == column.lower()]
    return [row[k] for row in rows for k in keys if k < len(row)]


def _tables(prepared: Path) -> list[tuple[str, bytes]]:
    """(name, bytes) of every CSV under `prepared`, zipped ones too."""
    found = [(str(path), path.read_bytes()) for path in sorted(prepared.rglob("*.csv"))]
    for archive in sorted(prepared.rglob("*.zip")):
        with zipfile.ZipFile(archive) as opened:
            found += [(n, opened.read(n)) for n in opened.namelist() if n.endswith(".csv")]
    return found


def _refuse_opaque(prepared: Path, mapping: dict[str, str]) -> None:
    """Unrepresentable where an old id (not a bare number) is inside a file this transform does not rewrite."""
    words = [old.encode() for old in mapping if not old.isdigit() and len(old) > 3]
    for path in sorted(prepared.rglob("*")):
        if path.is_file() and path.suffix.lower() in OPAQUE:
            data = path.read_bytes()
            if any(word in data for word in words):
                raise Unrepresentable(f"ids live inside {path.name}, which is not a CSV table")


def _rewrite_table(data: bytes, column: str, mapping: dict[str, str], digits: bool) -> bytes:
    """A CSV's bytes with old ids (and paths to their files) replaced: in the id column (by name) every cell; in
    the others paths, and whole cells where ids are not bare numbers (a number there may be a feature)."""
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    if not rows:
        return data
    keys = {k for k, name in enumerate(rows[0]) if name.lower() == column.lower()}
    for row in rows[1:]:
        for k, cell in enumerate(row):
            new = _mapped_cell(cell, mapping, whole=k in keys or not digits)
            if new is not None:
                row[k] = new
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode("utf-8")


def _mapped_cell(cell: str, mapping: dict[str, str], whole: bool) -> str | None:
    """The new form of a cell that is an old id (if `whole`), a file named by one, or a path to such a file."""
    if whole and cell in mapping:
        return mapping[cell]
    head, slash, name = cell.rpartition("/")
    suffix = SUFFIX.search(name)
    stem = name[: suffix.start()] if suffix else name
    if (slash or suffix) and stem in mapping:
        return f"{head}{slash}{mapping[stem]}{suffix.group() if suffix else ''}"
    if slash and name in mapping:
        return f"{head}{slash}{mapping[name]}"
    return None


def _renamed(name: str, mapping: dict[str, str]) -> tuple[str, str] | None:
    """(the old id, the new name) of a file or folder whose name, or its stem, is an old id."""
    if name in mapping:
        return name, mapping[name]
    suffix = SUFFIX.search(name)
    if suffix and name[: suffix.start()] in mapping:
        return name[: suffix.start()], mapping[name[: suffix.start()]] + suffix.group()
    return None


def _rename_files(prepared: Path, mapping: dict[str, str]) -> None:
    """Every file and folder named by an old id renamed, the deepest first, each level through names of its own
    first (new ids may be old ones: restarted ids). A file in a shard folder named by its id's first characters
    (seti's `test/4/4481635588a7.tif`) moves to its new id's shard."""
    paths = sorted(prepared.rglob("*"), key=lambda p: len(p.parts), reverse=True)
    for depth in sorted({len(p.parts) for p in paths}, reverse=True):
        moves = []
        for k, path in enumerate(p for p in paths if len(p.parts) == depth):
            renamed = _renamed(path.name, mapping)
            if renamed is not None:
                moves.append((path.rename(path.with_name(f".moving-{k}")), _target(path, *renamed, mapping)))
        for moving, target in moves:
            if target.exists():
                raise Unrepresentable(f"{target.name} would name two files in {target.parent.name}/")
            target.parent.mkdir(exist_ok=True)
            moving.rename(target)
            if not any(moving.parent.iterdir()):  # a shard folder left empty
                moving.parent.rmdir()


def _target(path: Path, old: str, new: str, mapping: dict[str, str]) -> Path:
    """Where a file or folder named by `old` goes: beside itself, or in its new id's shard folder."""
    shard = path.parent.name
    if len(shard) <= 3 and old.startswith(shard) and shard not in mapping:
        return path.parent.parent / new[: len(shard)] / new
    return path.with_name(new)


def _rewrite_zip(archive: Path, column: str, mapping: dict[str, str], digits: bool) -> None:
    """A zip's members renamed (each part of their paths) and its CSV members rewritten, as outside."""
    with zipfile.ZipFile(archive) as opened:
        members = [(info.filename, opened.read(info)) for info in opened.infolist()]
    names: set[str] = set()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as written:
        for name, data in members:
            parts = [(_renamed(part, mapping) or ("", part))[1] for part in name.split("/")]
            new = "/".join(parts)
            if new in names:
                raise Unrepresentable(f"{new} would name two members of {archive.name}")
            names.add(new)
            if name.endswith(".csv"):
                data = _rewrite_table(data, column, mapping, digits)
            written.writestr(new, data)
