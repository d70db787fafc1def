"""Memory limits that bound use, not reservation: on every backend a solution may reserve 64 GiB of address
space it never touches (CUDA does so when it starts), and one that touches 3 GiB under a 1 GiB limit is
stopped and reported as out of memory: by a cgroup where this host lets us make one, else by the supervisor's
watch over its processes' memory."""

from __future__ import annotations

import os
import textwrap

import pytest

from sandbox import SandboxUnavailable
from sandbox.local import _exit_code
from sandbox.memory_cgroup import CgroupUnavailable, cgroup_parent

# (backend, execution.memory_guard): the local backends with each guard, and Docker (the engine's cgroup).
GUARDED = [
    *(
        pytest.param(backend, guard, id=f"{backend}-{guard}")
        for backend in ("local", "bwrap", "unsafe-local")
        for guard in ("auto", "watchdog")
    ),
    pytest.param("docker", "auto", marks=pytest.mark.docker, id="docker"),
]

RESERVE_64_GIB = textwrap.dedent(
    """
    import mmap
    # What CUDA does when it starts: reserve a large range of address space it has not touched.
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0)
    reserved = mmap.mmap(-1, 64 << 30, flags=flags, prot=0)
    print("reserved GiB:", len(reserved) >> 30)
    """
)

TOUCH_3_GIB_AND_HOLD = textwrap.dedent(
    """
    import time
    hog = [b"x" * (1 << 20) for _ in range(3 << 10)]  # 3 GiB, every page written
    print("touched 3 GiB", flush=True)
    time.sleep(60)  # held: only a kill ends this run before its timeout
    """
)

TOUCH_3_GIB_AND_EXIT = textwrap.dedent(
    """
    hog = [b"x" * (1 << 20) for _ in range(3 << 10)]
    print("touched 3 GiB", flush=True)
    """
)

# A parent that holds 600 MB and forks three workers that share it: 600 MB in use, 2.4 GB if every process's
# resident memory were added up.
FORKED_WORKERS_SHARE = textwrap.dedent(
    """
    import os, time
    data = [b"y" * (1 << 20) for _ in range(600)]
    children = []
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            time.sleep(1.5)
            os._exit(0 if len(data) == 600 else 1)
        children.append(pid)
    codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
    print("workers:", codes)
    """
)


ALLOWED = [
    pytest.param(RESERVE_64_GIB, "reserved GiB: 64", id="reserve-64-gib"),
    # Counted as the sum of each process's resident memory this would be 2.4 GB, over the limit.
    pytest.param(
        FORKED_WORKERS_SHARE, "workers: [0, 0, 0]", id="forked-workers-share", marks=pytest.mark.slow
    ),
]


@pytest.mark.parametrize(("code", "printed"), ALLOWED)
@pytest.mark.parametrize(("backend", "guard"), GUARDED)
def test_memory_a_solution_does_not_use_is_not_counted(
    backend, guard, code, printed, make_backend, workspace
):
    """64 GiB of address space reserved and never touched, and pages that forked workers share, run under a
    1 GiB limit."""
    sb = make_backend(backend, memory_mb=1024, memory_guard=guard)
    result = sb.run(code, workspace.node_dirs("allowed"))
    assert result.exit_code == 0, result.output
    assert printed in result.output
    assert not result.oom_killed


@pytest.mark.slow
@pytest.mark.parametrize(("backend", "guard"), GUARDED)
def test_touching_3_gib_under_1_gib_is_stopped_and_reported(backend, guard, make_backend, workspace):
    sb = make_backend(backend, memory_mb=1024, memory_guard=guard, timeout_s=120)
    result = sb.run(TOUCH_3_GIB_AND_HOLD, workspace.node_dirs("hog"))
    assert result.oom_killed, result.output
    assert result.exit_code != 0 and not result.timed_out
    assert result.exc_type is not None and result.exc_type.endswith("MemoryError")
    assert result.exec_time < 60  # stopped, not left to sleep until its end


@pytest.mark.slow
@pytest.mark.parametrize(("backend", "guard"), GUARDED)
def test_a_run_that_passed_its_limit_and_ended_is_still_reported(backend, guard, make_backend, workspace):
    sb = make_backend(backend, memory_mb=1024, memory_guard=guard)
    result = sb.run(TOUCH_3_GIB_AND_EXIT, workspace.node_dirs("hog-exit"))
    assert result.oom_killed, result.output
    assert result.exc_type is not None and result.exc_type.endswith("MemoryError")


def test_cgroup_guard_where_none_can_be_made_is_refused_in_one_sentence(make_backend, monkeypatch):
    import sandbox.local

    def unavailable():
        raise CgroupUnavailable("cgroup v2 at /sys/fs/cgroup: Permission denied")

    monkeypatch.setattr(sandbox.local, "cgroup_parent", unavailable)
    with pytest.raises(SandboxUnavailable) as refused:
        make_backend("unsafe-local", memory_guard="cgroup")
    message = str(refused.value)
    assert "\n" not in message
    assert "execution.memory_guard=cgroup" in message and "Permission denied" in message
    assert "execution.memory_guard=auto" in message
    # auto turns to the watch instead.
    assert make_backend("unsafe-local", memory_guard="auto").memory_guard.startswith("watchdog")


def test_as_root_this_host_gets_a_memory_cgroup():
    """Root here can make memory cgroups (v1 on this machine), so the kernel, not the watch, holds the limit;
    CI runs as root, so the cgroup path is the one its sandbox tests exercise with `auto`."""
    if os.geteuid() != 0:
        pytest.skip("only root (or a delegated subtree) can make cgroups")
    try:
        parent = cgroup_parent()
    except CgroupUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI runs as root but no memory cgroup can be made: {exc}")
        pytest.skip(f"no memory cgroup here: {exc}")
    cgroup = parent.create(256 << 20)
    try:
        limit_file = "memory.max" if parent.version == 2 else "memory.limit_in_bytes"
        assert int((cgroup.path / limit_file).read_text()) == 256 << 20
        assert cgroup.oom_kills() == 0
    finally:
        cgroup.remove()
    assert not cgroup.path.exists()


@pytest.mark.parametrize(
    ("fate", "expected"),
    [
        ("exit 0", (0, False, False)),
        ("exit 0 oom", (0, False, True)),
        ("signal 9", (137, False, False)),
        ("signal 24", (152, True, False)),
        ("stopped memory", (137, False, True)),
        ("stopped SIGALRM", (137, True, False)),
        ("stopped SIGTERM oom", (137, False, True)),
    ],
)
def test_supervisor_status_line(fate, expected):
    assert _exit_code(fate, 0) == expected


def test_cgroup_v2_files_are_written_and_read_as_the_kernel_has_them(tmp_path):
    """The v2 path on a tree shaped like a unified hierarchy (this machine's memory controller is on v1, so
    the real v2 path cannot run here): the controller is enabled for our subtree, and each execution's cgroup
    gets memory.max with swap off and reads oom kills from memory.events."""
    from sandbox.memory_cgroup import ExecutionCgroup, _v2_parent

    mount = tmp_path / "cgroup2"
    mount.mkdir()
    (mount / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (mount / "cgroup.subtree_control").write_text("cpu\n")
    (mount / "swarm-sandbox").mkdir()  # the kernel makes a new cgroup's files; here, the one read first
    (mount / "swarm-sandbox" / "cgroup.subtree_control").write_text("")
    parent = _v2_parent(mount)
    assert parent.version == 2 and parent.path == mount / "swarm-sandbox"
    assert (mount / "cgroup.subtree_control").read_text() == "+memory"
    assert (parent.path / "cgroup.subtree_control").read_text() == "+memory"
    cgroup = ExecutionCgroup(parent.path / "exec-1-0", 2)
    cgroup.path.mkdir()
    (cgroup.path / "memory.swap.max").write_text("max\n")
    cgroup.set_limit(1 << 30)
    assert (cgroup.path / "memory.max").read_text() == str(1 << 30)
    assert (cgroup.path / "memory.swap.max").read_text() == "0"
    (cgroup.path / "memory.events").write_text("low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\noom_group_kill 0\n")
    assert cgroup.oom_kills() == 1
    (cgroup.path / "memory.events").unlink()
    (cgroup.path / "memory.max").unlink()
    (cgroup.path / "memory.swap.max").unlink()
    cgroup.remove()
    assert not cgroup.path.exists()


def test_a_v2_hierarchy_without_the_memory_controller_is_refused(tmp_path):
    from sandbox.memory_cgroup import _v2_parent

    (tmp_path / "cgroup.controllers").write_text("hugetlb\n")
    with pytest.raises(OSError, match="no memory controller"):
        _v2_parent(tmp_path)
