"""Local-backend specifics and backend selection (auto, local, bwrap, unsafe-local)."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import pytest

from sandbox import LocalSandbox, SandboxUnavailable, UnsafeLocalSandbox, make_sandbox
from sandbox.config import ExecutionConfig
from sandbox.local import uid_can_run, unreachable_parent
from sandbox.slots import PROBE_UID


def test_environment_is_an_allow_list(workspace, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    monkeypatch.setenv("TZ", "UTC")
    sb = UnsafeLocalSandbox(ExecutionConfig(sandbox="unsafe-local", cpus=2))
    env = sb.environment(workspace.node_dirs("envy"))
    assert "ANTHROPIC_API_KEY" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert env["TZ"] == "UTC"
    assert env["HOME"] == str(workspace.node_dirs("envy").working)
    assert env["OMP_NUM_THREADS"] == "2"


@pytest.mark.parametrize("backend", ["local", "bwrap"])
def test_planted_secret_is_absent_inside_the_child(backend, make_backend, workspace, monkeypatch):
    """A real child process, not the dict we build: the key must not reach it, under any name."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("SWARM_PLANTED_TOKEN", "sk-test")
    monkeypatch.setenv("TZ", "UTC")
    sb = make_backend(backend)
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
def test_unreachable_interpreter_is_refused_and_local_turns_to_bwrap(tmp_path, monkeypatch):
    """Never a solution as root without the opt-in: `local` refuses, and the factory uses bwrap instead."""
    hidden = tmp_path / "private-bin"
    hidden.mkdir(mode=0o700)
    python = hidden / "python3"
    python.symlink_to(sys.executable)
    assert not uid_can_run(str(python), PROBE_UID)
    with pytest.raises(SandboxUnavailable, match="cannot run .*execution.sandbox=bwrap"):
        LocalSandbox(ExecutionConfig(), python=str(python))
    monkeypatch.setenv("SWARM_SANDBOX_PYTHON", str(python))
    sb = make_sandbox(ExecutionConfig(sandbox="local"))
    assert sb.name == "bwrap" and sb.isolated and sb.drop_privileges


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
    sb = make_sandbox(ExecutionConfig(sandbox="local"))
    assert isinstance(sb, LocalSandbox) and sb.isolated  # the slot-uid supervisor, or bwrap
    with pytest.raises(TypeError, match="needs an ExecutionConfig"):
        make_sandbox({"sandbox": "local"})


def test_auto_without_docker_picks_bwrap(caplog):
    missing = "swarm-ev2-no-such-image:never"
    with pytest.raises(SandboxUnavailable, match="build_image.sh|setup_engine.sh"):
        make_sandbox(ExecutionConfig(sandbox="docker", image=missing))
    with caplog.at_level(logging.INFO, logger="sandbox.factory"):
        sb = make_sandbox(ExecutionConfig(sandbox="auto", image=missing))
    assert sb.name == "bwrap" and sb.isolated
    assert "using bubblewrap" in caplog.text
    assert sb.description.startswith("bwrap: ")


FORBIDDEN_BWRAP = """#!/bin/sh
# A bwrap on a host that forbids unprivileged user namespaces.
if [ "$1" = "--version" ]; then echo "bubblewrap 0.11.0"; exit 0; fi
echo "bwrap: setting up uid map: Operation not permitted" >&2
exit 1
"""


@pytest.fixture
def forbidden_bwrap(tmp_path, monkeypatch) -> Path:
    fake = tmp_path / "bwrap"
    fake.write_text(FORBIDDEN_BWRAP, encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("SWARM_BWRAP", str(fake))
    return fake


def test_bwrap_without_user_namespaces_says_so(forbidden_bwrap):
    with pytest.raises(
        SandboxUnavailable, match="cannot create its namespaces here: .*Operation not permitted"
    ):
        make_sandbox(ExecutionConfig(sandbox="bwrap"))


def test_auto_refuses_in_one_sentence_when_neither_works(forbidden_bwrap):
    with pytest.raises(SandboxUnavailable) as refused:
        make_sandbox(ExecutionConfig(sandbox="auto", image="swarm-ev2-no-such-image:never"))
    message = str(refused.value)
    assert "\n" not in message and message.endswith(".") and message.count(": ") >= 1
    for way_out in (
        "start a Docker engine",
        "allow unprivileged user namespaces",
        "execution.sandbox=unsafe-local",
    ):
        assert way_out in message
    assert "Operation not permitted" in message


def test_unsafe_local_warns_on_every_run_and_says_not_isolated(workspace, caplog):
    sb = make_sandbox(ExecutionConfig(sandbox="unsafe-local"))
    assert sb.name == "unsafe-local" and not sb.isolated and "NOT isolated" in sb.description
    with caplog.at_level(logging.WARNING, logger="sandbox.unsafe_local"):
        first = sb.run("import os\nprint(os.getuid())", workspace.node_dirs("u1"))
        second = sb.run("print(2)", workspace.node_dirs("u2"))
    assert first.exit_code == 0 and second.exit_code == 0
    assert first.output.strip() == str(os.geteuid())
    assert not first.isolated and not second.isolated and first.backend == "unsafe-local"
    per_run = [r for r in caplog.records if r.name == "sandbox.unsafe_local" and "NOT isolated" in r.message]
    assert [r.message.split()[2] for r in per_run] == ["u1", "u2"]


@pytest.mark.docker
def test_make_sandbox_auto_picks_docker_when_ready(docker_image):
    sb = make_sandbox(ExecutionConfig(sandbox="auto", image=docker_image))
    assert sb.name == "docker"


def test_run_rejects_bad_arguments(workspace):
    sb = UnsafeLocalSandbox(ExecutionConfig())
    with pytest.raises(TypeError, match="node_dirs must be a NodeDirs"):
        sb.run("print(1)", workspace.root)
    with pytest.raises(TypeError, match="code must be a str"):
        sb.run(b"print(1)", workspace.node_dirs("x"))
    with pytest.raises(ValueError, match="timeout_s must be positive"):
        sb.run("print(1)", workspace.node_dirs("x"), timeout_s=0)
