"""Environment defaults for processes that start Prefect's ephemeral API (set before `import prefect`).

Why: without the two batch sizes, the temporary API's task-run recorder and event persister write to SQLite in
many small transactions that contend for its lock ("database is locked") and stall runs for seconds
(benchmarks/README.md, "Orchestration overhead"); analytics would try the network; a loaded machine needs more
than the default time to start the API; Prefect's own messages are kept to warnings, but the task runs' logs
(where a step says what it did) keep INFO for the UI, not the terminal. The same settings are in the
repository's `prefect.toml`, except the two logging overrides, which Prefect reads from the environment only. A
value already in the environment wins. Prefect-free on purpose.
"""

from __future__ import annotations

import os

PREFECT_DEFAULTS = {
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "200",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE": "500",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "60",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    # the step lines (planned, replied, executed, reviewed) reach each task run's log in the UI at INFO, while
    # the terminal keeps showing only warnings and errors
    "PREFECT_LOGGING_LOGGERS_PREFECT_TASK_RUNS_LEVEL": "INFO",
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING",
}


def apply_prefect_defaults(**changes: str) -> None:
    """Set each default (with `changes` over them) unless the environment already has that variable."""
    for name, value in {**PREFECT_DEFAULTS, **changes}.items():
        os.environ.setdefault(name, value)
