"""Throughput with a slow model: steps per minute for search.parallel = 1, 2, 4, 8, and without Prefect.

    python benchmarks/throughput.py [--steps 16] [--latency 2.0] [--parallel 1 2 4 8] [--plain 1]
                                    [--json benchmarks/results/throughput.json]

The code stage talks to the loopback LLM server (`testing.loopback_server`, OpenAI protocol) which waits
`--latency` seconds before every reply; the review (feedback) and agent-evolution stages stay on the offline
coder, so they add no model wait. The replies are real solutions, written beforehand by the offline coder
with distinct seeds (all different code), so every execution in the local sandbox does real work; every
setting gets the same replies, a new run dir (nothing served from a cache) and a new server, and the script
checks that each step made exactly one model call. Settings run one after another: one epoch of `--steps`
steps through the epoch flow (Prefect, its own ephemeral API, warmed up first, heartbeats off) for each
`--parallel`, and through `swarm.pipeline.plain` for each `--plain` (default: the sequential loop).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.common import prefect_env, print_table, run_overrides, warm_prefect, write_json  # noqa: E402

KEY_ENV = "SWARM_BENCH_MODEL_KEY"


def solution_replies(public_dir: Path, count: int) -> list[str]:
    """`count` model replies (a plan and a code block) with pairwise different code, by the offline coder."""
    from swarm.llm.base import CallContext
    from swarm.offline import OfflineClient

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
    from testing.loopback_server import LoopbackServer, Reply

    with LoopbackServer(latency_s=args.latency) as server:
        server.enqueue(*(Reply.say(text) for text in replies))
        overrides = [
            *run_overrides(args.cache_dir, args.competition, args.seed, parallel, args.steps),
            *model_overrides(server.openai_base_url),
        ]
        run_dir = root / f"{runner}-{parallel}"
        prepare_run(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
        wall = (
            run_prefect(run_dir, args.steps)
            if runner == "prefect"
            else run_plain(run_dir, args.steps, parallel)
        )
        calls = sum(1 for r in server.requests if r.path.endswith("/chat/completions"))
    journal = Journal.load(run_dir / "journal.jsonl")
    usage = [json.loads(line) for line in (run_dir / "llm_usage.jsonl").read_text().splitlines() if line]
    code_calls = [u for u in usage if u.get("stage") == "code"]
    exec_times = [n.exec_time for n in journal if n.exec_time is not None]
    latencies = [u["latency_s"] for u in code_calls if u.get("ok")]
    return {
        "runner": runner,
        "parallel": parallel,
        "steps": len(journal),
        "wall_s": wall,
        "steps_per_min": 60 * len(journal) / wall,
        "model_calls": calls,
        "model_calls_ok": sum(1 for u in code_calls if u.get("ok")),
        "one_call_per_step": calls == len(journal) == sum(1 for u in code_calls if u.get("ok")),
        "buggy": len(journal.buggy_nodes()),
        "mean_model_wait_s": sum(latencies) / len(latencies) if latencies else None,
        "mean_exec_s": sum(exec_times) / len(exec_times) if exec_times else None,
    }


def run_prefect(run_dir: Path, steps: int) -> float:
    from flows.epoch import EpochParams, epoch_flow
    from tasks.runs import get_context

    get_context(str(run_dir))  # opened before the clock starts, like the plain side's open_run
    started = time.perf_counter()
    epoch_flow(EpochParams(run_dir=str(run_dir), epoch=1, steps=steps))
    return time.perf_counter() - started


def run_plain(run_dir: Path, steps: int, parallel: int) -> float:
    from swarm.pipeline.context import open_run
    from swarm.pipeline.plain import run_epoch

    rc, journal, state = open_run(run_dir)
    started = time.perf_counter()
    run_epoch(rc, journal, state, epoch=1, steps_wanted=steps, parallel=parallel)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=16, help="steps per setting (default 16)")
    parser.add_argument("--latency", type=float, default=2.0, help="seconds before every model reply")
    parser.add_argument("--parallel", type=int, nargs="*", default=[1, 2, 4, 8], help="Prefect settings")
    parser.add_argument("--plain", type=int, nargs="*", default=[1], help="plain-runner settings")
    parser.add_argument("--seed", type=int, default=0, help="project.seed of every run")
    parser.add_argument("--competition", default="titanic")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "swarm-bench-cache")
    parser.add_argument("--prefect-home", type=Path, default=None, help="default: a new temporary one")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/throughput.json"))
    args = parser.parse_args(argv)
    if args.steps < 1 or args.latency < 0 or min([*args.parallel, *args.plain, 1]) < 1:
        parser.error("--steps and every parallel setting must be at least 1, --latency at least 0")

    prefect_env(args.prefect_home)
    os.environ.setdefault(KEY_ENV, "loopback")  # the loopback server takes any key
    from prefect.settings import temporary_settings

    from swarm.competitions import load_competition

    replies = solution_replies(load_competition(args.competition, args.cache_dir).public_dir, args.steps)
    settings = [("prefect", p) for p in args.parallel] + [("plain", p) for p in args.plain]
    results = []
    with (
        tempfile.TemporaryDirectory(prefix="swarm-throughput-") as tmp,
        temporary_settings(updates={"flows.heartbeat_frequency": None}),
    ):
        if args.parallel:
            warm_prefect(runs=0)
        for runner, parallel in settings:
            result = run_setting(runner, parallel, replies, args, Path(tmp))
            print(f"{runner} parallel {parallel}: {result['steps_per_min']:.2f} steps/min", flush=True)
            results.append(result)

    print_table(
        f"{args.steps} steps per setting, {args.latency} s per code-model call, {args.competition}",
        (
            "runner",
            "parallel",
            "steps",
            "wall s",
            "steps/min",
            "model calls",
            "1 call/step",
            "buggy",
            "wait s",
            "exec s",
        ),
        [
            (
                r["runner"],
                r["parallel"],
                r["steps"],
                r["wall_s"],
                r["steps_per_min"],
                r["model_calls"],
                "yes" if r["one_call_per_step"] else "NO",
                r["buggy"],
                r["mean_model_wait_s"],
                r["mean_exec_s"],
            )
            for r in results
        ],
    )
    write_json(args.json, args, {"results": results})
    return 0 if all(r["one_call_per_step"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
