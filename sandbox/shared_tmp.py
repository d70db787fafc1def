"""Files a sandbox uid leaves in the world-writable dirs (/tmp, /var/tmp, /dev/shm, /run/lock): measured and removed.

A local solution can write there besides its own dirs; a slot uid is used by one execution at a time, so every
top-level entry it owns there is that execution's.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator

from sandbox.disk_usage import tree_bytes
from sandbox.tree_ops import remove_tree

SHARED_TMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")


def owned_entries(uid: int, dirs: tuple[str, ...] = SHARED_TMP_DIRS) -> Iterator[tuple[str, bool]]:
    """(path, is_dir) of each top-level entry of `dirs` owned by `uid` (symlinks count as files)."""
    for top in dirs:
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for entry in entries:
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if info.st_uid == uid:
                    yield entry.path, stat.S_ISDIR(info.st_mode)


def owned_bytes(uid: int, dirs: tuple[str, ...] = SHARED_TMP_DIRS) -> int:
    """Bytes charged for everything `uid` owns at the top of `dirs`."""
    return sum(tree_bytes(path) for path, _ in owned_entries(uid, dirs))


def remove_owned(uid: int, dirs: tuple[str, ...] = SHARED_TMP_DIRS) -> int:
    """Delete what `uid` owns at the top of `dirs` (never following symlinks). Returns how many entries."""
    if uid == 0 or uid == os.geteuid():
        raise ValueError(f"refusing to delete the temp files of uid {uid}")
    removed = 0
    for path, is_dir in list(owned_entries(uid, dirs)):
        with contextlib.suppress(FileNotFoundError):
            if is_dir:
                remove_tree(path, ignore_errors=True)  # attacker-shaped: no recursion limit
            else:
                os.unlink(path)
            removed += 1
    return removed
