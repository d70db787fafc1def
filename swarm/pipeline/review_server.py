"""A fork server for the review's bounded checks (`swarm.pipeline.bounded_review`): one process per run process,
`python -m swarm.pipeline.review_server`, that imports the checks once and forks a child per request.

Why not multiprocessing's forkserver: its children first import the parent's `__main__` script again (the main
job's imports, Prefect's among them, in every review; and a script without a `__main__` guard runs itself
again), and a run process is full of threads, so it cannot fork itself safely. This server is single-threaded;
it reads a request (a pickled `(function, argument, memory_mb, answer_path)`) from its stdin, forks, and answers
with the child's pid; the child caps its address space, calls the function, writes the pickled answer to the
path it was given and exits. The caller watches the child by a pidfd (`ReviewChild`): waits for
it with a timeout and kills it, whichever thread asks. Children die with the server (PR_SET_PDEATHSIG), the
server with its caller (and at the end of its stdin); exited children are reaped at the next request, after
the caller holds their pidfd, so a pid is never reused under it.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import pickle
import resource
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

PR_SET_PDEATHSIG = 1
_HEADER = 8


class ReviewChild:
    """One forked check, watched by its pidfd."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.fd = os.pidfd_open(pid)
        self.exit_note: str | None = None

    def wait(self, timeout_s: float | None) -> bool:
        """Whether the child ended within `timeout_s` seconds (None: wait as long as it takes)."""
        ended = bool(select.select([self.fd], [], [], timeout_s)[0])
        if ended and self.exit_note is None:
            self.exit_note = "it ended"
        return ended

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, OSError):
            signal.pidfd_send_signal(self.fd, signal.SIGKILL)
        self.exit_note = "killed"

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)


class ReviewServer:
    """The calling process's side: the server started on first use (again after a fork or its death)."""

    def __init__(self, preload: tuple[str, ...]) -> None:
        self.preload = preload  # modules the server imports once, before it forks
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._owner = 0

    def fork(
        self, function: Callable[[Any], Any], argument: Any, memory_mb: int, answer: Path
    ) -> ReviewChild:
        """A child that writes `function(argument)`'s outcome to `answer` (pickled: ("ok", value), ("memory",
        None) or ("raised", exception)), its address space capped at `memory_mb` (0: no cap); OSError where the
        server cannot start or answer (tried twice: a server killed since its last request is started again)."""
        data = pickle.dumps((function, argument, memory_mb, str(answer)))
        with self._lock:
            for attempt in (1, 2):
                process = self._running()
                try:
                    process.stdin.write(len(data).to_bytes(_HEADER, "big") + data)
                    process.stdin.flush()
                    answer = process.stdout.read(_HEADER)
                    if len(answer) == _HEADER:
                        return ReviewChild(int.from_bytes(answer, "big"))
                except (BrokenPipeError, OSError):
                    if attempt == 2:
                        raise
                self._stop()
            raise OSError(f"the review server ended (exit code {process.returncode})")

    def _running(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None or self._owner != os.getpid():
            paths = [path for path in sys.path if path]  # the caller's, so that its request's classes import
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
            command = [sys.executable, "-m", __name__, *self.preload]
            self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
            self._owner = os.getpid()
        return self._process

    def _stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._process = None


REVIEW_SERVER = ReviewServer(preload=("swarm.pipeline.bounded_review",))


def _die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _child(payload: bytes) -> None:
    """The forked child's body: the memory cap, the checks, the answer written; never returns."""
    code = 1
    try:
        _die_with_parent()
        function, argument, memory_mb, answer_path = pickle.loads(payload)
        if memory_mb > 0:
            cap = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        answer = _answer(function, argument)
        try:
            data = pickle.dumps(answer)
        except Exception as exc:  # noqa: BLE001 - an exception that does not pickle goes as its words
            data = pickle.dumps(("raised", RuntimeError(f"{type(answer[1]).__name__}: {exc}")))
        Path(answer_path).write_bytes(data)
        code = 0
    finally:
        os._exit(code)


def _answer(function: Callable[[Any], Any], argument: Any) -> tuple[str, Any]:
    try:
        return "ok", function(argument)
    except MemoryError:
        return "memory", None
    except Exception as exc:  # noqa: BLE001 - raised again in the caller, as it would have been there
        return "raised", exc


def serve(preload: list[str]) -> None:
    """Import `preload`, then read requests from stdin until it ends, fork a child for each, answer with its
    pid."""
    _die_with_parent()
    for module in preload:  # the checks' imports, once, before any fork
        importlib.import_module(module)

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while len(header := stdin.read(_HEADER)) == _HEADER:
        payload = stdin.read(int.from_bytes(header, "big"))
        with contextlib.suppress(ChildProcessError):  # reap the children the caller has seen end
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        pid = os.fork()
        if pid == 0:
            _child(payload)
        stdout.write(pid.to_bytes(_HEADER, "big"))
        stdout.flush()


if __name__ == "__main__":
    serve(sys.argv[1:])
