"""The cost of one measurement of the memory watch (sandbox/shim.py's `_measure`), for trees of N processes.

    python -m benchmarks.watch_cost [--processes 1 50] [--runs 30] [--json benchmarks/results/watch_cost.json]

Each tree is one python process that forks the rest; every process touches 8 MB of its own and holds a unix
socket pair with 64 KB queued. It runs in our namespaces (as the local backend's solutions do: the sockets are
found in the host's dump by inode) and, as root, in ipc and net namespaces of its own (`unshare --ipc --net`,
as bwrap's: the measurement forks one child that joins them). Prints the median and the slowest of `--runs`
measurements, and what the last one found. The watch measures every 0.1 s, less often when measuring is slow.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import write_json
from sandbox import shim

TREE = """
import os, socket, sys, time
for _ in range(int(sys.argv[1]) - 1):
    if os.fork() == 0:
        break
memory = bytearray(8 << 20)
for at in range(0, len(memory), 4096):
    memory[at] = 1
pair = socket.socketpair()
pair[0].send(b"x" * 65536)
os.write(1, b"ready\\n")  # one write: the lines of 50 processes do not interleave
time.sleep(600)
"""


def _tree(processes: int, namespaces: bool) -> subprocess.Popen:
    """Start a tree of `processes` processes and wait until each is ready."""
    prefix = ["unshare", "--ipc", "--net"] if namespaces else []
    tree = subprocess.Popen(
        [*prefix, sys.executable, "-c", TREE, str(processes)], stdout=subprocess.PIPE, start_new_session=True
    )
    for _ in range(processes):
        if tree.stdout.readline() != b"ready\n":
            raise RuntimeError("the process tree did not start")
    return tree


def _measure_ms(processes: int, namespaces: bool, runs: int) -> tuple[list[float], dict[str, int]]:
    libc = ctypes.CDLL(None, use_errno=True)
    tree = _tree(processes, namespaces)
    try:
        times, parts = [], {}
        for _ in range(runs):
            start = time.perf_counter()
            parts = shim._measure(libc, os.getpid(), None)
            times.append((time.perf_counter() - start) * 1000)
        return times, parts
    finally:
        os.killpg(tree.pid, signal.SIGKILL)
        tree.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 50], help="tree sizes (default 1 50)")
    parser.add_argument("--runs", type=int, default=30, help="measurements per tree (default 30)")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/watch_cost.json"))
    args = parser.parse_args(argv)
    if args.runs < 1 or min(args.processes) < 1:
        parser.error("--runs and every --processes must be at least 1")
    layouts = [("our namespaces", False)]
    if os.geteuid() == 0 and shutil.which("unshare"):
        layouts.append(("own ipc+net namespaces", True))
    else:
        print("own ipc+net namespaces: skipped (needs root and unshare)")
    print(f"{'tree':34s} {'median_ms':>9s} {'max_ms':>8s}   found ({args.runs} measurements each)")
    results = []
    for label, namespaces in layouts:
        for processes in args.processes:
            times, parts = _measure_ms(processes, namespaces, args.runs)
            found = ", ".join(
                f"{size >> 20} MB {holder}" for holder, size in parts.items() if size >= 1 << 20
            )
            name = f"{processes} processes, {label}"
            print(f"{name:34s} {statistics.median(times):9.1f} {max(times):8.1f}   {found}")
            results.append({"tree": name, "median_ms": statistics.median(times), "max_ms": max(times)})
    write_json(args.json, args, {"results": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
