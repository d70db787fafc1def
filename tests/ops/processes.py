"""Process helpers of the tests that start a real Prefect server and workers (test_ui.py, test_docker_pool.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (read from /proc), so that nothing a worker started outlives the test."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def stop(proc: subprocess.Popen, sigints: int) -> None:
    """SIGINT the process group `sigints` times (a worker needs two), then SIGKILL it and any stragglers."""
    for left in reversed(range(sigints)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            break
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10 if left == 0 else 3)
    leftovers = descendants(proc.pid)  # e.g. flow runs a worker started in a session of their own
    for group in (proc.pid, *leftovers):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    for pid in leftovers:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=10)


def state_of(run: dict[str, Any]) -> str | None:
    """A flow or task run's state type; None while the server has not recorded one yet."""
    return (run.get("state") or {}).get("type")


def tail(path: Path, chars: int = 3000) -> str:
    return path.read_text(errors="replace")[-chars:] if path.exists() else "(no log)"
