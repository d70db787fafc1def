"""Docker-only behaviour: hardening seen from inside, no network, cleanup on cancellation, stale reaping."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from sandbox.base import SandboxUnavailable
from sandbox.config import ExecutionConfig
from sandbox.docker_backend import LABEL, LABEL_HOST, LABEL_PID, DockerSandbox, reap_stale_containers

pytestmark = pytest.mark.docker


def _own_containers(client) -> list:
    return client.containers.list(all=True, filters={"label": [f"{LABEL}=1", f"{LABEL_PID}={os.getpid()}"]})


def test_container_is_locked_down(docker_image, make_backend, workspace):
    sb = make_backend("docker")
    code = """
import json, os, socket
status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
out = {"uid": os.getuid(), "no_new_privs": status["NoNewPrivs"].strip()}
for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
    out[cap] = int(status[cap].strip(), 16)
out["init"] = open("/proc/1/cmdline", "rb").read().split(bytes(1))[0].decode()
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
    # CapEff is 0 for any non-root user anyway; the bounding set shows that cap_drop=ALL happened.
    assert {cap: facts[cap] for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")} == dict.fromkeys(
        ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"), 0
    )
    assert facts["init"].endswith("docker-init"), facts["init"]  # init=True: PID 1 reaps and forwards
    assert facts["no_new_privs"] == "1"
    assert facts["root_fs"] == "OSError" and facts["etc"] == "OSError"
    assert facts["net"] != "connected"
    assert facts["dns"] != "resolved"
    assert facts["ifaces"] == ["lo"]


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
import numpy, pandas, sklearn, lightgbm, xgboost, torch
from sklearn.linear_model import LogisticRegression
df = pandas.read_csv("input/train.csv")
model = LogisticRegression().fit(df[["x"]], df["y"])
net = torch.nn.Linear(1, 1)
loss = net(torch.tensor(df[["x"]].to_numpy(), dtype=torch.float32)).pow(2).mean()
loss.backward()
print("ok", numpy.__version__, pandas.__version__, sklearn.__version__, lightgbm.__version__, xgboost.__version__)
print("torch", torch.__version__, torch.cuda.is_available(), net.weight.grad is not None)
"""
    result = sb.run(code, workspace.node_dirs("stack"))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok ")
    assert "torch 2.13.0+cpu False True" in result.output


def test_image_matches_the_package_list(docker_image, make_backend, workspace):
    """The image holds exactly the versions sandbox/requirements.txt pins (the list both recipes read)."""
    requirements = Path(__file__).resolve().parents[2] / "sandbox" / "requirements.txt"
    pins = dict(
        line.split("==")
        for line in requirements.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    sb = make_backend("docker")
    code = "import importlib.metadata as m, json\n"
    code += f"print(json.dumps({{n: m.version(n) for n in {sorted(pins)!r}}}))\n"
    result = sb.run(code, workspace.node_dirs("versions"))
    assert result.exit_code == 0, result.output
    found = json.loads(result.output.strip().splitlines()[-1])
    assert {name: version.split("+")[0] for name, version in found.items()} == pins


def test_a_flood_keeps_its_head_however_late_the_reader_comes(
    docker_image, make_backend, workspace, monkeypatch
):
    """The engine's log rotation deletes a flood's first lines within a second; the output is read from a stream
    attached before the start, so a reader descheduled for seconds (a busy machine) still gets the first byte."""
    import sandbox.docker_backend as backend

    pump = backend._pump_output

    def late_pump(*args):
        time.sleep(3)  # the solution has written its 30 MB by then, past two rotations of the 10 MB log files
        pump(*args)

    monkeypatch.setattr(backend, "_pump_output", late_pump)
    sb = make_backend("docker", max_output_chars=10_000)
    code = 'import sys\nprint("FIRST-LINE")\nfor _ in range(30_000):\n    sys.stdout.write("y" * 999 + "\\n")\nprint("LAST-LINE")\n'
    result = sb.run(code, workspace.node_dirs("late-reader"), timeout_s=120)
    assert result.exit_code == 0 and result.output_truncated
    assert result.output.startswith("FIRST-LINE\n") and result.output.rstrip().endswith("LAST-LINE")


def test_output_after_a_silence_longer_than_the_clients_timeout_is_kept(docker_image, workspace):
    """The attached stream has no read timeout: a solution silent for longer than the engine client's timeout
    (60 s by default, 2 s here) still has its later output read, not an 'output stream ended early'."""
    from sandbox.docker_backend import docker_client

    sb = DockerSandbox(ExecutionConfig(sandbox="docker", image=docker_image), client=docker_client(timeout=2))
    code = 'import time\nprint("BEFORE", flush=True)\ntime.sleep(5)\nprint("AFTER")\n'
    result = sb.run(code, workspace.node_dirs("silent"), timeout_s=60)
    assert result.exit_code == 0, result.output
    assert result.output.split() == ["BEFORE", "AFTER"], result.output
