"""The Docker backend: one locked-down, throw-away container per execution (docker Python SDK).

Each container: no network, memory == memswap limit, pids and CPU limits, all capabilities dropped,
no-new-privileges, uid 10001, read-only root filesystem, a size-limited /tmp tmpfs, an fsize ulimit, input
mounted read-only, only the node's working/ and submission/ writable, and an init process. The command runs
under `timeout -s KILL <timeout + grace>`, so a container stops by itself even when its caller was killed.
Containers are labelled and always removed (also when the caller is cancelled); leftovers of dead callers are
reaped. What the run writes to its dirs is capped in all (sandbox.disk_watch). An execution given GPUs gets
exactly those through a device request to the engine's NVIDIA runtime (sandbox.docker_gpus).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import math
import os
import socket
import threading
import time
from typing import Any

import docker
import requests
from docker.errors import APIError, DockerException, ImageNotFound, NotFound
from docker.types import LogConfig, Mount, Ulimit
from docker.utils.socket import frames_iter

from sandbox.base import SANDBOX_UID, RawRun, Sandbox, SandboxUnavailable
from sandbox.config import ExecutionConfig
from sandbox.disk_usage import total_bytes
from sandbox.disk_watch import DiskWatcher
from sandbox.docker_gpus import check_gpu_support, device_requests
from sandbox.gpus import GpuInfo
from sandbox.ownership import claim_dirs, release_dirs
from sandbox.packages import pinned_packages
from sandbox.resources import resolve_resources, thread_environment
from sandbox.result import OutputCollector
from sandbox.workspace import CODE_FILE, NodeDirs

log = logging.getLogger(__name__)

LABEL = "swarm.sandbox"
LABEL_PID = "swarm.sandbox.pid"
LABEL_HOST = "swarm.sandbox.host"
CONTAINER_ROOT = "/sandbox"
WAIT_SLICE_S = 1.0
DEADLINE_GRACE_S = 10.0  # the in-container deadline is timeout + this (the caller kills at the timeout)
KILL_WAIT_S = 30.0  # how long to wait for a killed container to stop
RETRY_SLEEP_S = 0.5  # pause between waits that failed at once (the engine does not answer)
ENGINE_LOST_S = 30.0  # the engine is given up after answering nothing for this long
REMOVE_WAIT_S = 60.0  # how long a removal the engine has in progress is waited for

_active: set[str] = set()
_active_lock = threading.Lock()


def docker_client(timeout: int = 60) -> docker.DockerClient:
    """A client for the local engine; raises SandboxUnavailable when none answers."""
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except (DockerException, requests.exceptions.RequestException) as exc:
        raise SandboxUnavailable(f"no Docker engine answers ({exc}); run sandbox/setup_engine.sh") from exc
    return client


def image_exists(client: docker.DockerClient, image: str) -> bool:
    try:
        client.images.get(image)
    except ImageNotFound:
        return False
    return True


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reap_stale_containers(client: docker.DockerClient) -> int:
    """Remove sandbox containers of this host whose owning process is gone. Returns how many were removed."""
    removed = 0
    host = socket.gethostname()
    # ignore_removed: another caller may remove a container between the engine's list and its inspect.
    listed = client.containers.list(all=True, filters={"label": f"{LABEL}=1"}, ignore_removed=True)
    for container in listed:
        labels = container.labels or {}
        if labels.get(LABEL_HOST) != host:
            continue
        try:
            owner = int(labels.get(LABEL_PID, "0"))
        except ValueError:
            owner = 0
        if owner and _pid_alive(owner):
            continue
        _remove(container)
        removed += 1
    return removed


def _remove(container) -> None:
    """Remove the container, retrying what fails; where the engine says a removal is already in progress (an
    earlier request that timed out on this side, on a busy machine), wait until it is gone."""
    for attempt in range(5):
        try:
            container.remove(force=True)
            break
        except NotFound:
            break
        except APIError as exc:
            if exc.status_code == 409 and "in progress" in str(exc.explanation or exc):
                _wait_gone(container, REMOVE_WAIT_S)
                break
            if attempt == 4:
                log.error("could not remove sandbox container %s: %s", container.id[:12], exc)
            time.sleep(0.2 * (attempt + 1))
        except requests.exceptions.RequestException as exc:
            if attempt == 4:
                log.error("could not remove sandbox container %s: %s", container.id[:12], exc)
            time.sleep(0.2 * (attempt + 1))
    with _active_lock:
        _active.discard(container.id)


def _wait_gone(container, limit_s: float) -> None:
    """Wait until the engine no longer knows the container (at most `limit_s`)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            container.reload()
        except NotFound:
            return
        except (APIError, requests.exceptions.RequestException):
            pass
        time.sleep(0.2)
    log.error("sandbox container %s was still being removed after %.0f s", container.id[:12], limit_s)


def _remove_active_at_exit() -> None:
    with _active_lock:
        ids = list(_active)
    if not ids:
        return
    try:
        client = docker.from_env(timeout=10)
    except DockerException:
        return
    for cid in ids:
        with contextlib.suppress(DockerException, requests.exceptions.RequestException):
            client.containers.get(cid).remove(force=True)


atexit.register(_remove_active_at_exit)


def container_kwargs(
    cfg: ExecutionConfig, node_dirs: NodeDirs, timeout_s: float, gpus: tuple[GpuInfo, ...] = ()
) -> dict:
    """The create() arguments: every limit and mount of one execution, and its GPUs (no engine needed)."""
    cfg = resolve_resources(cfg)  # `auto` resources as for one step at a time, unless resolved already
    disk = cfg.disk_mb * 1024 * 1024
    input_src = node_dirs.input.resolve()
    log_bytes = max(10 * 1024 * 1024, 8 * cfg.max_output_chars)
    deadline = math.ceil(timeout_s + DEADLINE_GRACE_S)
    kwargs = {
        "image": cfg.image,
        # One stream keeps stdout and stderr in order (two are copied by racing goroutines). coreutils'
        # timeout kills the solution (and with it the container) if nobody else does.
        "command": ["/bin/sh", "-c", f"exec timeout -s KILL {deadline} python {CODE_FILE} 2>&1"],
        "working_dir": CONTAINER_ROOT,
        "user": f"{SANDBOX_UID}:{SANDBOX_UID}",
        "network_mode": "none",
        "mem_limit": f"{cfg.memory_mb}m",
        "memswap_limit": f"{cfg.memory_mb}m",
        "pids_limit": cfg.pids_limit,
        "nano_cpus": int(float(cfg.cpus) * 1e9),
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={cfg.disk_mb}m,mode=1777"},
        "ulimits": [Ulimit(name="fsize", soft=disk, hard=disk), Ulimit(name="core", soft=0, hard=0)],
        "mounts": [
            Mount(f"{CONTAINER_ROOT}/input", str(input_src), type="bind", read_only=True),
            Mount(f"{CONTAINER_ROOT}/working", str(node_dirs.working), type="bind"),
            Mount(f"{CONTAINER_ROOT}/submission", str(node_dirs.submission), type="bind"),
            Mount(f"{CONTAINER_ROOT}/{CODE_FILE}", str(node_dirs.code_path), type="bind", read_only=True),
        ],
        "init": True,
        "environment": {
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "MPLCONFIGDIR": "/tmp",
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            **thread_environment(float(cfg.cpus)),
        },
        "labels": {LABEL: "1", LABEL_PID: str(os.getpid()), LABEL_HOST: socket.gethostname()},
        # The engine's own copy of the output, bounded; the run reads the stream attached before the start.
        "log_config": LogConfig(type="json-file", config={"max-size": str(log_bytes), "max-file": "2"}),
        "stdin_open": False,
        "tty": False,
    }
    if gpus:  # the runtime shows the container these GPUs alone
        kwargs["device_requests"] = device_requests(gpus)
    else:  # nothing to see anyway; said as on the other backends
        kwargs["environment"]["CUDA_VISIBLE_DEVICES"] = ""
    return kwargs


class DockerSandbox(Sandbox):
    """Runs solutions in containers of `cfg.image`."""

    name = "docker"

    def __init__(
        self, cfg: ExecutionConfig, parallel: int = 1, client: docker.DockerClient | None = None
    ) -> None:
        super().__init__(cfg, parallel)
        self.client = client or docker_client()
        if not image_exists(self.client, cfg.image):
            raise SandboxUnavailable(
                f"sandbox image {cfg.image!r} does not exist; build it with sandbox/build_image.sh"
            )
        self.gpu_plan = check_gpu_support(self.client, self.cfg, self.gpu_plan)
        reap_stale_containers(self.client)

    def packages(self) -> list[str]:
        """The image's packages: it is built from sandbox/requirements.txt."""
        return pinned_packages()

    @property
    def description(self) -> str:
        return (
            f"docker: a container of {self.cfg.image} per execution, no network, uid {SANDBOX_UID}, "
            "all capabilities dropped, read-only root filesystem"
        )

    def container_kwargs(
        self, node_dirs: NodeDirs, timeout_s: float | None = None, gpus: tuple[GpuInfo, ...] = ()
    ) -> dict:
        """The create() arguments of one execution (see container_kwargs)."""
        timeout = self.cfg.timeout_s if timeout_s is None else timeout_s
        return container_kwargs(self.cfg, node_dirs, timeout, gpus)

    def _execute(self, node_dirs: NodeDirs, timeout_s: float, gpus: tuple[GpuInfo, ...] = ()) -> RawRun:
        if os.geteuid() == 0:  # the container uid owns the rw mounts only while it runs
            claim_dirs(node_dirs, SANDBOX_UID)
        else:  # the container uid must be able to write the rw mounts
            node_dirs.working.chmod(0o777)
            node_dirs.submission.chmod(0o777)
        try:
            return self._run_container(node_dirs, timeout_s, gpus)
        except requests.exceptions.ConnectionError as exc:
            raise SandboxUnavailable(
                f"the Docker engine stopped answering during an execution: {exc}"
            ) from exc
        finally:
            if os.geteuid() == 0:
                release_dirs(node_dirs)

    def _run_container(self, node_dirs: NodeDirs, timeout_s: float, gpus: tuple[GpuInfo, ...]) -> RawRun:
        collector = OutputCollector(self.cfg.max_output_chars)
        container = None
        try:
            container = self.client.containers.create(**self.container_kwargs(node_dirs, timeout_s, gpus))
            with _active_lock:
                _active.add(container.id)
            watcher = DiskWatcher(
                lambda: total_bytes((node_dirs.working, node_dirs.submission)),
                self.cfg.disk_mb * 1024 * 1024,
                lambda: _kill(container),
            )
            output = _attach(container)  # before the start, so the stream holds the output's first byte
            reader = threading.Thread(target=_pump_output, args=(output, collector), daemon=True)
            reader.start()
            start = time.monotonic()
            container.start()
            with watcher:
                timed_out = _wait(container, start + timeout_s)
            elapsed = time.monotonic() - start
            if timed_out:
                _kill(container)
                _wait_stopped(container, KILL_WAIT_S)
            reader.join(timeout=10)
            container.reload()
            state = container.attrs["State"]
            return RawRun(
                collector=collector,
                exit_code=state.get("ExitCode"),
                exec_time=elapsed,
                timed_out=timed_out,
                oom_killed=bool(state.get("OOMKilled")),
                disk_exceeded=watcher.exceeded,
            )
        finally:
            if container is not None:
                _remove(container)


def _wait(container, deadline: float) -> bool:
    """Wait for the container to stop; True when the deadline passed first.

    Waits in short slices so that an exception raised into this thread (a cancelled or timed-out Prefect
    task) is delivered within about WAIT_SLICE_S and the caller's `finally` removes the container. docker SDK
    7.x may report a slice's timeout as ConnectionError instead of ReadTimeout; a ConnectionError that comes
    back at once means the engine does not answer: then retry every RETRY_SLEEP_S, and give up with
    SandboxUnavailable after ENGINE_LOST_S of silence.
    """
    lost_since: float | None = None
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        slice_s = min(WAIT_SLICE_S, remaining)
        asked = time.monotonic()
        try:
            container.wait(timeout=slice_s)
            return False
        except requests.exceptions.ReadTimeout:
            lost_since = None
        except requests.exceptions.ConnectionError as exc:
            now = time.monotonic()
            if now - asked >= slice_s * 0.5:  # a slice that timed out, reported as ConnectionError
                lost_since = None
                continue
            lost_since = lost_since or now
            if now - lost_since >= ENGINE_LOST_S:
                raise SandboxUnavailable(
                    f"the Docker engine has not answered for {ENGINE_LOST_S:.0f} s ({exc})"
                ) from exc
            time.sleep(max(0.0, min(RETRY_SLEEP_S, deadline - now)))


def _wait_stopped(container, timeout_s: float) -> bool:
    """After a kill: wait up to timeout_s for the container to stop; False when that could not be seen."""
    try:
        return not _wait(container, time.monotonic() + timeout_s)
    except SandboxUnavailable:
        return False


def _kill(container) -> None:
    with contextlib.suppress(NotFound, APIError):  # it may have stopped on its own meanwhile
        container.kill()


def _attach(container) -> Any:
    """A stream of the container's stdout and stderr, attached before it starts (as `docker run` does): it
    carries the output from its first byte to its last however far its reader lags, where following the log
    file loses what the engine's log rotation deleted before the reader came (the head of a flood on a busy
    machine). The engine holds the solution's writes while the reader is behind. No read timeout: a solution
    silent for minutes is not an error, and the run's own deadline ends the stream."""
    sock = container.attach_socket(params={"stdout": 1, "stderr": 1, "stream": 1})
    for layer in (sock, getattr(sock, "_sock", None)):
        if layer is not None and hasattr(layer, "settimeout"):
            layer.settimeout(None)
    return sock


def _pump_output(sock: Any, collector: OutputCollector) -> None:
    """Feed the attached stream's frames (stdout and stderr, in order) to the collector until it closes."""
    try:
        for _, chunk in frames_iter(sock, tty=False):
            collector.feed(chunk)
    except (OSError, DockerException, requests.exceptions.RequestException) as exc:
        collector.feed(f"\n[sandbox: output stream ended early: {exc}]\n".encode())
    finally:
        for part in (
            getattr(sock, "_response", None),
            sock,
        ):  # the HTTP response first: it flushes the socket
            with contextlib.suppress(OSError, ValueError, requests.exceptions.RequestException):
                if part is not None:
                    part.close()
