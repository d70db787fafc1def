"""The MLE-bench agent: run the search on /home/data within the time limit and hand in one submission.

`run_agent(settings, search)` is Prefect-free: `search` is any callable that runs a competition for a
`SearchRequest` (flows/mlebench_agent.py passes the competition flow). The search runs in a thread; the agent
keeps the best submission so far in the submission dir while it waits, stops waiting at the time limit (less
a safety margin), then checks candidates with the grading server's /validate and writes the outputs.
"""

from __future__ import annotations

import contextvars
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sandbox.gpus import describe as describe_gpus
from sandbox.gpus import discover_gpus
from swarm.atomic import copy_file_atomic, write_json_atomic
from swarm.competitions import Competition, CompetitionError, load_competition_dir
from swarm.config import ConfigError, load_config
from swarm.mlebench.deliver import (
    Choice,
    candidates,
    choose,
    copy_run_record,
    load_journal,
    write_code,
)
from swarm.mlebench.settings import AgentSettings, SettingsError, TimeBudget
from swarm.mlebench.validate import validate_submission
from swarm.pipeline.preflight import check_named_settings
from swarm.pipeline.state import RunPaths

log = logging.getLogger(__name__)

EXIT_OK, EXIT_NO_SUBMISSION, EXIT_BAD_INPUT = 0, 1, 2
LOG_FILE = "swarm-ev2.log"
SUMMARY_FILE = "swarm-ev2-summary.json"
LOGGERS = ("swarm", "flows", "tasks", "sandbox", "prefect")


@dataclass(frozen=True)
class SearchRequest:
    """What the search callable runs: a new run in `run_dir` with these config overrides."""

    run_dir: Path
    config_path: str | None
    overrides: list[str]


SearchFn = Callable[[SearchRequest], dict[str, Any]]


@dataclass
class AgentResult:
    """How the agent ended: exit code, one-sentence message, and what it handed in."""

    exit_code: int
    message: str
    submission: Path | None = None
    node_id: str | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    search_thread: threading.Thread | None = None

    @property
    def search_running(self) -> bool:
        return self.search_thread is not None and self.search_thread.is_alive()


class _Search:
    """The search in a thread (with the caller's context, so Prefect settings carry over)."""

    def __init__(self, search: SearchFn, request: SearchRequest) -> None:
        self.summary: dict[str, Any] | None = None
        self.error: BaseException | None = None
        ctx = contextvars.copy_context()
        self.thread = threading.Thread(target=ctx.run, args=(self._work, search, request), daemon=True)
        self.thread.name = "swarm-search"

    def _work(self, search: SearchFn, request: SearchRequest) -> None:
        try:
            self.summary = search(request)
        except BaseException as exc:  # reported by the agent, never lost in the thread
            self.error = exc


def check_inputs(settings: AgentSettings) -> Competition:
    """The competition in the data dir; SettingsError with one clear sentence when it is unusable."""
    data = settings.data_dir
    if not data.exists():
        raise SettingsError(
            f"the data dir {data} does not exist (MLE-bench mounts the competition there; "
            "point --data-dir or MLEBENCH_DATA_DIR at it)"
        )
    try:
        return load_competition_dir(data)
    except CompetitionError as exc:
        raise SettingsError(f"the data dir {data} is not a usable competition: {exc}") from None


def read_instructions(path: Path) -> str | None:
    """The benchmark rules; the agent itself follows them (submission path, /validate), so only logged."""
    if not path.is_file():
        log.warning("no instructions at %s; continuing with description.md alone", path)
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    log.info("read the benchmark instructions at %s (%d chars)", path, len(text))
    return text


def build_overrides(settings: AgentSettings, budget: TimeBudget) -> list[str]:
    """Config overrides for the run: step limit, the user's overrides, then the data dir and the clock."""
    overrides = [f"agent.max_steps={settings.step_limit}"] if settings.step_limit else []
    overrides += [*settings.overrides, f"data.data_dir={settings.data_dir}"]
    cfg = load_config(settings.config_path, overrides)
    left = budget.left(budget.search_end)
    if left is not None:
        left = max(left, 0.001)
        overrides.append(f"agent.time_limit_s={left:.3f}")
        if cfg.execution.timeout_s > left:
            overrides.append(f"execution.timeout_s={left:.3f}")  # one solution may not outlive the search
    check_named_settings(load_config(settings.config_path, overrides))  # fail here, not in the thread
    return overrides


def _setup_logging(logs_dir: Path) -> logging.Handler:
    logs_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(logs_dir / LOG_FILE, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in LOGGERS:
        logging.getLogger(name).addHandler(handler)
    logging.getLogger(__package__).setLevel(logging.INFO)
    return handler


def _teardown_logging(handler: logging.Handler) -> None:
    for name in LOGGERS:
        logging.getLogger(name).removeHandler(handler)
    handler.close()


def _file_only(handler: logging.Handler, level: int, message: str) -> None:
    """Write one record to the log file alone (the caller prints the outcome sentence itself)."""
    record = logging.LogRecord(log.name, level, __file__, 0, message, None, None)
    handler.handle(record)


def run_agent(settings: AgentSettings, search: SearchFn, started: float | None = None) -> AgentResult:
    """Solve the competition in `settings.data_dir` and hand in a submission; never raises for bad input.

    The outcome sentence goes to the log file and to `AgentResult.message` (the caller prints it once).
    """
    try:
        budget = TimeBudget.start(settings.time_limit_s, settings.safety_margin_s, started)
        handler = _setup_logging(settings.logs_dir)
    except (SettingsError, OSError) as exc:
        return AgentResult(EXIT_BAD_INPUT, f"error: {exc}")
    try:
        result = _run(settings, search, budget)
    except (SettingsError, ConfigError, OSError) as exc:
        result = AgentResult(EXIT_BAD_INPUT, f"error: {exc}")
    try:
        _file_only(handler, logging.INFO if result.exit_code == EXIT_OK else logging.ERROR, result.message)
    finally:
        _teardown_logging(handler)
    return result


def _run(settings: AgentSettings, search: SearchFn, budget: TimeBudget) -> AgentResult:
    competition = check_inputs(settings)
    instructions = read_instructions(settings.instructions)
    for folder in (settings.submission_dir, settings.code_dir, settings.work_dir):
        folder.mkdir(parents=True, exist_ok=True)
    name = settings.competition_id or competition.id
    run_dir = settings.work_dir / "runs" / f"{name}-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}"
    overrides = [*build_overrides(settings, budget), f"project.run_name={run_dir.name}"]
    log.info(
        "solving %s from %s; time limit %s s (search for %s s, margin %s s); run dir %s",
        name,
        settings.data_dir,
        _secs(budget.limit_s),
        _secs(budget.left(budget.search_end)),
        _secs(budget.margin_s),
        run_dir,
    )
    gpus = discover_gpus()  # what the container was given (MLE-bench's "gpus"); execution.gpus=auto uses them
    log.info("GPUs in this container: %s", describe_gpus(gpus))
    task = _Search(search, SearchRequest(run_dir, settings.config_path, overrides))
    task.thread.start()
    timed_out = _wait(task, settings, budget, RunPaths(run_dir))
    journal = load_journal(RunPaths(run_dir))
    validator = None
    if settings.validate_url:
        url = settings.validate_url
        validator = lambda path, timeout: validate_submission(url, path, timeout)  # noqa: E731
    final_end = None if budget.limit_s is None else budget.started + budget.limit_s - budget.margin_s / 4
    choice = choose(
        candidates(journal, RunPaths(run_dir)),
        validator,
        lambda: budget.left(final_end),
        settings.validate_timeout_s,
    )
    summary = _summary(settings, competition, budget, task, timed_out, choice, run_dir, len(journal))
    summary["instructions"] = str(settings.instructions) if instructions is not None else None
    summary["gpus"] = [gpu.to_dict() for gpu in gpus]
    if run_dir.is_dir():
        copy_run_record(RunPaths(run_dir), settings.logs_dir)
    if choice.candidate is None:
        message = _nothing_message(task, timed_out, budget, len(journal))
        summary["message"] = message
        write_json_atomic(settings.logs_dir / SUMMARY_FILE, summary)
        return AgentResult(EXIT_NO_SUBMISSION, message, summary=summary, search_thread=task.thread)
    cand = choice.candidate
    copy_file_atomic(cand.submission, settings.submission_file)
    write_code(settings.code_dir, cand, journal, settings.all_code)
    message = f"wrote {settings.submission_file} from {cand.label}; {choice.note}"
    summary["message"] = message
    write_json_atomic(settings.logs_dir / SUMMARY_FILE, summary)
    return AgentResult(EXIT_OK, message, settings.submission_file, cand.node_id, summary, task.thread)


def _wait(task: _Search, settings: AgentSettings, budget: TimeBudget, paths: RunPaths) -> bool:
    """Wait for the search, keeping the best submission so far handed in; True if the clock ran out."""
    shown: str | None = None
    while task.thread.is_alive():
        left = budget.left(budget.hard_end)
        if left is not None and left <= 0:
            log.warning("time limit: the search is still running; handing in the best node so far")
            return True
        task.thread.join(settings.poll_s if left is None else min(settings.poll_s, left))
        if task.thread.is_alive():
            shown = _keep_best_so_far(paths, settings.submission_file, shown)
    if task.error is not None:
        log.error("the search failed: %s: %s", type(task.error).__name__, task.error)
    return False


def _keep_best_so_far(paths: RunPaths, dest: Path, shown: str | None) -> str | None:
    """Copy the current best good node's submission to `dest` (so a killed agent still leaves one)."""
    found = [c for c in candidates(load_journal(paths)) if c.good]
    if not found or found[0].node_id == shown:
        return shown
    try:
        copy_file_atomic(found[0].submission, dest)
    except OSError as exc:
        log.warning("could not copy the best submission so far: %s", exc)
        return shown
    log.info("best so far: %s", found[0].label)
    return found[0].node_id


def _nothing_message(task: _Search, timed_out: bool, budget: TimeBudget, steps: int) -> str:
    stopped_by_clock = (task.summary or {}).get("stopped_reason") == "time limit reached"
    if timed_out or (stopped_by_clock and steps == 0):
        return f"no submission: no solution finished within the {budget.limit_s:g} s time limit"
    if task.error is not None:
        return f"no submission: the search failed ({type(task.error).__name__}: {task.error})"
    return f"no submission: none of the {steps} solutions tried wrote a submission file"


def _summary(
    settings: AgentSettings,
    competition: Competition,
    budget: TimeBudget,
    task: _Search,
    timed_out: bool,
    choice: Choice,
    run_dir: Path,
    steps: int,
) -> dict[str, Any]:
    flow = task.summary or {}
    not_graded = (
        "not graded here: the data dir holds only public files (no hidden answers); "
        "MLE-bench's grader scores submission.csv"
    )
    return {
        "competition": settings.competition_id or competition.id,
        "data_dir": str(settings.data_dir),
        "run_dir": str(run_dir),
        "time_limit_s": budget.limit_s,
        "safety_margin_s": budget.margin_s,
        "elapsed_s": round(budget.elapsed(), 3),
        "search_finished": not task.thread.is_alive(),
        "search_error": None if task.error is None else f"{type(task.error).__name__}: {task.error}",
        "timed_out": timed_out,
        "stopped_reason": flow.get("stopped_reason"),
        "steps": steps,
        "node": choice.candidate.node_id if choice.candidate else None,
        "metric": flow.get("metric"),
        "validation_metric": choice.candidate.metric if choice.candidate else None,
        "validation_source": flow.get("validation_source"),
        "unverified_reason": flow.get("unverified_reason"),
        "validated": choice.validated,
        "note": choice.note,
        "checked": [{"node": n, "status": v.status, "message": v.message} for n, v in choice.checked],
        "submission": str(settings.submission_file) if choice.candidate else None,
        "grade": flow.get("grade") or (not_graded if competition.public_only else None),
    }


def _secs(value: float | None) -> str:
    return "none" if value is None else f"{value:.0f}"


def dump(result: AgentResult) -> str:
    """The result as JSON text (for --json)."""
    data = {"exit_code": result.exit_code, "message": result.message, **result.summary}
    return json.dumps(data, indent=2, default=str)
