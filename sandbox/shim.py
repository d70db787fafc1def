"""The local backend's supervisor: runs one solution and leaves none of its processes behind.

LocalSandbox starts it as
`python -I -S -c <this file's source> PARENT STATUS_FD DEADLINE_S UID LIMITS CORES MEMORY -- ARGV`
(as root when the sandbox switches uids, so the solution cannot signal or trace it). It

- becomes a child subreaper, so a daemon that double-forks (setsid, fork, exit) is re-parented to it rather
  than to init, and it reaps every orphan while the solution runs (no zombies pile up);
- forks the solution, which joins its memory cgroup (MEMORY "cgroup:<cgroup.procs path>"), is pinned to the
  cores CORES ("0,1,..." or "-"), drops to UID (unless "-") with the rlimits LIMITS ("res=value,..."), sets
  no_new_privs (setuid programs gain nothing) and execs ARGV;
- with MEMORY "watch:<bytes>", measures the memory its processes use (proportional set size of their anonymous
  and shared-memory pages, so pages that forked workers share count once) every WATCH_S and stops the run
  when it passes that limit; address space that is only reserved (CUDA's) costs nothing;
- when the solution exits, at DEADLINE_S (timeout + grace: no run outlives it even if the caller vanished),
  on SIGTERM/SIGINT/SIGHUP, or when its parent dies (PR_SET_PDEATHSIG), kills and reaps every descendant;
- writes the solution's fate to STATUS_FD: "exit N", "signal N" or "stopped SIGNAME" ("stopped memory" when
  the watch stopped it), followed by " oom" when a watched run used more than its limit, also one that ended
  between two measurements (the largest process's peak resident size says so).

Standard library only, no imports from this package: it runs under -I -S with no sys.path of ours.
"""

import contextlib
import ctypes
import os
import resource
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM}
WATCHED = STOP_SIGNALS | {signal.SIGCHLD}
WATCH_S = 0.1  # how often the memory watch measures (it measures less often when measuring is slow)
PAGE = os.sysconf("SC_PAGE_SIZE")


def _prctl(libc, option: int, value: int) -> None:
    if libc.prctl(option, value, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"prctl({option}, {value}): {os.strerror(errno)}")


def _descendants(root: int) -> set[int]:
    """Every process below `root` (one /proc scan: /proc/*/task/*/children may not exist)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(name))
    found: set[int] = set()
    frontier = [root]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found.update(kids)
        frontier.extend(kids)
    return found


def _private_bytes(pid: int) -> int:
    """Memory a process really uses: its share of anonymous and shared-memory pages (smaps_rollup), else its
    resident pages that are not file-backed (statm); 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            fields = {}
            for line in f.read().splitlines():
                key, _, rest = line.partition(b":")
                parts = rest.split()
                if parts and parts[0].isdigit():
                    fields[key] = int(parts[0]) * 1024
        if b"Pss_Anon" in fields:
            return fields[b"Pss_Anon"] + fields.get(b"Pss_Shmem", 0)
        if b"Pss" in fields:
            return fields[b"Pss"]
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            values = f.read().split()
        return max(0, int(values[1]) - int(values[2])) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _tree_bytes(root: int) -> int:
    """The memory every process below `root` uses."""
    return sum(_private_bytes(pid) for pid in _descendants(root))


def _signal_all(pids: set[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def _reap(main_pid: int) -> int | None:
    """Reap every exited child; the wait status of `main_pid` if it was among them."""
    found = None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found
        if pid == 0:
            return found
        if pid == main_pid:
            found = status


def _kill_uid(uid: int) -> None:
    """kill(-1, SIGKILL) as `uid`: every process of the uid at once (the kernel lets no fork slip through)."""
    helper = os.fork()
    if helper == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(helper, 0)


def _kill_descendants(uid: int | None, group: int | None) -> None:
    """Kill and reap everything below us: the slot uid and the solution's process group at once (each in one
    pass no fork escapes), then freeze (SIGSTOP) and kill what is left.

    Freezing first matters for fork bombs: killed processes free process slots that running ones would
    refill. Orphans re-parent to us (a subreaper), so "below us" is the whole tree.
    """
    if uid is not None:
        _kill_uid(uid)
    if group is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    me = os.getpid()
    while True:
        tree = _descendants(me)
        while tree:  # freeze until the tree stops growing
            _signal_all(tree, signal.SIGSTOP)
            grown = tree | _descendants(me)
            if grown == tree:
                break
            tree = grown
        _signal_all(tree, signal.SIGKILL)
        try:
            while os.waitpid(-1, os.WNOHANG)[0] != 0:
                pass
        except ChildProcessError:
            return
        signal.sigtimedwait({signal.SIGCHLD}, 0.05)


def _start_solution(
    libc,
    status_fd: int,
    uid: int | None,
    limits: list[tuple[int, int]],
    cores: set[int] | None,
    cgroup_procs: str | None,
    argv: list[str],
):
    """In the forked child: join the memory cgroup, pin to the cores, drop privileges, apply the limits and exec
    the solution. Never returns."""
    try:
        os.setpgid(0, 0)  # a process group of its own: killpg reaches all of it at once
        os.close(status_fd)
        for sig in (*WATCHED, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        if cgroup_procs is not None:  # before anything else runs: all it starts is counted there
            with open(cgroup_procs, "w") as f:
                f.write(str(os.getpid()))
        if cores:
            os.sched_setaffinity(0, cores)
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        for which, value in limits:
            resource.setrlimit(which, (value, value))
        _prctl(libc, PR_SET_NO_NEW_PRIVS, 1)
        os.execv(argv[0], argv)
    except BaseException as exc:  # noqa: BLE001 - report anything, then leave without running our finally
        os.write(2, f"sandbox shim: cannot start the solution: {exc!r}\n".encode())
    os._exit(127)


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit {os.WEXITSTATUS(status)}"


def _parse_memory(text: str) -> tuple[str | None, int | None]:
    """MEMORY: (cgroup.procs path, None), (None, watch limit in bytes) or (None, None) for "-"."""
    kind, _, value = text.partition(":")
    if kind == "cgroup":
        return value, None
    if kind == "watch":
        return None, int(value)
    return None, None


def main(args: list[str]) -> int:
    """Supervise one solution (see the module doc for the arguments)."""
    parent, status_fd, deadline_s = int(args[0]), int(args[1]), float(args[2])
    uid = None if args[3] == "-" else int(args[3])
    limits = [tuple(int(x) for x in item.split("=")) for item in args[4].split(",") if item]
    cores = None if args[5] == "-" else {int(core) for core in args[5].split(",")}
    cgroup_procs, watch_bytes = _parse_memory(args[6])
    argv = args[args.index("--") + 1 :]
    os.set_inheritable(status_fd, False)
    libc = ctypes.CDLL(None, use_errno=True)
    # Signals are taken synchronously with sigwaitinfo: nothing can interrupt the clean-up below.
    signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED)
    _prctl(libc, PR_SET_CHILD_SUBREAPER, 1)
    _prctl(libc, PR_SET_PDEATHSIG, signal.SIGTERM)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    outcome = None
    main_pid = None
    over_memory = False
    if os.getppid() != parent:  # the parent died before PDEATHSIG was armed
        outcome = "stopped parent-gone"
    else:
        signal.setitimer(signal.ITIMER_REAL, max(deadline_s, 0.1))
        main_pid = os.fork()
        if main_pid == 0:
            _start_solution(libc, status_fd, uid, limits, cores, cgroup_procs, argv)
        with contextlib.suppress(OSError):  # also here, so the group exists before we might signal it
            os.setpgid(main_pid, main_pid)
        me = os.getpid()
        pause, due = WATCH_S, time.monotonic() + WATCH_S
        while outcome is None:
            status = _reap(main_pid)
            if status is not None:
                outcome = _describe(status)
                break
            if watch_bytes is None:
                info = signal.sigwaitinfo(WATCHED)
            else:
                info = signal.sigtimedwait(WATCHED, max(0.0, due - time.monotonic()))
                started = time.monotonic()
                if started >= due:  # on time, not on every SIGCHLD of a solution that forks a lot
                    if _tree_bytes(me) > watch_bytes:
                        over_memory, outcome = True, "stopped memory"
                        break
                    pause = max(WATCH_S, 4 * (time.monotonic() - started))  # a huge tree: measure less often
                    due = time.monotonic() + pause
            if info is not None and info.si_signo in STOP_SIGNALS:
                outcome = f"stopped {signal.Signals(info.si_signo).name}"
    signal.setitimer(signal.ITIMER_REAL, 0)
    # Only while the solution is unreaped is its pid (so its group id) sure not to have been reused.
    _kill_descendants(uid, main_pid if outcome.startswith("stopped") else None)
    if watch_bytes is not None and not over_memory:
        # A run can pass the limit and end between two measurements: the largest process's peak says so.
        over_memory = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 > watch_bytes
    os.write(status_fd, (outcome + (" oom" if over_memory else "")).encode())
    os.close(status_fd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
