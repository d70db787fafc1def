"""The solutions' libraries: the same offline-coder solutions run under the install's interpreter and under another
one (older numpy, pandas, scikit-learn), timed and scored by the harness.

    python -m benchmarks.library_speed --python /opt/oldlibs/bin/python [--steps 16] [--rounds 3]
                                       [--competition titanic] [--json benchmarks/results/library_speed.json]

Each round runs one epoch of `--steps` steps on the plain runner (sequential, the local sandbox) for each
interpreter, in alternating order, with the same model replies (`benchmarks.throughput.solution_replies`,
served at once by the loopback server): only the interpreter that runs the solutions differs
(`SWARM_SANDBOX_PYTHON`); the harness, its split and its scoring are the install's. Per interpreter it prints
its libraries' versions, the median of the solution's process (`sandbox` in a node's timings) and of a bare
`import numpy, pandas, sklearn.ensemble` in it, and each step's harness score beside the install's (the same
code must score the same, or within the noise of a library's numerics: `largest score difference`).

An older interpreter is a venv beside the install's, e.g. from wheels on disk:

    python -m venv --system-site-packages /opt/oldlibs
    /opt/oldlibs/bin/pip install --no-index --no-deps numpy-1.26.0-*.whl pandas-2.2.3-*.whl \\
        scikit_learn-1.6.1-*.whl scipy-1.13.0-*.whl
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import print_table, write_json

LIBRARIES = ("numpy", "pandas", "sklearn", "scipy")
IMPORTS = "import numpy, pandas, sklearn.ensemble"
INSTALL = "install"


def versions(python: str) -> dict[str, str]:
    """The versions of `LIBRARIES` that `python` imports."""
    code = (
        f"import json, importlib; print(json.dumps({{n: importlib.import_module(n).__version__ for n in "
        f"{list(LIBRARIES)!r}}}))"
    )
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def import_seconds(python: str, repeats: int = 5) -> float:
    """The median wall seconds of a new `python` process that imports what the offline coder's solutions do."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([python, "-c", IMPORTS], check=True, timeout=120, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run_epoch(python: str | None, replies: list[str], args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """One sequential epoch on the plain runner with the solutions run by `python` (None: the install's)."""
    from benchmarks.throughput import run_setting
    from swarm.journal import Journal

    if python is None:
        os.environ.pop("SWARM_SANDBOX_PYTHON", None)
    else:
        os.environ["SWARM_SANDBOX_PYTHON"] = python
    try:
        result = run_setting("plain", 1, replies, args, root)
    finally:
        os.environ.pop("SWARM_SANDBOX_PYTHON", None)
    journal = Journal.load(root / "plain-1" / "journal.jsonl")
    nodes = sorted(journal, key=lambda n: n.step or 0)
    return {
        "steps_per_min": result["steps_per_min"],
        "buggy": result["buggy"],
        "process_s": [n.meta.timings.get("sandbox") if n.meta.timings else None for n in nodes],
        "scores": [n.metric.value if n.metric else None for n in nodes],
    }


def largest_difference(scores: list[float | None], reference: list[float | None]) -> float | None:
    """The largest |score - reference| over the steps both scored; None where a step scored on one side only
    (a solution that fails under one interpreter and not the other)."""
    if [s is None for s in scores] != [r is None for r in reference]:
        return None
    pairs = [(s, r) for s, r in zip(scores, reference, strict=True) if s is not None and r is not None]
    return max((abs(s - r) for s, r in pairs), default=0.0)


def summarize(name: str, python: str, rounds: list[dict[str, Any]], reference: list[dict[str, Any]]) -> dict:
    """One interpreter's figures over the rounds: medians of the process seconds and steps per minute, and the
    scores against the install's in the same round."""
    process = [s for r in rounds for s in r["process_s"] if s is not None]
    differences = [
        largest_difference(r["scores"], ref["scores"]) for r, ref in zip(rounds, reference, strict=True)
    ]
    scored = [s for r in rounds for s in r["scores"] if s is not None]
    return {
        "interpreter": name,
        "python": python,
        "libraries": versions(python),
        "import_s": import_seconds(python),
        "process_s": statistics.median(process) if process else None,
        "steps_per_min": statistics.median(r["steps_per_min"] for r in rounds),
        "mean_score": statistics.fmean(scored) if scored else None,
        "buggy": sum(r["buggy"] for r in rounds),
        "largest_score_difference": None if None in differences else max(differences),  # type: ignore[type-var]
        "rounds": rounds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--python", required=True, help="the other interpreter (e.g. a venv with older libraries)"
    )
    parser.add_argument("--steps", type=int, default=16, help="steps per epoch (default 16)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="project.seed of every run")
    parser.add_argument("--competition", default="titanic")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "swarm-bench-cache")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/library_speed.json"))
    args = parser.parse_args(argv)
    if min(args.steps, args.rounds) < 1:
        parser.error("--steps and --rounds must be at least 1")
    if not Path(args.python).is_file():
        parser.error(f"--python {args.python} is no file")
    args.latency = 0.0  # the model's wait is not what is measured
    os.environ.setdefault("SWARM_BENCH_MODEL_KEY", "loopback")

    from benchmarks.throughput import solution_replies
    from swarm.competitions import load_competition

    competition = load_competition(args.competition, args.cache_dir)
    replies = solution_replies(competition.public_dir, args.steps)
    pythons = {INSTALL: None, "other": args.python}
    by_name: dict[str, list[dict[str, Any]]] = {name: [] for name in pythons}
    with tempfile.TemporaryDirectory(prefix="swarm-libraries-") as tmp:
        for index in range(args.rounds):
            order = list(pythons) if index % 2 == 0 else list(reversed(pythons))
            for name in order:
                result = run_epoch(pythons[name], replies, args, Path(tmp) / f"{index}-{name}")
                print(f"round {index + 1}, {name}: {result['steps_per_min']:.2f} steps/min", flush=True)
                by_name[name].append(result)
    summaries = [
        summarize(name, python or sys.executable, by_name[name], by_name[INSTALL])
        for name, python in pythons.items()
    ]
    print_table(
        f"{args.steps} offline-coder solutions on {args.competition}, sequential, plain runner, local sandbox "
        f"(medians of {args.rounds} alternating rounds, {os.cpu_count()} CPUs)",
        (
            "interpreter",
            *LIBRARIES,
            "import s",
            "process s",
            "steps/min",
            "mean score",
            "largest score difference",
        ),
        [
            (
                s["interpreter"],
                *(s["libraries"].get(name) for name in LIBRARIES),
                s["import_s"],
                s["process_s"],
                s["steps_per_min"],
                s["mean_score"],
                s["largest_score_difference"],
            )
            for s in summaries
        ],
    )
    write_json(args.json, args, {"interpreters": summaries})
    return 0


if __name__ == "__main__":
    sys.exit(main())
