"""Files on the host that other users (so a solution that runs as another uid) could read: checked before a run.

The docker and bwrap sandboxes never mount them; the local backend's slot uids see whatever the file modes let
"others" see. A run warns about a `.env` (API keys) or a competition's private answers readable by others.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from sandbox.tree_ops import iter_tree

SCAN_LIMIT = 10_000  # entries looked at under a private dir


def others_can_read(path: Path) -> bool:
    """o+r on `path` and o+x on every dir above it (symlinks resolved)."""
    try:
        real = path.resolve(strict=True)
        if not real.stat().st_mode & stat.S_IROTH:
            return False
        return all(parent.stat().st_mode & stat.S_IXOTH for parent in real.parents)
    except OSError:
        return False


def first_readable_file(top: Path, limit: int = SCAN_LIMIT) -> Path | None:
    """A regular file under `top` that others can read, or None (an explicit stack: any depth)."""
    if not top.is_dir() or not others_can_read(top) or not top.stat().st_mode & stat.S_IXOTH:
        return None

    def passable(entry: os.DirEntry) -> bool:
        return bool(entry.stat(follow_symlinks=False).st_mode & stat.S_IXOTH)

    for seen, entry in enumerate(iter_tree(top, descend=passable), 1):
        if seen > limit:
            return None
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISREG(info.st_mode) and info.st_mode & stat.S_IROTH:
            return Path(entry.path)
    return None


def exposure_warnings(env_files: Iterable[Path], private_dir: Path | None) -> list[str]:
    """One sentence per host file a solution running as another uid could read."""
    warnings = []
    for env_file in dict.fromkeys(Path(p).resolve() for p in env_files):
        if env_file.is_file() and others_can_read(env_file):
            warnings.append(
                f"{env_file} is readable by other users (mode {env_file.stat().st_mode & 0o777:o}): any user "
                f"of this machine, and a solution run by the local sandbox, can read the keys in it; chmod 600 it."
            )
    if private_dir is not None:
        leaked = first_readable_file(Path(private_dir))
        if leaked is not None:
            warnings.append(
                f"the competition's private files are readable by other users (e.g. {leaked}): the docker and "
                "bwrap sandboxes mount only its public dir, but a solution run by the local sandbox could read "
                f"the answers; chmod -R o-rwx {private_dir}."
            )
    return warnings
