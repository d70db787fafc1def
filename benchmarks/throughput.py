"""Throughput with a slow model: steps per minute for search.parallel = 1, 2, 4, 8, and without Prefect.

    python -m benchmarks.throughput [--steps 16] [--latency 2.0] [--parallel 1 2 4 8] [--plain 1]
                                    [--solutions offline|short] [--repeats 1]
                                    [--json benchmarks/results/throughput.json]

The code stage talks to the loopback LLM server (`tests.doubles.loopback_server`, OpenAI protocol) which waits
`--latency` seconds before every reply; the review (feedback) and agent-evolution stages stay on the offline
coder, so they add no model wait. The replies are real solutions with pairwise different code, so every
execution in the local sandbox does real work:
- `--solutions offline` (default): written beforehand by the offline coder with distinct seeds (pandas,
  scikit-learn or LightGBM models: seconds per run);
- `--solutions short`: small pure-Python models (the majority label, or mean, of the target per value of one
  column, the first column from the variant's on whose test predictions are not all the same; validated on the
  last 20% of rows), which run in a fraction of a second: solutions well under the model's latency, the
  setting of the throughput target (4 steps in parallel at least 3x the steps per minute of 1).
Every setting gets the same replies, a new run dir (nothing served from a cache) and a new server, and the
script checks that each step made exactly one model call. Settings run one after another, `--repeats` rounds:
one epoch of `--steps` steps through the epoch flow (Prefect, its own ephemeral API, warmed up first,
heartbeats off) for each `--parallel`, and through `swarm.pipeline.plain` for each `--plain` (default: the
sequential loop). The table shows medians over the rounds, the speed-up over the flow's parallel 1 and the
1-minute load average around the runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import (
    median,
    merged_breakdown,
    prefect_env,
    print_breakdown,
    print_library_versions,
    print_table,
    run_overrides,
    step_breakdown,
    time_epoch,
    warm_prefect,
    write_json,
)

KEY_ENV = "SWARM_BENCH_MODEL_KEY"
TARGET_SPEEDUP = 3.0  # the least speedup of parallel 4 over parallel 1, with short solutions and a 2 s model
SHORT_SOLUTION = """\
# A short solution (benchmarks/throughput.py --solutions short, variant {variant}): the majority label (or the
# mean) of the target per value of one column; the first column, from the variant's on, whose test predictions
# are not all the same.
import csv
import json
import math
import os

INPUT_DIR, SUB_DIR = "./input", "./submission"
ID_COL, TARGET, METRIC, LOWER_IS_BETTER = {id_col!r}, {target!r}, {metric!r}, {lower}
VARIANT = {variant}


def read(name):
    with open(os.path.join(INPUT_DIR, name), newline="") as f:
        return list(csv.DictReader(f))


train, test, sample = read("train.csv"), read("test.csv"), read("sample_submission.csv")
labels = [row[TARGET] for row in train]


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


classify = any(number(v) is None for v in labels) or len(set(labels)) <= 20


def fit(rows, column):
    groups = {{}}
    for row in rows:
        groups.setdefault(row[column], []).append(row[TARGET])

    def pick(values):
        if classify:
            return max(sorted(set(values)), key=values.count)
        return sum(float(v) for v in values) / len(values)

    table = {{key: pick(values) for key, values in groups.items()}}
    default = pick([row[TARGET] for row in rows])
    return lambda row: table.get(row[column], default)


features = [c for c in train[0] if c not in (ID_COL, TARGET)]
for offset in range(len(features)):
    column = features[(VARIANT + offset) % len(features)]
    model = fit(train, column)
    predictions = {{row[ID_COL]: model(row) for row in test}}
    if len({{str(p) for p in predictions.values()}}) > 1:
        break
cut = int(0.8 * len(train))
check, held = fit(train[:cut], column), train[cut:]
if classify:
    value = sum(check(row) == row[TARGET] for row in held) / len(held)
else:
    value = math.sqrt(sum((check(row) - float(row[TARGET])) ** 2 for row in held) / len(held))
print(f"grouped by {{column}}: validation {{value:.4f}}")
os.makedirs(SUB_DIR, exist_ok=True)
with open(os.path.join(SUB_DIR, "submission.csv"), "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow([ID_COL, TARGET])
    for row in sample:
        writer.writerow([row[ID_COL], predictions[row[ID_COL]]])
print("SWARM_METRIC " + json.dumps({{"name": METRIC, "value": value, "lower_is_better": LOWER_IS_BETTER}}))
"""


def short_replies(competition: Any, count: int) -> list[str]:
    """`count` model replies whose code is a short solution (`SHORT_SOLUTION`), variants 0, 1, 2, ..."""
    spec = competition.metric
    if len(spec.target_columns) != 1:
        raise SystemExit(
            f"--solutions short needs one target column; {competition.id} has {spec.target_columns}"
        )
    return [
        "Plan: predict the target's majority label (or mean) per value of one column.\n\n```python\n"
        + SHORT_SOLUTION.format(
            variant=variant,
            id_col=spec.id_column,
            target=spec.target_columns[0],
            metric=spec.name,
            lower=spec.lower_is_better,
        )
        + "```\n"
        for variant in range(count)
    ]


def solution_replies(public_dir: Path, count: int) -> list[str]:
    """`count` model replies (a plan and a code block) with pairwise different code, by the offline coder."""
    from swarm.llm.base import CallContext
    from swarm.offline_coder import OfflineClient

    replies: dict[str, str] = {}
    seed = 0
    while len(replies) < count:
        ctx = CallContext(stage="code", kind="draft", hints={"input_dir": str(public_dir), "seed": seed})
        reply = OfflineClient(seed=seed).code_reply(ctx)
        replies.setdefault(reply.code, reply.text())
        seed += 1
        if seed > 50 * count:
            raise RuntimeError(f"the offline coder wrote only {len(replies)} different solutions")
    return list(replies.values())


def model_overrides(base_url: str) -> list[str]:
    return [
        "llm.code.provider=openai",
        "llm.code.model=gpt-4o-mini",
        f"llm.code.base_url={base_url}",
        f"llm.code.api_key_env={KEY_ENV}",
    ]


def run_setting(
    runner: str, parallel: int, replies: list[str], args: argparse.Namespace, root: Path
) -> dict[str, Any]:
    """One epoch of `args.steps` steps on a new run dir against a new loopback server."""
    from flows.competition import CompetitionParams, prepare_run
    from swarm.journal import Journal
    from swarm.llm.usage import USAGE_FILE, read_records
    from tests.doubles.loopback_server import LoopbackServer, Reply

    with LoopbackServer(latency_s=args.latency) as server:
        server.enqueue(*(Reply.say(text) for text in replies))
        overrides = [
            *run_overrides(args.cache_dir, args.competition, args.seed, parallel, args.steps),
            *model_overrides(server.openai_base_url),
        ]
        run_dir = root / f"{runner}-{parallel}"
        prepare_run(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
        wall = time_epoch(runner, run_dir, args.steps, parallel)
        calls = sum(1 for r in server.requests if r.path.endswith("/chat/completions"))
    journal = Journal.load(run_dir / "journal.jsonl")
    usage = read_records(run_dir / USAGE_FILE)
    code_calls = [u for u in usage if u.stage == "code"]
    exec_times = [n.exec_time for n in journal if n.exec_time is not None]
    latencies = [u.latency_s for u in code_calls if u.ok]
    return {
        "runner": runner,
        "parallel": parallel,
        "steps": len(journal),
        "wall_s": wall,
        "steps_per_min": 60 * len(journal) / wall,
        "model_calls": calls,
        "model_calls_ok": len(latencies),
        "one_call_per_step": calls == len(journal) == len(latencies),
        "buggy": len(journal.buggy_nodes()),
        "mean_model_wait_s": sum(latencies) / len(latencies) if latencies else None,
        "mean_exec_s": sum(exec_times) / len(exec_times) if exec_times else None,
        "breakdown": step_breakdown(run_dir, wall, parallel),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=16, help="steps per setting (default 16)")
    parser.add_argument("--latency", type=float, default=2.0, help="seconds before every model reply")
    parser.add_argument("--parallel", type=int, nargs="*", default=[1, 2, 4, 8], help="Prefect settings")
    parser.add_argument("--plain", type=int, nargs="*", default=[1], help="plain-runner settings")
    parser.add_argument(
        "--solutions",
        choices=("offline", "short"),
        default="offline",
        help="the offline coder's solutions (seconds each) or short pure-Python ones (well under a second)",
    )
    parser.add_argument("--repeats", type=int, default=1, help="rounds of every setting (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="project.seed of every run")
    parser.add_argument("--competition", default="titanic")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "swarm-bench-cache")
    parser.add_argument("--prefect-home", type=Path, default=None, help="default: a new temporary one")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/throughput.json"))
    args = parser.parse_args(argv)
    if min(args.steps, args.repeats) < 1 or args.latency < 0 or min([*args.parallel, *args.plain, 1]) < 1:
        parser.error("--steps, --repeats and every parallel setting must be at least 1, --latency at least 0")

    prefect_env(args.prefect_home)
    os.environ.setdefault(KEY_ENV, "loopback")  # the loopback server takes any key
    from prefect.settings import temporary_settings

    from swarm.competitions import load_competition

    competition = load_competition(args.competition, args.cache_dir)
    replies = (
        short_replies(competition, args.steps)
        if args.solutions == "short"
        else solution_replies(competition.public_dir, args.steps)
    )
    settings = [("prefect", p) for p in args.parallel] + [("plain", p) for p in args.plain]
    results = []
    with (
        tempfile.TemporaryDirectory(prefix="swarm-throughput-") as tmp,
        temporary_settings(updates={"flows.heartbeat_frequency": None}),
    ):
        if args.parallel:
            warm_prefect(runs=0)
        for repeat in range(args.repeats):
            for runner, parallel in settings:
                load = os.getloadavg()[0]
                result = run_setting(runner, parallel, replies, args, Path(tmp) / str(repeat))
                result.update(repeat=repeat + 1, load_1min=[load, os.getloadavg()[0]])
                print(
                    f"{runner} parallel {parallel}: {result['steps_per_min']:.2f} steps/min "
                    f"(load {load:.1f})",
                    flush=True,
                )
                results.append(result)

    rows, summary = summary_rows(settings, results)
    loads = [load for r in results for load in r["load_1min"]]
    print_table(
        f"{args.steps} steps per setting, {args.latency} s per code-model call, {args.competition}, "
        f"{args.solutions} solutions (median of {args.repeats}; 1-minute load {min(loads):.1f}-{max(loads):.1f} "
        f"on {os.cpu_count()} CPUs)",
        (
            "runner",
            "parallel",
            "steps",
            "wall s",
            "steps/min",
            "x parallel 1",
            "model calls",
            "1 call/step",
            "buggy",
            "wait s",
            "exec s",
        ),
        rows,
    )
    print_breakdown(
        "where a step's time went (median over the rounds)",
        {
            f"{runner} {parallel}": merged_breakdown(
                [r["breakdown"] for r in results if (r["runner"], r["parallel"]) == (runner, parallel)]
            )
            for runner, parallel in settings
        },
    )
    versions = print_library_versions()
    speedup = summary.get("prefect 4")
    if speedup is not None and args.solutions == "short":
        met = "met" if speedup >= TARGET_SPEEDUP else "NOT met"
        print(
            f"\ntarget (issue 17): parallel 4 >= {TARGET_SPEEDUP:g}x parallel 1 with short solutions: {met}"
        )
    write_json(
        args.json,
        args,
        {
            "results": results,
            "speedup_over_parallel_1": summary,
            "load_1min": [min(loads), max(loads)],
            "libraries": versions,
        },
    )
    return 0 if all(r["one_call_per_step"] for r in results) else 1


def summary_rows(
    settings: list[tuple[str, int]], results: list[dict[str, Any]]
) -> tuple[list[tuple[Any, ...]], dict[str, float]]:
    """One table row per setting (medians over the rounds) and each setting's speed-up over the epoch flow's
    parallel 1 (None without it)."""
    rows, speedups = [], {}
    base = [r["steps_per_min"] for r in results if (r["runner"], r["parallel"]) == ("prefect", 1)]
    for runner, parallel in settings:
        mine = [r for r in results if (r["runner"], r["parallel"]) == (runner, parallel)]
        rate = median([r["steps_per_min"] for r in mine])
        speedup = rate / median(base) if base else None
        if speedup is not None:
            speedups[f"{runner} {parallel}"] = speedup
        rows.append(
            (
                runner,
                parallel,
                mine[0]["steps"],
                median([r["wall_s"] for r in mine]),
                rate,
                speedup,
                mine[0]["model_calls"],
                "yes" if all(r["one_call_per_step"] for r in mine) else "NO",
                max(r["buggy"] for r in mine),
                median([r["mean_model_wait_s"] or 0.0 for r in mine]),
                median([r["mean_exec_s"] or 0.0 for r in mine]),
            )
        )
    return rows, speedups


if __name__ == "__main__":
    sys.exit(main())
