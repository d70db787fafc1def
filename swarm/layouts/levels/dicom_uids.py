"""UIDs in a DICOM file's header rewritten in place, at the same length, with the standard library only.

siim-covid19-detection's files are `test/<study>/<series>/<image>.dcm`, and each names its study, series and image
(12-hex anonymised UIDs) inside as well: StudyInstanceUID (0020,000D), SeriesInstanceUID (0020,000E),
SOPInstanceUID (0008,0018) and, in the file meta group, MediaStorageSOPInstanceUID (0002,0003). Where the harness
gives those examples fresh ids (`swarm.layouts.levels.split`), the view's copy of each file must name the fresh
ones, or a header would tell a renamed file's own UIDs (a held-out study's training ones among them).

`find_uid_patches` walks a header: the 128-byte preamble and `DICM`, the file meta group (explicit VR little
endian), then the dataset in the transfer syntax (0002,0010) names: implicit VR little endian
(`1.2.840.10008.1.2`) or explicit VR little endian (`1.2.840.10008.1.2.1`, and the compressed syntaxes, whose
datasets are encoded so); explicit VR big endian and deflated datasets are not walked (`Unwalkable`). Elements are
read in order until the first one past group 0020 (the pixel data is never read), long-length VRs (OB OW OF SQ UT
UN UC UR OD OL OV SV UV) read as such, and sequences walked through their items, of defined or undefined length (an
implicit VR value that begins with an item tag is a sequence too; so is an explicit UN of undefined length, whose
items are implicit VR). Every short value that, less its padding (`\\0` or spaces), is one of the old ids is
patched with the new one, padded to the value's own length: a same-width fresh id changes no length, so no group
length or offset changes and the rest of the file (the pixel data, megabytes) stays as it is. `rewrite_uids`
applies them to a file the caller copied: a few header bytes written, nothing re-encoded.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

PREAMBLE = 128
MAGIC = b"DICM"
META_GROUP = 0x0002
LAST_GROUP = 0x0020  # the walk stops at the first top-level element past this group
IMPLICIT_LE = "1.2.840.10008.1.2"
EXPLICIT_BE = "1.2.840.10008.1.2.2"
DEFLATED = ("1.2.840.10008.1.2.1.99", "1.2.840.10008.1.2.8.1")
TRANSFER_SYNTAX = (0x0002, 0x0010)
MEDIA_SOP = (0x0002, 0x0003)  # MediaStorageSOPInstanceUID
SOP = (0x0008, 0x0018)  # SOPInstanceUID
STUDY = (0x0020, 0x000D)  # StudyInstanceUID
SERIES = (0x0020, 0x000E)  # SeriesInstanceUID
LONG_VRS = {b"OB", b"OW", b"OF", b"SQ", b"UT", b"UN", b"UC", b"UR", b"OD", b"OL", b"OV", b"SV", b"UV"}
UNDEFINED = 0xFFFFFFFF
ITEM, ITEM_END, SEQUENCE_END = (0xFFFE, 0xE000), (0xFFFE, 0xE00D), (0xFFFE, 0xE0DD)
MAX_VALUE = 256  # values at most this long are compared with the old ids (a UID is at most 64 bytes)
MAX_DEPTH = 16  # sequences nested deeper are not walked
PADDING = b"\0 "


class Unwalkable(Exception):
    """The header cannot be walked; `str(exc)` says why."""


@dataclass
class HeaderUids:
    """What a walk found: the patches (offset, new bytes) for every value naming an old id, and the top-level
    values of the four UID elements (tag -> value less padding) where the header has them."""

    patches: list[tuple[int, bytes]] = field(default_factory=list)
    found: dict[tuple[int, int], str] = field(default_factory=dict)
    misfits: int = 0  # values naming an old id whose new one does not fit their length (left as they are)


class _Walk:
    def __init__(self, handle: BinaryIO, size: int, renamed: dict[str, str]) -> None:
        self.handle, self.size, self.renamed = handle, size, renamed
        self.out = HeaderUids()

    def take(self, count: int) -> bytes:
        data = self.handle.read(count)
        if len(data) != count:
            raise Unwalkable("the header ends inside an element")
        return data

    def skip(self, count: int) -> None:
        end = self.handle.tell() + count
        if end > self.size:
            raise Unwalkable("an element's length runs past the end of the file")
        self.handle.seek(end)

    def peek_tag(self) -> tuple[int, int] | None:
        """The next element's tag, not consumed; None at the end of the file."""
        data = self.handle.read(4)
        if not data:
            return None
        if len(data) != 4:
            raise Unwalkable("the header ends inside a tag")
        self.handle.seek(-4, os.SEEK_CUR)
        return struct.unpack("<HH", data)  # type: ignore[return-value]

    def header(self, explicit: bool) -> tuple[tuple[int, int], bytes, int]:
        """(tag, VR or b"", length) of the next element."""
        group, element = struct.unpack("<HH", self.take(4))
        tag = (group, element)
        if group == 0xFFFE or not explicit:  # items and delimiters have no VR in either encoding
            return tag, b"", struct.unpack("<I", self.take(4))[0]
        vr = self.take(2)
        if vr in LONG_VRS:
            self.take(2)
            return tag, vr, struct.unpack("<I", self.take(4))[0]
        if not (vr.isalpha() and vr.isupper()):
            raise Unwalkable(f"the element ({group:04X},{element:04X}) has no explicit VR ({vr!r})")
        return tag, vr, struct.unpack("<H", self.take(2))[0]

    def element(self, explicit: bool, depth: int, top: bool) -> None:
        tag, vr, length = self.header(explicit)
        if tag[0] == 0xFFFE:
            raise Unwalkable(f"an item tag ({tag[0]:04X},{tag[1]:04X}) outside a sequence")
        if length == UNDEFINED:
            if vr in (b"SQ", b"") or vr == b"UN":  # UN of undefined length: its items are implicit VR
                self.sequence(None, explicit and vr == b"SQ", depth)
                return
            raise Unwalkable(f"the element ({tag[0]:04X},{tag[1]:04X}) has an undefined length")
        start = self.handle.tell()
        if vr == b"SQ":
            self.sequence(start + length, explicit, depth)
            return
        if vr in (b"", b"UN") and length >= 8 and self._item_follows():  # likely a sequence: walked as one
            patches, found = len(self.out.patches), dict(self.out.found)
            try:
                self.sequence(start + length, False, depth)
                return
            except Unwalkable:  # not one after all: its bytes skipped as a value's
                del self.out.patches[patches:]
                self.out.found = found
                self.handle.seek(start)
        if length > MAX_VALUE:
            self.skip(length)
            return
        value = self.take(length)
        text = value.rstrip(PADDING).lstrip(b" ")
        try:
            old = text.decode("ascii")
        except UnicodeDecodeError:
            return
        if top and tag in (MEDIA_SOP, SOP, STUDY, SERIES, TRANSFER_SYNTAX):
            self.out.found[tag] = old
        new = self.renamed.get(old)
        if new is None:
            return
        at = value.index(text)
        encoded = new.encode("ascii")
        if len(encoded) != len(text):
            if len(encoded) > length - at:
                self.out.misfits += 1
                return
            encoded = encoded.ljust(length - at, b"\0")  # a shorter one padded as UIDs are
        self.out.patches.append((start + at, encoded))

    def _item_follows(self) -> bool:
        head = self.handle.read(4)
        self.handle.seek(-len(head), os.SEEK_CUR)
        return len(head) == 4 and struct.unpack("<HH", head) == ITEM

    def sequence(self, end: int | None, explicit: bool, depth: int) -> None:
        """The items of a sequence up to `end`, or its delimiter where its length is undefined."""
        if depth >= MAX_DEPTH:
            raise Unwalkable(f"sequences nested over {MAX_DEPTH} deep")
        while end is None or self.handle.tell() < end:
            tag, _, length = self.header(False)
            if tag == SEQUENCE_END and end is None:
                return
            if tag != ITEM:
                raise Unwalkable(f"a sequence holds ({tag[0]:04X},{tag[1]:04X}) where an item should be")
            item_end = None if length == UNDEFINED else self.handle.tell() + length
            if item_end is not None and end is not None and item_end > end:
                raise Unwalkable("an item runs past the end of its sequence")
            while item_end is None or self.handle.tell() < item_end:
                if item_end is None and self.peek_tag() == ITEM_END:
                    self.header(False)
                    break
                self.element(explicit, depth + 1, False)
            if item_end is not None and self.handle.tell() != item_end:
                raise Unwalkable("an item's elements do not fill its length")
        if end is not None and self.handle.tell() != end:
            raise Unwalkable("a sequence's items do not fill its length")

    def walk(self) -> HeaderUids:
        if self.size < PREAMBLE + 4:
            raise Unwalkable("the file is shorter than a DICOM preamble")
        self.handle.seek(PREAMBLE)
        if self.take(4) != MAGIC:
            raise Unwalkable("no DICM after the 128-byte preamble")
        while (tag := self.peek_tag()) is not None and tag[0] == META_GROUP:
            self.element(True, 0, True)
        syntax = self.out.found.get(TRANSFER_SYNTAX)
        if syntax is None:
            raise Unwalkable("the file meta group names no transfer syntax")
        if syntax == EXPLICIT_BE or syntax in DEFLATED:
            kind = "big endian" if syntax == EXPLICIT_BE else "deflated"
            raise Unwalkable(f"its transfer syntax ({syntax}) is {kind}, which the harness does not rewrite")
        explicit = syntax != IMPLICIT_LE
        while (tag := self.peek_tag()) is not None and tag[0] <= LAST_GROUP:
            self.element(explicit, 0, True)
        return self.out


def find_uid_patches(path: Path, renamed: dict[str, str]) -> HeaderUids:
    """Walk the header of the DICOM file at `path` (see the module docstring): the patches renaming every value
    that is an old id of `renamed` (old -> new), and the UID elements' values; `Unwalkable` saying why not."""
    with open(path, "rb") as handle:
        return _Walk(handle, os.fstat(handle.fileno()).st_size, renamed).walk()


def rewrite_uids(path: Path, renamed: dict[str, str]) -> HeaderUids:
    """Patch, in place, every value of the header of `path` naming an old id of `renamed` with its new one (the
    caller's own copy: never a file linked from elsewhere); what the walk found. `Unwalkable` where the header
    cannot be walked (the file is then left as it is)."""
    uids = find_uid_patches(path, renamed)
    if uids.patches:
        with open(path, "r+b") as handle:
            for offset, data in uids.patches:
                handle.seek(offset)
                handle.write(data)
    return uids
