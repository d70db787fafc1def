"""Swarm-Ev2 as an MLE-bench agent: solve the competition in /home/data and leave /home/submission/submission.csv.

    python flows/mlebench_agent.py                                  # inside the MLE-bench container
    python flows/mlebench_agent.py agent.max_steps=50 llm.code.model=gpt-4o   # config overrides (omegaconf style)
    python flows/mlebench_agent.py --data-dir ./home/data --submission-dir ./home/submission \\
        --logs-dir ./home/logs --code-dir ./home/code --time-limit 600   # anywhere else

Paths come from flags, else the environment (MLEBENCH_DATA_DIR, MLEBENCH_INSTRUCTIONS, SUBMISSION_DIR,
LOGS_DIR, CODE_DIR, MLEBENCH_WORK_DIR or AGENT_DIR/work), else MLE-bench's /home/... paths. The time limit is
--time-limit or TIME_LIMIT_SECS, the step limit --steps or STEP_LIMIT. The submission is checked with the
grading server's /validate (MLEBENCH_VALIDATE_URL, default http://localhost:5000/validate) when it answers.
Exit code 0: a submission was written; 1: none could be produced; 2: bad input. See deployments/MLEBENCH.md.
"""

from __future__ import annotations

import time

STARTED = time.monotonic()  # the agent's clock starts before the imports

import argparse  # noqa: E402
import atexit  # noqa: E402
import logging  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

from flows.prefect_env import apply_prefect_defaults  # noqa: E402

apply_prefect_defaults()

from swarm.mlebench import (  # noqa: E402
    AgentResult,
    AgentSettings,
    SearchRequest,
    SettingsError,
    run_agent,
    settings_from,
)
from swarm.mlebench.agent import EXIT_BAD_INPUT, dump  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("overrides", nargs="*", metavar="SECTION.FIELD=VALUE", help="config overrides")
    parser.add_argument(
        "--set", dest="more_overrides", action="append", default=[], metavar="SECTION.FIELD=VALUE"
    )
    parser.add_argument("--config", help="a YAML config file")
    paths = parser.add_argument_group("paths (default: environment, then MLE-bench's)")
    paths.add_argument("--data-dir", help="the competition's public files (default /home/data)")
    paths.add_argument("--instructions", help="the benchmark instructions (default /home/instructions.txt)")
    paths.add_argument("--submission-dir", help="where submission.csv goes (default /home/submission)")
    paths.add_argument("--logs-dir", help="where logs go (default /home/logs)")
    paths.add_argument("--code-dir", help="where the solution code goes (default /home/code)")
    paths.add_argument("--work-dir", help="where runs live (default $AGENT_DIR/work)")
    limits = parser.add_argument_group("limits")
    limits.add_argument("--time-limit", type=float, help="seconds for the whole agent (TIME_LIMIT_SECS)")
    limits.add_argument("--safety-margin", type=float, help="seconds kept for the final pick (default ~10%%)")
    limits.add_argument("--steps", type=int, help="most search steps (STEP_LIMIT)")
    check = parser.add_argument_group("validation")
    check.add_argument("--validate-url", help="the grading server's /validate (MLEBENCH_VALIDATE_URL)")
    check.add_argument("--no-validate", action="store_true", help="do not ask the grading server")
    check.add_argument("--validate-timeout", type=float, help="seconds per /validate call (default 10)")
    parser.add_argument("--competition-id", help="names the run (default COMPETITION_ID)")
    parser.add_argument("--all-code", action="store_true", help="also copy every node's code to the code dir")
    parser.add_argument("--poll", type=float, help="seconds between best-so-far refreshes (default 30)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser.parse_args(argv)


def settings_for(args: argparse.Namespace, env: dict[str, str] | None = None) -> AgentSettings:
    """AgentSettings from the parsed flags and `env` (default os.environ)."""
    return settings_from(
        os.environ if env is None else env,
        data_dir=args.data_dir,
        instructions=args.instructions,
        submission_dir=args.submission_dir,
        logs_dir=args.logs_dir,
        code_dir=args.code_dir,
        work_dir=args.work_dir,
        time_limit_s=args.time_limit,
        safety_margin_s=args.safety_margin,
        step_limit=args.steps,
        validate_url="none" if args.no_validate else args.validate_url,
        validate_timeout_s=args.validate_timeout,
        competition_id=args.competition_id,
        config_path=args.config,
        overrides=[*args.overrides, *args.more_overrides],
        all_code=args.all_code or None,
        poll_s=args.poll,
    )


def competition_search(request: SearchRequest) -> dict:
    """The search: the competition flow on a new run in `request.run_dir`."""
    from flows.competition import CompetitionParams, competition_flow

    params = CompetitionParams(
        run_dir=str(request.run_dir), config_path=request.config_path, overrides=request.overrides
    )
    return competition_flow(params)


def run(argv: list[str] | None = None, started: float | None = None) -> AgentResult:
    """Parse `argv` and run the agent (heartbeats off); bad flags give exit code 2, never an exception."""
    args = parse_args(argv)
    try:
        settings = settings_for(args)
    except SettingsError as exc:
        return AgentResult(EXIT_BAD_INPUT, f"error: {exc}")
    from prefect.settings import temporary_settings

    with temporary_settings(updates={"flows.heartbeat_frequency": None}):
        result = run_agent(settings, competition_search, started=started)
    if args.json:
        print(dump(result))
    return result


def main(argv: list[str] | None = None, started: float | None = None) -> AgentResult:
    """Run the agent and report its one-sentence outcome on stderr."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    result = run(argv, started)
    print(f"swarm-ev2: {result.message}", file=sys.stderr)
    return result


def exit_now(code: int, cleanup_s: float = 15.0) -> None:
    """Leave while a search step is still running (the clock ran out; the outputs are written).

    The exit handlers (which stop Prefect's local server) get `cleanup_s`; the step's solution process dies
    with us (the sandbox kills it when its parent goes).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    cleanup = threading.Thread(target=atexit._run_exitfuncs, daemon=True)
    cleanup.start()
    cleanup.join(cleanup_s)
    os._exit(code)


if __name__ == "__main__":
    outcome = main(started=STARTED)
    if outcome.search_running:
        limit = outcome.summary.get("time_limit_s")
        left = 15.0 if limit is None else STARTED + limit - time.monotonic()
        exit_now(outcome.exit_code, cleanup_s=min(15.0, max(left, 0.5)))
    sys.exit(outcome.exit_code)
