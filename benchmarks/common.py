"""What the benchmark scripts share: a quiet Prefect API of their own, offline run overrides, tables, JSON.

The scripts run as modules from the repository root (`python -m benchmarks.scale`), which puts the root on
`sys.path`. Call `prefect_env()` before anything imports Prefect (its settings are read at import).
"""

from __future__ import annotations

import atexit
import importlib.metadata
import json
import os
import platform
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flows.prefect_env import apply_prefect_defaults

OFFLINE_STAGES = ("code", "feedback", "evolution")


def prefect_env(home: Path | None) -> Path:
    """Set the Prefect defaults above and a home of the benchmark's own (its own SQLite database, so other
    processes' runs on the repo's `.prefect` cannot stall it; a temporary one is removed at exit)."""
    apply_prefect_defaults(
        PREFECT_LOGGING_LEVEL="ERROR", PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="90"
    )
    if home is None:
        home = Path(tempfile.mkdtemp(prefix="swarm-bench-prefect-"))
        atexit.register(shutil.rmtree, home, ignore_errors=True)  # runs after Prefect's own exit handlers
    os.environ["PREFECT_HOME"] = str(home)
    os.environ.pop("PREFECT_API_URL", None)  # always the in-process ephemeral API
    return home


def run_overrides(cache_dir: Path, competition: str, seed: int, parallel: int, max_steps: int) -> list[str]:
    """A run on the local sandbox with the offline coder for every stage; agent evolution not due after
    epoch 1 (so an epoch is only its steps)."""
    return [
        f"project.cache_dir={cache_dir}",
        f"project.seed={seed}",
        f"data.competition={competition}",
        "execution.sandbox=local",
        *(f"llm.{stage}.provider=offline" for stage in OFFLINE_STAGES),
        f"agent.max_steps={max_steps}",
        f"search.parallel={parallel}",
        "search.num_drafts=3",
    ]


def warm_prefect(runs: int = 5) -> tuple[float, float]:
    """Start the ephemeral API and the task machinery with a flow of one task, then time that flow again;
    returns (first run s, median of `runs` warm runs s): the fixed cost of a flow run with one task."""
    from prefect import flow, task

    @task
    def one() -> int:
        return 1

    @flow
    def warm_up() -> int:
        return one()

    times = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        warm_up()
        times.append(time.perf_counter() - started)
    return times[0], statistics.median(times[1:]) if runs else float("nan")


def task_run_count(flow_run_id: Any, expected: int, timeout_s: float = 30.0) -> int:
    """Task runs of one flow run, polled until `expected` arrive (their states reach the API through events,
    a moment after the flow returns) or `timeout_s` passes."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    deadline = time.monotonic() + timeout_s
    while True:
        with get_client(sync_client=True) as client:
            runs = client.read_task_runs(
                flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id]))
            )
        if len(runs) >= expected or time.monotonic() > deadline:
            return len(runs)
        time.sleep(0.25)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A plain-text table (copyable into a README), right-aligned after the first column."""
    cells = [[str(c) for c in columns], *[[_cell(v) for v in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    print(f"\n{title}")
    for index, row in enumerate(cells):
        first = row[0].ljust(widths[0])
        print("  ".join([first, *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True))]))
        if index == 0:
            print("  ".join("-" * w for w in widths))


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1000 else f"{value:.0f}"
    return "-" if value is None else str(value)


def installed_version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def write_json(path: Path, args: Any, results: dict[str, Any]) -> None:
    """The results with the arguments and the machine they were measured on."""
    payload = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "prefect": installed_version("prefect"),
        },
        "args": {k: str(v) for k, v in vars(args).items()},
        **results,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1) + "\n")
    print(f"\nwrote {path}")


def time_prefect_epoch(run_dir: Path, steps: int) -> float:
    """Wall seconds of one epoch of `steps` steps through the epoch flow (run context opened beforehand)."""
    from flows.epoch import EpochParams, epoch_flow
    from tasks.runs import get_context

    get_context(str(run_dir))  # opened before the clock starts, like the plain side's open_run
    started = time.perf_counter()
    epoch_flow(EpochParams(run_dir=str(run_dir), epoch=1, steps=steps))
    return time.perf_counter() - started


def time_plain_epoch(run_dir: Path, steps: int, parallel: int) -> float:
    """Wall seconds of one epoch of `steps` steps through the plain runner (run opened beforehand)."""
    from swarm.pipeline.context import open_run
    from swarm.pipeline.plain import run_epoch

    rc, journal, state = open_run(run_dir)
    started = time.perf_counter()
    run_epoch(rc, journal, state, epoch=1, steps_wanted=steps, parallel=parallel)
    return time.perf_counter() - started


def time_epoch(runner: str, run_dir: Path, steps: int, parallel: int) -> float:
    """Wall seconds of one epoch through `runner`: "prefect" (the epoch flow) or "plain"."""
    if runner == "prefect":
        return time_prefect_epoch(run_dir, steps)
    return time_plain_epoch(run_dir, steps, parallel)


LIBRARIES = ("numpy", "pandas", "scikit-learn", "lightgbm", "scipy", "prefect")


def print_library_versions() -> dict[str, str | None]:
    """Print, on one line, and return the versions of the libraries the solutions and the flow use, as installed
    here."""
    versions = {name: installed_version(name) for name in LIBRARIES}
    print("libraries:", ", ".join(f"{name} {version}" for name, version in versions.items()))
    return versions


def step_breakdown(run_dir: Path, wall_s: float, parallel: int, probes: int = 3) -> dict[str, Any]:
    """Where a run's steps spent their time (`swarm.pipeline.step_timing`): each phase's median seconds,
    the sandbox's empty run (`pass`, `probes` times in the run's own sandbox: its start and stop, so the
    solution's own run is `sandbox` less it), and, for a sequential run, what the phases leave of a step's wall
    time (journal and pool writes, scheduling, the flow)."""
    from swarm.pipeline.context import open_run
    from swarm.pipeline.step_timing import breakdown, step_total

    rc, journal, _ = open_run(run_dir)
    empty = []
    for index in range(probes):
        result = rc.sandbox.run("pass\n", rc.workspace.node_dirs(f"empty-{index}"), timeout_s=60)
        empty.append(result.exec_time)
    totals = [step_total(n.meta.timings) for n in journal if n.meta.timings]
    other = wall_s / len(journal) - statistics.mean(totals) if parallel == 1 and totals else None
    return {"phases": breakdown(journal), "empty_run_s": statistics.median(empty), "other_s": other}


def merged_breakdown(rounds: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The medians over rounds of one setting's `step_breakdown`s."""
    phases = {name for r in rounds for name in r["phases"]}
    others = [r["other_s"] for r in rounds if r["other_s"] is not None]
    return {
        "phases": {
            name: median([r["phases"][name] for r in rounds if name in r["phases"]]) for name in phases
        },
        "empty_run_s": median([r["empty_run_s"] for r in rounds]),
        "other_s": median(others) if others else None,
    }


def print_breakdown(title: str, by_setting: dict[str, dict[str, Any]]) -> None:
    """One row per phase, one column per setting: median seconds per step."""
    from swarm.pipeline.step_timing import PHASES

    labels = list(by_setting)
    rows: list[tuple[Any, ...]] = []
    for phase, what in PHASES:
        rows.append((f"{phase}: {what}", *(b["phases"].get(phase) for b in by_setting.values())))
        if phase == "sandbox":
            rows.append(("  of it, an empty run (`pass`)", *(b["empty_run_s"] for b in by_setting.values())))
    rows.append(
        (
            "other: journal and pool writes, scheduling, the flow (sequential only)",
            *(b["other_s"] for b in by_setting.values()),
        )
    )
    print_table(title, ("phase (median s per step)", *labels), rows)
