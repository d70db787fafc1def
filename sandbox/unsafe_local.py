"""`execution.sandbox=unsafe-local`: the supervised subprocess with the caller's own rights, NOT isolated.

The explicit opt-in for hosts with neither Docker nor user namespaces. Every run warns, and results and the
sandbox say isolated=False, so the run dir, the report and the summary can record it.
"""

from __future__ import annotations

import logging
import os

from sandbox.base import RawRun
from sandbox.gpus import GpuInfo
from sandbox.local import LocalSandbox
from sandbox.workspace import NodeDirs

log = logging.getLogger(__name__)


class UnsafeLocalSandbox(LocalSandbox):
    """Runs solutions as the caller (rlimits, timeout and process-tree kill still apply)."""

    name = "unsafe-local"

    def _can_drop_privileges(self) -> bool:
        return False

    @property
    def description(self) -> str:
        return f"unsafe-local: solutions run as uid {os.geteuid()} with your rights, NOT isolated"

    def _execute(self, node_dirs: NodeDirs, timeout_s: float, gpus: tuple[GpuInfo, ...] = ()) -> RawRun:
        log.warning(
            "execution.sandbox=unsafe-local: running %s as uid %d with your rights, NOT isolated (it can read "
            "your files and keys and reach your network)",
            node_dirs.node_id,
            os.geteuid(),
        )
        return super()._execute(node_dirs, timeout_s, gpus)
