"""Walking, removing and re-owning trees a solution made, without recursion or path-length limits.

An attacker controls the shape of these trees (a 1500-deep chain of dirs makes `shutil.rmtree` and `os.walk`
raise RecursionError, a deeper one makes paths longer than PATH_MAX). `iter_tree` reads with an explicit stack
and skips what it cannot list; the removing and re-owning walks hold one directory fd at a time, descend with
O_NOFOLLOW (never through a symlink) and climb back with "..", checking that they arrive where they came from;
the only memory they keep per level is a few names.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class TreeMoved(OSError):
    """A directory was moved while being walked (its ".." is not where the walk came from)."""


def iter_tree(
    top: str | os.PathLike, descend: Callable[[os.DirEntry], bool] | None = None
) -> Iterator[os.DirEntry]:
    """Every entry under `top`, names in order within a directory, walked with an explicit stack. Directories
    are entered (never through a symlink) when `descend(entry)` is true (default: always); what cannot be
    listed (a path longer than PATH_MAX, say) is skipped."""
    stack = [os.fspath(top)]
    while stack:
        try:
            with os.scandir(stack.pop()) as listing:
                entries = sorted(listing, key=lambda entry: entry.name, reverse=True)
        except OSError:
            continue
        for entry in reversed(entries):
            yield entry
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and (descend is None or descend(entry)):
                stack.append(entry.path)


def _ident(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _up(fd: int, expected: tuple[int, int]) -> int:
    """The fd of the parent of `fd` (which is closed), checked to be the dir we came from."""
    parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
    os.close(fd)
    if _ident(parent) != expected:
        os.close(parent)
        raise TreeMoved(f"a directory moved while its tree was walked (expected inode {expected[1]})")
    return parent


def _entries(fd: int) -> list[tuple[str, os.stat_result]]:
    with os.scandir(fd) as found:
        entries = list(found)
    result = []
    for entry in entries:
        with contextlib.suppress(FileNotFoundError):
            result.append((entry.name, os.stat(entry.name, dir_fd=fd, follow_symlinks=False)))
    return result


def remove_tree(path: str | os.PathLike, ignore_errors: bool = False) -> None:
    """Delete `path` and everything under it (a file or symlink is just unlinked)."""
    path = os.fspath(path)
    errors: list[OSError] = []
    try:
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            os.unlink(path)
            return
        _empty_dir(path, errors)
        os.rmdir(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        errors.append(exc)
    if errors and not ignore_errors:
        raise errors[0]


def _empty_dir(path: str, errors: list[OSError]) -> None:
    fd = os.open(path, _DIR_FLAGS)
    stuck: set[tuple[int, int]] = set()  # dirs that could not be removed: never entered again
    stack: list[tuple[str, tuple[int, int]]] = []  # (name of the dir entered, identity of its parent)
    try:
        with contextlib.suppress(OSError):
            os.chmod(fd, 0o700)  # a solution may leave dirs we cannot list or write
        while True:
            subdir = None
            for name, info in _entries(fd):
                if stat.S_ISDIR(info.st_mode):
                    if subdir is None and (info.st_dev, info.st_ino) not in stuck:
                        subdir = name
                    continue
                try:
                    os.unlink(name, dir_fd=fd)
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    errors.append(exc)
            if subdir is not None:
                try:
                    child = os.open(subdir, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    errors.append(exc)
                    info = os.stat(subdir, dir_fd=fd, follow_symlinks=False)
                    stuck.add((info.st_dev, info.st_ino))
                    continue
                stack.append((subdir, _ident(fd)))
                os.close(fd)
                fd = child
                with contextlib.suppress(OSError):
                    os.chmod(fd, 0o700)
                continue
            if not stack:
                return
            name, parent = stack.pop()
            here = _ident(fd)
            fd = _up(fd, parent)
            try:
                os.rmdir(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                errors.append(exc)
                stuck.add(here)
    finally:
        os.close(fd)


def chown_tree(path: str | os.PathLike, uid: int, gid: int) -> None:
    """lchown `path` and everything under it; a non-dir with other hard links is left alone (it may be a
    file elsewhere that a solution linked in)."""
    fd = os.open(os.fspath(path), _DIR_FLAGS)
    stack: list[tuple[list[str], tuple[int, int]]] = []  # (subdirs left to visit, identity of that level)
    try:
        os.chown(fd, uid, gid)
        pending = _chown_level(fd, uid, gid)
        while True:
            if pending:
                name = pending.pop()
                try:
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError:  # gone, or replaced by a symlink
                    continue
                stack.append((pending, _ident(fd)))
                os.close(fd)
                fd = child
                os.chown(fd, uid, gid)
                pending = _chown_level(fd, uid, gid)
                continue
            if not stack:
                return
            pending, parent = stack.pop()
            fd = _up(fd, parent)
    finally:
        os.close(fd)


def _chown_level(fd: int, uid: int, gid: int) -> list[str]:
    """lchown the non-dirs of one dir; the names of its subdirs."""
    subdirs = []
    for name, info in _entries(fd):
        if stat.S_ISDIR(info.st_mode):
            subdirs.append(name)
        elif info.st_nlink == 1:
            with contextlib.suppress(FileNotFoundError):
                os.chown(name, uid, gid, dir_fd=fd, follow_symlinks=False)
    return subdirs
