"""A GPU machine check in one call: each sandbox's GPU check, then the main job, a CNN.

    python -m benchmarks.real_machine_check [--steps 8] [--parallel 1 4] [--epochs 8] [--latency 0.5]
                                            [--backends bwrap local unsafe-local] [--budget-s 480]
                                            [--sandbox BACKEND] [--json PATH]

Run it on the machine through `benchmarks/real_machine_check.sh` (which installs carried wheels first); it
runs on a CPU-only host too (the GPU parts then say "no GPU"). Two parts, each with its own timeout; a part
that fails or times out is reported and the next one runs:

1. `benchmarks/gpu_check.py --sandbox X` for each backend, with default settings (no memory override): did
   torch see the GPU inside that sandbox (`cuda_available`, `param_device`, `error`)?
2. The main job (`flows/run_competition.py --competition digit-images`) at each `--parallel`, with the default
   sandbox (`execution.sandbox=auto`, or `--sandbox`) and default execution resources. Its code model is the
   loopback server (`tests.doubles.loopback_server`, OpenAI protocol, `--latency` s per reply) whose replies are
   solutions that train a small CNN on the digit PNGs with torch, on the GPU when `torch.cuda.is_available()`,
   else on the CPU, and write a valid submission; review and agent evolution stay on the offline coder.
   Each solution prints what it saw (CPU affinity, OMP_NUM_THREADS, torch's threads, CUDA_VISIBLE_DEVICES,
   CUDA, the device, its address-space limit, start and end wall-clock times) on a `REAL_MACHINE_CHECK {json}`
   line; the driver reads those lines from the run's journal and reports the most executions whose
   [start, end] overlapped (all, and per GPU), the steps per minute (steps / wall minutes of the whole run,
   and of the search alone: from the first model request to the last execution's end), and `sandbox.json`
   (with `cpus`, `memory_mb`, `memory_guard`, `gpus` where the run records them).

The figures are printed as tables and written as JSON: `--json`, else `$OUT/real_machine_check.json` when
`$OUT` is set, else `benchmarks/results/real_machine_check.json`; the file is rewritten after every part, so a
run stopped from outside still leaves what was done. Exit 0 when every part ran to its end (a GPU check that
found no GPU counts as ran), 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.common import installed_version, print_table

REPO = Path(__file__).resolve().parent.parent

TAG = "REAL_MACHINE_CHECK "
KEY_ENV = "SWARM_BENCH_MODEL_KEY"
COMPETITION = "digit-images"
BACKENDS = ("bwrap", "local", "unsafe-local")
SANDBOX_KEYS = ("name", "isolated", "cpus", "memory_mb", "memory_guard", "gpus", "description")
RESERVE_S = 45.0  # kept back for every later part when a part's timeout is cut to fit --budget-s
MIN_PART_S = 20.0
TAIL_CHARS = 4000
GPU_CHECK_STATUS = {
    0: "GPU used",
    1: "torch saw no GPU",
    2: "no GPU on the host, or the sandbox cannot start",
}

# The solution the scripted model sends (a plan and this code): placeholders __VARIANT__ and __EPOCHS__.
SOLUTION = '''\
# Real-machine check (benchmarks/real_machine_check.py), variant __VARIANT__: a small CNN in torch on the
# digit PNGs, on the GPU when torch sees one, else on the CPU; it reports what it was given on one line.
import time

STARTED = time.time()
import json
import os
import resource

import numpy as np
import pandas as pd
from PIL import Image

TAG = "REAL_MACHINE_CHECK "
VARIANT, EPOCHS = __VARIANT__, __EPOCHS__
INPUT, SUB = "./input", "./submission"


def cgroup_memory_max():
    """The memory limit of this process's cgroup where /sys shows it (v2 memory.max, v1 limit_in_bytes)."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().strip().split("\\n")
    except OSError:
        return None
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        name = "memory.max" if controllers == "" else "memory.limit_in_bytes"
        if controllers not in ("", "memory") and "memory" not in controllers.split(","):
            continue
        base = "/sys/fs/cgroup" if controllers == "" else "/sys/fs/cgroup/memory"
        for where in (base + path.rstrip("/"), base):
            try:
                with open(where + "/" + name) as f:
                    return f.read().strip()
            except OSError:
                continue
    return None


# [SECTION: DATA]
train = pd.read_csv(os.path.join(INPUT, "train.csv"))
test = pd.read_csv(os.path.join(INPUT, "test.csv"))


def load(folder, ids):
    pixels = [np.asarray(Image.open(os.path.join(INPUT, folder, i)).convert("L"), np.float32) for i in ids]
    x = np.stack(pixels)[:, None]
    return ((x - x.mean((2, 3), keepdims=True)) / (x.std((2, 3), keepdims=True) + 1e-6)).astype(np.float32)


x_all, y_all, x_test = load("train", train["id"]), train["label"].to_numpy(), load("test", test["id"])
order = np.random.default_rng(VARIANT).permutation(len(train))
fit_rows, val_rows = order[: int(0.8 * len(order))], order[int(0.8 * len(order)) :]

import torch  # noqa: E402

soft_as = resource.getrlimit(resource.RLIMIT_AS)[0]
facts = {
    "variant": VARIANT,
    "affinity": len(os.sched_getaffinity(0)),
    "cpu_count": os.cpu_count(),
    "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
    "torch_threads": torch.get_num_threads(),
    "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    "rlimit_as_mb": None if soft_as == resource.RLIM_INFINITY else soft_as // 2**20,
    "cgroup_memory_max": cgroup_memory_max(),
    "torch": torch.__version__,
}
facts["cuda_available"] = torch.cuda.is_available()
device = torch.device("cuda" if facts["cuda_available"] else "cpu")
facts["device"] = str(device)
facts["device_name"] = torch.cuda.get_device_name(0) if facts["cuda_available"] else "cpu"
print("saw:", json.dumps(facts))

# [SECTION: MODEL]
torch.manual_seed(VARIANT)
model = torch.nn.Sequential(
    torch.nn.Conv2d(1, 16, 3, padding=1),
    torch.nn.ReLU(),
    torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(16, 32, 3, padding=1),
    torch.nn.ReLU(),
    torch.nn.MaxPool2d(2),
    torch.nn.Flatten(),
    torch.nn.Linear(32 * 7 * 7, 64),
    torch.nn.ReLU(),
    torch.nn.Linear(64, 10),
).to(device)

# [SECTION: LOSS]
loss_fn = torch.nn.CrossEntropyLoss()

# [SECTION: OPTIMIZER]
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3 * (1 + 0.1 * (VARIANT % 3)))

# [SECTION: REGULARIZATION]
# none: a few epochs of a small network

# [SECTION: INITIALIZATION]
# torch's defaults, seeded by the variant

# [SECTION: TRAINING_TRICKS]
x_fit = torch.tensor(x_all[fit_rows], device=device)
y_fit = torch.tensor(y_all[fit_rows], device=device)
x_val = torch.tensor(x_all[val_rows], device=device)
train_start = time.time()
for epoch in range(EPOCHS):
    model.train()
    for batch in torch.randperm(len(x_fit), device=device).split(64):
        optimizer.zero_grad()
        loss = loss_fn(model(x_fit[batch]), y_fit[batch])
        loss.backward()
        optimizer.step()
model.eval()
with torch.no_grad():
    val_pred = model(x_val).argmax(1).cpu().numpy()
    test_pred = torch.cat([model(b).argmax(1) for b in torch.tensor(x_test, device=device).split(512)])
    test_pred = test_pred.cpu().numpy()
if facts["cuda_available"]:
    torch.cuda.synchronize()
accuracy = float((val_pred == y_all[val_rows]).mean())
os.makedirs(SUB, exist_ok=True)
pd.DataFrame({"id": test["id"], "label": test_pred.astype(int)}).to_csv(
    os.path.join(SUB, "submission.csv"), index=False
)
print(f"{EPOCHS} epochs on {facts['device']} ({facts['device_name']}): validation accuracy {accuracy:.4f}")
print("SWARM_METRIC " + json.dumps({"name": "accuracy", "value": accuracy, "lower_is_better": False}))
facts.update(
    val_accuracy=accuracy, train_s=round(time.time() - train_start, 3), start=STARTED, end=time.time()
)
print(TAG + json.dumps(facts))
'''


# -- pure parts (tests/benchmarks/test_real_machine_check.py) ----------------------------------------------


def solution_code(variant: int, epochs: int) -> str:
    """The solution of one variant (distinct code per variant, so no execution is served from a cache)."""
    return SOLUTION.replace("__VARIANT__", str(int(variant))).replace("__EPOCHS__", str(int(epochs)))


def model_reply(variant: int, epochs: int) -> str:
    return (
        "Plan: a small two-layer CNN in torch on the 28x28 digit images, on the GPU when there is one.\n\n"
        f"```python\n{solution_code(variant, epochs)}```\n"
    )


def parse_facts(output: str) -> dict[str, Any] | None:
    """What a solution reported: the JSON of its last `REAL_MACHINE_CHECK` line, or None."""
    for line in reversed(output.splitlines()):
        if line.startswith(TAG):
            try:
                facts = json.loads(line[len(TAG) :])
            except ValueError:
                return None
            return facts if isinstance(facts, dict) else None
    return None


def max_overlap(intervals: Iterable[tuple[float, float]]) -> int:
    """The most intervals [start, end] that hold one moment in common (touching ends do not overlap)."""
    events = []
    for start, end in intervals:
        if end < start:
            raise ValueError(f"interval ends before it starts: {start} > {end}")
        events += [(start, 1), (end, -1)]
    events.sort(key=lambda event: (event[0], event[1]))  # at one moment ends (-1) come before starts (+1)
    best = current = 0
    for _, change in events:
        current += change
        best = max(best, current)
    return best


def overlaps(facts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Most executions running at once: in all, and per GPU (those that saw CUDA, by CUDA_VISIBLE_DEVICES and
    device name)."""
    timed = [f for f in facts if _is_number(f.get("start")) and _is_number(f.get("end"))]
    per_gpu: dict[str, list[tuple[float, float]]] = {}
    for f in timed:
        if f.get("cuda_available"):
            key = f"{f.get('device_name')} (CUDA_VISIBLE_DEVICES={f.get('cuda_visible_devices')})"
            per_gpu.setdefault(key, []).append((f["start"], f["end"]))
    return {
        "executions": len(timed),
        "max_at_once": max_overlap((f["start"], f["end"]) for f in timed),
        "on_gpu": sum(len(v) for v in per_gpu.values()),
        "max_at_once_per_gpu": {key: max_overlap(v) for key, v in per_gpu.items()},
    }


def steps_per_min(steps: int, seconds: float | None) -> float | None:
    return 60.0 * steps / seconds if seconds and seconds > 0 else None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def part_timeout(wanted: float, started: float, budget_s: float, parts_left: int) -> float:
    """A part's timeout: what it asks for, cut so that the parts after it keep RESERVE_S each within the
    budget (never under MIN_PART_S)."""
    left = budget_s - (time.monotonic() - started) - RESERVE_S * parts_left
    return max(MIN_PART_S, min(wanted, left))


# -- running things ------------------------------------------------------------------------------------------


def run_bounded(cmd: Sequence[str], timeout_s: float, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run `cmd` in a process group of its own; past `timeout_s` the group is stopped (TERM, then KILL)."""
    started = time.monotonic()
    proc = subprocess.Popen(
        list(cmd),
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    timed_out, out, err = False, "", ""
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                out, err = proc.communicate(timeout=10)
                break
            except subprocess.TimeoutExpired:
                continue
    return {
        "rc": proc.returncode,
        "timed_out": timed_out,
        "wall_s": round(time.monotonic() - started, 3),
        "stdout": out or "",
        "stderr": err or "",
    }


def gpu_check(backend: str, timeout_s: float, work: Path) -> dict[str, Any]:
    """benchmarks/gpu_check.py on one backend, default settings."""
    out = work / f"gpu_check_{backend}.json"
    cmd = [
        sys.executable,
        *("-m", "benchmarks.gpu_check"),  # from REPO (run_bounded's cwd): this checkout, installed or not
        "--sandbox",
        backend,
        "--json",
        str(out),
    ]
    done = run_bounded(cmd, timeout_s)
    report: dict[str, Any] = {}
    if out.is_file():
        try:
            report = json.loads(out.read_text())
        except ValueError:
            report = {}
    if done["timed_out"]:
        status = f"timed out after {timeout_s:.0f} s"
    else:
        status = GPU_CHECK_STATUS.get(done["rc"], f"crashed (exit {done['rc']})")
    return {
        "backend": backend,
        "status": status,
        "ran": not done["timed_out"] and done["rc"] in GPU_CHECK_STATUS,
        "exit": done["rc"],
        "wall_s": done["wall_s"],
        "cuda_available": report.get("cuda_available"),
        "param_device": report.get("param_device"),
        "device_name": report.get("device_name"),
        "visible": report.get("visible"),
        "train_s": report.get("train_s"),
        "error": report.get("error"),
        "output_tail": (done["stdout"] + done["stderr"])[-TAIL_CHARS:],
    }


def run_overrides(
    server_url: str, cache_dir: Path, parallel: int, steps: int, sandbox: str | None = None
) -> list[str]:
    """The main job's overrides: the code model on the loopback server, review and evolution offline; no
    execution.* setting (the default sandbox and resources) unless `sandbox` names a backend."""
    return [
        *([f"execution.sandbox={sandbox}"] if sandbox else []),
        f"project.cache_dir={cache_dir}",
        "project.seed=0",
        "llm.code.provider=openai",
        "llm.code.model=gpt-4o-mini",
        f"llm.code.base_url={server_url}",
        f"llm.code.api_key_env={KEY_ENV}",
        "llm.code.max_retries=1",
        "llm.feedback.provider=offline",
        "llm.evolution.provider=offline",
        f"agent.max_steps={steps}",
        f"search.parallel={parallel}",
    ]


def read_nodes(run_dir: Path) -> list[dict[str, Any]]:
    """The run's journal nodes as dicts (the journal's own reader, else its lines as they are)."""
    path = run_dir / "journal.jsonl"
    if not path.is_file():
        return []
    try:
        from swarm.journal import Journal

        return [node.to_dict() for node in Journal.load(path)]
    except Exception:  # a torn or foreign journal: read what lines parse
        nodes = []
        for line in path.read_text(errors="replace").splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and "term_out" in item:
                nodes.append(item)
        return nodes


def main_job(
    parallel: int, args: argparse.Namespace, work: Path, timeout_s: float, variants: Iterable[int]
) -> dict[str, Any]:
    """One run of the main job on digit-images against a new loopback server; what its solutions saw."""
    from tests.doubles.loopback_server import LoopbackServer, Reply

    run_dir = work / f"run-parallel-{parallel}"
    env = {
        **os.environ,
        KEY_ENV: "loopback",  # the loopback server takes any key
        "PREFECT_HOME": str(work / f"prefect-parallel-{parallel}"),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("PREFECT_API_URL", None)  # the run's own temporary API
    with LoopbackServer(latency_s=args.latency) as server:
        server.enqueue(*(Reply.say(model_reply(v, args.epochs)) for v in variants))
        cmd = [
            sys.executable,
            *("-m", "flows.run_competition"),  # from REPO: this checkout's main job
            *("--competition", COMPETITION, "--run-dir", str(run_dir), "--no-live", "--json"),
            *[
                a
                for o in run_overrides(
                    server.openai_base_url, args.cache_dir, parallel, args.steps, args.sandbox
                )
                for a in ("--set", o)
            ],
        ]
        done = run_bounded(cmd, timeout_s, env)
        requests = [r for r in server.requests if r.path.endswith("/chat/completions")]
    return summarize_run(parallel, run_dir, done, requests, timeout_s)


def summarize_run(
    parallel: int, run_dir: Path, done: dict[str, Any], requests: Sequence[Any], timeout_s: float
) -> dict[str, Any]:
    nodes = read_nodes(run_dir)
    executions = []
    for node in nodes:
        facts = parse_facts(node.get("term_out") or "")
        executions.append(
            {
                "step": node.get("step"),
                "node": node.get("id"),
                "task_type": node.get("task_type"),
                "buggy": node.get("is_buggy"),
                "exec_time": node.get("exec_time"),
                "exit_code": node.get("exit_code"),
                "reported": facts is not None,
                **(facts or {}),
            }
        )
    reported = [e for e in executions if e["reported"]]
    sandbox = {}
    if (run_dir / "sandbox.json").is_file():
        try:
            sandbox = json.loads((run_dir / "sandbox.json").read_text())
        except ValueError:
            sandbox = {}
    summary = _json_tail(done["stdout"])
    grade = summary.get("grade") or {}
    ends = [e["end"] for e in reported if _is_number(e.get("end"))]
    search_s = max(ends) - requests[0].received_at if ends and requests else None
    if done["timed_out"]:
        status = f"timed out after {timeout_s:.0f} s"
    elif done["rc"] == 0:
        status = "ok"
    else:
        status = f"failed (exit {done['rc']})"
    return {
        "parallel": parallel,
        "status": status,
        "ran": done["rc"] == 0 and not done["timed_out"],
        "exit": done["rc"],
        "run_dir": str(run_dir),
        "wall_s": done["wall_s"],
        "steps": len(nodes),
        "buggy": sum(1 for n in nodes if n.get("is_buggy")),
        "model_calls": len(requests),
        "steps_per_min": steps_per_min(len(nodes), done["wall_s"]),
        "search_s": search_s,
        "search_steps_per_min": steps_per_min(len(nodes), search_s),
        "sandbox": {key: sandbox.get(key) for key in SANDBOX_KEYS if key in sandbox},
        "sandbox_json": sandbox,
        "overlap": overlaps(reported),
        "executions": executions,
        "grade": {k: grade.get(k) for k in ("score", "medal", "valid", "reason")} if grade else None,
        "summary": {
            k: summary.get(k)
            for k in ("best_node", "validation_metric", "delivered", "stopped_reason", "good_nodes", "refit")
            if k in summary
        },
        "output_tail": None if status == "ok" else (done["stdout"] + done["stderr"])[-TAIL_CHARS:],
    }


def _json_tail(stdout: str) -> dict[str, Any]:
    """The summary run_competition.py --json printed (the JSON object at the end of its stdout), or {}."""
    start = stdout.find("\n{")
    start = 0 if stdout.startswith("{") else start + 1 if start >= 0 else -1
    if start < 0:
        return {}
    try:
        data = json.loads(stdout[start:])
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


# -- the report ----------------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    gpus: Any
    try:
        from sandbox.gpus import describe, discover_gpus

        found = discover_gpus()
        gpus = describe(found) if found else "none"
    except Exception as exc:  # the report still says what else it knows
        gpus = f"unknown ({type(exc).__name__}: {exc})"
    try:
        memory_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError):
        memory_gb = None
    return {
        "cpus": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)),
        "memory_gb": memory_gb,
        "gpus": gpus,
        "python": sys.executable,
        "python_version": platform.python_version(),
        "platform": platform.platform(),
        "uid": os.geteuid(),
        "torch": installed_version("torch"),
        "prefect": installed_version("prefect"),
        "bwrap_on_path": shutil.which("bwrap"),
    }


def write_report(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=1, default=str) + "\n")
    tmp.replace(path)


def print_gpu_checks(checks: Sequence[dict[str, Any]]) -> None:
    print_table(
        "1. benchmarks/gpu_check.py per backend (default settings, no memory override)",
        ("backend", "status", "exit", "cuda_available", "param_device", "device", "wall s", "error"),
        [
            (
                c["backend"],
                c["status"],
                c["exit"],
                c["cuda_available"],
                c["param_device"],
                c["device_name"],
                c["wall_s"],
                (c["error"] or "")[:70] or None,
            )
            for c in checks
        ],
    )


def print_runs(runs: Sequence[dict[str, Any]], steps: int, sandbox: str | None = None) -> None:
    print_table(
        f"2. main job on {COMPETITION}, a scripted model's torch CNN solutions, {steps} steps, "
        f"execution.sandbox={sandbox or 'auto (default)'} and default resources",
        (
            "parallel",
            "status",
            "steps",
            "buggy",
            "wall s",
            "steps/min",
            "search s",
            "search steps/min",
            "max at once",
            "max at once on a GPU",
            "score",
        ),
        [
            (
                r["parallel"],
                r["status"],
                r["steps"],
                r["buggy"],
                r["wall_s"],
                r["steps_per_min"],
                r["search_s"],
                r["search_steps_per_min"],
                r["overlap"]["max_at_once"],
                max(r["overlap"]["max_at_once_per_gpu"].values(), default=None),
                (r["grade"] or {}).get("score"),
            )
            for r in runs
        ],
    )
    print_table(
        "sandbox.json of each run (cpus, memory_mb, memory_guard, gpus: '-' where the run records none)",
        ("parallel", *SANDBOX_KEYS),
        [(r["parallel"], *(r["sandbox"].get(k) for k in SANDBOX_KEYS)) for r in runs],
    )
    rows = []
    for r in runs:
        origin = min((e["start"] for e in r["executions"] if _is_number(e.get("start"))), default=0.0)
        for e in r["executions"]:
            rows.append(
                (
                    r["parallel"],
                    e["step"],
                    "yes" if e["buggy"] else "no",
                    e.get("start", 0.0) - origin if e["reported"] else None,
                    e["end"] - e["start"] if e["reported"] else None,
                    e.get("affinity"),
                    e.get("omp_num_threads"),
                    e.get("torch_threads"),
                    e.get("cuda_visible_devices"),
                    e.get("cuda_available"),
                    e.get("device_name"),
                    e.get("rlimit_as_mb"),
                    e.get("cgroup_memory_max"),
                    e.get("val_accuracy"),
                )
            )
    print_table(
        "what each solution saw (start: seconds after the run's first execution started)",
        (
            "parallel",
            "step",
            "buggy",
            "start s",
            "run s",
            "affinity",
            "OMP",
            "torch threads",
            "CUDA_VISIBLE_DEVICES",
            "cuda",
            "device",
            "RLIMIT_AS MB",
            "cgroup memory",
            "val acc",
        ),
        rows,
    )


def default_json_path() -> Path:
    out = os.environ.get("OUT")
    if out:
        return Path(out) / "real_machine_check.json"
    return REPO / "benchmarks" / "results" / "real_machine_check.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8, help="agent.max_steps of each run (default 8)")
    parser.add_argument("--parallel", type=int, nargs="*", default=[1, 4], help="search.parallel settings")
    parser.add_argument("--epochs", type=int, default=8, help="epochs of each CNN solution (default 8)")
    parser.add_argument("--latency", type=float, default=0.5, help="seconds before every model reply")
    parser.add_argument("--backends", nargs="*", default=list(BACKENDS), choices=BACKENDS)
    parser.add_argument(
        "--sandbox",
        choices=("auto", "docker", *BACKENDS),
        help="execution.sandbox of the main-job runs (default: not set, i.e. the config's default, auto)",
    )
    parser.add_argument("--gpu-check-timeout", type=float, default=120.0, help="seconds per backend")
    parser.add_argument("--run-timeout", type=float, default=240.0, help="seconds per main-job run")
    parser.add_argument("--budget-s", type=float, default=480.0, help="all parts together (default 480)")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "swarm-bench-cache")
    parser.add_argument(
        "--work-dir", type=Path, help="run dirs and logs (default: a new temporary dir, kept)"
    )
    parser.add_argument(
        "--json", type=Path, help="default: $OUT/real_machine_check.json, else benchmarks/results"
    )
    args = parser.parse_args(argv)
    if min([args.steps, args.epochs, *args.parallel, 1]) < 1 or args.latency < 0:
        parser.error("--steps, --epochs and every --parallel must be at least 1, --latency at least 0")
    json_path = args.json or default_json_path()
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="swarm-real-machine-"))
    work.mkdir(parents=True, exist_ok=True)
    work.chmod(0o755)  # slot uids of an isolating sandbox pass through to the run dirs
    started = time.monotonic()
    report: dict[str, Any] = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "args": {k: str(v) for k, v in vars(args).items()},
        "work_dir": str(work),
        "gpu_checks": [],
        "runs": [],
    }
    print(f"machine: {json.dumps(report['machine'])}", flush=True)
    write_report(json_path, report)

    parts_left = len(args.backends) + len(args.parallel)
    for backend in args.backends:
        parts_left -= 1
        timeout = part_timeout(args.gpu_check_timeout, started, args.budget_s, parts_left)
        print(f"\n[gpu check] {backend} (timeout {timeout:.0f} s) ...", flush=True)
        try:
            check = gpu_check(backend, timeout, work)
        except Exception as exc:  # reported; the next part runs
            check = {"backend": backend, "status": f"driver error: {exc!r}", "ran": False, "exit": None}
            check.update(dict.fromkeys(("wall_s", "cuda_available", "param_device", "device_name", "error")))
        print(
            f"[gpu check] {backend}: {check['status']}; cuda_available={check.get('cuda_available')}, "
            f"param_device={check.get('param_device')}, error={check.get('error')}",
            flush=True,
        )
        report["gpu_checks"].append(check)
        write_report(json_path, report)

    variants_per_run = 4 * args.steps + 8  # distinct code for every step, debug and retry included
    for index, parallel in enumerate(args.parallel):
        parts_left -= 1
        timeout = part_timeout(args.run_timeout, started, args.budget_s, parts_left)
        print(
            f"\n[main job] parallel {parallel}, {args.steps} steps (timeout {timeout:.0f} s) ...", flush=True
        )
        first = 1000 * (index + 1)  # each run's own variants: a run never reuses another's executions
        try:
            run = main_job(parallel, args, work, timeout, range(first, first + variants_per_run))
        except Exception as exc:  # reported; the next part runs
            run = {"parallel": parallel, "status": f"driver error: {exc!r}", "ran": False}
        at_once = (run.get("overlap") or {}).get("max_at_once")
        print(
            f"[main job] parallel {parallel}: {run['status']}; {run.get('steps')} steps in "
            f"{run.get('wall_s')} s, max at once {at_once}",
            flush=True,
        )
        if run.get("output_tail"):
            print(run["output_tail"][-1500:], flush=True)
        report["runs"].append(run)
        write_report(json_path, report)

    report["total_s"] = round(time.monotonic() - started, 1)
    print_gpu_checks(report["gpu_checks"])
    complete_runs = [r for r in report["runs"] if "overlap" in r]
    if complete_runs:
        print_runs(complete_runs, args.steps, args.sandbox)
    for r in report["runs"]:
        if "overlap" not in r:
            print(f"\nmain job at parallel {r['parallel']}: {r['status']}")
    host = report["machine"]
    print(f"\ntotal {report['total_s']} s; machine: {host['gpus']}, {host['cpus']} CPUs")
    write_report(json_path, report)
    print(f"wrote {json_path}")
    ran = all(c.get("ran") for c in report["gpu_checks"]) and all(r.get("ran") for r in report["runs"])
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main())
