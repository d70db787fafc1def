"""AIDE side by side: the reference agent AIDE (aideml 0.2.2) and Swarm-Ev2 on one competition, with the same
scripted model replies and latency; steps per minute and each step's time outside the model and execution.

    python -m benchmarks.aide_side_by_side [--steps 16] [--latency 2.0] [--parallel 1 4] [--plain 1]
                                           [--competition titanic] [--json benchmarks/results/aide_side_by_side.json]

AIDE is not a dependency: its pins (pandas==2.1.4, numpy==1.26.2, torch, ...) cannot be installed beside this
project's (pip: ResolutionImpossible), so install it without them, then the packages it imports:

    pip install --no-deps aideml==0.2.2 && pip install -e ".[bench]"

Both agents talk to loopback servers (`tests.doubles.loopback_server`, OpenAI protocol) and get the same replies:
- the code model waits `--latency` seconds, then answers with one of `--steps` real solutions with pairwise
  different code, written beforehand by the offline coder for the competition (for AIDE, which wants the
  submission in `./working`, that directory is the only change);
- the feedback model answers at once with the same `submit_review` call (not buggy, a fixed metric).
The model names are not OpenAI's (AIDE sends `gpt-*`/`o1*` names to the real API whatever OPENAI_BASE_URL
says). Each side runs each solution itself: AIDE in a process forked from its own (numpy and pandas already
imported), Swarm-Ev2 in its local sandbox (a fresh interpreter per run, and the harness scores its held-out
rows); that cost is execution on both sides, not orchestration.

- AIDE: `aide.run.run()`, its own command-line entry point and loop (search policy, prompts, code
  formatting, journal saved every step), `agent.steps=--steps`, in a child process of this script, timed from
  its first step to the end of its last (its workspace preparation before, like Swarm-Ev2's run setup, is not).
- Swarm-Ev2: one epoch of `--steps` steps of a new run (`search.policy=aide`, the same number of drafts as
  AIDE's default) through the epoch flow for each `--parallel` (its own ephemeral Prefect API, warmed up,
  heartbeats off), and through the plain runner (`swarm.pipeline.plain`) for each `--plain`.

Orchestration per step = (wall - model calls - executions) / steps, for the sequential settings only (with
steps in parallel the three overlap): model calls as the client timed them (AIDE: its `query`; Swarm-Ev2: its
usage ledger), executions as each agent timed them (AIDE: `Interpreter.run`; Swarm-Ev2: the sandbox).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import subprocess
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
from benchmarks.throughput import KEY_ENV, solution_replies

AIDE_VERSION = "0.2.2"
INSTALL_HINT = f'pip install --no-deps aideml=={AIDE_VERSION} && pip install -e ".[bench]"'
CODE_MODEL = "loop-coder"  # not "gpt-*" or "o1*": AIDE would send those to api.openai.com
REVIEW_MODEL = "loop-reviewer"
AIDE_NUM_DRAFTS = 5  # AIDE's default agent.search.num_drafts; Swarm-Ev2 gets the same
REVIEW_METRIC = 0.8

# Run in a child process: AIDE's own entry point, with timers around its model calls, executions and steps.
AIDE_CHILD = """
import json, os, time
import aide.agent, aide.interpreter, aide.run

stats = {"model_s": [], "exec_s": [], "step_s": [], "step_starts": []}

def timed(record, fn):
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            record.append(time.perf_counter() - started)
    return wrapper

aide.agent.query = timed(stats["model_s"], aide.agent.query)
aide.interpreter.Interpreter.run = timed(stats["exec_s"], aide.interpreter.Interpreter.run)
step = aide.agent.Agent.step

def timed_step(self, *args, **kwargs):
    stats["step_starts"].append(time.perf_counter())
    return timed(stats["step_s"], step)(self, *args, **kwargs)

aide.agent.Agent.step = timed_step
aide.run.run()
stats["ended"] = time.perf_counter()
with open(os.environ["AIDE_BENCH_STATS"], "w") as out:
    json.dump(stats, out)
"""


def aide_missing() -> str | None:
    """Why AIDE cannot run here, in one sentence with the fix; None when it can."""
    try:
        version = importlib.metadata.version("aideml")
    except importlib.metadata.PackageNotFoundError:
        return f"AIDE is not installed; install it with: {INSTALL_HINT}"
    probe = subprocess.run(
        [sys.executable, "-c", "import aide.run"], capture_output=True, text=True, timeout=120
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no error output"])[-1]
        return f"aideml {version} is installed but does not import ({last}); install what it needs: {INSTALL_HINT}"
    if version != AIDE_VERSION:
        print(
            f"note: aideml {version} is installed; this benchmark was written for {AIDE_VERSION}", flush=True
        )
    return None


def review_reply() -> Any:
    """The feedback model's one answer, valid for both agents' `submit_review` function."""
    from tests.doubles.loopback_server import Reply

    return Reply.tool_call(
        "submit_review",
        {
            "is_bug": False,
            "has_csv_submission": True,
            "summary": "The script trained a model, printed its validation metric and wrote submission.csv.",
            "metric": REVIEW_METRIC,
            "lower_is_better": False,
        },
    )


def for_aide(reply: str) -> str:
    """A solution as AIDE asks for it: the submission in ./working instead of ./submission."""
    return reply.replace('"./submission"', '"./working"')


def aide_data_dir(public_dir: Path, dest: Path) -> tuple[Path, Path]:
    """AIDE's data dir (the competition's public files but its description) and its description file."""
    dest.mkdir(parents=True)
    for path in public_dir.iterdir():
        if path.is_file() and path.name != "description.md":
            (dest / path.name).write_bytes(path.read_bytes())
    return dest, public_dir / "description.md"


def run_aide(replies: list[str], public_dir: Path, args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """AIDE's own loop for `args.steps` steps in a child process, against one loopback server whose queue
    alternates code replies (after `args.latency` s) and reviews (at once): AIDE calls them in that order."""
    from tests.doubles.loopback_server import LoopbackServer, Reply

    root.mkdir(parents=True)
    data_dir, desc_file = aide_data_dir(public_dir, root / "data")
    stats_path = root / "stats.json"
    with LoopbackServer() as server:
        for text in replies:
            server.enqueue(Reply.slow(args.latency, Reply.say(for_aide(text))), review_reply())
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))},
            "OPENAI_BASE_URL": server.openai_base_url,
            "OPENAI_API_KEY": "loopback",
            "AIDE_BENCH_STATS": str(stats_path),
        }
        command = [
            sys.executable,
            "-c",
            AIDE_CHILD,
            f"data_dir={data_dir}",
            f"desc_file={desc_file}",
            f"agent.steps={args.steps}",
            f"agent.code.model={CODE_MODEL}",
            f"agent.feedback.model={REVIEW_MODEL}",
            f"agent.search.num_drafts={AIDE_NUM_DRAFTS}",
            "generate_report=False",
            f"log_dir={root / 'logs'}",
            f"workspace_dir={root / 'workspaces'}",
            "exp_name=bench",
        ]
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=3600)
        if done.returncode != 0:
            raise RuntimeError(f"AIDE failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        requests = [r for r in server.requests if r.path.endswith("/chat/completions")]
    stats = json.loads(stats_path.read_text())
    journal = json.loads(next((root / "logs").glob("*bench/journal.json")).read_text())
    nodes = journal.get("nodes", [])
    wall = stats["ended"] - stats["step_starts"][0]
    steps = len(stats["step_s"])
    code_calls = sum(1 for r in requests if not (r.body or {}).get("tools"))
    return {
        "agent": "AIDE",
        "runner": f"aideml {importlib.metadata.version('aideml')}",
        "parallel": 1,
        "steps": steps,
        "wall_s": wall,
        "steps_per_min": 60 * steps / wall,
        "model_calls": len(requests),
        "code_calls": code_calls,
        "buggy": sum(1 for n in nodes if n.get("is_buggy")),
        "model_s": sum(stats["model_s"]),
        "exec_s": sum(stats["exec_s"]),
        "mean_exec_s": sum(stats["exec_s"]) / max(len(stats["exec_s"]), 1),
        "orchestration_s_per_step": (wall - sum(stats["model_s"]) - sum(stats["exec_s"])) / steps,
    }


def swarm_overrides(args: argparse.Namespace, parallel: int, code_url: str, review_url: str) -> list[str]:
    return [
        *run_overrides(args.cache_dir, args.competition, args.seed, parallel, args.steps),
        "search.policy=aide",
        f"search.num_drafts={AIDE_NUM_DRAFTS}",
        *(
            item
            for stage, model, url in (("code", CODE_MODEL, code_url), ("feedback", REVIEW_MODEL, review_url))
            for item in (
                f"llm.{stage}.provider=openai",
                f"llm.{stage}.model={model}",
                f"llm.{stage}.base_url={url}",
                f"llm.{stage}.api_key_env={KEY_ENV}",
            )
        ),
    ]


def run_swarm(
    runner: str, parallel: int, replies: list[str], args: argparse.Namespace, root: Path
) -> dict[str, Any]:
    """One epoch of `args.steps` steps of a new run, code and feedback models on two loopback servers."""
    from flows.competition import CompetitionParams, prepare_run
    from swarm.journal import Journal
    from swarm.llm.usage import USAGE_FILE, read_records
    from tests.doubles.loopback_server import LoopbackServer, Reply

    run_dir = root / f"swarm-{runner}-{parallel}"
    with (
        LoopbackServer(latency_s=args.latency) as coder,
        LoopbackServer(default_reply=review_reply()) as reviewer,
    ):
        coder.enqueue(*(Reply.say(text) for text in replies))
        overrides = swarm_overrides(args, parallel, coder.openai_base_url, reviewer.openai_base_url)
        prepare_run(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
        wall = time_epoch(runner, run_dir, args.steps, parallel)
        calls = sum(
            1 for server in (coder, reviewer) for r in server.requests if r.path.endswith("/chat/completions")
        )
        code_calls = sum(1 for r in coder.requests if r.path.endswith("/chat/completions"))
    journal = Journal.load(run_dir / "journal.jsonl")
    usage = read_records(run_dir / USAGE_FILE)
    model_s = sum(u.latency_s for u in usage if u.stage in ("code", "feedback"))
    exec_times = [n.exec_time for n in journal if n.exec_time is not None]
    steps = len(journal)
    return {
        "agent": "Swarm-Ev2",
        "runner": runner,
        "parallel": parallel,
        "steps": steps,
        "wall_s": wall,
        "steps_per_min": 60 * steps / wall,
        "model_calls": calls,
        "code_calls": code_calls,
        "buggy": len(journal.buggy_nodes()),
        "model_s": model_s,
        "exec_s": sum(exec_times),
        "mean_exec_s": sum(exec_times) / max(len(exec_times), 1),
        "orchestration_s_per_step": (wall - model_s - sum(exec_times)) / steps if parallel == 1 else None,
        "breakdown": step_breakdown(run_dir, wall, parallel),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=16, help="steps per run (default 16)")
    parser.add_argument("--latency", type=float, default=2.0, help="seconds before every code-model reply")
    parser.add_argument(
        "--parallel", type=int, nargs="*", default=[1, 4], help="Swarm-Ev2 epoch-flow settings"
    )
    parser.add_argument("--plain", type=int, nargs="*", default=[1], help="Swarm-Ev2 plain-runner settings")
    parser.add_argument(
        "--repeats", type=int, default=1, help="runs of every setting, interleaved (default 1)"
    )
    parser.add_argument("--seed", type=int, default=0, help="project.seed of the Swarm-Ev2 runs")
    parser.add_argument("--competition", default="titanic")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "swarm-bench-cache")
    parser.add_argument("--prefect-home", type=Path, default=None, help="default: a new temporary one")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/aide_side_by_side.json"))
    args = parser.parse_args(argv)
    if min(args.steps, args.repeats) < 1 or args.latency < 0 or min([*args.parallel, *args.plain, 1]) < 1:
        parser.error("--steps, --repeats and every parallel setting must be at least 1, --latency at least 0")

    missing = aide_missing()
    if missing is not None:
        print(missing, file=sys.stderr)
        return 2
    prefect_env(args.prefect_home)
    os.environ.setdefault(KEY_ENV, "loopback")  # the loopback servers take any key
    from prefect.settings import temporary_settings

    from swarm.competitions import load_competition

    public_dir = load_competition(args.competition, args.cache_dir).public_dir
    replies = solution_replies(public_dir, args.steps)
    settings = [("aide", 1)] + [("prefect", p) for p in args.parallel] + [("plain", p) for p in args.plain]
    results: list[dict[str, Any]] = []
    with (
        tempfile.TemporaryDirectory(prefix="swarm-aide-") as tmp,
        temporary_settings(updates={"flows.heartbeat_frequency": None}),
    ):
        if args.parallel:
            warm_prefect(runs=0)
        for repeat in range(args.repeats):
            for runner, parallel in settings:
                root = Path(tmp) / str(repeat)
                load = os.getloadavg()[0]
                if runner == "aide":
                    result = run_aide(replies, public_dir, args, root / "aide")
                else:
                    result = run_swarm(runner, parallel, replies, args, root)
                result.update(repeat=repeat + 1, load_1min=[load, os.getloadavg()[0]])
                print(
                    f"{result['agent']} {runner} parallel {parallel}: {result['steps_per_min']:.2f} steps/min",
                    flush=True,
                )
                results.append(result)

    rows = []
    for runner, parallel in settings:
        mine = [r for r in results if _setting(r) == (runner, parallel)]
        orchestration = [
            r["orchestration_s_per_step"] for r in mine if r["orchestration_s_per_step"] is not None
        ]
        rows.append(
            (
                mine[0]["agent"],
                mine[0]["runner"],
                parallel,
                mine[0]["steps"],
                median([r["wall_s"] for r in mine]),
                median([r["steps_per_min"] for r in mine]),
                f"{mine[0]['model_calls']} ({mine[0]['code_calls']} code)",
                mine[0]["buggy"],
                median([r["mean_exec_s"] for r in mine]),
                median(orchestration) if orchestration else None,
            )
        )
    loads = [load for r in results for load in r["load_1min"]]
    print_table(
        f"{args.steps} steps per run, {args.latency} s per code-model call, {args.competition}"
        f" (median of {args.repeats}; 1-minute load {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} CPUs)",
        (
            "agent",
            "runner",
            "parallel",
            "steps",
            "wall s",
            "steps/min",
            "model calls",
            "buggy",
            "exec s",
            "orchestration s/step",
        ),
        rows,
    )
    print_breakdown(
        "where a Swarm-Ev2 step's time went (median over the rounds)",
        {
            f"{runner} {parallel}": merged_breakdown(
                [r["breakdown"] for r in results if _setting(r) == (runner, parallel)]
            )
            for runner, parallel in settings
            if runner != "aide"
        },
    )
    aide_exec = [r["mean_exec_s"] for r in results if r["agent"] == "AIDE"]
    print(f"AIDE: {median(aide_exec):.3g} s a step in its interpreter (median of the rounds' means)")
    versions = print_library_versions()
    write_json(
        args.json,
        args,
        {"results": results, "load_1min": [min(loads), max(loads)], "libraries": versions},
    )
    short = [r for r in results if r["steps"] != args.steps or r["code_calls"] != args.steps]
    if short:
        print(
            f"some runs did not make one code call per step: {[_setting(r) for r in short]}", file=sys.stderr
        )
    return 1 if short else 0


def _setting(result: dict[str, Any]) -> tuple[str, int]:
    runner = "aide" if result["agent"] == "AIDE" else result["runner"]
    return runner, result["parallel"]


if __name__ == "__main__":
    sys.exit(main())
