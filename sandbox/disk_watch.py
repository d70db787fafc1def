"""An overall cap on what one execution writes: a thread that measures it and stops the run when over.

Per-file limits (RLIMIT_FSIZE, the fsize ulimit) do not stop many files; this does, within about one poll
interval (writes faster than the disk can take in that time are the overshoot). A run that ends between two
polls is measured once more at the end, so going over the limit is always reported.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

POLL_S = 0.25


class DiskWatcher:
    """Calls `on_exceed` once when `measure()` (bytes) passes `limit_bytes`; use as a context manager."""

    def __init__(
        self,
        measure: Callable[[], int],
        limit_bytes: int,
        on_exceed: Callable[[], None],
        poll_s: float = POLL_S,
    ) -> None:
        self.measure = measure
        self.limit_bytes = limit_bytes
        self.on_exceed = on_exceed
        self.poll_s = poll_s
        self.exceeded = False
        self.peak_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sandbox-disk-watch", daemon=True)

    def __enter__(self) -> DiskWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
        if not self.exceeded:  # a run can write past the limit and end between two polls: measure once more
            used = self.measure()
            self.peak_bytes = max(self.peak_bytes, used)
            if used > self.limit_bytes:
                self.exceeded = True
                log.warning("sandbox: the run wrote %d bytes, over the %d-byte limit", used, self.limit_bytes)

    def _run(self) -> None:
        delay = self.poll_s
        while not self._stop.wait(delay):
            started = time.monotonic()
            used = self.measure()
            # A huge tree takes long to scan: poll it less often, so watching never costs more than ~20%.
            delay = max(self.poll_s, 4 * (time.monotonic() - started))
            self.peak_bytes = max(self.peak_bytes, used)
            if used > self.limit_bytes and not self._stop.is_set():
                self.exceeded = True
                log.warning(
                    "sandbox: the run wrote %d bytes, over the %d-byte limit: stopping it",
                    used,
                    self.limit_bytes,
                )
                try:
                    self.on_exceed()
                except Exception:  # noqa: BLE001 - the run's own clean-up still kills it
                    log.exception("sandbox: stopping a run over its disk limit failed")
                return
