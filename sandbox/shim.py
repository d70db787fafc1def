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
  and shared-memory pages, so pages that forked workers share count once) and the memory they hold that no
  process maps (files on the tmpfs mounts of their own mount namespace, the SysV shared memory of their own
  ipc namespace or, sharing ours, of UID, the memfds they hold open, and what is queued in the sockets of
  their net namespace or, sharing ours, in those they hold or UID made; pages mapped from these count once)
  every WATCH_S and stops the run when it passes that limit; address space that is only reserved (CUDA's)
  costs nothing;
- when the solution exits, at DEADLINE_S (timeout + grace: no run outlives it even if the caller vanished),
  on SIGTERM/SIGINT/SIGHUP, or when its parent dies (PR_SET_PDEATHSIG), kills and reaps every descendant;
- writes the solution's fate to STATUS_FD: "exit N", "signal N" or "stopped SIGNAME" ("stopped memory" when
  the watch stopped it), followed by " oom" when a watched run used more than its limit, also one the kernel
  killed between two measurements (the largest process's peak resident size says so), and, when the watch
  stopped it, "; " and the largest holders of the memory ("620 MB in /dev/shm files, 9 MB by its processes");
- removes UID's SysV shared memory segments from our ipc namespace when the run ends.

Standard library only, no imports from this package: it runs under -I -S with no sys.path of ours.
"""

import contextlib
import ctypes
import os
import resource
import signal
import socket
import struct
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM}
WATCHED = STOP_SIGNALS | {signal.SIGCHLD}
WATCH_S = 0.1  # how often the memory watch measures (it measures less often when measuring is slow)
PAGE = os.sysconf("SC_PAGE_SIZE")
HELD_BY_SYSV = "in SysV shared memory"


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


def _rollup(pid: int) -> tuple[int, int]:
    """(anonymous, shared-memory) bytes a process really uses: its proportional share of each (smaps_rollup),
    else its resident pages that are not file-backed (statm) as anonymous; (0, 0) when it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            fields = {}
            for line in f.read().splitlines():
                key, _, rest = line.partition(b":")
                parts = rest.split()
                if parts and parts[0].isdigit():
                    fields[key] = int(parts[0]) * 1024
        if b"Pss_Anon" in fields:
            return fields[b"Pss_Anon"], fields.get(b"Pss_Shmem", 0)
        if b"Pss" in fields:
            return fields[b"Pss"], 0
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            values = f.read().split()
        return max(0, int(values[1]) - int(values[2])) * PAGE, 0
    except (OSError, IndexError, ValueError):
        return 0, 0


def _namespace(pid: int, kind: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/{kind}")
    except OSError:
        return None


def _maps_device(major: int, minor: int) -> bytes:
    """A device number as /proc/<pid>/maps writes it."""
    return f"{major:02x}:{minor:02x}".encode()


def _tmpfs_mounts(pid: int) -> dict[bytes, bytes]:
    """{device as maps writes it: mount point} of the tmpfs mounts `pid` sees (the last mount at a point wins)."""
    found: dict[bytes, bytes] = {}
    with open(f"/proc/{pid}/mountinfo", "rb") as f:
        for line in f:
            fields = line.split()
            if b"-" in fields and fields[fields.index(b"-") + 1] == b"tmpfs":
                major, _, minor = fields[2].partition(b":")
                found[_maps_device(int(major), int(minor))] = fields[4]
    return found


def _tmpfs_bytes(pid: int, host_devices: set[bytes], parts: dict[str, int], seen: set[bytes]) -> None:
    """Add the bytes used on each tmpfs of `pid`'s mount namespace that the host has not mounted too (the
    sandbox's /tmp and /dev/shm, not a bound host dir) to `parts`; `seen` gets their devices."""
    with contextlib.suppress(OSError):
        for device, point in _tmpfs_mounts(pid).items():
            if device in host_devices or device in seen:
                continue
            with contextlib.suppress(OSError):
                info = os.statvfs(f"/proc/{pid}/root" + point.decode(errors="replace"))
                used = (info.f_blocks - info.f_bfree) * info.f_frsize
                name = f"in {point.decode(errors='replace')} files"
                parts[name] = parts.get(name, 0) + used
                seen.add(device)


def _read_sysv(owner: int | None) -> tuple[int, set[int]]:
    """(resident and swapped bytes, ids) of the SysV shared memory of this thread's ipc namespace; only the
    segments of uid `owner` unless it is None."""
    total, ids = 0, set()
    with open("/proc/sysvipc/shm", "rb") as f:
        header, *rows = f.read().splitlines()
    column = {name: index for index, name in enumerate(header.split())}
    for row in rows:
        values = row.split()
        uids = {int(values[column[b"uid"]]), int(values[column[b"cuid"]])}
        if owner is None or owner in uids:
            total += int(values[column[b"rss"]]) + int(values[column[b"swap"]])
            ids.add(int(values[column[b"shmid"]]))
    return total, ids


# sock_diag (NETLINK_SOCK_DIAG): a dump of every unix, TCP and UDP socket of a net namespace with its memory.
NL_HEADER = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, sequence, port
SOCK_DIAG_BY_FAMILY, NLMSG_DONE, NLMSG_ERROR, NLM_F_REQUEST_DUMP = 20, 3, 2, 0x301
# unix_diag_req: all states, any inode, with UDIAG_SHOW_MEMINFO | UDIAG_SHOW_UID, any cookie.
UNIX_REQUEST = struct.pack(
    "=BBHIIIII", socket.AF_UNIX, 0, 0, 0xFFFFFFFF, 0, 0x20 | 0x40, 0xFFFFFFFF, 0xFFFFFFFF
)
# inet_diag_req_v2 for TCP and UDP over IPv4 and IPv6: all states, with INET_DIAG_SKMEMINFO (extension 7).
INET_REQUESTS = [
    struct.pack("=BBBBI", family, protocol, 1 << 6, 0, 0xFFFFFFFF) + bytes(48)
    for protocol in (socket.IPPROTO_TCP, socket.IPPROTO_UDP)
    for family in (socket.AF_INET, socket.AF_INET6)
]
HELD_BY_SOCKETS = "in socket buffers"


def _diag_dump(request: bytes) -> list[bytes]:
    """The replies (without their headers) to one SOCK_DIAG_BY_FAMILY dump of this thread's net namespace."""
    replies = []
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 4) as diag:
        diag.settimeout(5)  # the watch must not hang on a dump (a timeout is an OSError: nothing counted)
        diag.sendto(
            NL_HEADER.pack(NL_HEADER.size + len(request), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST_DUMP, 1, 0)
            + request,
            (0, 0),
        )
        while True:
            data, offset = diag.recv(1 << 16), 0
            while offset + NL_HEADER.size <= len(data):
                length, kind = NL_HEADER.unpack_from(data, offset)[:2]
                if kind == NLMSG_DONE or length < NL_HEADER.size:
                    return replies
                if kind == NLMSG_ERROR:  # no such family here (a module not loaded): nothing to count
                    raise OSError(f"sock_diag: {struct.unpack_from('=i', data, offset + 16)[0]}")
                replies.append(data[offset + NL_HEADER.size : offset + length])
                offset += (length + 3) & ~3


def _diag_attributes(reply: bytes, offset: int) -> dict[int, bytes]:
    """The netlink attributes of a reply from `offset` on: {type: payload}."""
    found = {}
    while offset + 4 <= len(reply):
        length, kind = struct.unpack_from("=HH", reply, offset)
        if length < 4:
            break
        found[kind] = reply[offset + 4 : offset + length]
        offset += (length + 3) & ~3
    return found


def _queued(meminfo: bytes) -> int:
    """A socket's memory from its sk_meminfo: received, being sent, queued to send, reserved (forward alloc)."""
    values = struct.unpack_from(f"={len(meminfo) // 4}I", meminfo) if len(meminfo) >= 24 else ()
    return values[0] + values[2] + values[4] + values[5] if values else 0


def _socket_bytes(keep=None) -> int:
    """The memory queued in the unix, TCP and UDP sockets of this thread's net namespace; only in those for
    which keep(inode, uid) is true unless it is None. In-flight sockets (passed over SCM_RIGHTS, held by no
    process) are dumped too, so a namespace of its own counts them; in ours, the uid says whose they are."""
    total = 0
    for request in (UNIX_REQUEST, *INET_REQUESTS):
        with contextlib.suppress(OSError):
            for reply in _diag_dump(request):
                if request is UNIX_REQUEST:  # unix_diag_msg: family, type, state, pad, inode, cookie
                    inode, attributes = struct.unpack_from("=I", reply, 4)[0], _diag_attributes(reply, 16)
                    meminfo, owner = attributes.get(5, b""), attributes.get(7, b"")
                    uid = struct.unpack("=I", owner)[0] if len(owner) == 4 else None
                else:  # inet_diag_msg: ..., 48 bytes of socket id, expires, rqueue, wqueue, uid, inode
                    uid, inode = struct.unpack_from("=II", reply, 64)
                    meminfo = _diag_attributes(reply, 72).get(7, b"")
                if keep is None or keep(inode, uid):
                    total += _queued(meminfo)
    return total


def _read_joined(libc, targets: list[tuple[int, bool, bool]], write_end: int) -> None:
    """In the measuring child: for each (pid, read SysV, read sockets), join pid's namespaces (a plain user its
    user namespace first, which that user owns) and write the SysV and socket bytes found there, a line each."""
    for pid, sysv, sockets in targets:
        with contextlib.suppress(OSError, ValueError, KeyError):
            kinds = ("ipc", "net") if os.geteuid() == 0 else ("user", "ipc", "net")
            for kind in kinds:
                if _namespace(pid, kind) != _namespace(os.getpid(), kind):
                    fd = os.open(f"/proc/{pid}/ns/{kind}", os.O_RDONLY)
                    if libc.setns(fd, 0) != 0:
                        raise OSError(ctypes.get_errno(), f"setns {kind}")
                    os.close(fd)
            found = (_read_sysv(None)[0] if sysv else 0, _socket_bytes() if sockets else 0)
            os.write(write_end, f"{found[0]} {found[1]}\n".encode())


def _foreign(libc, targets: list[tuple[int, bool, bool]]) -> tuple[int, int]:
    """(SysV bytes, socket bytes) of the ipc and net namespaces of other processes, read by ONE child that joins
    them in turn (a measurement forks once however many there are); what it cannot join counts 0."""
    if not targets:
        return 0, 0
    read_end, write_end = os.pipe()
    helper = os.fork()
    if helper == 0:
        try:
            os.close(read_end)
            _read_joined(libc, targets, write_end)
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as f:
            lines = f.read().splitlines()
    finally:
        os.waitpid(helper, 0)
    found = [line.split() for line in lines]
    return (
        sum(int(row[0]) for row in found if len(row) == 2 and row[0].isdigit()),
        sum(int(row[1]) for row in found if len(row) == 2 and row[1].isdigit()),
    )


def _held_fds(pid: int, memfds: dict[tuple[int, int], int], sockets: set[int]) -> None:
    """Add the memfds `pid` holds open to `memfds` ({(device, inode): allocated bytes}, each file once) and the
    inodes of its sockets to `sockets`."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(entry.path)
                if target.startswith("/memfd:"):
                    info = os.stat(entry.path)
                    memfds[(info.st_dev, info.st_ino)] = info.st_blocks * 512
                elif target.startswith("socket:["):
                    sockets.add(int(target[8:-1]))


def _counted_mapped(pid: int, counted) -> int:
    """The shared-memory bytes of `pid`'s mappings of objects counted whole elsewhere (`counted(dev, inode,
    path)`), which its proportional set size would count a second time."""
    total, current, pss, anon = 0, False, 0, 0
    with contextlib.suppress(OSError), open(f"/proc/{pid}/smaps", "rb") as f:
        for line in f:
            fields = line.split()
            if fields and b"-" in fields[0] and not fields[0].endswith(b":"):  # a mapping's first line
                total += max(0, pss - anon) if current else 0
                path = fields[5] if len(fields) > 5 else b""
                current, pss, anon = len(fields) > 4 and counted(fields[3], int(fields[4]), path), 0, 0
            elif current and fields[0] == b"Pss:":
                pss = int(fields[1]) * 1024
            elif current and fields[0] == b"Anonymous:":
                anon = int(fields[1]) * 1024
    return total + (max(0, pss - anon) if current else 0)


class _Seen:
    """What one measurement found outside the processes, so that pages they map from it count once."""

    def __init__(self) -> None:
        self.tmpfs: set[bytes] = set()  # devices of the sandbox's tmpfs mounts, as maps writes them
        self.foreign_ipc: set[str] = set()  # ipc namespaces whose SysV memory is counted whole
        self.sysv_ids: set[int] = set()  # the segments of the slot uid in our ipc namespace
        self.memfds: dict[tuple[int, int], int] = {}  # (device, inode): allocated bytes


def _scan(pids: set[int], uid: int | None, parts: dict[str, int], seen: _Seen):
    """Count the tmpfs files of each new mount namespace and collect memfds; returns (one pid per ipc or net
    namespace not ours with which of the two to read there, the inodes of the sockets held in our net
    namespace or None when no process there may hold one)."""
    me = os.getpid()
    host_tmpfs = set(_tmpfs_mounts(me))
    ours = {kind: _namespace(me, kind) for kind in ("mnt", "ipc", "net")}
    known = {kind: {space} for kind, space in ours.items()}
    targets, host_sockets, in_host_net = [], set(), False
    for pid in pids:
        spaces = {kind: _namespace(pid, kind) for kind in ("mnt", "ipc", "net")}
        if None in spaces.values():  # gone
            continue
        if spaces["mnt"] not in known["mnt"]:
            known["mnt"].add(spaces["mnt"])
            _tmpfs_bytes(pid, host_tmpfs, parts, seen.tmpfs)
        new = [spaces[kind] not in known[kind] for kind in ("ipc", "net")]
        if any(new):
            targets.append((pid, new[0], new[1]))
            known["ipc"].add(spaces["ipc"])
            known["net"].add(spaces["net"])
        sockets: set[int] = set()
        _held_fds(pid, seen.memfds, sockets)
        if spaces["net"] == ours["net"]:
            host_sockets |= sockets
            with contextlib.suppress(OSError):
                in_host_net = in_host_net or bool(sockets) or os.stat(f"/proc/{pid}").st_uid == uid
    seen.foreign_ipc = known["ipc"] - {ours["ipc"]}
    return targets, (host_sockets if in_host_net else None)


def _own(pids: set[int], seen: _Seen) -> int:
    """The processes' own anonymous and shared memory, less the pages they map from objects counted whole."""
    memfd_keys = {(_maps_device(os.major(dev), os.minor(dev)), ino) for dev, ino in seen.memfds}
    own = 0
    for pid in pids:
        anon, shmem = _rollup(pid)
        if shmem:
            whole_sysv = _namespace(pid, "ipc") in seen.foreign_ipc

            def counted(dev: bytes, ino: int, path: bytes, whole_sysv=whole_sysv) -> bool:
                if path.startswith(b"/SYSV"):
                    return whole_sysv or ino in seen.sysv_ids
                return dev in seen.tmpfs or (dev, ino) in memfd_keys

            shmem -= min(shmem, _counted_mapped(pid, counted))
        own += anon + shmem
    return own


def _measure(libc, root: int, uid: int | None) -> dict[str, int]:
    """What the processes below `root` hold, by holder: their own anonymous and shared memory, the files on
    their namespace's tmpfs mounts, the SysV shared memory of their ipc namespace (or, sharing ours, that of
    `uid`), the memfds they hold open, and the memory queued in the sockets of their net namespace (or, sharing
    ours, in the sockets they hold or `uid` made); memory mapped from a counted object is counted once."""
    pids = _descendants(root)
    parts: dict[str, int] = {}
    seen = _Seen()
    if uid is not None:
        with contextlib.suppress(OSError, ValueError, KeyError):
            parts[HELD_BY_SYSV], seen.sysv_ids = _read_sysv(uid)
    targets, host_sockets = _scan(pids, uid, parts, seen)
    sysv, queued = _foreign(libc, targets)
    parts[HELD_BY_SYSV] = parts.get(HELD_BY_SYSV, 0) + sysv
    if host_sockets is not None:
        queued += _socket_bytes(
            lambda inode, owner: inode in host_sockets or (uid is not None and owner == uid)
        )
    parts[HELD_BY_SOCKETS] = queued
    parts["in memfd files"] = sum(seen.memfds.values())
    parts["by its processes"] = _own(pids, seen)
    return parts


def _over_limit(measure, limit: int) -> dict[str, int] | None:
    """The second of two measurements in a row when both pass `limit`, else None: an unmap between reading a
    process's pages and its mappings counts those pages twice in one measurement; memory really held stays."""
    for _ in range(2):
        parts = measure()
        if sum(parts.values()) <= limit:
            return None
    return parts


def _remove_sysv(libc, uid: int) -> None:
    """Remove the SysV shared memory segments of `uid` (IPC_RMID: freed once the last process detaches)."""
    with contextlib.suppress(OSError):
        for shmid in _read_sysv(uid)[1]:
            libc.shmctl(shmid, 0, None)


def _held(parts: dict[str, int]) -> str:
    """The largest holders of memory, in words: "620 MB in /dev/shm files, 9 MB by its processes"."""
    ranked = sorted(((size, holder) for holder, size in parts.items() if size >= 1 << 20), reverse=True)
    return ", ".join(
        f"{size / (1 << 30):.1f} GB {holder}" if size >= 1 << 30 else f"{size >> 20} MB {holder}"
        for size, holder in ranked[:3]
    )


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
    held = ""
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
                    parts = _over_limit(lambda: _measure(libc, me, uid), watch_bytes)
                    if parts is not None:
                        over_memory, outcome, held = True, "stopped memory", _held(parts)
                        break
                    pause = max(WATCH_S, 4 * (time.monotonic() - started))  # a huge tree: measure less often
                    due = time.monotonic() + pause
            if info is not None and info.si_signo in STOP_SIGNALS:
                outcome = f"stopped {signal.Signals(info.si_signo).name}"
    signal.setitimer(signal.ITIMER_REAL, 0)
    # Only while the solution is unreaped is its pid (so its group id) sure not to have been reused.
    _kill_descendants(uid, main_pid if outcome.startswith("stopped") else None)
    if watch_bytes is not None and not over_memory and outcome == f"signal {signal.SIGKILL}":
        # Killed by none of ours (the kernel's OOM killer) between two measurements: the largest process's peak
        # says whether memory was why. Only then: that peak also counts the pages of files it mapped.
        over_memory = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 > watch_bytes
    if uid is not None:
        _remove_sysv(libc, uid)  # in our ipc namespace they would outlive the run
    fate = outcome + (" oom" if over_memory else "") + (f"; {held}" if held else "")
    os.write(status_fd, fate.encode()[:240])
    os.close(status_fd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
