"""Atomic file writes: a reader sees the old content or the new, never half of one.

One durability policy for every file the run writes whole: a temp file in the same dir (so the rename stays on
one filesystem), written, flushed and fsynced, given its mode, renamed over the target with `os.replace`, then
the dir fsynced so the rename survives a power cut. On any failure the temp file is removed and the old file is
left as it was. Files are private (0600) unless the caller asks for another mode.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

PRIVATE = 0o600
PUBLIC = 0o644


def write_bytes_atomic(path: Path, data: bytes, mode: int = PRIVATE) -> None:
    """Replace `path` with `data` atomically and durably; the file gets `mode`."""
    _replace_with(Path(path), lambda handle: handle.write(data), mode)


def write_text_atomic(path: Path, text: str, mode: int = PRIVATE) -> None:
    """Replace `path` with `text` (UTF-8) atomically and durably; the file gets `mode`."""
    write_bytes_atomic(path, text.encode("utf-8"), mode)


def write_json_atomic(path: Path, data: Any, mode: int = PRIVATE) -> None:
    write_text_atomic(path, json.dumps(data, indent=1, sort_keys=False, default=str), mode)


def copy_file_atomic(source: Path, dest: Path, mode: int = PRIVATE) -> None:
    """Replace `dest` with a copy of `source` atomically and durably (streamed, never held in memory)."""
    with open(source, "rb") as src:
        _replace_with(Path(dest), lambda handle: shutil.copyfileobj(src, handle), mode)


def copy_tree_atomic(source: Path, dest: Path, ignore: Callable[[str, list[str]], Any] | None = None) -> None:
    """Copy the directory `source` to the new path `dest` so that a partial copy never shows under `dest`:
    copied beside it under a temp name, renamed into place, the parent dir fsynced; the temp copy is removed on
    any failure. `ignore` is `shutil.copytree`'s."""
    dest = Path(dest)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    try:
        shutil.copytree(source, tmp, ignore=ignore, dirs_exist_ok=True)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(dest.parent)


def replace_dir_atomic(dest: Path, fill: Callable[[Path], Any]) -> None:
    """Replace the directory `dest` with one `fill` writes, so that a reader (or a kill at any moment) finds the
    old directory whole or the new one whole: filled beside it under a temp name, then swapped with it in one step
    (`renameat2`'s RENAME_EXCHANGE), the old copy removed. Where the kernel or file system cannot swap, two
    renames: for an instant between them `dest` is absent, and a kill then leaves the new copy under its temp
    name."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    for stale in dest.parent.glob(f".{dest.name}.*.tmp"):  # what a killed replace left
        shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    try:
        fill(tmp)
        if not dest.exists():
            os.rename(tmp, dest)
        elif not _exchange(tmp, dest):
            old = dest.with_name(f".{dest.name}.{uuid.uuid4().hex}.tmp")
            os.rename(dest, old)
            os.rename(tmp, dest)
            tmp = old
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    fsync_dir(dest.parent)


@functools.cache
def _renameat2() -> Any:
    """libc's renameat2, or None where this libc lacks it."""
    return getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)


def _exchange(a: Path, b: Path) -> bool:
    """Swap the paths `a` and `b` in one step; False where this libc, kernel or file system cannot."""
    rename = _renameat2()
    if rename is None:
        return False
    at_cwd, exchange = -100, 2  # AT_FDCWD, RENAME_EXCHANGE
    return rename(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), exchange) == 0


def append_bytes_durable(
    path: Path, data: bytes, cut_to: int | None = None, create_mode: int | None = None
) -> int:
    """Append `data` to the file `path` and fsync it; returns the new size. With `cut_to`, the file is first cut
    to that many bytes (a torn tail a kill left). With `create_mode`, a missing file is created with that mode
    (else it must exist). A kill mid-append leaves what was there before and a prefix of `data`, so a reader of
    complete lines sees the old records and maybe some new ones."""
    flags = os.O_WRONLY | os.O_APPEND | (os.O_CREAT if create_mode is not None else 0)
    fd = os.open(path, flags, create_mode if create_mode is not None else 0o600)
    try:
        if cut_to is not None:
            os.ftruncate(fd, cut_to)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def fsync_dir(directory: Path) -> None:
    """Make the entries of `directory` (a rename, a new file) durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_json(path: Path) -> Any:
    """Read JSON, naming the file in the error when it is missing or broken."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from None


def _replace_with(path: Path, write: Callable[[BinaryIO], Any], mode: int) -> None:
    """The policy: temp file beside `path`, `write` into it, fsync, chmod, rename over, fsync the dir."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)
