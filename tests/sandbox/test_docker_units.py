"""Docker-backend logic that needs no engine: the container arguments, and waiting when the engine is gone."""

from __future__ import annotations

import time

import pytest
import requests

from sandbox import docker_backend
from sandbox.base import SANDBOX_UID, SandboxUnavailable
from sandbox.config import ExecutionConfig
from sandbox.docker_backend import CONTAINER_ROOT, DEADLINE_GRACE_S, _wait, _wait_stopped, container_kwargs


def test_container_kwargs_carry_every_limit(workspace):
    cfg = ExecutionConfig(memory_mb=768, cpus=1.5, pids_limit=77, disk_mb=123, image="img:tag")
    node = workspace.node_dirs("kw")
    kw = container_kwargs(cfg, node, timeout_s=42)
    assert kw["image"] == "img:tag"
    assert kw["network_mode"] == "none"
    assert kw["mem_limit"] == kw["memswap_limit"] == "768m"
    assert kw["pids_limit"] == 77
    assert kw["nano_cpus"] == 1_500_000_000
    assert kw["cap_drop"] == ["ALL"]
    assert "cap_add" not in kw and "privileged" not in kw
    assert kw["security_opt"] == ["no-new-privileges"]
    assert kw["user"] == f"{SANDBOX_UID}:{SANDBOX_UID}" and not kw["user"].startswith("0")
    assert kw["read_only"] is True
    assert kw["tmpfs"] == {"/tmp": "rw,nosuid,nodev,size=123m,mode=1777"}
    ulimits = {u["Name"]: (u["Soft"], u["Hard"]) for u in kw["ulimits"]}
    assert ulimits["fsize"] == (123 * 1024 * 1024, 123 * 1024 * 1024)
    assert ulimits["core"] == (0, 0)
    mounts = {m["Target"]: m for m in kw["mounts"]}
    assert set(mounts) == {
        f"{CONTAINER_ROOT}/{name}" for name in ("input", "working", "submission", "solution.py")
    }
    assert mounts[f"{CONTAINER_ROOT}/input"]["ReadOnly"] is True
    assert mounts[f"{CONTAINER_ROOT}/input"]["Source"] == str(node.input.resolve())
    assert mounts[f"{CONTAINER_ROOT}/solution.py"]["ReadOnly"] is True
    for name in ("working", "submission"):
        assert mounts[f"{CONTAINER_ROOT}/{name}"]["ReadOnly"] is False
        assert mounts[f"{CONTAINER_ROOT}/{name}"]["Source"] == str(getattr(node, name))
    assert all(m["Type"] == "bind" for m in mounts.values())
    assert kw["init"] is True
    assert kw["working_dir"] == CONTAINER_ROOT
    # The in-container deadline: coreutils timeout, SIGKILL, at timeout + grace.
    assert kw["command"] == [
        "/bin/sh",
        "-c",
        f"exec timeout -s KILL {int(42 + DEADLINE_GRACE_S)} python solution.py 2>&1",
    ]
    assert not any("KEY" in name or "TOKEN" in name for name in kw["environment"])


class FakeContainer:
    """Stands in for a docker Container: wait() fails as scripted, and calls are counted."""

    def __init__(self, failures: list[Exception | None], delay_s: float = 0.0) -> None:
        self.failures = failures
        self.delay_s = delay_s
        self.calls = 0

    def wait(self, timeout: float) -> dict:
        self.calls += 1
        outcome = self.failures[min(self.calls, len(self.failures)) - 1]
        if self.delay_s:
            time.sleep(min(self.delay_s, timeout))
        if outcome is not None:
            raise outcome
        return {"StatusCode": 0}


def refused() -> requests.exceptions.ConnectionError:
    return requests.exceptions.ConnectionError("Connection refused")


def test_engine_gone_is_no_busy_loop():
    fake = FakeContainer([refused()])
    start = time.monotonic()
    assert _wait(fake, start + 1.5) is True
    assert 1.4 < time.monotonic() - start < 3
    assert fake.calls <= 5, f"{fake.calls} waits in 1.5 s: a busy loop"


def test_slow_connection_error_is_a_wait_slice_timeout(monkeypatch):
    monkeypatch.setattr(docker_backend, "WAIT_SLICE_S", 0.2)
    fake = FakeContainer([refused(), refused(), None], delay_s=0.2)  # SDK 7.x: a timed-out slice
    start = time.monotonic()
    assert _wait(fake, start + 10) is False
    assert fake.calls == 3
    assert time.monotonic() - start < 1.5  # no extra sleeps after a slice that really waited


def test_engine_back_after_a_while_is_fine():
    fake = FakeContainer([refused(), refused(), requests.exceptions.ReadTimeout(), None])
    assert _wait(fake, time.monotonic() + 10) is False
    assert fake.calls == 4


def test_engine_silent_for_too_long_is_unavailable(monkeypatch):
    monkeypatch.setattr(docker_backend, "ENGINE_LOST_S", 0.6)
    fake = FakeContainer([refused()])
    start = time.monotonic()
    with pytest.raises(SandboxUnavailable, match="has not answered"):
        _wait(fake, start + 60)
    assert time.monotonic() - start < 3


def test_wait_after_kill_is_guarded():
    """The post-kill wait never raises: a lost engine or a container that will not stop is reported False."""
    assert _wait_stopped(FakeContainer([refused()]), 0.8) is False
    assert _wait_stopped(FakeContainer([requests.exceptions.ReadTimeout()], delay_s=0.3), 0.8) is False
    assert _wait_stopped(FakeContainer([None]), 0.8) is True
