"""What a run is doing right now, for the terminal's live view (updated by the flows, read by the CLI).

A step in `running` may be waiting instead (`waiting` holds why, e.g. "waiting for GPU"): the live view shows
it apart from the steps that run.

Each event of a step (planned, the model replied, executed, reviewed) is also one line, `note`d here by the
step's chain (`swarm.pipeline.chain`): it goes to this module's logger and to every subscriber, e.g. the main
job without its live view, which prints them, so a long run is never silent.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass
class Progress:
    run_dir: str = ""
    competition: str = ""
    epoch: int = 0
    steps_done: int = 0
    max_steps: int = 0
    best_metric: float | None = None
    best_interval: list[float] | None = None  # the best score's 95% bootstrap interval, where it has one
    best_warning: str | None = None  # the held-out rows are too few for the metric, where they are
    best_node: str | None = None
    lower_is_better: bool = False
    running: dict[str, str] = field(default_factory=dict)
    waiting: dict[str, str] = field(default_factory=dict)
    spend_usd: float = 0.0
    last_event: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _listeners: list[Callable[[str], None]] = field(default_factory=list, repr=False)

    def update(self, **changes: object) -> None:
        with self._lock:
            for key, value in changes.items():
                setattr(self, key, value)

    def start(self, node_id: str, label: str) -> None:
        with self._lock:
            self.running[node_id] = label

    def wait(self, node_id: str, reason: str) -> None:
        """The step of `node_id` is blocked (e.g. "waiting for GPU"): shown as waiting, not running."""
        with self._lock:
            self.waiting[node_id] = reason

    def resume(self, node_id: str) -> None:
        """The step of `node_id` runs again."""
        with self._lock:
            self.waiting.pop(node_id, None)

    def status(self, node_id: str) -> str | None:
        """The status of `node_id`: "running", why it waits, or None when it is not on the board."""
        with self._lock:
            if node_id in self.waiting:
                return self.waiting[node_id]
            return "running" if node_id in self.running else None

    def finish(self, node_id: str, event: str) -> None:
        with self._lock:
            self.running.pop(node_id, None)
            self.waiting.pop(node_id, None)
            self.last_event = event

    def subscribe(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call `listener` with each step event's line from now on; returns the function that stops it."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def note(self, line: str) -> None:
        """One step event: logged, and passed to every subscriber (in the caller's thread)."""
        log.info(line)
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(line)

    def snapshot(self) -> dict[str, object]:
        with self._lock:
            return {k: v for k, v in vars(self).items() if not k.startswith("_")} | {
                "running": dict(self.running),
                "waiting": dict(self.waiting),
            }


PROGRESS = Progress()
