"""TFRecord files of `tf.train.Example` records, read and written without TensorFlow.

A TFRecord file is a sequence of records, each `length` (8 bytes, little-endian), the masked CRC-32C of those 8
bytes (4 bytes), `data`, the masked CRC-32C of `data` (4 bytes). A `tf.train.Example` is a protocol buffer:
field 1 `Features`, whose field 1 repeats map entries `{1: key, 2: Feature}`, a `Feature` holding field 1
`BytesList`, 2 `FloatList` or 3 `Int64List`, each list's values in its field 1.

The harness moves held-out images' records from training TFRecords to the test side (siim-isic-melanoma's and
cassava's TFRecords carry each image with its name and label): `Record.raw` copies a kept record byte for byte,
`features` finds the fields of a record, `without_fields` drops some (the labels) and renames the id, and
`write_records` frames new records. Only the map entries are parsed; their values stay as they are.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TFRECORD_SUFFIXES = (".tfrec", ".tfrecord", ".tfrecords")
_MASK_DELTA = 0xA282EAD8
_CASTAGNOLI = 0x82F63B78  # CRC-32C's polynomial, reversed


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _CASTAGNOLI if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of `data`, as TFRecord frames use it."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


CRC_BATCH_BYTES = 256_000_000  # how many bytes of records `crc32c_many` holds in memory at once


def crc32c_many(blobs: list[bytes]) -> list[int]:
    """CRC-32C of each of `blobs`, computed side by side: one table lookup per byte position for all blobs at
    once (numpy), so that thousands of images cost about what the longest one does in `crc32c`."""
    out = [0] * len(blobs)
    order = sorted(
        range(len(blobs)), key=lambda i: -len(blobs[i])
    )  # the longest first: active lanes a prefix
    table = np.array(_TABLE, dtype=np.uint32)
    start = 0
    while start < len(order):
        batch, size = [], 0
        while start + len(batch) < len(order) and (not batch or size < CRC_BATCH_BYTES):
            batch.append(order[start + len(batch)])
            size += len(blobs[batch[-1]])
        lengths = np.array([len(blobs[i]) for i in batch])
        width = int(lengths[0]) if len(batch) else 0
        grid = np.zeros((len(batch), width), dtype=np.uint8)
        for row, i in enumerate(batch):
            grid[row, : len(blobs[i])] = np.frombuffer(blobs[i], dtype=np.uint8)
        crc = np.full(len(batch), 0xFFFFFFFF, dtype=np.uint32)
        active = len(batch)
        for at in range(width):
            while active and lengths[active - 1] <= at:
                active -= 1
            lane = crc[:active]
            crc[:active] = table[(lane ^ grid[:active, at]) & 0xFF] ^ (lane >> 8)
        for row, i in enumerate(batch):
            out[i] = int(crc[row] ^ 0xFFFFFFFF)
        start += len(batch)
    return out


def _mask(crc: int) -> int:
    """The CRC as a TFRecord frame stores it: rotated right by 15 bits, plus a constant."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    return _mask(crc32c(data))


class TFRecordError(ValueError):
    """A file that is not a TFRecord file of Example records; the message says where."""


@dataclass(frozen=True)
class Record:
    """One record: its framed bytes as the file holds them, its data, and where the frame starts in the file."""

    raw: bytes
    data: bytes
    offset: int = 0


def read_records(path: Path) -> Iterator[Record]:
    """The records of a TFRecord file, in order (lengths checked, CRCs not: a copy keeps them as they are)."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        while True:
            offset = handle.tell()
            head = handle.read(12)
            if not head:
                return
            if len(head) < 12:
                raise TFRecordError(f"{path.name} ends inside a record's header")
            (length,) = struct.unpack("<Q", head[:8])
            if offset + 12 + length + 4 > size:  # checked before reading: a garbage length is no allocation
                raise TFRecordError(f"{path.name} ends inside a record of {length} bytes")
            rest = handle.read(length + 4)
            yield Record(head + rest, rest[:length], offset)


def frame(data: bytes) -> bytes:
    """A record's bytes as a TFRecord file holds them."""
    return frames([data])[0]


def frames(datas: list[bytes]) -> list[bytes]:
    """Records' bytes as a TFRecord file holds them, their CRCs computed together (`crc32c_many`)."""
    framed = []
    for data, crc in zip(datas, crc32c_many(datas), strict=True):
        length = struct.pack("<Q", len(data))
        framed.append(length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", _mask(crc)))
    return framed


def write_records(path: Path, records: list[bytes]) -> None:
    """Write framed records (`Record.raw` or `frame(data)`) as a TFRecord file."""
    with open(path, "wb") as handle:
        for raw in records:
            handle.write(raw)


# ---- the protocol buffer of an Example -------------------------------------------------------------------------


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise TFRecordError("a record ends inside a number")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _fields(data: bytes) -> Iterator[tuple[int, int, bytes | int]]:
    """(field number, wire type, value) of a message: bytes for length-delimited fields, else the number."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 2:
            length, at = _varint(data, at)
            yield number, wire, data[at : at + length]
            at += length
        elif wire == 0:
            value, at = _varint(data, at)
            yield number, wire, value
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            yield number, wire, int.from_bytes(data[at : at + size], "little")
            at += size
        else:
            raise TFRecordError(f"a record holds a field of wire type {wire}, not an Example's")


def _message(number: int, payload: bytes) -> bytes:
    return _encode_varint(number << 3 | 2) + _encode_varint(len(payload)) + payload


def _entries(data: bytes) -> list[tuple[str, bytes]]:
    """(key, the entry's bytes) of each feature of an Example."""
    entries = []
    for number, wire, features in _fields(data):
        if number != 1 or wire != 2:
            continue
        for entry_number, entry_wire, entry in _fields(features):  # type: ignore[arg-type]
            if entry_number != 1 or entry_wire != 2:
                continue
            key = next((v for n, w, v in _fields(entry) if n == 1 and w == 2), b"")  # type: ignore[arg-type]
            entries.append((bytes(key).decode("utf-8", "replace"), bytes(entry)))  # type: ignore[arg-type]
    return entries


def features(data: bytes) -> list[str]:
    """The feature keys of an Example record, in its order."""
    return [key for key, _ in _entries(data)]


def _first(data: bytes, key: str) -> tuple[int, bytes | int] | None:
    """(the list's kind: 1 bytes, 2 float, 3 int64; its first value as stored) of an Example's feature `key`, or
    None where it has none."""
    for name, entry in _entries(data):
        if name != key:
            continue
        feature = next((v for n, w, v in _fields(entry) if n == 2 and w == 2), b"")
        for kind, wire, listed in _fields(feature):  # type: ignore[arg-type]
            if wire != 2:
                continue
            value = next((v for n, w, v in _fields(listed) if n == 1), None)  # type: ignore[arg-type]
            return None if value is None else (kind, value)
        return None
    return None


def bytes_value(data: bytes, key: str) -> bytes | None:
    """The first value of an Example's bytes feature `key`, or None where it has none."""
    found = _first(data, key)
    return bytes(found[1]) if found is not None and found[0] == 1 else None  # type: ignore[arg-type]


def first_value(data: bytes, key: str) -> str | None:
    """The first value of an Example's feature `key` as text (bytes decoded, an int64 in decimal, a float as
    Python prints it), or None where it has none."""
    found = _first(data, key)
    if found is None:
        return None
    kind, value = found
    if kind == 1:
        return bytes(value).decode("utf-8", "replace")  # type: ignore[arg-type]
    if kind == 2:
        packed = value if isinstance(value, bytes) else struct.pack("<I", value)
        return repr(struct.unpack("<f", packed[:4])[0]) if len(packed) >= 4 else None
    if kind == 3:
        number = _varint(value, 0)[0] if isinstance(value, bytes) else value
        return str(number - (1 << 64) if number >= 1 << 63 else number)
    return None


def bytes_feature(key: str, value: bytes) -> bytes:
    """A map entry of an Example: `key` holding one bytes value."""
    feature = _message(1, _message(1, value))
    return _message(1, key.encode()) + _message(2, feature)


def without_fields(data: bytes, keep: set[str], renamed: tuple[str, bytes] | None = None) -> bytes:
    """The Example with only the features in `keep`, in its order; `renamed` = (key, value) gives a bytes
    feature a new value (a held-out image's new id)."""
    kept = []
    for key, entry in _entries(data):
        if key not in keep:
            continue
        if renamed is not None and key == renamed[0]:
            entry = bytes_feature(key, renamed[1])
        kept.append(_message(1, entry))
    return _message(1, b"".join(kept))


def example(values: dict[str, bytes | int | float]) -> bytes:
    """An Example record's data from {key: value} (bytes, an int64 or a float each): for tests and fixtures."""
    entries = []
    for key, value in values.items():
        if isinstance(value, bytes):
            feature = _message(1, _message(1, value))
        elif isinstance(value, int):
            feature = _message(3, _message(1, _encode_varint(value & 0xFFFFFFFFFFFFFFFF)))
        else:
            feature = _message(2, _message(1, struct.pack("<f", value)))
        entries.append(_message(1, _message(1, key.encode()) + _message(2, feature)))
    return _message(1, b"".join(entries))
