"""A journal on disk: the append-only JSON Lines file, its sidecar of changed fields, the older whole document.

On disk a journal is append-only (`save`, `load`), so saving after a step writes that step's node, not the
whole journal:

- `journal.jsonl`: JSON Lines. The first line is the header `{"format": "swarm-journal", "version": 2,
  "id": <token>, "fields": {...}}`; every other line is one node (`Node.to_dict()`) as it was recorded, in
  step order. A save appends the nodes added since the last one in one write and fsyncs it. A kill
  mid-append leaves a torn last line, which `load` drops with a warning (and the next `save` cuts off).
- `journal.fields.json` (`fields_path`), the sidecar: the `MUTABLE_FIELDS` (GA fitness and generation, MCTS
  visits and total reward) of the nodes whose values changed after their line was written,
  `{"format": "swarm-journal-fields", "version": 1, "journal": <token>, "nodes": {<id>: {"fitness": ...,
  "generation": ..., "visits": ..., "total_reward": ...}}}`, replaced atomically when it changes (at an
  epoch's end, when the population's fitness is set again; after each step of an mcts run). It applies
  only to the journal file whose header has its token; without one the header's `fields` apply (a whole
  rewrite puts them there, so it is one atomic write). Lines never change once written, so the first N
  lines plus the field values of a moment rebuild the journal as it was then (`field_overrides`,
  `write_journal_prefix`: epoch snapshots and rerun branches).

Every other field is fixed once a node is saved: later changes to them are not written. The float fields
`exec_time` and `fitness` keep non-finite values as the strings "inf", "-inf" and "nan", so the round trip is
lossless. `meta` (a `NodeMeta`) is saved as the JSON object of its set fields and `extra` keys, so a line
read and written again is the same; its values must be JSON data, and tuples come back as lists. A journal
file is written by one process at a time; readers in other processes may read it while it grows.

`to_json`/`from_json` are the whole journal as one JSON document (format version 1:
`{"format": "swarm-journal", "version": 1, "nodes": [...]}`), the `journal.json` runs kept before the
append-only file; `load` reads that format too.
"""

from __future__ import annotations

import json
import logging
import operator
import os
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from swarm.atomic import append_bytes_durable, read_json, write_bytes_atomic, write_text_atomic
from swarm.journal.node import (
    _FLOAT_FIELDS,
    JournalError,
    Node,
    _decode_float,
    _encode_float,
    omit_unset_tree_stats,
)

try:
    import orjson
except ImportError:  # pragma: no cover - Prefect depends on it; the standard library parses alone
    orjson = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from swarm.journal.dag import Journal

log = logging.getLogger(__name__)
_LONG_DIGITS = re.compile(rb"\d{19}")  # where an integer beyond 64 bits may stand (2**63 has 19 digits)

JOURNAL_FORMAT = "swarm-journal"
JOURNAL_VERSION = 1  # the whole journal as one JSON document (`to_json`; a run's journal.json before)
LINES_VERSION = 2  # the append-only JSON Lines file (`save`)
FIELDS_FORMAT = "swarm-journal-fields"
FIELDS_VERSION = 1
# The fields that may change after a node is saved: the GA's, and the tree search's statistics of its subtree.
MUTABLE_FIELDS = ("fitness", "generation", "visits", "total_reward")
_mutable_values = operator.attrgetter(*MUTABLE_FIELDS)


class StoredJournal:
    """How a journal is saved and loaded (mixed into `swarm.journal.dag.Journal`, whose nodes, index and
    `validate` it uses): the whole document (`to_json`, `from_json`) and the append-only file (`save`, `load`)."""

    nodes: list[Node]
    _by_id: dict[str, Node]
    _line_values: list[tuple[Any, ...]]  # MUTABLE_FIELDS as in each saved node's line
    _file: _JournalFile | None  # the file `save` appends to
    _overrides_cache: tuple[list[tuple[Any, ...]], dict[str, dict[str, Any]]] | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": JOURNAL_FORMAT,
            "version": JOURNAL_VERSION,
            "nodes": [n.to_dict() for n in self.nodes],
        }

    def to_json(self, indent: int | None = None) -> str:
        """The whole journal as JSON; raises JournalError naming the node whose fields are not JSON-able."""
        data = self.to_dict()
        try:
            return json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):
            for node_data in data["nodes"]:
                try:
                    json.dumps(node_data, allow_nan=False)
                except (TypeError, ValueError) as exc:
                    raise JournalError(f"node {node_data['id']} cannot be written as JSON: {exc}") from exc
            raise

    @classmethod
    def from_dict(cls, data: dict[str, Any], validate: bool = True) -> Journal:
        if not isinstance(data, dict) or data.get("format") != JOURNAL_FORMAT:
            raise JournalError(f"not a swarm journal: expected an object with format={JOURNAL_FORMAT!r}")
        if data.get("version") != JOURNAL_VERSION:
            raise JournalError(
                f"unsupported journal version {data.get('version')!r}; expected {JOURNAL_VERSION}"
            )
        if not isinstance(data.get("nodes"), list):
            raise JournalError("journal 'nodes' must be a list")
        journal = cls()
        for node_data in data["nodes"]:
            journal._add_saved(node_data)
        if validate:
            journal.validate()
        return journal

    @classmethod
    def from_json(cls, text: str, validate: bool = True) -> Journal:
        """Parse `to_json` output; a clear JournalError on malformed input."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise JournalError(f"journal is not valid JSON: {exc}") from exc
        return cls.from_dict(data, validate=validate)

    # -- the append-only file ---------------------------------------------------------------------------

    def field_overrides(self) -> dict[str, dict[str, Any]]:
        """The `MUTABLE_FIELDS` of saved nodes whose values differ from their line, by node id, each node's
        differing ones (JSON-ready: what the sidecar holds). One pass over the journal, no serialisation."""
        values = list(map(_mutable_values, self.nodes[: len(self._line_values)]))
        cached = self._overrides_cache
        if cached is not None and values == cached[0]:  # nothing changed since: a comparison in C
            return dict(cached[1])
        changed: dict[str, dict[str, Any]] = {}
        for node, current, saved in zip(self.nodes, values, self._line_values, strict=False):
            if current != saved and not _same_values(current, saved):
                changed[node.id] = _encode_fields(current, saved)
        self._overrides_cache = (values, changed)
        return dict(changed)

    def save(self, path: str | Path) -> Path:
        """Persist the journal at `path` (see the module docstring): append the nodes added since the last
        save to the file this journal was loaded from or last saved to, and replace the sidecar when a
        mutable field changed; any other file (new, someone else's, or changed since) is written whole,
        atomically. Either way the file is complete and loadable after a kill at any moment."""
        path = Path(path)
        current = self._file
        if current is not None and current.path == path.resolve() and current.matches():
            self._append(current)
        else:
            if current is not None and current.path == path.resolve():
                log.warning("%s changed since this journal last read or wrote it; writing it whole", path)
            self._write_whole(path)
        return path

    def _append(self, target: _JournalFile) -> None:
        new = self.nodes[len(self._line_values) :]
        if new:
            data = b"".join(_node_line(node) for node in new)  # serialised first: a bad node writes nothing
            cut = None if target.size == target.on_disk else target.size
            target.on_disk = target.size = append_bytes_durable(target.path, data, cut_to=cut)
            self._line_values.extend(_mutable_values(node) for node in new)
            self._overrides_cache = None
        overrides = self.field_overrides()
        if overrides != target.fields:
            sidecar = {
                "format": FIELDS_FORMAT,
                "version": FIELDS_VERSION,
                "journal": target.token,
                "nodes": overrides,
            }
            write_text_atomic(fields_path(target.path), _dumps(sidecar))
            target.fields = overrides

    def _write_whole(self, path: Path) -> None:
        """Header and every node's line as recorded (later field values in the header), atomically."""
        lines = [_node_line(node) for node in self.nodes]  # serialised first: a bad node writes nothing
        for index, saved in enumerate(self._line_values):
            node = self.nodes[index]
            if _mutable_values(node) != saved:  # a saved node's line keeps the values it was recorded with
                data = node.to_dict()
                data.update(_encode_fields(saved))
                omit_unset_tree_stats(data)
                lines[index] = _dumps(data, node.id).encode("utf-8") + b"\n"
        before = self._line_values
        self._line_values = before + [_mutable_values(node) for node in self.nodes[len(before) :]]
        self._overrides_cache = None
        try:
            overrides = self.field_overrides()
            token = uuid.uuid4().hex
            header = {"format": JOURNAL_FORMAT, "version": LINES_VERSION, "id": token, "fields": overrides}
            write_bytes_atomic(path, _dumps(header).encode("utf-8") + b"\n" + b"".join(lines))
        except BaseException:
            self._line_values = before
            raise
        fields_path(path).unlink(missing_ok=True)  # a stale sidecar (another token) would be ignored anyway
        self._file = _JournalFile.of(path, token, path.stat().st_size, overrides)

    @classmethod
    def load(cls, path: str | Path, validate: bool = True) -> Journal:
        """Read a journal written by `save` (or a version 1 document, `to_json`). A torn last line (a kill
        mid-append, or a writer still appending) is dropped with a warning; the journal stays bound to the
        file, so its next `save` appends there."""
        path = Path(path)
        try:
            handle = path.open("rb")
        except FileNotFoundError:
            raise FileNotFoundError(f"journal file not found: {path}") from None
        try:
            with handle:
                journal = cls._read(path, handle)
            if validate:
                journal.validate()
        except JournalError as exc:
            raise JournalError(f"{path}: {exc}") from exc
        return journal

    @classmethod
    def _read(cls, path: Path, handle: Any) -> Journal:
        lines = _lines(handle)
        first, _ = next(lines, (b"", False))
        header = _loads(first)
        if header is None:
            handle.seek(0)
            return cls.from_json(handle.read().decode("utf-8"), validate=False)  # an indented document
        if isinstance(header, dict) and "nodes" in header:
            return cls.from_dict(header, validate=False)
        if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
            raise JournalError(f"not a swarm journal: expected a header with format={JOURNAL_FORMAT!r}")
        if header.get("version") != LINES_VERSION:
            raise JournalError(
                f"unsupported journal version {header.get('version')!r}; expected {LINES_VERSION}"
            )
        journal = cls()
        size = len(first) + 1
        for number, (raw, complete) in enumerate(lines, start=2):
            data = _loads(raw) if complete else None
            if not isinstance(data, dict):
                torn = len(raw) + complete
                for more, more_complete in lines:
                    if more.strip(b"\0 \t\r"):
                        raise JournalError(
                            f"line {number} is not a complete JSON record and more lines follow it"
                        )
                    torn += len(more) + more_complete
                if torn:
                    log.warning(
                        "%s: dropped a torn last line (%d bytes: a kill mid-append, or a save in progress)",
                        path,
                        torn,
                    )
                break
            node = journal._add_saved(data)
            journal._line_values.append(_mutable_values(node))
            size += len(raw) + 1
        token = header.get("id")
        overrides = header.get("fields") or {}
        sidecar = fields_path(path)
        if sidecar.is_file():
            saved = read_json(sidecar)
            if not isinstance(saved, dict) or saved.get("format") != FIELDS_FORMAT:
                raise JournalError(f"{sidecar.name} is not a journal's fields file")
            if saved.get("journal") == token:  # else a whole rewrite of the journal left it stale
                overrides = saved.get("nodes") or {}
        if not isinstance(overrides, dict) or not all(isinstance(v, dict) for v in overrides.values()):
            raise JournalError("the journal's fields must map node ids to objects")
        journal._apply(overrides)
        journal._file = _JournalFile.of(path, token, size, overrides, os.fstat(handle.fileno()))
        return journal

    def _apply(self, overrides: dict[str, dict[str, Any]]) -> None:
        for node_id, values in overrides.items():
            node = self._by_id.get(node_id)
            if node is None:
                log.warning("the journal's fields name node %s, which is not in it; ignored", node_id)
                continue
            for name, value in values.items():
                if name not in MUTABLE_FIELDS:
                    raise JournalError(f"node {node_id}: field {name!r} is not one of {MUTABLE_FIELDS}")
                setattr(node, name, _decode_float(value, name, node_id) if name in _FLOAT_FIELDS else value)


@dataclass
class _JournalFile:
    """The file a journal appends to: where, its token, how many bytes are its records, and the sidecar's
    content as last written."""

    path: Path
    token: str | None
    size: int  # bytes of the header and complete node lines
    on_disk: int  # the file's size when last seen (larger than `size` by a torn tail)
    identity: tuple[int, int]  # (st_dev, st_ino): a file replaced since is written whole
    fields: dict[str, dict[str, Any]]

    @classmethod
    def of(
        cls,
        path: Path,
        token: str | None,
        size: int,
        fields: dict[str, dict[str, Any]],
        stat: os.stat_result | None = None,
    ) -> _JournalFile:
        stat = stat or path.stat()
        return cls(path.resolve(), token, size, stat.st_size, (stat.st_dev, stat.st_ino), fields)

    def matches(self) -> bool:
        """True when the file is still the one this journal knows: same inode, and the size it last saw."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return False
        return (stat.st_dev, stat.st_ino) == self.identity and stat.st_size == self.on_disk


def fields_path(journal_path: str | Path) -> Path:
    """The sidecar of a journal file: `journal.jsonl` -> `journal.fields.json`."""
    path = Path(journal_path)
    return path.with_name(f"{path.stem}.fields.json")


def write_journal_prefix(source: str | Path, dest: str | Path, nodes: int, overrides: dict[str, Any]) -> None:
    """Write at `dest`, atomically, the journal `source` held when it had `nodes` nodes and these
    `field_overrides`: its header (a new token, `overrides` as its fields) and first `nodes` lines, copied
    as they are (lines never change once written)."""
    source = Path(source)
    lines: list[bytes] = []
    with source.open("rb") as handle:
        header = _parse_line(handle.readline())
        if not header or header.get("format") != JOURNAL_FORMAT or header.get("version") != LINES_VERSION:
            raise JournalError(f"{source} is not an append-only journal (version {LINES_VERSION})")
        for raw in handle:
            if len(lines) >= nodes or not raw.endswith(b"\n"):
                break
            lines.append(raw)
    if len(lines) < nodes:
        raise JournalError(f"{source} holds {len(lines)} complete nodes, fewer than the {nodes} asked for")
    header = {"format": JOURNAL_FORMAT, "version": LINES_VERSION, "id": uuid.uuid4().hex, "fields": overrides}
    write_bytes_atomic(Path(dest), _dumps(header).encode() + b"\n" + b"".join(lines))
    fields_path(dest).unlink(missing_ok=True)


def _parse_line(raw: bytes) -> dict[str, Any] | None:
    """A complete line's JSON object, or None for a torn one (no newline, or not a JSON object)."""
    data = _loads(raw) if raw.endswith(b"\n") else None
    return data if isinstance(data, dict) else None


def _loads(raw: bytes) -> Any:
    """The JSON value of `raw`, or None when it is not JSON. orjson when it is there (Prefect brings it; about
    twice as fast on a journal's long lines), the standard library for what orjson refuses, and for a line with
    19 or more digits in a row: an integer beyond 64 bits, which orjson would read as a float (3.8)."""
    if orjson is not None and not _LONG_DIGITS.search(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _lines(handle: Any, block: int = 1 << 24) -> Iterator[tuple[bytes, bool]]:
    """The lines of a binary file without their newline, each with whether it had one (only the last may
    not), read in large blocks (iterating a file line by line is slow on lines of 50 kB)."""
    rest: list[bytes] = []  # the start of a line that began in an earlier block
    while chunk := handle.read(block):
        parts = chunk.split(b"\n")
        if len(parts) > 1:
            yield b"".join([*rest, parts[0]]), True
            rest = []
            for part in parts[1:-1]:
                yield part, True
        rest.append(parts[-1])
    tail = b"".join(rest)
    if tail:
        yield tail, False


def _dumps(data: Any, node_id: str | None = None) -> str:
    try:
        return json.dumps(data, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        if node_id is None:
            raise
        raise JournalError(f"node {node_id} cannot be written as JSON: {exc}") from exc


def _node_line(node: Node) -> bytes:
    return _dumps(node.to_dict(), node.id).encode("utf-8") + b"\n"


def _encode_fields(values: tuple[Any, ...], unless_as: tuple[Any, ...] | None = None) -> dict[str, Any]:
    """The mutable fields' `values` by name, JSON-ready; those that differ from `unless_as` when given."""
    return {
        name: _encode_float(value) if name in _FLOAT_FIELDS else value
        for index, (name, value) in enumerate(zip(MUTABLE_FIELDS, values, strict=True))
        if unless_as is None or not _same_values((value,), (unless_as[index],))
    }


def _same_values(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Equal, counting NaN equal to NaN."""
    return all(x == y or (x != x and y != y) for x, y in zip(a, b, strict=True))
