"""Per-run directory layout: shared read-only input, one dir per node, the best solution and archives.

<root>/input/                    the competition's public files (a symlink to, or a copy of, public_dir)
<root>/nodes/<node_id>/          cwd of an execution: solution.py, input -> ../../input, working/, submission/
<root>/best_solution/            the best node so far (swarm.pipeline.best_so_far), then what the run delivers
<root>/archives/<node_id>.zip    a node's code, result and outputs
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from sandbox.result import ExecutionResult, list_files
from sandbox.tree_ops import remove_tree

NODE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
CODE_FILE = "solution.py"
SUBMISSION_FILE = "submission.csv"


class WorkspaceError(ValueError):
    """A workspace path or id is invalid (for example it escapes the workspace)."""


@dataclass(frozen=True)
class NodeDirs:
    """The directories of one node's execution."""

    node_id: str
    root: Path
    working: Path
    submission: Path
    input: Path

    @property
    def code_path(self) -> Path:
        return self.root / CODE_FILE

    @property
    def submission_file(self) -> Path:
        return self.submission / SUBMISSION_FILE


class Workspace:
    """The directory tree of one run. Every path it hands out stays inside `root`."""

    def __init__(self, root: Path, public_dir: Path, *, copy_input: bool = False) -> None:
        self.root = Path(root).resolve()
        self.public_dir = Path(public_dir).resolve()
        if not self.public_dir.is_dir():
            raise WorkspaceError(f"public_dir {self.public_dir} is not a directory")
        if (self.public_dir / "private").exists():
            raise WorkspaceError(
                f"public_dir {self.public_dir} contains a 'private' dir; pass the public files only"
            )
        if self.root == self.public_dir or self.public_dir in self.root.parents:
            raise WorkspaceError(f"workspace root {self.root} must not lie inside public_dir")
        self.root.mkdir(parents=True, exist_ok=True)
        for sub in ("nodes", "best_solution", "archives"):
            (self.root / sub).mkdir(exist_ok=True)
        self._link_input(copy_input)

    @property
    def input_dir(self) -> Path:
        return self.root / "input"

    @property
    def nodes_dir(self) -> Path:
        return self.root / "nodes"

    @property
    def best_solution_dir(self) -> Path:
        return self.root / "best_solution"

    @property
    def archives_dir(self) -> Path:
        return self.root / "archives"

    def _link_input(self, copy_input: bool) -> None:
        link = self.input_dir
        if link.is_symlink() and link.resolve() == self.public_dir and not copy_input:
            return
        if link.exists() or link.is_symlink():
            if link.is_symlink() or link.is_file():
                link.unlink()
            else:
                shutil.rmtree(link)
        if copy_input:
            shutil.copytree(self.public_dir, link, symlinks=False)
            for path in [link, *link.rglob("*")]:
                path.chmod(0o755 if path.is_dir() else 0o644)
        else:
            link.symlink_to(self.public_dir, target_is_directory=True)

    def resolve(self, relative: str | Path) -> Path:
        """`root / relative`, refusing anything that escapes the workspace."""
        candidate = (self.root / relative).resolve()
        if candidate != self.root and self.root not in candidate.parents:
            raise WorkspaceError(f"path {str(relative)!r} escapes the workspace {self.root}")
        return candidate

    def _node_root(self, node_id: str) -> Path:
        if not isinstance(node_id, str) or not NODE_ID_RE.match(node_id) or ".." in node_id:
            raise WorkspaceError(
                f"invalid node id {node_id!r}: use 1-128 letters, digits, '.', '_' or '-', not starting with a symbol"
            )
        return self.resolve(Path("nodes") / node_id)

    def node_dirs(self, node_id: str, input_dir: Path | None = None) -> NodeDirs:
        """Create (if needed) and return the dirs of `node_id`; its `input` is the run's input, or `input_dir`
        (the harness's refit reads the competition's own public files)."""
        root = self._node_root(node_id)
        dirs = NodeDirs(
            node_id=node_id,
            root=root,
            working=root / "working",
            submission=root / "submission",
            input=root / "input",
        )
        dirs.working.mkdir(parents=True, exist_ok=True)
        dirs.submission.mkdir(exist_ok=True)
        target = Path(input_dir).resolve() if input_dir is not None else Path("..") / ".." / "input"
        if dirs.input.is_symlink() and Path(os.readlink(dirs.input)) != target:
            dirs.input.unlink()
        if not dirs.input.is_symlink():
            dirs.input.symlink_to(target, target_is_directory=True)
        return dirs

    def archive(
        self,
        node_id: str,
        result: ExecutionResult | None = None,
        *,
        extra: dict | None = None,
        max_file_mb: float = 50.0,
    ) -> Path:
        """Zip a node's code, result (as result.json), extra metadata and outputs into archives/<node_id>.zip.

        Symlinks are never followed and files above `max_file_mb` are left out.
        """
        root = self._node_root(node_id)
        if not root.is_dir():
            raise WorkspaceError(f"node {node_id!r} has no directory in {self.nodes_dir}")
        target = self.archives_dir / f"{node_id}.zip"
        tmp = target.with_suffix(".zip.tmp")
        try:
            with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
                code = root / CODE_FILE
                if code.is_file() and not code.is_symlink():
                    zf.write(code, CODE_FILE)
                if result is not None:
                    zf.writestr("result.json", result.model_dump_json(indent=2))
                if extra:
                    zf.writestr("meta.json", json.dumps(extra, indent=2, default=str))
                for rel in list_files(root, ("working", "submission"), limit=10_000):
                    path = root / rel
                    if path.stat().st_size <= max_file_mb * 1e6:
                        zf.write(path, rel)
            tmp.replace(target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return target

    def cleanup(self, node_id: str | None = None, *, keep_archives: bool = True) -> None:
        """Remove one node's dir, or all node dirs when `node_id` is None (archives too unless kept)."""
        if node_id is not None:
            root = self._node_root(node_id)
            if root.exists():
                remove_tree(root)  # a solution's tree: any depth
            if not keep_archives:
                (self.archives_dir / f"{node_id}.zip").unlink(missing_ok=True)
            return
        remove_tree(self.nodes_dir, ignore_errors=True)
        self.nodes_dir.mkdir()
        if not keep_archives:
            remove_tree(self.archives_dir, ignore_errors=True)
            self.archives_dir.mkdir()
