"""Who owns a node's writable dirs: the execution's uid while it runs (mode 0700), the caller afterwards.

So an execution can write its own working/ and submission/ and nobody else's, during its run or after it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from sandbox.tree_ops import chown_tree
from sandbox.workspace import NodeDirs


def _chown_tree(top: Path, uid: int, gid: int) -> None:
    """lchown `top` and everything under it, never following symlinks nor touching hard-linked files (a hard
    link to a file elsewhere must not hand that file over); any depth (sandbox.tree_ops)."""
    with contextlib.suppress(FileNotFoundError):
        chown_tree(top, uid, gid)


def claim_dirs(node_dirs: NodeDirs, uid: int) -> None:
    """Give working/ and submission/ to `uid`, closed to everyone else (0700)."""
    for top in (node_dirs.working, node_dirs.submission):
        _chown_tree(top, uid, uid)
        top.chmod(0o700)


def release_dirs(node_dirs: NodeDirs) -> None:
    """Take working/ and submission/ back for the caller, so no later execution can touch them."""
    for top in (node_dirs.working, node_dirs.submission):
        if top.is_dir() and not top.is_symlink():
            _chown_tree(top, os.geteuid(), os.getegid())
            top.chmod(0o700)
