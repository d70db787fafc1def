"""Finding and killing every process an execution started (Linux /proc)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path


def _proc_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (ppid, pgrp, session) for every live process."""
    table: dict[int, tuple[int, int, int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: split after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) < 4 or fields[0] == "Z":
            continue
        table[int(entry.name)] = (int(fields[1]), int(fields[2]), int(fields[3]))
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
