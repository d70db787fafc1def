"""The local backend: a subprocess with rlimits, a scrubbed environment and (as root) an unprivileged uid.

It is weaker than Docker: no network or filesystem namespace. As root the child runs as uid 10001, so it cannot
read root-only files; as any other user it runs with the caller's rights and the result says isolated=False.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from sandbox.base import SANDBOX_UID, RawRun, Sandbox
from sandbox.process_tree import kill_tree
from sandbox.result import OutputCollector
from sandbox.workspace import CODE_FILE, NodeDirs
from swarm.config import ExecutionConfig

log = logging.getLogger(__name__)

# Host variables a solution may see; everything else (API keys, tokens, cloud credentials) is dropped.
ENV_PASSTHROUGH = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")


@functools.lru_cache(maxsize=8)
def uid_can_run(python: str, uid: int) -> bool:
    """Whether `uid` can start `python` (it may not, e.g. when it lives under a 0700 /root)."""
    try:
        done = subprocess.run(
            [python, "-c", "import sys"],
            user=uid,
            group=uid,
            extra_groups=[],
            env={"PATH": "/usr/bin:/bin"},
            cwd="/",
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def unreachable_parent(path: Path) -> Path | None:
    """The first ancestor of `path` that other users cannot traverse (no o+x), or None."""
    for parent in [*reversed(path.resolve().parents), path.resolve()]:
        if not parent.stat().st_mode & 0o001:
            return parent
    return None


def _count_user_processes(uid: int) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                count += 1
        except OSError:
            continue
    return count


class LocalSandbox(Sandbox):
    """Runs solutions as local subprocesses. Not a security boundary unless it can drop to SANDBOX_UID."""

    name = "local"

    def __init__(
        self,
        cfg: ExecutionConfig,
        *,
        python: str | None = None,
        uid: int = SANDBOX_UID,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        super().__init__(cfg)
        self.python = python or os.environ.get("SWARM_SANDBOX_PYTHON") or sys.executable
        if not Path(self.python).is_file():
            raise FileNotFoundError(f"python interpreter {self.python} does not exist")
        self.uid = uid
        self.extra_env = dict(extra_env or {})
        self.drop_privileges = os.geteuid() == 0 and uid_can_run(self.python, uid)
        if os.geteuid() == 0 and not self.drop_privileges:
            log.warning(
                "local sandbox: uid %d cannot run %s (is it under a 0700 dir?); solutions run as root, "
                "NOT isolated. Set SWARM_SANDBOX_PYTHON to an interpreter outside /root.",
                uid,
                self.python,
            )
        elif os.geteuid() != 0:
            log.warning(
                "local sandbox: not running as root, so solutions run with your own rights and are NOT "
                "isolated (they can read your files); use the docker backend for untrusted code."
            )

    def environment(self, node_dirs: NodeDirs) -> dict[str, str]:
        """The allow-listed environment of a child."""
        threads = str(max(1, math.ceil(self.cfg.cpus)))
        env = {name: os.environ[name] for name in ENV_PASSTHROUGH if name in os.environ}
        env.setdefault("LANG", "C.UTF-8")
        scratch = str(node_dirs.working)
        env.update(
            PATH=f"{Path(self.python).parent}:/usr/local/bin:/usr/bin:/bin",
            HOME=scratch,
            TMPDIR=scratch,
            MPLCONFIGDIR=scratch,
            PYTHONUNBUFFERED="1",
            PYTHONDONTWRITEBYTECODE="1",
            PYTHONNOUSERSITE="1",
            OMP_NUM_THREADS=threads,
            OPENBLAS_NUM_THREADS=threads,
            MKL_NUM_THREADS=threads,
        )
        env.update(self.extra_env)
        return env

    def _limits(self, timeout_s: float) -> list[tuple[int, int]]:
        nproc = self.cfg.pids_limit
        if not self.drop_privileges:
            # RLIMIT_NPROC counts every process of the uid, so leave room for the ones already running.
            nproc += _count_user_processes(os.geteuid())
        disk = self.cfg.disk_mb * 1024 * 1024
        return [
            (resource.RLIMIT_AS, self.cfg.memory_mb * 1024 * 1024),
            # CPU seconds add up over threads: allow the wall-clock budget on every core it may use.
            (resource.RLIMIT_CPU, math.ceil(timeout_s * max(1, math.ceil(self.cfg.cpus))) + 5),
            (resource.RLIMIT_FSIZE, disk),
            (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_NPROC, nproc),
        ]

    def _execute(self, node_dirs: NodeDirs, timeout_s: float) -> RawRun:
        if self.drop_privileges:
            for needed in (node_dirs.root, node_dirs.input.resolve()):
                blocked = unreachable_parent(needed)
                if blocked is not None:
                    raise PermissionError(
                        f"local sandbox: uid {self.uid} cannot reach {needed} because {blocked} is not "
                        "traversable by others (chmod o+x it, or put the workspace/data elsewhere)"
                    )
        limits = self._limits(timeout_s)

        def set_limits() -> None:  # runs in the child, after the uid switch
            for which, value in limits:
                resource.setrlimit(which, (value, value))

        ids: dict = {}
        if self.drop_privileges:
            ids = {"user": self.uid, "group": self.uid, "extra_groups": []}
        collector = OutputCollector(self.cfg.max_output_chars)
        start = time.monotonic()
        proc = subprocess.Popen(
            [self.python, CODE_FILE],
            cwd=node_dirs.root,
            env=self.environment(node_dirs),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            preexec_fn=set_limits,  # noqa: PLW1509 - only setrlimit calls, no locks taken
            **ids,
        )
        reader = threading.Thread(target=_pump, args=(proc.stdout, collector), daemon=True)
        reader.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            kill_tree(proc.pid)  # also on a normal exit: no background child survives
            proc.wait()
        elapsed = time.monotonic() - start
        reader.join(timeout=10)
        rc = proc.returncode
        if rc == -signal.SIGXCPU:  # the CPU-time rlimit is a time limit too
            timed_out = True
        return RawRun(
            collector=collector,
            exit_code=128 - rc if rc < 0 else rc,
            exec_time=elapsed,
            timed_out=timed_out,
            isolated=self.drop_privileges,
        )


def _pump(stream, collector: OutputCollector) -> None:
    """Copy a pipe into the collector in bounded chunks until EOF."""
    with stream:
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            collector.feed(chunk)
