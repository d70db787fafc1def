"""A memory cgroup per execution: the kernel holds a solution to `execution.memory_mb` of memory it really
uses (address space it only reserves, as CUDA does, is free), and reports when it had to kill for it.

cgroup v2 (`memory.max`, `memory.swap.max`, `memory.events`) where this host's unified hierarchy has the memory
controller and lets us enable it for a subtree of ours, else cgroup v1 (`memory.limit_in_bytes`,
`memory.memsw.limit_in_bytes`, `memory.oom_control`) under this process's own memory cgroup. Root uses the v2
root (or v1); a plain user the v2 subtree delegated to it (`delegated_v2_base`: the first cgroup from its own
upwards that it owns: a `systemd-run --user --scope -p Delegate=yes`, or a dir above it an admin chowned to it;
that search is tested on a laid-out tree only, not yet on a v2 host). Where none works `find_cgroup_parent()`
says why and the supervisor's watchdog (sandbox/shim.py) holds the limit instead.

Per execution: `<parent>/exec-<our pid>-<n>`; the supervisor moves the solution into it before exec, so it and
every process it starts are counted; it is removed when the run is over. Directories a killed caller left
behind are removed when the next parent is found.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
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


def _v2_parent(base: Path) -> CgroupParent:
    """`base`/swarm-sandbox with the memory controller enabled for its children (and for it, in `base`)."""
    if "memory" not in _words(base / "cgroup.controllers"):
        raise OSError(
            f"the cgroup v2 dir {base} has no memory controller (it is bound to cgroup v1 or not given)"
        )
    if "memory" not in _words(base / "cgroup.subtree_control"):
        (base / "cgroup.subtree_control").write_text("+memory")
    parent = base / PARENT_NAME
    parent.mkdir(mode=0o755, exist_ok=True)
    if "memory" not in _words(parent / "cgroup.subtree_control"):
        (parent / "cgroup.subtree_control").write_text("+memory")
    return CgroupParent(parent, 2)


def _words(path: Path) -> list[str]:
    return path.read_text().split()


def _ours(path: Path, uid: int) -> bool:
    """Whether `uid` owns the cgroup dir `path` and may write it, its cgroup.subtree_control and its cgroup.procs
    (the owner's write bits: what a delegation grants)."""
    for item in (path, path / "cgroup.subtree_control", path / "cgroup.procs"):
        info = item.stat()
        if info.st_uid != uid or not info.st_mode & stat.S_IWUSR:
            return False
    return True


def delegated_v2_base(mount: Path, uid: int, proc_cgroup: Path = Path("/proc/self/cgroup")) -> Path:
    """Where a plain user `uid` may make memory cgroups in the cgroup2 hierarchy mounted at `mount`: walking up
    from its own cgroup (`proc_cgroup`'s "0::" line), the first dir it owns with the memory controller
    available and either no processes of its own or memory already enabled for its children (cgroup v2 lets a
    cgroup holding processes enable no controller for its children; the cgroup holding us is skipped then, and
    swarm-sandbox/ goes beside it, in its parent, if that is ours). Raises OSError saying why there is none."""
    own = own_cgroups(proc_cgroup).get("")
    if own is None:
        raise OSError(f"{proc_cgroup} names no cgroup v2 of ours")
    current, holding = mount / own.strip("/"), None
    while current == mount or mount in current.parents:
        if _ours(current, uid) and "memory" in _words(current / "cgroup.controllers"):
            if "memory" in _words(current / "cgroup.subtree_control"):
                return current
            if not (current / "cgroup.procs").read_text().strip():
                return current
            holding = holding or current
        if current == mount:
            break
        current = current.parent
    if holding is not None:
        raise OSError(
            f"the cgroup {holding} we own holds processes, so cgroup v2 lets it enable no controller for a child, "
            f"and no cgroup above it is ours to hold {PARENT_NAME}/ beside it"
        )
    raise OSError(f"no cgroup from ours ({own}) up to {mount} is owned by uid {uid} with a memory controller")


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
        if os.geteuid() != 0:  # a plain user: the subtree delegated to it, if any
            delegated = lambda mount=mount: _v2_parent(delegated_v2_base(mount, os.geteuid()))  # noqa: E731
            attempts.append((f"a delegated cgroup v2 under {mount}", delegated))
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
