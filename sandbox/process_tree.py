"""Finding and killing every process an execution started (Linux /proc)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time


def _proc_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (ppid, pgrp, session) for every live process."""
    table: dict[int, tuple[int, int, int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: split after the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 4 or fields[0] == b"Z":
            continue
        table[int(name)] = (int(fields[1]), int(fields[2]), int(fields[3]))
    return table


def tree_members(root_pid: int) -> set[int]:
    """Processes that descend from root_pid or share its process group or session."""
    table = _proc_table()
    members = {pid for pid, (_, pgrp, sid) in table.items() if pgrp == root_pid or sid == root_pid}
    if root_pid in table:
        members.add(root_pid)
    frontier = set(members) | {root_pid}
    while frontier:
        children = {pid for pid, (ppid, _, _) in table.items() if ppid in frontier and pid not in members}
        members |= children
        frontier = children
    members.discard(os.getpid())
    return members


def _signal_all(root_pid: int, pids: set[int], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(root_pid, sig)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def kill_tree(root_pid: int, rounds: int = 20) -> int:
    """Kill root_pid's process group and every descendant, including ones that left the group or session.

    The tree is first frozen with SIGSTOP (so nobody forks or gets re-parented while we look), then every
    member gets SIGKILL; this repeats until nothing is left. Returns how many distinct processes were found.
    """
    seen: set[int] = set()
    for _ in range(rounds):
        members = tree_members(root_pid)
        while True:  # freeze until the member set stops growing
            _signal_all(root_pid, members, signal.SIGSTOP)
            grown = members | tree_members(root_pid)
            if grown == members:
                break
            members = grown
        seen |= members
        _signal_all(root_pid, members, signal.SIGKILL)
        if not members:
            return len(seen)
        time.sleep(0.02)
    return len(seen)


def real_uid(pid: int) -> int | None:
    """The real uid of a live (non-zombie) process, or None when it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            status = f.read()
    except OSError:
        return None
    state = status.find(b"\nState:\t")
    uid = status.find(b"\nUid:\t")
    if state < 0 or uid < 0 or status[state + 8 : state + 9] == b"Z":
        return None
    try:
        return int(status[uid + 6 :].split(None, 1)[0])
    except (ValueError, IndexError):
        return None


def uid_members(uid: int) -> set[int]:
    """Live processes whose real uid is `uid` (a setuid program keeps its real uid)."""
    me = os.getpid()
    return {
        pid
        for pid in (int(name) for name in os.listdir("/proc") if name.isdigit())
        if pid != me and real_uid(pid) == uid
    }


def kill_uid(uid: int, rounds: int = 50) -> int:
    """Freeze and kill every process of `uid` until none is left. Returns how many were found.

    Only for uids that belong to one execution (a sandbox slot uid): nothing else may run as it.
    """
    if uid == 0 or uid == os.geteuid():
        raise ValueError(f"refusing to kill every process of uid {uid}")
    seen = uid_members(uid)
    if not seen:
        return 0
    if os.geteuid() == 0:
        # kill(-1) sent as the uid reaches all of its processes in one pass that no fork can slip through.
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(
                ["kill", "-9", "-1"],  # procps kill(1): "kill all processes you can kill"
                user=uid,
                group=uid,
                extra_groups=[],
                env={"PATH": "/usr/bin:/bin"},
                cwd="/",
                capture_output=True,
                timeout=10,
            )
    for _ in range(rounds):
        members = uid_members(uid)
        if not members:
            return len(seen)
        while True:  # freeze until the set stops growing, then kill all at once
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGSTOP)
            grown = members | uid_members(uid)
            if grown == members:
                break
            members = grown
        seen |= members
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    return len(seen)
