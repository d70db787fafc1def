"""Reading one archive into an empty directory, refusing anything that could escape it or fill the disk.

The archives are the competition's, not generated code, but a damaged or hostile one must still fail with one
sentence naming it rather than write outside its directory or fill the disk. So members with an absolute path
or `..`, links that resolve outside, device files and fifos are refused, encrypted zip members too, and every
byte written counts against an `ExtractBudget` shared by the archives of one view (a cap on the total, and a
reserve of free disk that is never used). Symbolic links are made last, after every file and folder, so that
no file is ever written through one; each is checked where it finally resolves.

Formats: zip and tar (plain, .gz/.tgz, .bz2/.tbz2, .xz/.txz) with the standard library; 7z through a `7z`,
`7za` or `7zr` program on PATH (no Python package is added for it), which also reads the zips Python cannot
(Deflate64).
"""

from __future__ import annotations

import lzma
import os
import re
import shutil
import stat
import subprocess
import tarfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from swarm.competitions.errors import CompetitionError

# Archive suffixes (longest first, matched case-insensitively) and the reader of each.
ARCHIVE_KINDS: tuple[tuple[str, str], ...] = (
    (".tar.gz", "tar"),
    (".tar.bz2", "tar"),
    (".tar.xz", "tar"),
    (".tgz", "tar"),
    (".tbz2", "tar"),
    (".txz", "tar"),
    (".tar", "tar"),
    (".zip", "zip"),
    (".7z", "7z"),
)
# What the archives of one public dir may extract to in all: a zip bomb stops here with a clear error. MLE-bench's
# largest competitions extract to some hundreds of GB; raise this for a genuine larger one.
MAX_EXTRACTED_BYTES = 512 * 2**30
DISK_RESERVE_BYTES = 2**30  # free disk that extraction always leaves
DISK_CHECK_BYTES = 256 * 2**20  # the free disk is looked at again after this many bytes written
CHUNK_BYTES = 2**20
MAX_LINK_TARGET = 4096  # bytes of a zip symlink member's target
SEVEN_ZIP_PROGRAMS = ("7z", "7za", "7zr")
SEVEN_ZIP_TIMEOUT_S = 6 * 3600
# Unix file types a member may have (0: none stated, as zips made on Windows).
_PLAIN_TYPES = (0, stat.S_IFREG, stat.S_IFDIR, stat.S_IFLNK)
_ZIP_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
_READ_ERRORS = (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError, zlib.error, lzma.LZMAError)


class ArchiveError(CompetitionError):
    """An archive of the public dir cannot be read safely; the message names it and says why."""


def archive_kind(path: Path) -> str | None:
    """'zip', 'tar' or '7z' for a file named like an archive of that kind, else None."""
    name = path.name.lower()
    for suffix, kind in ARCHIVE_KINDS:
        if name.endswith(suffix) and len(name) > len(suffix):
            return kind
    return None


def archive_stem(path: Path) -> str:
    """The archive's name without its archive suffix: train.zip -> train, data.tar.gz -> data."""
    for suffix, _ in ARCHIVE_KINDS:
        if path.name.lower().endswith(suffix):
            return path.name[: -len(suffix)]
    return path.name


def seven_zip_program() -> str | None:
    """The path of a 7z program on PATH (7z, 7za or 7zr), or None."""
    for name in SEVEN_ZIP_PROGRAMS:
        found = shutil.which(name)
        if found:
            return found
    return None


def _size(count: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if count < 1024:
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} TiB"


@dataclass
class ExtractBudget:
    """The bytes the archives of one view may still write (`limit` in all), and the free disk to keep on the
    disk holding `disk`."""

    limit: int = MAX_EXTRACTED_BYTES
    disk: Path = Path(".")
    reserve: int = DISK_RESERVE_BYTES
    used: int = 0
    _unchecked: int = field(default=0, repr=False)

    def expect(self, archive: Path, size: int) -> None:
        """Refuse up front an archive that says it holds more than the cap allows or the disk has room for."""
        if self.used + size > self.limit:
            raise ArchiveError(self._over_cap(archive))
        free = shutil.disk_usage(self.disk).free
        if size > free - self.reserve:
            raise ArchiveError(self._disk_full(archive, size, free))

    def take(self, archive: Path, size: int) -> None:
        """Count `size` bytes about to be written; ArchiveError past the cap or when the disk is nearly full."""
        self.used += size
        if self.used > self.limit:
            raise ArchiveError(self._over_cap(archive))
        self._unchecked += size
        if self._unchecked >= DISK_CHECK_BYTES:
            self._unchecked = 0
            free = shutil.disk_usage(self.disk).free
            if free < self.reserve:
                raise ArchiveError(self._disk_full(archive, size, free))

    def _over_cap(self, archive: Path) -> str:
        return (
            f"{archive.name} expands to more than {_size(self.limit)} (with the other archives of its dir), "
            "the cap on what a public dir's archives may extract to, so it is not extracted: it may be a zip "
            "bomb (if it is genuine, raise MAX_EXTRACTED_BYTES in swarm/competitions/archive_extract.py)"
        )

    def _disk_full(self, archive: Path, size: int, free: int) -> str:
        return (
            f"extracting {archive.name} needs {_size(size)} more, but the disk holding {self.disk} has "
            f"{_size(free)} free and {_size(self.reserve)} of it is kept spare; free space there or point "
            "project.cache_dir at a larger disk"
        )


def extract_archive(archive: Path, dest: Path, budget: ExtractBudget) -> None:
    """Extract `archive` into the empty dir `dest`; ArchiveError naming it when it cannot be read safely (what
    was written by then stays in `dest`, for the caller to remove)."""
    kind = archive_kind(archive)
    try:
        if kind == "zip":
            _extract_zip(archive, dest, budget)
        elif kind == "tar":
            _extract_tar(archive, dest, budget)
        elif kind == "7z":
            _extract_7z(archive, dest, budget)
        else:
            raise ArchiveError(f"{archive.name} is not an archive (zip, tar, tar.gz, tar.bz2, tar.xz or 7z)")
    except ArchiveError:
        raise
    except (*_READ_ERRORS, ValueError) as exc:
        raise ArchiveError(f"{archive.name} cannot be read: {exc}") from None


def member_path(archive: Path, name: str) -> PurePosixPath | None:
    """Where member `name` goes, relative to the archive's dir (None for the dir itself); ArchiveError for one
    that would land outside it: an absolute path, a drive, or a `..` part (a backslash counts as a separator)."""
    text = name.replace("\\", "/")
    if text.startswith("/") or re.match(r"[A-Za-z]:", text):
        raise ArchiveError(
            f"{archive.name} holds a member with an absolute path ({name!r}), so it is not extracted"
        )
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(
            f"{archive.name} holds a member that points outside it ({name!r}), so it is not extracted"
        )
    return PurePosixPath(*parts) if parts else None


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root + os.sep)


class _Writer:
    """Writes the members of one archive under `dest`: files and folders at once, symbolic links at the end."""

    def __init__(self, archive: Path, dest: Path, budget: ExtractBudget) -> None:
        self.archive, self.dest, self.budget = archive, dest, budget
        self.links: list[tuple[PurePosixPath, str]] = []

    def folder(self, member: PurePosixPath) -> None:
        (self.dest / member).mkdir(parents=True, exist_ok=True)

    def file(self, member: PurePosixPath, stream: BinaryIO) -> None:
        path = self.dest / member
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as out:
            while chunk := stream.read(CHUNK_BYTES):
                self.budget.take(self.archive, len(chunk))
                out.write(chunk)

    def symlink(self, member: PurePosixPath, target: str) -> None:
        if not target or target.startswith("/") or "\0" in target:
            raise self._outside(member, target)
        self.links.append((member, target))

    def hardlink(self, member: PurePosixPath, target: str) -> None:
        """A tar hard link: `target` names a file extracted before it."""
        try:
            source = member_path(self.archive, target)
        except ArchiveError:
            raise self._outside(member, target, "hard link") from None
        path = self.dest / member
        if source is None or not (self.dest / source).is_file() or (self.dest / source).is_symlink():
            raise ArchiveError(
                f"{self.archive.name} holds a hard link {str(member)!r} to {target!r}, which is not a file "
                "extracted before it, so it is not extracted"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        try:
            os.link(self.dest / source, path)
        except OSError:
            with open(self.dest / source, "rb") as stream:
                self.file(member, stream)

    def finish(self) -> None:
        """Make the symbolic links, each checked where it resolves (also through the links made after it)."""
        root = os.path.realpath(self.dest)
        for member, target in self.links:
            path = self.dest / member
            if not _inside(root, os.path.realpath(path.parent)):
                raise self._outside(member, target)
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists() or path.is_symlink():
                raise ArchiveError(f"{self.archive.name} holds {str(member)!r} twice, once as a link")
            os.symlink(target, path)
            if not _inside(root, os.path.realpath(path)):
                path.unlink()
                raise self._outside(member, target)
        for member, target in self.links:
            if not _inside(root, os.path.realpath(self.dest / member)):
                raise self._outside(member, target)

    def _outside(self, member: PurePosixPath, target: str, kind: str = "link") -> ArchiveError:
        return ArchiveError(
            f"{self.archive.name} holds a {kind} {str(member)!r} -> {target!r} that points outside it, so it is "
            "not extracted"
        )


def _refuse_special(archive: Path, name: str) -> ArchiveError:
    return ArchiveError(
        f"{archive.name} holds {name!r}, a device file, fifo or socket, so it is not extracted"
    )


def _extract_zip(archive: Path, dest: Path, budget: ExtractBudget) -> None:
    with zipfile.ZipFile(archive) as zipped:
        members = [(info, member_path(archive, info.filename)) for info in zipped.infolist()]
        unknown = sorted({info.compress_type for info, _ in members} - _ZIP_METHODS)
        if unknown:  # Deflate64 (9) and the like: Python cannot read them, 7z can
            if seven_zip_program() is None:
                raise ArchiveError(
                    f"{archive.name} uses a zip compression Python cannot read (method {unknown[0]}, e.g. "
                    "Deflate64); put a 7z program (7z, 7za or 7zr) on PATH, which reads it, or extract it yourself"
                )
            zipped.close()
            _extract_7z(archive, dest, budget)
            return
        for info, _ in members:
            if info.flag_bits & 0x1:
                raise ArchiveError(
                    f"{archive.name} is encrypted ({info.filename!r} needs a password), so it cannot be read"
                )
            if stat.S_IFMT(info.external_attr >> 16) not in _PLAIN_TYPES:
                raise _refuse_special(archive, info.filename)
        budget.expect(archive, sum(info.file_size for info, _ in members))
        writer = _Writer(archive, dest, budget)
        for info, member in members:
            if member is None:
                continue
            if info.is_dir():
                writer.folder(member)
            elif stat.S_ISLNK(info.external_attr >> 16):
                if info.file_size > MAX_LINK_TARGET:
                    raise writer._outside(member, "(a target too long to be a path)")
                writer.symlink(member, zipped.read(info).decode("utf-8", "replace"))
            else:
                with zipped.open(info) as stream:
                    writer.file(member, stream)
        writer.finish()


def _extract_tar(archive: Path, dest: Path, budget: ExtractBudget) -> None:
    # Stream mode: one pass through a compressed tar; the cap is enforced on the bytes as they are written.
    with tarfile.open(archive, mode="r|*") as tar:
        writer = _Writer(archive, dest, budget)
        for info in tar:
            member = member_path(archive, info.name)
            if not (info.isfile() or info.isdir() or info.issym() or info.islnk()):
                raise _refuse_special(archive, info.name)
            if member is None:
                continue
            if info.isdir():
                writer.folder(member)
            elif info.issym():
                writer.symlink(member, info.linkname)
            elif info.islnk():
                writer.hardlink(member, info.linkname)
            else:
                stream = tar.extractfile(info)
                if stream is None:
                    raise ArchiveError(f"{archive.name}: its member {info.name!r} cannot be read")
                writer.file(member, stream)
        writer.finish()


def _extract_7z(archive: Path, dest: Path, budget: ExtractBudget) -> None:
    """Through the 7z program (or the one-sentence error naming what to install): its listing is checked first (paths, sizes; links and special files refused),
    then what it wrote is checked again (no link, no special file) and counted against the budget."""
    program = seven_zip_program()
    if program is None:
        raise ArchiveError(
            f"{archive.name} is a 7z archive and no 7z program (7z, 7za or 7zr) is on PATH, so it cannot be "
            "read; install one (`apt-get install p7zip-full`) or extract it into the public dir yourself"
        )
    entries = _list_7z(program, archive)
    for entry in entries:
        name = entry.get("Path", "")
        member_path(archive, name)
        mode = entry.get("Attributes", "").split(" ")[-1]
        if len(mode) == 10 and mode[0] == "l":
            raise ArchiveError(
                f"{archive.name} holds a link {name!r} (refused in 7z archives), so it is not extracted"
            )
        if len(mode) == 10 and mode[0] in "cbps":
            raise _refuse_special(archive, name)
    budget.expect(archive, sum(int(entry.get("Size") or 0) for entry in entries))
    _run_7z([program, "x", "-y", "-bd", f"-o{dest}", str(archive)], archive)
    for path in sorted(dest.rglob("*")):
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            raise _refuse_special(archive, str(path.relative_to(dest)))
        if path.is_file():
            budget.take(archive, path.stat().st_size)


def _list_7z(program: str, archive: Path) -> list[dict[str, str]]:
    """The members 7z lists (`l -slt`): one dict of its `Key = Value` lines per member."""
    text = _run_7z([program, "l", "-slt", str(archive)], archive)
    _, _, members = text.partition("\n----------\n")
    entries: list[dict[str, str]] = []
    for block in members.split("\n\n"):
        entry = dict(line.split(" = ", 1) for line in block.splitlines() if " = " in line)
        if "Path" in entry:
            entries.append(entry)
    return entries


def _run_7z(command: list[str], archive: Path) -> str:
    try:
        done = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,  # an encrypted archive fails instead of asking for a password
            capture_output=True,
            text=True,
            errors="replace",
            timeout=SEVEN_ZIP_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ArchiveError(f"{archive.name} cannot be read by {command[0]}: {exc}") from None
    if done.returncode != 0:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        raise ArchiveError(
            f"{archive.name} cannot be read by {Path(command[0]).name}: {' '.join(lines[-2:])}"
        )
    return done.stdout
