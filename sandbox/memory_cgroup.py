"""A memory cgroup per execution: the kernel holds a solution to `execution.memory_mb` of memory it really
uses (address space it only reserves, as CUDA does, is free), and reports when it had to kill for it.

cgroup v2 (`memory.max`, `memory.swap.max`, `memory.events`) where this host's unified hierarchy has the memory
controller and lets us enable it for a subtree of ours, else cgroup v1 (`memory.limit_in_bytes`,
`memory.memsw.limit_in_bytes`, `memory.oom_control`) under this process's own memory cgroup. Both need root,
or a delegated subtree; where neither works `find_cgroup_parent()` says why and the supervisor's watchdog
(sandbox/shim.py) holds the limit instead.

Per execution: `<parent>/exec-<our pid>-<n>`; the supervisor moves the solution into it before exec, so it and
every process it starts are counted; it is removed when the run is over. Directories a killed caller left
behind are removed when the next parent is found.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sandbox.resources import own_cgroups

PARENT_NAME = "swarm-sandbox"
_COUNTER = itertools.count()
_LOCK = threading.Lock()


class CgroupUnavailable(RuntimeError):
    """No memory cgroup can be made here (the message says why)."""


@dataclass(frozen=True)
class CgroupParent:
    """A dir under which per-execution memory cgroups can be made, and which version's files they have."""

    path: Path
    version: int

    def create(self, limit_bytes: int) -> ExecutionCgroup:
        """A new cgroup limited to `limit_bytes` of memory (and no swap beyond it)."""
        with _LOCK:
            path = self.path / f"exec-{os.getpid()}-{next(_COUNTER)}"
        path.mkdir(mode=0o755)
        cgroup = ExecutionCgroup(path, self.version)
        try:
            cgroup.set_limit(limit_bytes)
        except OSError:
            cgroup.remove()
            raise
        return cgroup


@dataclass(frozen=True)
class ExecutionCgroup:
    """One execution's cgroup: its path (the supervisor writes the solution's pid to `procs`)."""

    path: Path
    version: int

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def set_limit(self, limit_bytes: int) -> None:
        if self.version == 2:
            (self.path / "memory.max").write_text(str(limit_bytes))
            with contextlib.suppress(FileNotFoundError):  # a kernel without swap accounting has no such file
                (self.path / "memory.swap.max").write_text("0")
            return
        (self.path / "memory.limit_in_bytes").write_text(str(limit_bytes))
        with contextlib.suppress(FileNotFoundError, OSError):  # memsw exists only with swap accounting
            (self.path / "memory.memsw.limit_in_bytes").write_text(str(limit_bytes))

    def oom_kills(self) -> int:
        """How many processes the kernel killed here for going over the limit."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            text = (self.path / name).read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def remove(self) -> None:
        """Remove the cgroup (its processes are dead by now; a zombie may still be leaving, so retry)."""
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


def _mount_points(mountinfo: Path = Path("/proc/self/mountinfo")) -> dict[str, list[tuple[Path, str]]]:
    """fstype -> [(mount point, super options)] for the cgroup and cgroup2 mounts."""
    found: dict[str, list[tuple[Path, str]]] = {}
    for line in mountinfo.read_text().splitlines():
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(fields) > 4 and rest and rest[0] in ("cgroup", "cgroup2"):
            found.setdefault(rest[0], []).append((Path(fields[4]), rest[-1] if len(rest) > 2 else ""))
    return found


def _probe(parent: CgroupParent) -> None:
    """Make a cgroup, move a short-lived process into it, remove it: any step that fails raises OSError."""
    cgroup = parent.create(64 * 1024 * 1024)
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", 'echo $$ > "$1" && exec true', "probe", str(cgroup.procs)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if done.returncode != 0:
            raise OSError(f"moving a process into {cgroup.path} failed: {done.stderr.strip()[-200:]}")
    finally:
        cgroup.remove()


def _sweep(parent: Path) -> None:
    """Remove the empty execution dirs of callers that are gone."""
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            name = entry.name
            if not name.startswith("exec-") or not entry.is_dir():
                continue
            pid = name.split("-")[1]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                with contextlib.suppress(OSError):
                    entry.rmdir()


def _v2_parent(mount: Path) -> CgroupParent:
    if "memory" not in (mount / "cgroup.controllers").read_text().split():
        raise OSError(f"the cgroup2 hierarchy at {mount} has no memory controller (it is bound to cgroup v1)")
    if "memory" not in (mount / "cgroup.subtree_control").read_text().split():
        (mount / "cgroup.subtree_control").write_text("+memory")
    parent = mount / PARENT_NAME
    parent.mkdir(mode=0o755, exist_ok=True)
    if "memory" not in (parent / "cgroup.subtree_control").read_text().split():
        (parent / "cgroup.subtree_control").write_text("+memory")
    return CgroupParent(parent, 2)


def _v1_parent(mount: Path, own: str) -> CgroupParent:
    base = mount / own.lstrip("/")
    if not (base / "memory.limit_in_bytes").is_file():
        raise OSError(f"{base} is not a cgroup v1 memory hierarchy")
    parent = base / PARENT_NAME
    parent.mkdir(mode=0o755, exist_ok=True)
    return CgroupParent(parent, 1)


def find_cgroup_parent() -> CgroupParent:
    """Where this process can make memory cgroups (v2 first, then v1), checked end to end by a probe; raises
    CgroupUnavailable with the reasons when nowhere."""
    reasons = []
    try:
        mounts = _mount_points()
        own = own_cgroups()
    except OSError as exc:
        raise CgroupUnavailable(f"cannot read this process's cgroups: {exc}") from None
    attempts = []
    for mount, _ in mounts.get("cgroup2", []):
        attempts.append((f"cgroup v2 at {mount}", lambda mount=mount: _v2_parent(mount)))
    for mount, options in mounts.get("cgroup", []):
        if "memory" in options.split(","):
            path = next((p for ctl, p in own.items() if "memory" in ctl.split(",")), "/")
            attempts.append((f"cgroup v1 at {mount}", lambda mount=mount, path=path: _v1_parent(mount, path)))
    if not attempts:
        raise CgroupUnavailable("no cgroup filesystem is mounted")
    for where, make in attempts:
        try:
            parent = make()
            _sweep(parent.path)
            _probe(parent)
            return parent
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            reasons.append(f"{where}: {exc}")
    raise CgroupUnavailable("; ".join(reasons))


_FOUND: dict[str, CgroupParent | CgroupUnavailable] = {}


def cgroup_parent() -> CgroupParent:
    """find_cgroup_parent(), once per process (its answer, or its refusal, is kept)."""
    with _LOCK:
        found = _FOUND.get("parent")
    if found is None:
        try:
            found = find_cgroup_parent()
        except CgroupUnavailable as exc:
            found = exc
        with _LOCK:
            _FOUND["parent"] = found
    if isinstance(found, CgroupUnavailable):
        raise found
    return found
