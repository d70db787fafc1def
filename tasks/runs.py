"""One `RunContext` per run dir per process, opened on first use, for tasks that get the run dir (a string, so
any process that sees the run dir can run them); and where the run's task results are persisted."""

from __future__ import annotations

import threading
from pathlib import Path

from swarm.pipeline.context import RunContext, open_run

_CONTEXTS: dict[str, RunContext] = {}
_LOCK = threading.Lock()


def _key(run_dir: str) -> str:
    return str(Path(run_dir).resolve())


def get_context(run_dir: str) -> RunContext:
    key = _key(run_dir)
    with _LOCK:
        if key not in _CONTEXTS:
            _CONTEXTS[key] = open_run(Path(key))[0]
        return _CONTEXTS[key]


def register_context(run_dir: str, context: RunContext) -> None:
    with _LOCK:
        _CONTEXTS[_key(run_dir)] = context


def forget_context(run_dir: str) -> None:
    with _LOCK:
        _CONTEXTS.pop(_key(run_dir), None)


def cache_storage(run_dir: str) -> Path:
    """Where persisted task results live: the root run's cache, shared by its rerun branches."""
    path = Path(run_dir).resolve()
    while path.parent.name == "branches":
        path = path.parent.parent
    return path / "cache"
