"""BSON files of documents (MongoDB dumps), read and written without pymongo: cdiscount's `train.bson`.

A BSON file is a sequence of documents, each its total length (int32, little-endian, the length included), its
elements, and a 0 byte. An element is a type byte, a name (a C string) and a value whose size follows from the
type: double (1) 8 bytes, string (2) a length-prefixed UTF-8 string, document (3) and array (4) a document,
binary (5) a length, a subtype byte and the bytes, ObjectId (7) 12 bytes, boolean (8) 1, UTC datetime (9) 8,
null (10) 0, int32 (16) 4, timestamp (17) 8, int64 (18) 8, decimal128 (19) 16.

cdiscount's documents are `{_id, category_id, imgs: [{picture: <JPEG bytes>}, ...]}`, 7 million of them in 58 GB:
`documents` streams them as raw bytes, `scalars` reads a document's top-level numbers, strings and booleans (not
its images), `without_fields` drops top-level elements (a held-out product's `category_id`) and leaves the rest
byte for byte, `encode` writes a document of scalars and bytes (tests, miniatures), and `bson_fields` finds the labelled and test files, and `bson_table` reads
the first documents as a table: their scalars, and the size in bytes of each other element (`imgs_bytes`: how large
a product's pictures are).

Shared by the harness (swarm/layouts/bson/split.py) and the offline coder; the solutions the offline coder
writes embed this module's source, so it uses only struct, pathlib and pandas.
"""

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

BSON_SUFFIX = ".bson"
BSON_MAX_DOCUMENTS = 50_000  # labelled documents the offline coder reads at most (cdiscount has 7 million)
_FIXED = {0x01: 8, 0x07: 12, 0x08: 1, 0x09: 8, 0x0A: 0, 0x10: 4, 0x11: 8, 0x12: 8, 0x13: 16, 0x7F: 0, 0xFF: 0}
_LENGTH_PREFIXED = {0x02, 0x0D, 0x0E}  # string, JavaScript code, symbol: int32 length, then the bytes
_NESTED = {0x03, 0x04, 0x0F}  # document, array, code with scope: their own int32 total length


def documents(path: Path) -> Iterator[bytes]:
    """Each document of a BSON file, as its raw bytes, read one at a time; ValueError naming the file and
    offset where a document is cut short or malformed."""
    with open(path, "rb") as handle:
        offset = 0
        while head := handle.read(4):
            if len(head) < 4:
                raise ValueError(f"{path.name}: a document cut short at byte {offset}")
            (length,) = struct.unpack("<i", head)
            if length < 5:
                raise ValueError(f"{path.name}: a document of length {length} at byte {offset}")
            body = handle.read(length - 4)
            if len(body) < length - 4 or body[-1] != 0:
                raise ValueError(f"{path.name}: a document cut short or unterminated at byte {offset}")
            yield head + body
            offset += length


def _elements(document: bytes) -> Iterator[tuple[int, str, int, int]]:
    """(type, name, start, end) of each top-level element: `document[start:end]` is the whole element (type byte,
    name and value); ValueError where an element runs past the document or has an unknown type."""
    at, last = 4, len(document) - 1
    while at < last:
        kind = document[at]
        name_end = document.index(b"\x00", at + 1, last)
        value = name_end + 1
        if kind in _FIXED:
            end = value + _FIXED[kind]
        elif kind in _LENGTH_PREFIXED:
            end = value + 4 + struct.unpack_from("<i", document, value)[0]
        elif kind in _NESTED:
            end = value + struct.unpack_from("<i", document, value)[0]
        elif kind == 0x05:  # binary: length, subtype, bytes
            end = value + 5 + struct.unpack_from("<i", document, value)[0]
        elif kind == 0x0C:  # DBPointer: a string and 12 bytes
            end = value + 4 + struct.unpack_from("<i", document, value)[0] + 12
        elif kind == 0x0B:  # regular expression: two C strings
            end = document.index(b"\x00", document.index(b"\x00", value, last) + 1, last) + 1
        else:
            raise ValueError(f"a BSON element of unknown type {kind:#x} at byte {at}")
        if end > last:
            raise ValueError(f"a BSON element runs past its document at byte {at}")
        yield kind, document[at + 1 : name_end].decode("utf-8"), at, end
        at = end


def scalars(document: bytes) -> dict[str, Any]:
    """The document's top-level numbers, strings, booleans, nulls, datetimes (milliseconds) and ObjectIds (hex),
    by name; documents, arrays and binary values (the images) are left out."""
    found: dict[str, Any] = {}
    for kind, name, start, end in _elements(document):
        value = start + 2 + len(name.encode("utf-8"))
        if kind == 0x01:
            found[name] = struct.unpack_from("<d", document, value)[0]
        elif kind == 0x02:
            found[name] = document[value + 4 : end - 1].decode("utf-8")
        elif kind == 0x10:
            found[name] = struct.unpack_from("<i", document, value)[0]
        elif kind in (0x12, 0x09):
            found[name] = struct.unpack_from("<q", document, value)[0]
        elif kind == 0x08:
            found[name] = document[value] == 1
        elif kind == 0x0A:
            found[name] = None
        elif kind == 0x07:
            found[name] = document[value:end].hex()
    return found


def _first_scalars(path: Path) -> dict:
    try:
        return scalars(next(documents(path)))
    except (StopIteration, ValueError, OSError):
        return {}


def bson_fields(data_dir: str, names: list, id_column: str, targets: list) -> dict | None:
    """{"train", "test", "others"}: the largest top-level `*train*.bson` whose documents hold the id and every
    target, a `*test*.bson` whose documents hold the id, and the other `*train*.bson` files (cdiscount's
    `train_example.bson`); None where there are none."""
    files = [n for n in sorted(names) if n.lower().endswith(BSON_SUFFIX) and (Path(data_dir) / n).is_file()]
    trains = sorted(
        (n for n in files if "train" in n.lower()), key=lambda n: -(Path(data_dir) / n).stat().st_size
    )
    tests = [n for n in files if "test" in n.lower() and id_column in _first_scalars(Path(data_dir) / n)]
    if (
        not trains
        or not tests
        or not {id_column, *targets} <= set(_first_scalars(Path(data_dir) / trains[0]))
    ):
        return None
    return {"train": trains[0], "test": tests[0], "others": trains[1:]}


def sizes(document: bytes) -> dict[str, int]:
    """The size in bytes of each top-level element that `scalars` leaves out (documents, arrays, binary), by
    `<name>_bytes`."""
    skipped = {0x03, 0x04, 0x05, 0x0F}
    return {f"{name}_bytes": end - start for kind, name, start, end in _elements(document) if kind in skipped}


def bson_table(path: Path, max_documents: int | None = None) -> pd.DataFrame:
    """The first `max_documents` documents of a BSON file (all where None) as a table: each one's scalars and
    the sizes of its other elements (see `sizes`), a row each."""
    rows = []
    for document in documents(Path(path)):
        if max_documents is not None and len(rows) >= max_documents:
            break
        rows.append({**scalars(document), **sizes(document)})
    return pd.DataFrame(rows)


def without_fields(document: bytes, names: set[str]) -> bytes:
    """The document without its top-level elements named in `names`, every other element as it is."""
    kept = [document[start:end] for _, name, start, end in _elements(document) if name not in names]
    body = b"".join(kept)
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def encode(fields: dict[str, Any]) -> bytes:
    """A document of scalars and bytes: int as int32 (int64 beyond it), float, str, bool, None, bytes as binary
    (subtype 0), a list of such dicts as an array of documents."""
    body = b"".join(_element(name, value) for name, value in fields.items())
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def _element(name: str, value: Any) -> bytes:
    key = name.encode("utf-8") + b"\x00"
    if isinstance(value, bool):
        return b"\x08" + key + (b"\x01" if value else b"\x00")
    if isinstance(value, int):
        small = -(2**31) <= value < 2**31
        return (
            (b"\x10" + key + struct.pack("<i", value))
            if small
            else (b"\x12" + key + struct.pack("<q", value))
        )
    if isinstance(value, float):
        return b"\x01" + key + struct.pack("<d", value)
    if isinstance(value, str):
        text = value.encode("utf-8") + b"\x00"
        return b"\x02" + key + struct.pack("<i", len(text)) + text
    if value is None:
        return b"\x0a" + key
    if isinstance(value, bytes):
        return b"\x05" + key + struct.pack("<i", len(value)) + b"\x00" + value
    if isinstance(value, list):
        return b"\x04" + key + encode({str(k): item for k, item in enumerate(value)})
    if isinstance(value, dict):
        return b"\x03" + key + encode(value)
    raise TypeError(f"BSON field {name!r}: cannot encode a {type(value).__name__}")


def find_bson(probe) -> dict | None:
    """The BSON files (see `bson_fields`) where no labelled table is named, else None."""
    if probe.labelled_table:
        return None
    return bson_fields(probe.data_dir, probe.names, probe.id_column, probe.targets)


def read_bson_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): a document per example, its scalars and the sizes of its other elements; at most
    BSON_MAX_DOCUMENTS training documents."""
    most = min(max_rows or BSON_MAX_DOCUMENTS, BSON_MAX_DOCUMENTS)
    train = bson_table(Path(data_dir) / fields["train"], most)
    return train, bson_table(Path(data_dir) / fields["test"], max_rows)
