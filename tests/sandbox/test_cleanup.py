"""Nothing outlives an execution: daemons that double-fork, cancelled callers, and callers killed outright."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from sandbox import UnsafeLocalSandbox
from sandbox.config import ExecutionConfig
from sandbox.local import find_isolated_python
from sandbox.process_tree import real_uid
from sandbox.slots import SLOTS

from .conftest import processes_under

BACKENDS = ["local", "bwrap", pytest.param("docker", marks=pytest.mark.docker)]

DAEMON = textwrap.dedent(
    """
    import os, time
    if os.fork() == 0:
        os.setsid()  # leave the process group and session, then let the middle process exit
        if os.fork() == 0:
            open("working/daemon.pid", "w").write(str(os.getpid()))
            while True:
                with open("working/beat", "a") as f:
                    f.write("x")
                time.sleep(0.05)
        os._exit(0)
    while not os.path.exists("working/beat"):
        time.sleep(0.01)
    print("parent leaves", flush=True)
    """
)
SLEEPER = "import os, time\nopen('working/pid', 'w').write(str(os.getpid()))\ntime.sleep(1000)\n"


def alive(pid: int) -> bool:
    """Whether pid is a live (non-zombie) process."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def slot_processes(under: Path) -> list[int]:
    """Live processes running as a local-backend slot uid with their cwd under `under`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and real_uid(int(entry.name)) in SLOTS.uids:
            try:
                cwd = Path(os.readlink(entry / "cwd"))
            except OSError:
                continue
            if cwd == under or under in cwd.parents:
                found.append(int(entry.name))
    return found


def own_containers(client, owner: int | None = None) -> list:
    """Sandbox containers of `owner` (default: this process). The engine may remove one while the SDK
    inspects what it listed (NotFound): such a container is gone, so it is left out, not an error."""
    from sandbox.docker_backend import LABEL, LABEL_PID

    labels = [f"{LABEL}=1", f"{LABEL_PID}={owner or os.getpid()}"]
    return client.containers.list(all=True, filters={"label": labels}, ignore_removed=True)


def wait_for(predicate, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.mark.parametrize("backend", BACKENDS)
def test_double_forked_daemon_dies_with_the_run(backend, make_backend, workspace):
    sb = make_backend(backend)
    node = workspace.node_dirs("daemon")
    result = sb.run(DAEMON, node)
    assert result.exit_code == 0, result.output
    assert "parent leaves" in result.output
    beats = (node.working / "beat").stat().st_size
    time.sleep(0.6)
    assert (node.working / "beat").stat().st_size == beats, "the daemon still writes after run() returned"
    if backend == "local":
        pid = int((node.working / "daemon.pid").read_text())
        assert not alive(pid), f"daemon {pid} survived the run"
    if backend != "docker":  # bwrap's pids are its namespace's: find its processes by their cwd
        assert processes_under(workspace.root) == []
    else:
        assert own_containers(sb.client) == []


def test_double_forked_daemon_dies_without_a_uid_switch(workspace):
    """The supervisor alone (no slot uid to kill by: unsafe-local) still finds the daemon: a child subreaper."""
    sb = UnsafeLocalSandbox(ExecutionConfig(timeout_s=30))
    assert not sb.drop_privileges and not sb.isolated
    node = workspace.node_dirs("daemon-root")
    result = sb.run(DAEMON, node)
    assert result.exit_code == 0, result.output
    pid = int((node.working / "daemon.pid").read_text())
    assert not alive(pid), f"daemon {pid} survived the run"


class Cancelled(BaseException):
    """A cancellation that is neither an Exception nor a KeyboardInterrupt."""


@pytest.mark.parametrize("exc_type", [TimeoutError, KeyboardInterrupt, Cancelled])
@pytest.mark.parametrize("backend", BACKENDS)
def test_cancelled_caller_leaves_nothing(backend, exc_type, make_backend, workspace):
    """An exception raised into the running thread (as Prefect does on cancel/timeout) still cleans up."""
    sb = make_backend(backend)
    node = workspace.node_dirs("cancelled")
    outcome: dict = {}

    def target() -> None:
        try:
            sb.run(SLEEPER, node, timeout_s=60)
        except BaseException as exc:  # noqa: BLE001 - the injected exception is what we test
            outcome["exc"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    pid_file = node.working / "pid"
    wait_for(lambda: pid_file.exists() and pid_file.read_text(), 30, "the solution to start")
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exc_type))
    # Generous bounds, not speed: on a busy machine the engine can take tens of seconds to stop and remove.
    thread.join(timeout=180)
    assert not thread.is_alive()
    assert type(outcome.get("exc")) is exc_type
    if backend != "docker":
        if backend == "local":
            assert not alive(int(pid_file.read_text()))
        assert slot_processes(workspace.root) == [] and processes_under(workspace.root) == []
    else:
        wait_for(lambda: own_containers(sb.client) == [], 60, "the container's removal")


CALLER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from sandbox import Workspace
    from sandbox.config import ExecutionConfig
    backend, root, public, python, timeout = sys.argv[1:6]
    cfg = ExecutionConfig(timeout_s=float(timeout), memory_mb=256, pids_limit=64, disk_mb=64)
    if backend == "docker":
        from sandbox.docker_backend import DockerSandbox
        sb = DockerSandbox(cfg)
    elif backend == "bwrap":
        from sandbox.bwrap_backend import BwrapSandbox
        sb = BwrapSandbox(cfg)
    else:
        from sandbox import LocalSandbox
        sb = LocalSandbox(cfg, python=python or None)
    ws = Workspace(Path(root), Path(public))
    sb.run(sys.stdin.read(), ws.node_dirs("orphan"))
    """
)


def _start_caller(backend: str, workspace, timeout_s: float) -> subprocess.Popen:
    caller = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CALLER,
            backend,
            str(workspace.root),
            str(workspace.public_dir),
            find_isolated_python() or "",
            str(timeout_s),
        ],
        stdin=subprocess.PIPE,
        text=True,
    )
    caller.stdin.write(SLEEPER)
    caller.stdin.close()
    return caller


@pytest.mark.parametrize("backend", ["local", "bwrap"])
def test_sigkilled_caller_leaves_no_local_process(backend, make_backend, workspace):
    make_backend(backend)  # skips (or fails in CI) where this backend cannot run
    # A timeout far beyond the waits below: only the caller's death can end the solution in time.
    caller = _start_caller(backend, workspace, timeout_s=3600)
    pid_file = workspace.root / "nodes" / "orphan" / "working" / "pid"
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text(), 30, "the solution to start")
        assert processes_under(workspace.root)
    finally:
        caller.send_signal(signal.SIGKILL)
        caller.wait()
    # The supervisor's parent-death signal, not the timeout (1 h) nor its own deadline, ends it.
    wait_for(lambda: processes_under(workspace.root) == [], 120, "the solution to die with its caller")
    if os.geteuid() == 0:
        wait_for(lambda: slot_processes(workspace.root) == [], 120, "no process of a slot uid to be left")


@pytest.mark.slow
@pytest.mark.docker
def test_sigkilled_caller_leaves_no_running_container(docker_image, workspace):
    from docker.errors import NotFound

    from sandbox.docker_backend import DEADLINE_GRACE_S, docker_client, reap_stale_containers

    client = docker_client()
    caller = _start_caller("docker", workspace, timeout_s=3)
    try:
        wait_for(lambda: own_containers(client, caller.pid), 30, "the container to be created")
        (container,) = own_containers(client, caller.pid)
        wait_for(lambda: (container.reload(), container.status)[1] == "running", 30, "the container to run")
    finally:
        caller.send_signal(signal.SIGKILL)
        caller.wait()
    # Nobody will kill or remove it now: the in-container deadline (timeout 3 s + grace) must stop it, with
    # SIGKILL (137) from `timeout -s KILL` (the solution itself sleeps 1000 s).
    try:
        wait_for(
            lambda: (container.reload(), container.status)[1] == "exited", 300 + DEADLINE_GRACE_S, "exit"
        )
    except NotFound:
        pytest.skip("another test run on this host reaped the container first (its owner is dead)")
    assert container.attrs["State"]["ExitCode"] == 137
    reap_stale_containers(client)  # the next sandbox removes what the dead caller left
    assert own_containers(client, caller.pid) == []
    shutil.rmtree(workspace.root / "nodes" / "orphan", ignore_errors=True)
