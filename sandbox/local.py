"""The local backend: a supervised subprocess with rlimits, a scrubbed environment and, as root, its own uid.

It is weaker than Docker and bwrap: no network or filesystem namespace. It isolates only as root: each
execution runs as its own slot uid (sandbox.slots), so it cannot read root-only files nor touch another
execution's dirs, and every process of that uid dies at the end. Where it cannot drop privileges (not root,
or an interpreter the slot uids cannot run) it refuses (SandboxUnavailable); sandbox.unsafe_local is the
explicit opt-in to run with the caller's rights. The solution runs under a supervisor (sandbox/shim.py, a
child subreaper) that kills whatever it left behind, also daemons that double-fork, and that enforces the
deadline even if the caller is killed. BwrapSandbox reuses all of it and wraps the solution in bubblewrap.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import resource
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from sandbox.base import RawRun, Sandbox, SandboxUnavailable
from sandbox.config import ExecutionConfig
from sandbox.disk_usage import total_bytes
from sandbox.disk_watch import DiskWatcher
from sandbox.gpus import GpuInfo, cuda_environment
from sandbox.memory_cgroup import CgroupParent, CgroupUnavailable, ExecutionCgroup, cgroup_parent
from sandbox.ownership import claim_dirs, release_dirs
from sandbox.packages import interpreter_packages
from sandbox.process_tree import kill_tree, kill_uid
from sandbox.resources import CORE_SLOTS, CoreSlots, thread_count, thread_environment
from sandbox.result import OutputCollector
from sandbox.shared_tmp import owned_bytes, remove_owned
from sandbox.slots import PROBE_UID, SLOTS, UidSlots
from sandbox.workspace import CODE_FILE, NodeDirs

log = logging.getLogger(__name__)

# Host variables a solution may see; everything else (API keys, tokens, cloud credentials) is dropped.
ENV_PASSTHROUGH = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
SHIM_SOURCE = Path(__file__).with_name("shim.py").read_text(encoding="utf-8")
DEADLINE_GRACE_S = 10.0  # the supervisor's own deadline: timeout + this, also when the caller is gone
STOP_WAIT_S = 5.0  # how long the supervisor gets to clean up after being told to stop
WAIT_SLICE_S = 0.25


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


def find_isolated_python(uid: int = PROBE_UID) -> str | None:
    """The interpreter LocalSandbox should use to isolate as root: $SWARM_SANDBOX_PYTHON, this one, or the system's.

    None when `uid` can run none of them (or when not root: then any interpreter runs unisolated).
    """
    if os.geteuid() != 0:
        return None
    candidates = [os.environ.get("SWARM_SANDBOX_PYTHON"), sys.executable, "/usr/bin/python3"]
    for candidate in filter(None, candidates):
        if Path(candidate).is_file() and uid_can_run(candidate, uid):
            return candidate
    return None


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


SOLUTION_USER = "solution"
"""The user name a solution sees in USER and LOGNAME."""


class LocalSandbox(Sandbox):
    """Runs solutions as supervised local subprocesses. A security boundary only when it can switch uids."""

    name = "local"

    def __init__(
        self,
        cfg: ExecutionConfig,
        parallel: int = 1,
        *,
        python: str | None = None,
        slots: UidSlots | None = None,
        cores: CoreSlots | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        super().__init__(cfg, parallel)
        self.python = python or os.environ.get("SWARM_SANDBOX_PYTHON") or sys.executable
        if not Path(self.python).is_file():
            raise FileNotFoundError(f"python interpreter {self.python} does not exist")
        self.slots = slots or SLOTS
        self.cores = cores or CORE_SLOTS
        self.extra_env = dict(extra_env or {})
        self.drop_privileges = self._can_drop_privileges()
        self.cgroups = self._find_cgroups()

    def _find_cgroups(self) -> CgroupParent | None:
        """Where per-execution memory cgroups go, or None when the supervisor's watch holds the limit
        (`execution.memory_guard`; `cgroup` where none can be made is SandboxUnavailable)."""
        guard = self.cfg.memory_guard
        if guard == "watchdog":
            return None
        try:
            return cgroup_parent()
        except CgroupUnavailable as exc:
            if guard == "cgroup":
                raise SandboxUnavailable(
                    f"execution.memory_guard=cgroup, but no memory cgroup can be made here ({exc}); run as root "
                    "on a host whose cgroups are writable, or set execution.memory_guard=auto (a watchdog over "
                    "the solution's resident memory)"
                ) from None
            log.info("no memory cgroup here (%s): a watchdog holds solutions to execution.memory_mb", exc)
            return None

    @property
    def memory_guard(self) -> str:
        if self.cgroups is None:
            return "watchdog (the supervisor measures the solution's resident memory)"
        return f"cgroup v{self.cgroups.version} memory limit"

    def _can_drop_privileges(self) -> bool:
        """Root with an interpreter the slot uids can run; otherwise SandboxUnavailable (never run as us)."""
        if os.geteuid() != 0:
            raise SandboxUnavailable(
                "the local sandbox isolates only as root (it runs each solution as a slot uid); use "
                "execution.sandbox=bwrap, or execution.sandbox=unsafe-local to run solutions with your rights"
            )
        if not uid_can_run(self.python, PROBE_UID):
            raise SandboxUnavailable(
                f"the local sandbox's uids (e.g. {PROBE_UID}) cannot run {self.python} (is it under a 0700 "
                "dir?); set SWARM_SANDBOX_PYTHON to an interpreter outside /root, or use execution.sandbox=bwrap"
            )
        return True

    @property
    def isolated(self) -> bool:
        return self.drop_privileges

    @property
    def description(self) -> str:
        return f"local: supervised subprocess as a slot uid ({self.slots.base}+), no network/filesystem namespace"

    def _memory_argument(self) -> tuple[str, ExecutionCgroup | None]:
        """The supervisor's MEMORY argument and the cgroup made for this execution (None: watched)."""
        limit = int(self.cfg.memory_mb) * 1024 * 1024
        if self.cgroups is None:
            return f"watch:{limit}", None
        cgroup = self.cgroups.create(limit)
        return f"cgroup:{cgroup.procs}", cgroup

    def packages(self) -> list[str]:
        """The well-known ML packages the interpreter that runs solutions has installed."""
        return interpreter_packages(self.python)

    def environment(self, node_dirs: NodeDirs, gpus: tuple[GpuInfo, ...] = ()) -> dict[str, str]:
        """The allow-listed environment of a child; CUDA_VISIBLE_DEVICES names its GPUs ("" when none)."""
        env = {name: os.environ[name] for name in ENV_PASSTHROUGH if name in os.environ}
        env.setdefault("LANG", "C.UTF-8")
        scratch = str(node_dirs.working)
        env.update(
            PATH=f"{Path(self.python).parent}:/usr/local/bin:/usr/bin:/bin",
            HOME=scratch,
            # The slot uid has no passwd entry; getpass.getuser() (torch calls it on import of its compiler
            # caches) reads these before the passwd database, so it gets a name instead of a KeyError.
            USER=SOLUTION_USER,
            LOGNAME=SOLUTION_USER,
            TMPDIR=scratch,
            MPLCONFIGDIR=scratch,
            PYTHONUNBUFFERED="1",
            PYTHONDONTWRITEBYTECODE="1",
            PYTHONNOUSERSITE="1",
            **thread_environment(float(self.cfg.cpus)),
        )
        env.update(cuda_environment(gpus))
        env.update(self.extra_env)
        return env

    def _limits(self, timeout_s: float) -> list[tuple[int, int]]:
        """The solution's rlimits (RLIMIT_NPROC counts per uid: the slot uid's own, else ours). None bounds its
        address space: memory is held by a cgroup or the supervisor's watch, so CUDA can reserve what it needs."""
        nproc = self.cfg.pids_limit
        if not self.drop_privileges:
            # RLIMIT_NPROC counts every process of the uid, so leave room for the ones already running.
            nproc += _count_user_processes(os.geteuid())
        disk = self.cfg.disk_mb * 1024 * 1024
        return [
            # CPU seconds add up over threads: allow the wall-clock budget on every core it may use.
            (resource.RLIMIT_CPU, math.ceil(timeout_s * thread_count(float(self.cfg.cpus))) + 5),
            (resource.RLIMIT_FSIZE, disk),
            (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_NPROC, nproc),
        ]

    def _execute(self, node_dirs: NodeDirs, timeout_s: float, gpus: tuple[GpuInfo, ...] = ()) -> RawRun:
        if not self.drop_privileges:
            return self._supervise(node_dirs, timeout_s, None, gpus)
        self._check_reachable(node_dirs)
        with self.slots.acquire() as uid:
            claim_dirs(node_dirs, uid)
            try:
                return self._supervise(node_dirs, timeout_s, uid, gpus)
            finally:
                # Its processes are dead (_supervise killed the uid). Its files in the shared dirs go first, so
                # that hard links it made there to its own files are gone before those files are handed back.
                remove_owned(uid)
                release_dirs(node_dirs)

    def _check_reachable(self, node_dirs: NodeDirs) -> None:
        """The slot uids must be able to reach the node dir and its input by path."""
        for needed in (node_dirs.root, node_dirs.input.resolve()):
            blocked = unreachable_parent(needed)
            if blocked is not None:
                raise PermissionError(
                    f"local sandbox: the sandbox uids cannot reach {needed} because {blocked} is not "
                    "traversable by others (chmod o+x it, or put the workspace/data elsewhere)"
                )

    def _solution_argv(
        self, node_dirs: NodeDirs, uid: int | None, gpus: tuple[GpuInfo, ...] = ()
    ) -> list[str]:
        """What the supervisor execs (after dropping to `_shim_uid(uid)`); `gpus` are the run's GPUs."""
        return [self.python, CODE_FILE]

    def _shim_uid(self, uid: int | None) -> int | None:
        """The uid the supervisor drops to before it execs the solution."""
        return uid

    def _shim_command(
        self,
        timeout_s: float,
        uid: int | None,
        status_fd: int,
        argv: list[str] | None = None,
        cores: tuple[int, ...] = (),
        memory: str = "-",
    ) -> list[str]:
        limits = ",".join(f"{which}={value}" for which, value in self._limits(timeout_s))
        return [
            sys.executable,
            "-I",
            "-S",
            "-c",
            SHIM_SOURCE,
            str(os.getpid()),
            str(status_fd),
            f"{timeout_s + DEADLINE_GRACE_S:.3f}",
            "-" if uid is None else str(uid),
            limits,
            ",".join(map(str, cores)) or "-",
            memory,
            "--",
            *(argv or [self.python, CODE_FILE]),
        ]

    def _supervise(
        self, node_dirs: NodeDirs, timeout_s: float, uid: int | None, gpus: tuple[GpuInfo, ...] = ()
    ) -> RawRun:
        """Run the solution under the shim (as `uid`, or as us when None) with `gpus` visible, on cores of its
        own and within its memory limit; collect what happened."""
        with self.cores.acquire(thread_count(float(self.cfg.cpus))) as cores:
            memory, cgroup = self._memory_argument()
            try:
                raw = self._run_shim(node_dirs, timeout_s, uid, gpus, cores, memory)
                if cgroup is not None and cgroup.oom_kills():
                    raw.oom_killed = True
                return raw
            finally:
                if cgroup is not None:
                    cgroup.remove()

    def _run_shim(
        self,
        node_dirs: NodeDirs,
        timeout_s: float,
        uid: int | None,
        gpus: tuple[GpuInfo, ...],
        cores: tuple[int, ...],
        memory: str,
    ) -> RawRun:
        collector = OutputCollector(self.cfg.max_output_chars)
        status_r, status_w = os.pipe()
        try:
            start = time.monotonic()
            try:
                command = self._shim_command(
                    timeout_s,
                    self._shim_uid(uid),
                    status_w,
                    self._solution_argv(node_dirs, uid, gpus),
                    cores,
                    memory,
                )
                proc = subprocess.Popen(
                    command,
                    cwd=node_dirs.root,
                    env=self.environment(node_dirs, gpus),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    close_fds=True,
                    pass_fds=(status_w,),
                )
            finally:
                os.close(status_w)
            pidfd = None
            watcher = DiskWatcher(
                functools.partial(_written_bytes, node_dirs, uid),
                self.cfg.disk_mb * 1024 * 1024,
                lambda: _send(pidfd, signal.SIGTERM),
            )
            try:
                pidfd = os.pidfd_open(proc.pid)  # signals and waits that can never hit a reused pid
                reader = threading.Thread(target=_pump, args=(proc.stdout, collector), daemon=True)
                reader.start()
                with watcher:
                    timed_out = not _wait_exit(pidfd, timeout_s)
            finally:
                _stop(proc, pidfd, uid)
            elapsed = time.monotonic() - start
            reader.join(timeout=10)
            fate = _read_fate(status_r)
        finally:
            os.close(status_r)
        exit_code, limit_hit, over_memory = _exit_code(fate, proc.returncode)
        return RawRun(
            collector=collector,
            exit_code=exit_code,
            exec_time=elapsed,
            timed_out=timed_out or limit_hit,
            oom_killed=over_memory,
            memory_held=fate.partition(";")[2].strip(),
            disk_exceeded=watcher.exceeded,
            isolated=self.isolated,
        )


def _written_bytes(node_dirs: NodeDirs, uid: int | None) -> int:
    """What the run has on disk: its working/ and submission/, and its slot uid's files in the temp dirs."""
    used = total_bytes((node_dirs.working, node_dirs.submission))
    return used + (owned_bytes(uid) if uid is not None else 0)


def _send(pidfd: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        signal.pidfd_send_signal(pidfd, sig)


def _wait_exit(pidfd: int, timeout_s: float) -> bool:
    """True when the process exited within timeout_s (it is not reaped).

    Waits in short slices so that an exception raised into this thread (a cancelled or timed-out Prefect
    task) arrives within about WAIT_SLICE_S and the caller's `finally` stops the run.
    """
    deadline = time.monotonic() + timeout_s
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        if poller.poll(max(1, math.ceil(min(remaining, WAIT_SLICE_S) * 1000))):
            return True


def _stop(proc: subprocess.Popen, pidfd: int | None, uid: int | None) -> None:
    """Let the shim kill and reap the solution's tree, then make sure: kill its tree and uid, and reap it."""
    try:
        if pidfd is not None and not _wait_exit(pidfd, 0.001):
            _send(pidfd, signal.SIGTERM)
            _wait_exit(pidfd, STOP_WAIT_S)
        # Not reaped yet, so its pid, process group and session cannot have been reused.
        kill_tree(proc.pid)
        if uid is not None:
            kill_uid(uid)
        proc.wait()
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _read_fate(fd: int) -> str:
    """What the shim wrote to its status pipe ("" when it died without a word)."""
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 256).decode("ascii", "replace").strip()
    except BlockingIOError:
        return ""


def _exit_code(fate: str, returncode: int) -> tuple[int, bool, bool]:
    """(exit code to report, whether a time limit ended the run, whether it used more memory than its limit)
    from the shim's status line (what follows a ";" says what held the memory)."""
    words = fate.partition(";")[0].split()
    over_memory = "oom" in words[2:] or words[:2] == ["stopped", "memory"]
    word, value = (words + ["", ""])[:2]
    if word == "exit":
        return int(value), False, over_memory
    if word == "signal":
        sig = int(value)
        return 128 + sig, sig == signal.SIGXCPU, over_memory  # the CPU-time rlimit is a time limit too
    if word == "stopped":
        return 128 + signal.SIGKILL, value == "SIGALRM", over_memory
    return (128 - returncode if returncode < 0 else returncode), False, over_memory


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
