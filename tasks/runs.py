"""One `RunContext` per run dir per process, opened on first use; and the journal and state an epoch flow
holds in memory while it runs (`hold_run`), which the select_parent and update_population tasks work on."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from swarm.journal import Journal
from swarm.pipeline.context import RunContext, open_run
from swarm.pipeline.state import RunState

_CONTEXTS: dict[str, RunContext] = {}
_HELD: dict[str, tuple[Journal, RunState]] = {}
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


@contextmanager
def hold_run(run_dir: str, journal: Journal, state: RunState) -> Iterator[None]:
    """Make `journal` and `state` the run's live ones in this process while the block runs."""
    key = _key(run_dir)
    with _LOCK:
        if key in _HELD:
            raise RuntimeError(f"{run_dir} is already held by another epoch in this process")
        _HELD[key] = (journal, state)
    try:
        yield
    finally:
        with _LOCK:
            _HELD.pop(key, None)


def held_run(run_dir: str) -> tuple[RunContext, Journal, RunState]:
    """The run's context and the journal and state its running epoch holds."""
    with _LOCK:
        held = _HELD.get(_key(run_dir))
    if held is None:
        raise LookupError(
            f"no epoch holds {run_dir} in this process: select_parent and update_population run inside "
            "an epoch flow, on its journal and state (tasks.runs.hold_run)"
        )
    return get_context(run_dir), *held


def cache_storage(run_dir: str) -> Path:
    """Where persisted task results live: the root run's cache, shared by its rerun branches."""
    path = Path(run_dir).resolve()
    while path.parent.name == "branches":
        path = path.parent.parent
    return path / "cache"
