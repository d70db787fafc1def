"""Docker-only behaviour: hardening seen from inside, no network, cleanup on cancellation, stale reaping."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import socket
import subprocess
import threading
import time

import pytest

from sandbox.base import SandboxUnavailable
from sandbox.docker_backend import LABEL, LABEL_HOST, LABEL_PID, DockerSandbox, reap_stale_containers
from swarm.config import ExecutionConfig

pytestmark = pytest.mark.docker


def _own_containers(client) -> list:
    return client.containers.list(all=True, filters={"label": [f"{LABEL}=1", f"{LABEL_PID}={os.getpid()}"]})


def test_container_is_locked_down(docker_image, make_backend, workspace):
    sb = make_backend("docker")
    code = """
import json, os, socket
status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
out = {"uid": os.getuid(), "cap_eff": status["CapEff"].strip(), "no_new_privs": status["NoNewPrivs"].strip()}
for name, path in {"root_fs": "/usr/evil", "etc": "/etc/evil"}.items():
    try:
        open(path, "w").write("x")
        out[name] = "writable"
    except OSError as exc:
        out[name] = type(exc).__name__
open("/tmp/ok", "w").write("tmp is writable")
try:
    socket.create_connection(("1.1.1.1", 53), timeout=3)
    out["net"] = "connected"
except OSError as exc:
    out["net"] = type(exc).__name__
try:
    socket.getaddrinfo("example.com", 443)
    out["dns"] = "resolved"
except OSError as exc:
    out["dns"] = type(exc).__name__
out["ifaces"] = sorted(name for _, name in socket.if_nameindex())
print(json.dumps(out))
"""
    result = sb.run(code, workspace.node_dirs("probe"))
    assert result.exit_code == 0, result.output
    facts = json.loads(result.output.strip().splitlines()[-1])
    assert facts["uid"] == 10001
    assert int(facts["cap_eff"], 16) == 0
    assert facts["no_new_privs"] == "1"
    assert facts["root_fs"] == "OSError" and facts["etc"] == "OSError"
    assert facts["net"] != "connected"
    assert facts["dns"] != "resolved"
    assert facts["ifaces"] == ["lo"]


def test_cancelled_caller_leaves_no_container(docker_image, make_backend, workspace):
    """An exception raised into the running thread (as Prefect does on task timeouts) still removes it."""
    sb = make_backend("docker")
    outcome: dict = {}

    def target():
        try:
            sb.run("import time\ntime.sleep(60)\n", workspace.node_dirs("cancelled"), timeout_s=60)
        except BaseException as exc:  # noqa: BLE001 - the injected exception is what we test
            outcome["exc"] = type(exc).__name__

    thread = threading.Thread(target=target)
    thread.start()
    deadline = time.monotonic() + 20
    while not _own_containers(sb.client) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _own_containers(sb.client), "the container never appeared"
    time.sleep(0.5)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(TimeoutError))
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert outcome.get("exc") == "TimeoutError"
    assert _own_containers(sb.client) == []


def test_stale_containers_of_dead_owners_are_reaped(docker_image):
    sb = DockerSandbox(ExecutionConfig())
    dead = subprocess.Popen(["true"])
    dead.wait()
    host = socket.gethostname()
    stale = sb.client.containers.create(
        docker_image,
        command=["python", "-c", "pass"],
        network_mode="none",
        labels={LABEL: "1", LABEL_PID: str(dead.pid), LABEL_HOST: host},
    )
    alive = sb.client.containers.create(
        docker_image,
        command=["python", "-c", "pass"],
        network_mode="none",
        labels={LABEL: "1", LABEL_PID: str(os.getpid()), LABEL_HOST: host},
    )
    try:
        assert reap_stale_containers(sb.client) >= 1
        remaining = {c.id for c in sb.client.containers.list(all=True, filters={"label": f"{LABEL}=1"})}
        assert stale.id not in remaining
        assert alive.id in remaining
    finally:
        for container in (stale, alive):
            with contextlib.suppress(Exception):  # already gone
                container.remove(force=True)


def test_missing_image_is_a_clear_error(docker_image):
    with pytest.raises(SandboxUnavailable, match="does not exist; build it with sandbox/build_image.sh"):
        DockerSandbox(ExecutionConfig(image="swarm-ev2-no-such-image:never"))


def test_image_has_the_ml_stack(docker_image, make_backend, workspace):
    sb = make_backend("docker", memory_mb=1024)
    code = """
import numpy, pandas, sklearn, lightgbm, xgboost
from sklearn.linear_model import LogisticRegression
df = pandas.read_csv("input/train.csv")
model = LogisticRegression().fit(df[["x"]], df["y"])
print("ok", numpy.__version__, pandas.__version__, sklearn.__version__, lightgbm.__version__, xgboost.__version__)
"""
    result = sb.run(code, workspace.node_dirs("stack"))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok ")
