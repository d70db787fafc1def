"""Per-execution overhead of the sandbox backends: container vs bwrap vs local vs a bare `python -c pass`.

    python -m benchmarks.sandbox_overhead [--runs 15] [--code "pass"]
                                          [--json benchmarks/results/sandbox_overhead.json]

Prints the median wall time of each way to run the same snippet, and ratios to the bare interpreter.
The local row runs with the isolation the local backend really uses: as root, under the supervisor and a slot
uid, with the interpreter such a uid can run (find_isolated_python); the bwrap row runs that same interpreter in
the bwrap sandbox (as root also as a slot uid). A row whose backend cannot run here (no Docker engine or image,
no user namespaces, the local backend when not root) is skipped with the reason.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import write_json
from sandbox import LocalSandbox, Sandbox, SandboxUnavailable, Workspace
from sandbox.bwrap_backend import BwrapSandbox
from sandbox.config import ExecutionConfig
from sandbox.local import find_isolated_python
from sandbox.tree_ops import remove_tree


def _median_s(fn: Callable[[int], None], runs: int) -> float:
    fn(-1)  # warm-up
    times = []
    for i in range(runs):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed executions per backend (default 15)")
    parser.add_argument("--code", default="pass", help="the snippet every backend runs (default: pass)")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/sandbox_overhead.json"))
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    base = Path(tempfile.mkdtemp(prefix="swarm-bench-", dir="/tmp"))
    base.chmod(0o755)
    (base / "public").mkdir()
    try:
        ws = Workspace(base / "ws", base / "public")
        cfg = ExecutionConfig(timeout_s=60)
        rows: list[tuple[str, float]] = []

        # The same interpreter for the bare row and the local backend, so the ratio is the sandbox's cost.
        python = find_isolated_python() or sys.executable
        rows.append(
            (
                "bare python -c",
                _median_s(lambda i: subprocess.run([python, "-c", args.code], check=True), args.runs),
            )
        )

        backends: list[tuple[str, str, Callable[[], Sandbox]]] = [
            ("local sandbox", "l", lambda: LocalSandbox(cfg, python=python)),
            ("bwrap sandbox", "b", lambda: BwrapSandbox(cfg, python=python)),
            ("docker sandbox", "d", lambda: _docker(cfg)),
        ]
        for label, prefix, build in backends:
            try:
                sb = build()
            except SandboxUnavailable as exc:
                print(f"{label}: skipped ({exc})")
                continue
            name = f"{label} (isolated={sb.isolated})" if label != "docker sandbox" else label
            rows.append(
                (
                    name,
                    _median_s(
                        lambda i, sb=sb, p=prefix: _check(sb.run(args.code, ws.node_dirs(f"{p}{i + 1}"))),
                        args.runs,
                    ),
                )
            )

        bare = rows[0][1]
        print(f"python: {python}")
        print(f"{'backend':40s} {'median_s':>9s} {'ratio':>7s}   ({args.runs} runs of {args.code!r})")
        for name, median in rows:
            print(f"{name:40s} {median:9.4f} {median / bare:7.1f}x")
        results = [
            {"backend": name, "median_s": median, "ratio_to_bare": median / bare} for name, median in rows
        ]
        write_json(args.json, args, {"python": python, "results": results})
    finally:
        remove_tree(base, ignore_errors=True)
    return 0


def _docker(cfg: ExecutionConfig) -> Sandbox:
    from sandbox.docker_backend import DockerSandbox

    return DockerSandbox(cfg)


def _check(result) -> None:
    if result.exit_code != 0:
        raise RuntimeError(f"{result.backend} run failed: {result.output[-500:]}")


if __name__ == "__main__":
    raise SystemExit(main())
