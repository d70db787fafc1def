"""The main job: solve a competition end to end and leave a graded best submission.

    python flows/run_competition.py --competition titanic
    python flows/run_competition.py --data-dir /path/to/mlebench/<competition>
    python flows/run_competition.py --resume runs/<run id>
    python flows/run_competition.py --rerun-epoch 2 --run-dir runs/<run id>

`swarm run ...` (the `swarm` console script) is the same command, with the same options and exit codes.

With no API key set it runs on the built-in offline coder (not an LLM), on Prefect's ephemeral local API.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from flows.prefect_env import apply_prefect_defaults

apply_prefect_defaults()

from rich.console import Console  # noqa: E402
from rich.live import Live  # noqa: E402
from rich.table import Table  # noqa: E402

from sandbox.base import SandboxUnavailable  # noqa: E402
from swarm.config import ConfigError  # noqa: E402
from swarm.llm.base import LLMError  # noqa: E402
from swarm.metric import with_interval  # noqa: E402
from swarm.pipeline.preflight import check_request  # noqa: E402
from swarm.pipeline.progress import PROGRESS  # noqa: E402

# What a wrong input raises: the CLI prints its one-sentence message, no traceback.
INPUT_ERRORS = (ConfigError, FileNotFoundError, FileExistsError, ValueError, LLMError, SandboxUnavailable)


def parse_args(argv: list[str] | None = None, prog: str | None = None) -> argparse.Namespace:
    """The command line of the main job; `prog` names the command in usage and errors (`swarm run`)."""
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--competition", help="a bundled competition id (see `swarm competitions list`)")
    target.add_argument("--data-dir", help="an MLE-bench prepared competition dir")
    target.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last completed step")
    parser.add_argument(
        "--rerun-epoch", type=int, metavar="K", help="rerun epoch K of --run-dir into a branch"
    )
    parser.add_argument("--run-dir", help="the run dir (new runs: where to create it)")
    parser.add_argument("--config", help="a YAML config file")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.FIELD=VALUE")
    parser.add_argument(
        "--metric", help="the competition's metric, e.g. rmse or map@5 (shorthand for --set data.metric=NAME)"
    )
    parser.add_argument("--steps", type=int, help="shorthand for --set agent.max_steps=N")
    parser.add_argument("--time-limit", type=float, help="shorthand for --set agent.time_limit_s=SECONDS")
    parser.add_argument("--json", action="store_true", help="print the final summary as JSON")
    parser.add_argument(
        "--no-live",
        action="store_true",
        help="no live view in the terminal: one line per step event (planned, replied, executed, reviewed)",
    )
    args = parser.parse_args(argv)
    if args.metric:
        args.overrides.append(f"data.metric={args.metric}")
    if args.steps:
        args.overrides.append(f"agent.max_steps={args.steps}")
    if args.time_limit:
        args.overrides.append(f"agent.time_limit_s={args.time_limit}")
    if args.rerun_epoch is not None and not args.run_dir:
        parser.error("--rerun-epoch needs --run-dir")
    if args.resume and args.config:
        parser.error("--config applies to new runs; change a resumed run with --set SECTION.FIELD=VALUE")
    return args


def live_table() -> Table:
    snap = PROGRESS.snapshot()
    table = Table(title=f"Swarm-Ev2 · {snap['competition']}", show_header=False, expand=False)
    best = snap["best_metric"]
    direction = "lower is better" if snap["lower_is_better"] else "higher is better"
    table.add_row("epoch", str(snap["epoch"]))
    table.add_row("steps", f"{snap['steps_done']} / {snap['max_steps']}")
    shown = (
        "none yet" if best is None else f"{with_interval(best, snap['best_interval'], '.5g')} ({direction})"
    )
    table.add_row("best", shown)
    if best is not None and snap["best_warning"]:
        table.add_row("caution", str(snap["best_warning"]))
    waiting = snap["waiting"]
    running = [label for node, label in snap["running"].items() if node not in waiting]
    table.add_row("running", "\n".join(running) or "-")
    if waiting:
        labels = [f"{snap['running'].get(node, node)} ({why})" for node, why in waiting.items()]
        table.add_row("waiting", "\n".join(labels))
    table.add_row("spend", f"${snap['spend_usd']:.4f}")
    table.add_row("last", str(snap["last_event"])[:100])
    return table


def run_request(args: argparse.Namespace) -> dict:
    """The competition run the arguments ask for: what is checked, then passed to the flow."""
    return {
        "competition": args.competition,
        "data_dir": args.data_dir,
        "config_path": args.config,
        "overrides": args.overrides,
        "run_dir": args.resume or args.run_dir,
        "resume": bool(args.resume),
    }


def check_args(args: argparse.Namespace) -> None:
    """Check the run's inputs before Prefect is even imported (~1-3 s): a wrong one fails within a second."""
    if args.rerun_epoch is None:
        check_request(**run_request(args))


def start_prefect_api(say: Callable[[str], None]) -> None:
    """Start Prefect's temporary local API now, saying so (it takes 10-20 s), or name the server in use.

    A run talks to the server PREFECT_API_URL names when it is set (e.g. `prefect server start` in another
    terminal, http://127.0.0.1:4200/api), which skips the start; else Prefect starts a temporary one, which the
    flows then reuse.
    """
    from prefect.settings import PREFECT_API_URL, PREFECT_SERVER_EPHEMERAL_ENABLED

    if PREFECT_API_URL.value():
        say(f"Prefect API: {PREFECT_API_URL.value()} (a running server; runs show in its UI)")
        return
    if not PREFECT_SERVER_EPHEMERAL_ENABLED.value():
        return  # Prefect itself says that no API is configured
    say(
        "Starting Prefect's temporary local API (10-20 s; to skip it, run `prefect server start` once and "
        "set PREFECT_API_URL=http://127.0.0.1:4200/api) ..."
    )
    from prefect.server.api.server import SubprocessASGIServer

    started = time.monotonic()
    server = SubprocessASGIServer()
    server.start()
    say(f"Prefect API ready at {server.api_url} after {time.monotonic() - started:.0f} s")


def run(args: argparse.Namespace) -> dict:
    from flows.competition import CompetitionParams, competition_flow
    from flows.epoch import EpochParams, epoch_flow

    if args.rerun_epoch is not None:
        summary = epoch_flow(EpochParams(run_dir=args.run_dir, epoch=args.rerun_epoch, rerun=True))
        return summary.model_dump()
    return competition_flow(CompetitionParams(**run_request(args)))


def print_step_line(line: str) -> None:
    """A step event, on stderr (stdout stays the summary, or its JSON with --json)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def run_printing_steps(args: argparse.Namespace) -> dict:
    """The run, with each step event printed as one line: without the live view a run is never silent for
    the minutes a slow model takes."""
    stop_printing = PROGRESS.subscribe(print_step_line)
    try:
        return run(args)
    finally:
        stop_printing()


def summary_cell(summary: dict, key: str) -> str:
    """A summary's value as the result table shows it: the validation metric and the mean over folds with their
    95% intervals in brackets."""
    value = summary[key]
    intervals = {
        "validation_metric": "validation_interval",
        "validation_mean_over_folds": "validation_mean_over_folds_interval",
    }
    if key in intervals and isinstance(value, int | float):
        return with_interval(value, summary.get(intervals[key]))
    return str(value)


def print_summary(console: Console, summary: dict) -> None:
    grade = summary.get("grade") or {}
    table = Table(title="Result", show_header=False)
    for key in (
        "run_dir",
        "competition",
        "steps",
        "best_node",
        "validation_metric",
        "validation_source",
        "claimed_metric",
        "refit",
        "delivered",
        "submission",
        "stopped_reason",
    ):
        if key in summary:
            table.add_row(key, summary_cell(summary, key))
    for key, label in (
        ("validation_mean_over_folds", "mean over folds"),
        ("validation_warning", "caution"),
        ("tie", "tie"),
    ):
        if summary.get(key) not in (None, ""):
            table.add_row(label, summary_cell(summary, key))
    if grade:
        table.add_row("score (hidden answers)", str(grade.get("score")))
        table.add_row("medal", str(grade.get("medal") or "none"))
        table.add_row(
            "thresholds",
            f"gold {grade.get('gold_threshold')} · silver {grade.get('silver_threshold')} · "
            f"bronze {grade.get('bronze_threshold')} · median {grade.get('median_threshold')}",
        )
        table.add_row("valid", f"{grade.get('valid')} {grade.get('reason') or ''}")
    elif summary.get("grade_error"):
        table.add_row("not graded", str(summary["grade_error"]))
    console.print(table)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """The main job: exit 0 done, 1 no good node, 2 a wrong input (one sentence on stderr)."""
    args = parse_args(argv, prog)
    console = Console(stderr=True)
    stop = threading.Event()
    try:
        check_args(args)
        from prefect.settings import temporary_settings

        with temporary_settings(updates={"flows.heartbeat_frequency": None}):
            start_prefect_api(lambda line: console.print(line, markup=False, highlight=False))
            if args.no_live or args.json or not console.is_terminal:
                summary = run_printing_steps(args)
            else:
                with Live(live_table(), console=console, refresh_per_second=2) as live:
                    threading.Thread(target=_refresh, args=(live, stop), daemon=True).start()
                    summary = run(args)
    except INPUT_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        stop.set()
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        print_summary(Console(), summary)
    if summary.get("good_nodes") == 0:  # a competition run (an epoch rerun has no such count)
        print(f"error: the run ended with no good node: {_no_good_reason(summary)}", file=sys.stderr)
        return 1
    return 0


def _no_good_reason(summary: dict) -> str:
    """Why a run has no good node: its last failed step's error, else its last node's bug, else the stop."""
    from swarm.journal import Journal
    from swarm.pipeline.state import RunPaths, load_state

    paths = RunPaths(Path(summary["run_dir"]))
    failed = load_state(paths).meta.get("failed_steps") or []
    if failed:
        return f"{len(failed)} step(s) failed; the last: {failed[-1]['error']}"
    nodes = Journal.load(paths.journal).nodes if paths.journal.is_file() else []
    if nodes:
        return f"{len(nodes)} node(s), all buggy; the last: {nodes[-1].bug_reason}"
    return str(summary.get("stopped_reason") or summary.get("grade_error") or "no step ran")


def _refresh(live: Live, stop: threading.Event) -> None:
    while not stop.wait(0.5):
        live.update(live_table())


if __name__ == "__main__":
    sys.exit(main())
