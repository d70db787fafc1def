"""Orchestration overhead: one epoch through Prefect tasks against the same steps as plain function calls.

    python -m benchmarks.orchestration_overhead [--steps 8] [--parallel 1] [--repeats 2] [--seed 0]
                                                [--cold-runs 2] [--json benchmarks/results/orchestration.json]

Both sides run one epoch of a new run made from the same config and project seed, so the seeded offline coder
writes the same code for both (checked, and reported as `same_code`), on the local sandbox:
- prefect: the epoch flow (per step select_parent, a `step` task on the flow's task runner holding generate,
  execute and review, then update_population: six task runs; one evolve_agents task), on the script's own
  ephemeral API, warmed up first, heartbeats off, cache refresh on (a step never reuses another's execution,
  as on the plain side);
- plain: `swarm.pipeline.plain.run_epoch`, the same step functions called directly.
Per-task overhead = (prefect - plain) / Prefect task runs, from the wall times; steadier on a busy machine,
from the time outside the sandbox's executions (wall minus the nodes' exec_time); and in CPU time: this
process's (every thread) plus the API server's (the ephemeral API's uvicorn process, waited for until its
task-run recorder and event persister have gone idle), which on a 2-core machine competes with the
solutions. Each side's time in Python's garbage collector (`gc`, seconds) and its full collections are
recorded too (the first epoch's start freezes the process's long-lived objects: `swarm.pipeline.heap`). The
1-minute load average is recorded around every repeat: other work on the machine slows both sides, so compare
figures measured at similar load. After each repeat, Prefect's floor: a flow of as many no-op task runs as the
epoch had, timed the same way (what any flow of that size costs here).

Each timed epoch flow starts outside any client context, as a rerun of one epoch does, so it builds its own
API client: Prefect loads its CA bundle into an SSL context for each new client (about 30 ms here, even for
the http:// API), measured on its own and reported. The competition flow's epochs are subflows: they reuse its
client but create a parent task run.

Cold start: in fresh processes, the time to `import prefect` and to run a first trivial flow with a new
database, then with the database the first process left; see benchmarks/README.md for how tests avoid it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import (
    median,
    prefect_env,
    print_table,
    run_overrides,
    task_run_count,
    warm_prefect,
    write_json,
)

TASKS_PER_STEP = 6  # select_parent, step (generate, execute, review), update_population
TARGET_MS_PER_TASK = 10.0  # the most Prefect may add outside the solutions' run time, per task run
TARGET_RATIO = 1.05  # the most an epoch through Prefect may take against the plain runner, wall time
COLD_CHILD = textwrap.dedent(
    """
    import json, time
    started = time.perf_counter()
    import prefect
    imported = time.perf_counter()
    from prefect import flow
    from prefect.settings import temporary_settings

    @flow
    def noop() -> int:
        return 1

    with temporary_settings(updates={"flows.heartbeat_frequency": None}):
        first = time.perf_counter()
        noop()
        second = time.perf_counter()
        noop()
        done = time.perf_counter()
    print(json.dumps({"import_s": imported - started, "first_flow_s": second - first,
                      "second_flow_s": done - second}))
    """
)


def cold_start(runs: int) -> list[dict[str, Any]]:
    """`runs` pairs of fresh processes: the first with a new Prefect home (new database), the second reusing it."""
    results = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="swarm-cold-") as tmp:
            script = Path(tmp) / "cold.py"
            script.write_text(COLD_CHILD)
            env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
            env["PREFECT_HOME"] = str(Path(tmp) / "home")
            for database in ("new", "existing"):
                started = time.perf_counter()
                out = subprocess.run(
                    [sys.executable, str(script)],
                    cwd=tmp,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                figures = json.loads(out.stdout.strip().splitlines()[-1])
                figures.update(database=database, process_s=time.perf_counter() - started)
                results.append(figures)
    return results


class GcClock:
    """Time this process spends in Python's garbage collector, and its full (oldest-generation)
    collections."""

    def __init__(self) -> None:
        self.seconds, self.full, self._started = 0.0, 0, 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started
            self.full += info["generation"] == 2

    def read(self) -> tuple[float, int]:
        return self.seconds, self.full


GC = GcClock()


def measured(call: Callable[[], Any]) -> tuple[Any, dict[str, Any]]:
    """What `call` returns, and its wall and CPU seconds (this process) with the garbage collector's share."""
    (gc_s, gc_full), cpu_before, started = GC.read(), time.process_time(), time.perf_counter()
    result = call()
    figures = {"wall_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu_before}
    seconds, full = GC.read()
    return result, {**figures, "gc_s": seconds - gc_s, "gc_full": full - gc_full}


def api_server_cpu_s() -> float:
    """CPU seconds (user + system) used so far by this process's ephemeral API server (its uvicorn child
    process); 0.0 where there is none, or no /proc to read it from."""
    me, tick, total = os.getpid(), os.sysconf("SC_CLK_TCK"), 0.0
    for pid in (p for p in os.listdir("/proc") if p.isdigit()) if Path("/proc").is_dir() else ():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, ..., utime (12th), stime
        if int(fields[1]) == me and b"uvicorn" in cmdline and b"prefect" in cmdline:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def settle_api_server(idle_s: float = 1.0, timeout_s: float = 20.0) -> float:
    """Wait until the API server has used (almost) no CPU for `idle_s` (its recorder and persister flush
    batched events every few seconds); returns its CPU seconds then."""
    deadline = time.monotonic() + timeout_s
    last = api_server_cpu_s()
    while time.monotonic() < deadline:
        time.sleep(idle_s)
        now = api_server_cpu_s()
        if now - last < 0.02:
            return now
        last = now
    return last


def load_1min() -> float:
    return os.getloadavg()[0]


def nodes_exec_s(run_dir: Path) -> tuple[float, list[str]]:
    """The summed sandbox time of the run's nodes, and their code in step order."""
    from swarm.journal import Journal

    journal = Journal.load(run_dir / "journal.jsonl")
    return sum(n.exec_time or 0.0 for n in journal), [n.code for n in journal]


def new_client_ms(runs: int = 3) -> float:
    """Median ms to build, open and close a sync API client, as each flow run started outside a client context
    does."""
    from prefect.context import SyncClientContext

    times = []
    for _ in range(runs):
        started = time.perf_counter()
        with SyncClientContext():
            pass
        times.append(1000 * (time.perf_counter() - started))
    return median(times)


def noop_flow_ms_per_task(task_runs: int) -> float:
    """Prefect's own floor on this machine: one flow of `task_runs` no-op task runs (no cache, no persisted
    result, nothing of this project's), wall ms per task run including the flow's start and end."""
    from prefect import flow, task
    from prefect.cache_policies import NO_CACHE

    @task(cache_policy=NO_CACHE, persist_result=False)
    def noop(i: int) -> int:
        return i

    @flow
    def noop_flow(n: int) -> None:
        for i in range(n):
            noop(i)

    settle_api_server()
    started = time.perf_counter()
    noop_flow(task_runs)
    return 1000 * (time.perf_counter() - started) / task_runs


def run_prefect(run_dir: Path, steps: int) -> dict[str, Any]:
    from flows.epoch import EpochParams, epoch_flow
    from tasks.runs import get_context

    get_context(str(run_dir))  # opened before the clock starts, like the plain side's open_run
    server_before = settle_api_server()
    state, figures = measured(
        lambda: epoch_flow(EpochParams(run_dir=str(run_dir), epoch=1, steps=steps), return_state=True)
    )
    summary = state.result()
    expected = TASKS_PER_STEP * summary.steps_done + 1  # + evolve_agents
    task_runs = task_run_count(state.state_details.flow_run_id, expected)
    return {
        **figures,
        "server_cpu_s": settle_api_server() - server_before,
        "nodes": summary.steps_done,
        "task_runs": task_runs,
        "task_runs_expected": expected,
    }


def run_plain(run_dir: Path, steps: int, parallel: int) -> dict[str, Any]:
    from swarm.pipeline.context import open_run
    from swarm.pipeline.plain import run_epoch

    rc, journal, state = open_run(run_dir)
    server_before = settle_api_server()
    summary, figures = measured(
        lambda: run_epoch(rc, journal, state, epoch=1, steps_wanted=steps, parallel=parallel)
    )
    return {
        **figures,
        "server_cpu_s": api_server_cpu_s() - server_before,  # none of its own: another side's leftovers
        "nodes": len(summary.nodes),
    }


def one_repeat(args: argparse.Namespace, root: Path, index: int) -> dict[str, Any]:
    """Both sides once, in alternating order across repeats (a slow spell of the machine hits both)."""
    from flows.competition import CompetitionParams, prepare_run

    overrides = run_overrides(args.cache_dir, args.competition, args.seed, args.parallel, args.steps)
    runs: dict[str, Any] = {}
    order = ("prefect", "plain") if index % 2 == 0 else ("plain", "prefect")
    load_before = load_1min()
    for side in order:
        run_dir = root / f"{side}-{index}"
        prepare_run(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
        figures = (
            run_prefect(run_dir, args.steps)
            if side == "prefect"
            else run_plain(run_dir, args.steps, args.parallel)
        )
        figures["exec_s"], figures["codes"] = nodes_exec_s(run_dir)
        figures["outside_exec_s"] = figures["wall_s"] - figures["exec_s"]
        figures["total_cpu_s"] = figures["cpu_s"] + figures["server_cpu_s"]
        runs[side] = figures
    same_code = runs["prefect"].pop("codes") == runs["plain"].pop("codes")
    prefect, plain = runs["prefect"], runs["plain"]
    task_runs = prefect["task_runs"]

    def per_task_ms(key: str) -> float:
        return 1000 * (prefect[key] - plain[key]) / task_runs

    return {
        **runs,
        "noop_flow_ms_per_task": noop_flow_ms_per_task(task_runs),
        "same_code": same_code,
        "load_1min": [load_before, load_1min()],
        "ratio": prefect["wall_s"] / plain["wall_s"],
        "ratio_outside_exec": (plain["exec_s"] + prefect["outside_exec_s"]) / plain["wall_s"],
        "per_task_ms_wall": per_task_ms("wall_s"),
        "per_task_ms_outside_exec": per_task_ms("outside_exec_s"),
        "per_task_ms_cpu": per_task_ms("total_cpu_s"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8, help="steps in the epoch (default 8)")
    parser.add_argument("--parallel", type=int, default=1, help="search.parallel on both sides (default 1)")
    parser.add_argument(
        "--repeats", type=int, default=5, help="epochs per side, order alternating (default 5)"
    )
    parser.add_argument("--seed", type=int, default=0, help="project.seed, the same for both sides")
    parser.add_argument("--competition", default="titanic")
    parser.add_argument("--cold-runs", type=int, default=2, help="cold-start process pairs (0: skip)")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "swarm-bench-cache")
    parser.add_argument("--prefect-home", type=Path, default=None, help="default: a new temporary one")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/orchestration_overhead.json"))
    args = parser.parse_args(argv)
    if min(args.steps, args.parallel, args.repeats) < 1 or args.cold_runs < 0:
        parser.error("--steps, --parallel and --repeats must be at least 1, --cold-runs at least 0")

    prefect_env(args.prefect_home)  # before anything imports Prefect
    cold = cold_start(args.cold_runs)  # first, before this process loads anything
    if cold:
        rows = [
            (
                f"{c['database']} database",
                c["import_s"],
                c["first_flow_s"],
                c["second_flow_s"],
                c["process_s"],
            )
            for c in cold
        ]
        print_table(
            "cold start in a fresh process (s)",
            ("run", "import prefect", "first flow", "second flow", "whole process"),
            rows,
        )

    from prefect.settings import temporary_settings

    with (
        tempfile.TemporaryDirectory(prefix="swarm-orchestration-") as tmp,
        temporary_settings(updates={"flows.heartbeat_frequency": None, "tasks.refresh_cache": True}),
    ):
        warm_s, flow_s = warm_prefect()
        client_ms = new_client_ms()
        repeats = [one_repeat(args, Path(tmp), i) for i in range(args.repeats)]

    rows = []
    for i, r in enumerate(repeats):
        for side in ("prefect", "plain"):
            s = r[side]
            rows.append(
                (
                    f"{i + 1} {side}",
                    s["nodes"],
                    s.get("task_runs", "-"),
                    s["wall_s"],
                    s["exec_s"],
                    s["outside_exec_s"],
                    s["cpu_s"],
                    s["server_cpu_s"],
                    s["gc_s"],
                    s["gc_full"],
                    "{:.1f}-{:.1f}".format(*r["load_1min"]),
                )
            )
    print_table(
        f"one epoch of {args.steps} steps, parallel {args.parallel}, {args.competition}, seed {args.seed} (s)",
        (
            "repeat side",
            "nodes",
            "task runs",
            "wall",
            "sandbox exec",
            "outside exec",
            "cpu",
            "API cpu",
            "gc",
            "full gc",
            "load 1 min",
        ),
        rows,
    )
    loads = [load for r in repeats for load in r["load_1min"]]
    summary = {
        "ratio_wall": median([r["ratio"] for r in repeats]),
        "ratio_outside_exec": median([r["ratio_outside_exec"] for r in repeats]),
        "per_task_ms_wall": median([r["per_task_ms_wall"] for r in repeats]),
        "per_task_ms_outside_exec": median([r["per_task_ms_outside_exec"] for r in repeats]),
        "per_task_ms_cpu": median([r["per_task_ms_cpu"] for r in repeats]),
        "noop_flow_ms_per_task": median([r["noop_flow_ms_per_task"] for r in repeats]),
        "task_runs": repeats[0]["prefect"]["task_runs"],
        "same_code": all(r["same_code"] for r in repeats),
        "warm_up_s": warm_s,
        "one_task_flow_s": flow_s,
        "new_api_client_ms": client_ms,
        "load_1min": {"min": min(loads), "median": median(loads), "max": max(loads), "cpus": os.cpu_count()},
    }
    floor_range = [f(r["noop_flow_ms_per_task"] for r in repeats) for f in (min, max)]
    summary["targets"] = {
        "per_task_ms_outside_exec<=10": summary["per_task_ms_outside_exec"] <= TARGET_MS_PER_TASK,
        "ratio_wall<=1.05": summary["ratio_wall"] <= TARGET_RATIO,
    }
    print_table(
        f"Prefect vs plain (median of {args.repeats})",
        ("figure", "value"),
        [
            ("wall ratio prefect/plain", summary["ratio_wall"]),
            ("wall ratio, same solution times (plain's exec)", summary["ratio_outside_exec"]),
            ("per-task overhead, wall (ms)", summary["per_task_ms_wall"]),
            ("per-task overhead, outside exec (ms)", summary["per_task_ms_outside_exec"]),
            ("per-task overhead, CPU of process + API (ms)", summary["per_task_ms_cpu"]),
            (
                f"Prefect's floor: a flow of {summary['task_runs']} no-op task runs (ms per task run)",
                "{:.2f} ({:.1f} to {:.1f})".format(summary["noop_flow_ms_per_task"], *floor_range),
            ),
            ("Prefect task runs per epoch", summary["task_runs"]),
            ("same code on both sides", summary["same_code"]),
            ("a warm flow run with one task (s)", summary["one_task_flow_s"]),
            ("a new API client, in each epoch's time (ms)", summary["new_api_client_ms"]),
            ("API start + first flow, not timed (s)", summary["warm_up_s"]),
            (
                "1-minute load average, min-median-max",
                "{min:.2f}-{median:.2f}-{max:.2f}".format(**summary["load_1min"]),
            ),
        ],
    )
    print(
        f"\ntargets (issue 17): per-task overhead outside exec <= {TARGET_MS_PER_TASK:g} ms: "
        f"{'met' if summary['targets']['per_task_ms_outside_exec<=10'] else 'NOT met'}; "
        f"wall ratio <= {TARGET_RATIO}: {'met' if summary['targets']['ratio_wall<=1.05'] else 'NOT met'} "
        f"(on {os.cpu_count()} CPUs at a 1-minute load of {summary['load_1min']['median']:.1f})"
    )
    write_json(args.json, args, {"summary": summary, "repeats": repeats, "cold_start": cold})
    return 0


if __name__ == "__main__":
    sys.exit(main())
