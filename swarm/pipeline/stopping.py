"""Stopping a run within seconds when it is asked to (SIGTERM, Ctrl-C, a Prefect cancellation), whatever step
it is in.

Blocking work that a signal cannot interrupt runs in child processes (a review's parsing and scoring,
`swarm.pipeline.bounded_review`), which register here while they live. `stop_on_signals` wraps a run's body: on
SIGTERM or SIGINT it kills those children at once (so the threads waiting on them return), arms a watchdog that
ends the process after `grace_s` if the orderly unwind (the flow's task runner waiting for its threads) has not,
and then hands the signal to the handler it replaced (Prefect's, which raises in the flow; else
KeyboardInterrupt or SystemExit). The journal is appended durably a node at a time and read back dropping a torn
last line, so even the watchdog's exit leaves it readable.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any, Protocol

log = logging.getLogger(__name__)
STOP_GRACE_S = 10.0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Killable(Protocol):
    """A child process: what `multiprocessing.Process` offers."""

    def kill(self) -> None: ...


_live: set[Killable] = set()
_lock = threading.Lock()
_watchdog_armed = threading.Event()


@contextlib.contextmanager
def tracked(child: Killable) -> Iterator[None]:
    """Register a live child process, so that a stop kills it, for the time of the block."""
    with _lock:
        _live.add(child)
    try:
        yield
    finally:
        with _lock:
            _live.discard(child)


def kill_tracked() -> int:
    """Kill every registered child process; how many there were."""
    with _lock:
        children = list(_live)
    for child in children:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            child.kill()
    return len(children)


def _arm_watchdog(grace_s: float, signum: int) -> None:
    """End the process `grace_s` after the first stop signal, if it is still alive then."""
    if _watchdog_armed.is_set():
        return
    _watchdog_armed.set()

    def watch() -> None:
        threading.Event().wait(grace_s)
        kill_tracked()
        os._exit(128 + signum)

    threading.Thread(target=watch, name="stop-watchdog", daemon=True).start()


def _pass_on(previous: Any, signum: int, frame: Any) -> None:
    """Hand the signal to the handler that was there before (a callable), else stop as Python would."""
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_IGN:
        return
    elif signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def stop_on_signals(grace_s: float = STOP_GRACE_S) -> Iterator[None]:
    """For the block: SIGTERM and SIGINT kill the tracked children, arm the watchdog and reach the handler they
    replaced; one the process ignores is left ignored. Outside the main thread (where Python delivers no signal)
    it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # A signal the process ignores (SIGINT in a job started in the background) stays ignored.
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    previous = {signum: handler for signum, handler in previous.items() if handler != signal.SIG_IGN}

    def on_signal(signum: int, frame: Any) -> None:
        log.warning("signal %d: stopping the run (at most %.0f s more)", signum, grace_s)
        kill_tracked()
        _arm_watchdog(grace_s, signum)
        _pass_on(previous[signum], signum, frame)

    for signum in previous:
        signal.signal(signum, on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            if signal.getsignal(signum) is on_signal:
                signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
