"""The bwrap backend: the local backend's supervisor, limits and clean-up, with the solution inside bubblewrap.

Per execution: new network (its own loopback only), pid, ipc and uts namespaces, `--die-with-parent`,
`--new-session`, and a mount view holding only what sandbox.bwrap_mounts lists. As a plain user bwrap runs in
a new user namespace; as root it runs without one and `setpriv` makes the solution a slot uid (sandbox.slots)
with no capabilities and no_new_privs, so a fork bomb, `kill -1` and files it leaves are that uid's alone.
rlimits, the timeout, the disk cap, the output cap and the process-tree kill are LocalSandbox's.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from sandbox.base import SandboxUnavailable
from sandbox.bwrap_locate import find_bwrap, probe
from sandbox.bwrap_mounts import bwrap_argv
from sandbox.config import ExecutionConfig
from sandbox.gpus import GpuInfo, device_nodes
from sandbox.hidden import hidden_paths
from sandbox.local import LocalSandbox
from sandbox.workspace import CODE_FILE, NodeDirs


def _bounding_set() -> str:
    """This process's capability bounding set as /proc shows it (hex), or "unknown"."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapBnd:"):
                return line.split()[1]
    except OSError:
        pass
    return "unknown"


def refusal(bwrap: str, failure: str, *, root: bool) -> str:
    """The one sentence a failed probe gives: the step that failed, what it said, and what to do."""
    if failure.startswith("setpriv"):
        return (
            f"the bwrap sandbox cannot drop a solution to a slot uid here: setpriv failed ({failure}) with "
            f"root's capability bounding set {_bounding_set()}; it needs CAP_SETUID, CAP_SETGID and CAP_SETPCAP "
            "in it (give the VM or container those capabilities), or use execution.sandbox=docker"
        )
    if "cap" in failure.lower() and root:
        return (
            f"bubblewrap ({bwrap}) cannot keep the capabilities it needs as root ({failure}; bounding set "
            f"{_bounding_set()}): give the VM or container CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID and "
            "CAP_SETPCAP, or use execution.sandbox=docker"
        )
    how = (
        "root needs CAP_SYS_ADMIN to create them (a container may lack it: run it with that capability)"
        if root
        else "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or "
        "kernel.apparmor_restrict_unprivileged_userns=0), or run as root"
    )
    return f"bubblewrap ({bwrap}) cannot create its namespaces here: {failure}; {how}"


class BwrapSandbox(LocalSandbox):
    """Runs solutions in a bubblewrap sandbox; raises SandboxUnavailable when bwrap cannot build one here."""

    name = "bwrap"

    def __init__(self, cfg: ExecutionConfig, parallel: int = 1, **kwargs: Any) -> None:
        super().__init__(cfg, parallel, **kwargs)
        self.bwrap = find_bwrap()
        self.setpriv = shutil.which("setpriv") if self.drop_privileges else None
        if self.drop_privileges and not self.setpriv:
            raise SandboxUnavailable(
                "the bwrap sandbox as root needs setpriv (util-linux) to drop to a slot uid"
            )
        try:
            self.hidden = hidden_paths(self.python, cfg.hidden_packages)
        except (OSError, RuntimeError) as exc:
            raise SandboxUnavailable(f"cannot list the packages to hide from solutions: {exc}") from exc
        failure = probe(self.bwrap, tuple(self._argv(None) + ["--", *self._drop(), "/bin/true"]))
        if failure is not None:
            raise SandboxUnavailable(refusal(self.bwrap, failure, root=self.drop_privileges))

    def _can_drop_privileges(self) -> bool:
        return os.geteuid() == 0  # bwrap binds the interpreter itself, so any slot uid can run it

    @property
    def isolated(self) -> bool:
        return True

    @property
    def description(self) -> str:
        who = (
            f"slot uid {self.slots.base}+"
            if self.drop_privileges
            else f"uid {os.geteuid()} in a user namespace"
        )
        return f"bwrap: net/pid/ipc/uts namespaces, own mount view (no /run, home, repo), {who}"

    def _check_reachable(self, node_dirs: NodeDirs) -> None:
        """Nothing to check: bwrap binds every dir the solution needs, whatever the modes of its parents."""

    def _argv(self, node_dirs: NodeDirs | None, gpus: tuple[GpuInfo, ...] = ()) -> list[str]:
        return bwrap_argv(
            self.bwrap,
            node_dirs,
            python=self.python,
            hidden=self.hidden,
            # Their files are memory: no bigger than the memory limit (the watch counts them as well).
            tmp_bytes=min(self.cfg.disk_mb, int(self.cfg.memory_mb)) * 1024 * 1024,
            unshare_user=not self.drop_privileges,
            devices=device_nodes(gpus),
        )

    def _drop(self, uid: int | None = None) -> list[str]:
        """As root: setpriv to the slot uid (the probe uses the one that is never a slot)."""
        if not self.drop_privileges:
            return []
        target = str(uid if uid is not None else self.slots.base - 1)
        return [
            self.setpriv, "--reuid", target, "--regid", target, "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs", "--",
        ]  # fmt: skip

    def _solution_argv(
        self, node_dirs: NodeDirs, uid: int | None, gpus: tuple[GpuInfo, ...] = ()
    ) -> list[str]:
        """bwrap with the view of this execution (its GPUs' device nodes only), then the solution."""
        return [*self._argv(node_dirs, gpus), "--", *self._drop(uid), self.python, CODE_FILE]

    def _shim_uid(self, uid: int | None) -> int | None:
        return None  # bwrap needs root to build the view; setpriv drops inside it
