"""Environment defaults for processes that start Prefect's ephemeral API (set before `import prefect`).

Measured reasons in ../shared/FACTS.md: without the two batch sizes SQLite "database is locked" stalls runs for
seconds; analytics would try the network. A value already in the environment wins. Prefect-free on purpose.
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
}


def apply_prefect_defaults(**changes: str) -> None:
    """Set each default (with `changes` over them) unless the environment already has that variable."""
    for name, value in {**PREFECT_DEFAULTS, **changes}.items():
        os.environ.setdefault(name, value)
