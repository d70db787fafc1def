"""One uid per concurrent local execution ("slots"), held across threads and processes with a file lock.

A slot uid runs exactly one execution at a time, so at the end every process of that uid can be killed (no
daemon escapes), RLIMIT_NPROC (which counts per uid) is that execution's alone (a fork bomb starves nobody
else), and node dirs owned 0700 by it are closed to every other execution.

Slot uids start at SLOT_UID_BASE, apart from the Docker backend's container uid 10001: containers without a
user namespace run as that host uid, and killing "every process of the uid" must never hit them.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from sandbox.process_tree import kill_uid
from sandbox.shared_tmp import remove_owned

log = logging.getLogger(__name__)

SLOT_UID_BASE = 10101
SLOT_COUNT = 64
# For checks such as "can a sandbox uid run this interpreter": never a slot, so no scrub can kill the check.
PROBE_UID = SLOT_UID_BASE - 1
LOCK_DIR = Path("/run/swarm-sandbox/slots")


class UidSlots:
    """Hands out uids SLOT_UID_BASE.. one at a time; a slot is held by an flock on its lock file."""

    def __init__(self, base: int = SLOT_UID_BASE, count: int = SLOT_COUNT, lock_dir: Path = LOCK_DIR) -> None:
        self.base = base
        self.count = count
        self.lock_dir = Path(lock_dir)

    @property
    def uids(self) -> range:
        return range(self.base, self.base + self.count)

    def _lock_dir(self) -> Path:
        self.lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = self.lock_dir.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            raise PermissionError(
                f"slot lock dir {self.lock_dir} must be a 0700 dir owned by uid {os.geteuid()}"
            )
        return self.lock_dir

    def _try(self, uid: int) -> int | None:
        """An fd holding slot `uid`'s lock, or None when another thread or process holds it."""
        fd = os.open(
            self._lock_dir() / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
        )
        try:
            # flock belongs to the open file description: a second open() in this process conflicts too.
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return fd

    @contextlib.contextmanager
    def acquire(self, wait_s: float = 3600.0) -> Iterator[int]:
        """Hold a free slot uid for the duration of the block; its processes and temp files die with it."""
        deadline = time.monotonic() + wait_s
        warned = False
        while True:
            for uid in self.uids:
                fd = self._try(uid)
                if fd is not None:
                    break
            else:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no free sandbox uid slot among {self.count} within {wait_s} s")
                if not warned:
                    log.warning("all %d sandbox uid slots are busy; waiting for one", self.count)
                    warned = True
                time.sleep(0.1)
                continue
            break
        try:
            scrub(uid)  # leftovers of a holder that died without cleaning up
            yield uid
        finally:
            try:
                scrub(uid)
            finally:
                os.close(fd)  # releases the flock


def scrub(uid: int) -> None:
    """Kill every process of a slot uid and delete its files in the shared temp dirs."""
    kill_uid(uid)
    remove_owned(uid)


SLOTS = UidSlots()
