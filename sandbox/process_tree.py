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


def kill_tree(root_pid: int, rounds: int = 20) -> int:
    """SIGKILL the process group of root_pid and every member of its tree until none is left.

    Returns how many processes were signalled in total.
    """
    killed = 0
    for _ in range(rounds):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(root_pid, signal.SIGKILL)
        members = tree_members(root_pid)
        if not members:
            return killed
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
    return killed
