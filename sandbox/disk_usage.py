"""How much disk a tree takes, counted so that neither big files nor many small ones slip through."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

MIN_ENTRY_BYTES = 4096  # an empty file or dir still costs an inode and a block: caps file counts too


def entry_bytes(info: os.stat_result) -> int:
    """Bytes one entry is charged: its apparent or allocated size, at least one block."""
    return max(info.st_size, info.st_blocks * 512, MIN_ENTRY_BYTES)


def tree_bytes(path: str | os.PathLike) -> int:
    """Bytes charged for `path` and, if it is a directory, everything under it (symlinks not followed)."""
    try:
        info = os.lstat(path)
    except OSError:
        return 0
    total = entry_bytes(info)
    stack = [os.fspath(path)] if stat.S_ISDIR(info.st_mode) else []
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:  # removed meanwhile, or not readable
            continue
        with entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += entry_bytes(info)
                if stat.S_ISDIR(info.st_mode):
                    stack.append(entry.path)
    return total


def total_bytes(paths: Iterable[str | os.PathLike]) -> int:
    """The sum of tree_bytes over `paths`."""
    return sum(tree_bytes(path) for path in paths)
