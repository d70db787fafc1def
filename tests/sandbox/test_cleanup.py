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

from sandbox import LocalSandbox
from sandbox.local import find_isolated_python, uid_can_run
from sandbox.process_tree import real_uid
from sandbox.slots import PROBE_UID, SLOTS
from swarm.config import ExecutionConfig

BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]

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
    from sandbox.docker_backend import LABEL, LABEL_PID

    labels = [f"{LABEL}=1", f"{LABEL_PID}={owner or os.getpid()}"]
    return client.containers.list(all=True, filters={"label": labels})


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
    else:
        assert own_containers(sb.client) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the local backend without a uid switch")
def test_double_forked_daemon_dies_without_a_uid_switch(tmp_path, workspace):
    """The supervisor alone (no slot uid to kill by) still finds the daemon: it is a child subreaper."""
    hidden = tmp_path / "private-bin"
    hidden.mkdir(mode=0o700)
    python = hidden / "python3"
    python.symlink_to(sys.executable)
    assert not uid_can_run(str(python), PROBE_UID)
    sb = LocalSandbox(ExecutionConfig(timeout_s=30), python=str(python))
    assert not sb.drop_privileges
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
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert type(outcome.get("exc")) is exc_type
    if backend == "local":
        assert not alive(int(pid_file.read_text()))
        assert slot_processes(workspace.root) == []
    else:
        assert own_containers(sb.client) == []


CALLER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from sandbox import Workspace
    from swarm.config import ExecutionConfig
    backend, root, public, python = sys.argv[1:5]
    cfg = ExecutionConfig(timeout_s=3, memory_mb=256, pids_limit=64, disk_mb=64)
    if backend == "docker":
        from sandbox.docker_backend import DockerSandbox
        sb = DockerSandbox(cfg)
    else:
        from sandbox import LocalSandbox
        sb = LocalSandbox(cfg, python=python or None)
    ws = Workspace(Path(root), Path(public))
    sb.run(sys.stdin.read(), ws.node_dirs("orphan"))
    """
)


def _start_caller(backend: str, workspace) -> subprocess.Popen:
    caller = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CALLER,
            backend,
            str(workspace.root),
            str(workspace.public_dir),
            find_isolated_python() or "",
        ],
        stdin=subprocess.PIPE,
        text=True,
    )
    caller.stdin.write(SLEEPER)
    caller.stdin.close()
    return caller


def test_sigkilled_caller_leaves_no_local_process(workspace):
    caller = _start_caller("local", workspace)
    pid_file = workspace.root / "nodes" / "orphan" / "working" / "pid"
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text(), 30, "the solution to start")
        pid = int(pid_file.read_text())
        assert alive(pid)
    finally:
        caller.send_signal(signal.SIGKILL)
        caller.wait()
    # The supervisor's parent-death signal, not the timeout (3 s) nor its own deadline (13 s), ends it.
    wait_for(lambda: not alive(pid), 2.5, f"solution {pid} to die with its caller")
    if os.geteuid() == 0:
        wait_for(lambda: slot_processes(workspace.root) == [], 2.5, "no process of a slot uid to be left")


@pytest.mark.slow
@pytest.mark.docker
def test_sigkilled_caller_leaves_no_running_container(docker_image, workspace):
    from docker.errors import NotFound

    from sandbox.docker_backend import DEADLINE_GRACE_S, docker_client, reap_stale_containers

    client = docker_client()
    caller = _start_caller("docker", workspace)
    try:
        wait_for(lambda: own_containers(client, caller.pid), 30, "the container to be created")
        (container,) = own_containers(client, caller.pid)
        wait_for(lambda: (container.reload(), container.status)[1] == "running", 30, "the container to run")
        started = time.monotonic()
    finally:
        caller.send_signal(signal.SIGKILL)
        caller.wait()
    # Nobody will kill or remove it now: the in-container deadline (timeout 3 s + grace) must stop it.
    try:
        wait_for(
            lambda: (container.reload(), container.status)[1] == "exited", 3 + DEADLINE_GRACE_S + 10, "exit"
        )
    except NotFound:
        pytest.skip("another test run on this host reaped the container first (its owner is dead)")
    assert time.monotonic() - started < 3 + DEADLINE_GRACE_S + 10
    assert container.attrs["State"]["ExitCode"] == 137
    reap_stale_containers(client)  # the next sandbox removes what the dead caller left
    assert own_containers(client, caller.pid) == []
    shutil.rmtree(workspace.root / "nodes" / "orphan", ignore_errors=True)
