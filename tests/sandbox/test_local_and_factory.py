"""Local-backend specifics and backend selection."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from pathlib import Path

import pytest

from sandbox import LocalSandbox, SandboxUnavailable, make_sandbox
from sandbox.local import uid_can_run, unreachable_parent
from sandbox.slots import PROBE_UID
from swarm.config import ExecutionConfig


def test_environment_is_an_allow_list(workspace, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    monkeypatch.setenv("TZ", "UTC")
    sb = LocalSandbox(ExecutionConfig(sandbox="local", cpus=2))
    env = sb.environment(workspace.node_dirs("envy"))
    assert "ANTHROPIC_API_KEY" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert env["TZ"] == "UTC"
    assert env["HOME"] == str(workspace.node_dirs("envy").working)
    assert env["OMP_NUM_THREADS"] == "2"


def test_planted_secret_is_absent_inside_the_child(make_backend, workspace, monkeypatch):
    """A real child process, not the dict we build: the key must not reach it, under any name."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("SWARM_PLANTED_TOKEN", "sk-test")
    monkeypatch.setenv("TZ", "UTC")
    sb = make_backend("local")
    code = "import json, os\nprint('ENV=' + json.dumps(dict(os.environ)))\n"
    result = sb.run(code, workspace.node_dirs("env-child"))
    assert result.exit_code == 0, result.output
    env = json.loads(result.output.split("ENV=", 1)[1])
    assert "OPENAI_API_KEY" not in env and "SWARM_PLANTED_TOKEN" not in env
    assert "sk-test" not in result.output
    assert env["TZ"] == "UTC"  # the allow-list itself reaches the child


def test_missing_interpreter_is_a_clear_error():
    with pytest.raises(FileNotFoundError, match="python interpreter /nope/python does not exist"):
        LocalSandbox(ExecutionConfig(), python="/nope/python")


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping privileges needs root")
def test_unreachable_interpreter_falls_back_with_a_warning(tmp_path, caplog):
    hidden = tmp_path / "private-bin"
    hidden.mkdir(mode=0o700)
    python = hidden / "python3"
    python.symlink_to(shutil.which("python3") or sys.executable)
    assert not uid_can_run(str(python), PROBE_UID)
    with caplog.at_level(logging.WARNING, logger="sandbox.local"):
        sb = LocalSandbox(ExecutionConfig(), python=str(python))
    assert not sb.drop_privileges
    assert "NOT isolated" in caplog.text


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping privileges needs root")
def test_unreachable_workspace_is_refused_clearly(tmp_path):
    python = "/usr/bin/python3"
    if not (Path(python).is_file() and uid_can_run(python, PROBE_UID)):
        pytest.skip("no interpreter the sandbox uid can run")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o700)
    (locked / "pub").mkdir()
    from sandbox import Workspace

    ws = Workspace(locked / "ws", locked / "pub")
    assert unreachable_parent(ws.root) is not None
    sb = LocalSandbox(ExecutionConfig(), python=python)
    with pytest.raises(PermissionError, match="is not traversable by others"):
        sb.run("print(1)", ws.node_dirs("n"))


def test_make_sandbox_local_and_bad_input():
    assert isinstance(make_sandbox(ExecutionConfig(sandbox="local")), LocalSandbox)
    with pytest.raises(TypeError, match="needs an ExecutionConfig"):
        make_sandbox({"sandbox": "local"})


def test_make_sandbox_docker_without_image_raises_and_auto_falls_back(caplog):
    missing = "swarm-ev2-no-such-image:never"
    with pytest.raises(SandboxUnavailable, match="build_image.sh|setup_engine.sh"):
        make_sandbox(ExecutionConfig(sandbox="docker", image=missing))
    with caplog.at_level(logging.WARNING, logger="sandbox.factory"):
        sb = make_sandbox(ExecutionConfig(sandbox="auto", image=missing))
    assert isinstance(sb, LocalSandbox)
    assert "falling back to the LOCAL backend" in caplog.text


@pytest.mark.docker
def test_make_sandbox_auto_picks_docker_when_ready(docker_image):
    sb = make_sandbox(ExecutionConfig(sandbox="auto", image=docker_image))
    assert sb.name == "docker"


def test_run_rejects_bad_arguments(workspace):
    sb = LocalSandbox(ExecutionConfig())
    with pytest.raises(TypeError, match="node_dirs must be a NodeDirs"):
        sb.run("print(1)", workspace.root)
    with pytest.raises(TypeError, match="code must be a str"):
        sb.run(b"print(1)", workspace.node_dirs("x"))
    with pytest.raises(ValueError, match="timeout_s must be positive"):
        sb.run("print(1)", workspace.node_dirs("x"), timeout_s=0)
