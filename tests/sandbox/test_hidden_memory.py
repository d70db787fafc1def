"""Memory no process maps: files on the sandbox's tmpfs mounts, memfds written and not mapped, SysV shared
memory after detaching. Under the watchdog guard each is counted (and named in the report), so a solution
holding 600 MB of it under a 256 MB limit is stopped and reported as out of memory; Docker's cgroup charges
them to the container. Memory mapped from such an object is counted once, so an honest program sharing memory
with itself is not stopped."""

from __future__ import annotations

import array
import contextlib
import os
import re
import socket
import textwrap

import pytest

from sandbox import shim
from sandbox.local import _exit_code

# Each holds (about) 600 MB in chunks, then sleeps: only the guard ends it before the 30 s timeout.
TMPFS_BOMB = """
import time
with open("{path}", "wb") as f:
    for _ in range(600):
        try:
            f.write(b"x" * (1 << 20))
            f.flush()
        except OSError:  # the mount is full: hold what it has
            break
print("holding", flush=True)
time.sleep(60)
"""

MEMFD_BOMB = """
import os, time
fd = os.memfd_create("bomb")
for _ in range(600):
    os.write(fd, b"x" * (1 << 20))
print("holding", flush=True)
time.sleep(60)
"""

SYSV_BOMB = """
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
chunk = 50 << 20
for _ in range(12):  # 600 MB: each segment created, attached, written and detached
    shmid = libc.shmget(0, chunk, 0o1600)
    assert shmid >= 0, ctypes.get_errno()
    address = libc.shmat(shmid, None, 0)
    ctypes.memset(address, 1, chunk)
    assert libc.shmdt(ctypes.c_void_p(address)) == 0
print("holding", flush=True)
time.sleep(60)
"""

# Unix socket pairs, each side filled until EAGAIN, then passed over a carrier socket (SCM_RIGHTS) and closed:
# no process holds them any more, their queues live on in flight (the trick that outlives RLIMIT_NOFILE).
SOCKET_BOMB = """
import socket, time
carrier, keep = socket.socketpair()
carrier.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
queued, batch = 0, []
while queued < 600 << 20:
    a, b = socket.socketpair()
    for side in (a, b):
        side.setblocking(False)
        try:
            while True:
                queued += side.send(b"q" * 65536)
        except BlockingIOError:
            pass
    batch += [a, b]
    if len(batch) >= 100:
        carrier.sendmsg([b"f"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, bytes(__import__("array").array("i", [s.fileno() for s in batch])))])
        for s in batch:
            s.close()
        batch = []
print("holding", queued >> 20, "MB", flush=True)
time.sleep(60)
"""

# 150 MB of POSIX shared memory and a 20 MB memfd, each written and mapped: 170 MB in use, 340 MB if the
# mapped pages were counted beside the objects that hold them. The tmpfs mounts are no bigger than the limit.
HONEST_SHARING = """
import mmap, os, time
from multiprocessing import shared_memory
shm = shared_memory.SharedMemory(create=True, size=150 << 20)
for start in range(0, 150 << 20, 1 << 20):
    shm.buf[start : start + (1 << 20)] = b"z" * (1 << 20)
fd = os.memfd_create("small")
for _ in range(20):
    os.write(fd, b"m" * (1 << 20))
mapped = mmap.mmap(fd, 20 << 20)
assert sum(mapped[i] for i in range(0, 20 << 20, 4096)) == ord("m") * 5120
time.sleep(1.5)
print("tmpfs MB:", [os.statvfs(p).f_blocks * os.statvfs(p).f_frsize >> 20 for p in ("/tmp", "/dev/shm")])
print("held 170 MB", flush=True)
mapped.close()
shm.close()
shm.unlink()
"""

# A 320 MB file on disk, mapped and read whole: its pages are the page cache's, not the program's memory, though
# they count in its resident size (and in the peak the kernel keeps of it).
FILE_MAPPING = """
import mmap
with open("working/data.bin", "wb") as f:
    for _ in range(320):
        f.write(b"f" * (1 << 20))
with open("working/data.bin", "rb") as f, mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as mapped:
    print("read", sum(mapped[i] for i in range(0, 320 << 20, 4096)) // ord("f") >> 8, "MB", flush=True)
"""

# A few sockets in honest use: a pair and a loopback TCP connection, 4 MB through each and read back, and 100 KB
# left queued in each: a few MB at most, far under the limit.
HONEST_SOCKETS = """
import socket, threading
def pump(send, receive, size=4 << 20):
    got = bytearray()
    sender = threading.Thread(target=send.sendall, args=(b"s" * size,))
    sender.start()
    while len(got) < size:
        got += receive.recv(1 << 16)
    sender.join()
    assert got == b"s" * size
    send.sendall(b"t" * (100 << 10))  # left queued, unread
a, b = socket.socketpair()
pump(a, b)
server = socket.create_server(("127.0.0.1", 0))
client = socket.create_connection(server.getsockname())
accepted, _ = server.accept()
pump(client, accepted)
print("sockets ok", flush=True)
"""

BOMBS = {
    "tmp": (TMPFS_BOMB.replace("{path}", "/tmp/bomb"), "in /tmp files"),
    "dev-shm": (TMPFS_BOMB.replace("{path}", "/dev/shm/bomb"), "in /dev/shm files"),
    "memfd": (MEMFD_BOMB, "in memfd files"),
    "sysv": (SYSV_BOMB, "in SysV shared memory"),
    "sockets": (SOCKET_BOMB, "in socket buffers"),
}

# (backend, guard, bomb): bwrap's watch sees all four; the local backend's memfds and its uid's SysV segments
# (its /tmp and /dev/shm are the host's, held by execution.disk_mb); unsafe-local's (no uid of its own) memfds;
# Docker's cgroup charges memfds and SysV.
CASES = [
    *(pytest.param("bwrap", "watchdog", bomb, id=f"bwrap-watchdog-{bomb}") for bomb in BOMBS),
    *(
        pytest.param("local", "watchdog", bomb, id=f"local-watchdog-{bomb}")
        for bomb in ("memfd", "sysv", "sockets")
    ),
    pytest.param("unsafe-local", "watchdog", "memfd", id="unsafe-local-watchdog-memfd"),
    *(
        pytest.param("docker", "auto", bomb, marks=pytest.mark.docker, id=f"docker-{bomb}")
        for bomb in ("memfd", "sysv")
    ),
]


@pytest.mark.parametrize(("backend", "guard", "bomb"), CASES)
def test_memory_no_process_maps_is_stopped_and_reported(backend, guard, bomb, make_backend, workspace):
    code, holder = BOMBS[bomb]
    sb = make_backend(backend, memory_mb=256, disk_mb=2048, memory_guard=guard, timeout_s=30)
    result = sb.run(textwrap.dedent(code), workspace.node_dirs(f"bomb-{bomb}"))
    assert result.oom_killed, (result.output, result.exc_info)
    assert result.exit_code != 0 and not result.timed_out, result.output
    assert result.exc_type is not None and result.exc_type.endswith("MemoryError")
    if guard == "watchdog":  # the watch names what held the memory, and it is over the limit
        assert result.exc_info.startswith("killed for exceeding the 256 MB memory limit: "), result.exc_info
        held = re.search(r"(\d+) MB " + re.escape(holder), result.exc_info)
        assert held is not None and int(held.group(1)) >= 200, result.exc_info


@pytest.mark.parametrize("backend", ["bwrap", "local"])
def test_memory_shared_through_mapped_objects_counts_once(backend, make_backend, workspace):
    sb = make_backend(backend, memory_mb=256, disk_mb=2048, memory_guard="watchdog")
    result = sb.run(textwrap.dedent(HONEST_SHARING), workspace.node_dirs("honest"))
    assert result.exit_code == 0 and not result.oom_killed, (result.output, result.exc_info)
    assert "held 170 MB" in result.output
    if backend == "bwrap":
        assert "tmpfs MB: [256, 256]" in result.output  # within the memory limit, not disk_mb's 2048


@pytest.mark.parametrize("backend", ["bwrap", "local"])
def test_pages_of_a_mapped_file_are_not_the_programs_memory(backend, make_backend, workspace):
    sb = make_backend(backend, memory_mb=256, disk_mb=2048, memory_guard="watchdog", timeout_s=60)
    result = sb.run(textwrap.dedent(FILE_MAPPING), workspace.node_dirs("mapped-file"))
    assert result.exit_code == 0 and not result.oom_killed, (result.output, result.exc_info)
    assert "read 320 MB" in result.output


def test_local_runs_leave_no_sysv_segments_behind(make_backend, workspace):
    """The local backend shares the host's ipc namespace: a segment its uid left there is removed at the end."""
    code = """
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    shmid = libc.shmget(0x5A5A0051, 1 << 20, 0o1600)
    print("segment", shmid, flush=True)
    """
    sb = make_backend("local", memory_mb=256)
    result = sb.run(textwrap.dedent(code), workspace.node_dirs("sysv-left"))
    assert result.exit_code == 0 and "segment" in result.output, result.output
    with open("/proc/sysvipc/shm") as f:
        keys = [int(line.split()[0]) for line in f.read().splitlines()[1:]]
    assert 0x5A5A0051 not in keys


def test_status_line_says_what_held_the_memory():
    fate = "stopped memory oom; 620 MB in /dev/shm files, 9 MB by its processes"
    assert _exit_code(fate, 0) == (137, False, True)


@pytest.mark.parametrize("backend", ["bwrap", "local"])
def test_a_few_sockets_in_honest_use_are_not_stopped(backend, make_backend, workspace):
    sb = make_backend(backend, memory_mb=256, disk_mb=2048, memory_guard="watchdog")
    result = sb.run(textwrap.dedent(HONEST_SOCKETS), workspace.node_dirs("honest-sockets"))
    assert result.exit_code == 0 and not result.oom_killed, (result.output, result.exc_info)
    assert "sockets ok" in result.output


def _fill(sock: socket.socket) -> int:
    """Send on `sock` until its queue is full; the bytes sent."""
    sock.setblocking(False)
    sent = 0
    with contextlib.suppress(BlockingIOError):
        while True:
            sent += sock.send(b"f" * 65536)
    return sent


def test_socket_buffers_are_read_from_sock_diag_by_inode():
    """The watch's sock_diag reading: a full unix pair and a full loopback TCP connection are found by their
    inodes with at least what was queued in them, and a filter that keeps nothing finds nothing."""
    pair = socket.socketpair()
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    accepted, _ = server.accept()
    held = [*pair, server, client, accepted]
    try:
        queued = _fill(pair[0]) + _fill(client)
        inodes = {os.fstat(sock.fileno()).st_ino for sock in held}
        found = shim._socket_bytes(lambda inode, uid: inode in inodes)
        assert queued <= found < 4 * queued + (8 << 20), (queued, found)
        assert shim._socket_bytes(lambda inode, uid: False) == 0
    finally:
        for sock in held:
            sock.close()


def test_sockets_in_flight_are_found_by_their_owner():
    """A full pair passed over SCM_RIGHTS and closed is held by no process: the inodes of the sockets a process
    holds miss it, its owner's uid finds it (how the watch sees the local backend's in-flight sockets)."""
    carrier = socket.socketpair()
    a, b = socket.socketpair()
    queued = _fill(a)
    inodes = {os.fstat(sock.fileno()).st_ino for sock in carrier}
    carrier[0].sendmsg(
        [b"f"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [a.fileno(), b.fileno()]))]
    )
    a.close()
    b.close()
    try:
        assert shim._socket_bytes(lambda inode, uid: inode in inodes) < queued
        assert shim._socket_bytes(lambda inode, uid: uid == os.geteuid()) >= queued
    finally:
        for sock in carrier:
            sock.close()


def test_one_measurement_over_the_limit_is_checked_by_a_second():
    """A race inside one measurement (an unmap between reading a process's pages and its mappings) must not
    stop an honest run; memory held over the limit on both measurements does."""
    readings = iter([{"by its processes": 300}, {"by its processes": 100}])
    assert shim._over_limit(lambda: next(readings), 256) is None
    readings = iter([{"by its processes": 300}, {"in /tmp files": 200, "by its processes": 90}])
    assert shim._over_limit(lambda: next(readings), 256) == {"in /tmp files": 200, "by its processes": 90}
    assert shim._over_limit(lambda: {"by its processes": 10}, 256) is None
