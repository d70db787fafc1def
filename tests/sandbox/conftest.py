"""Fixtures for the sandbox tests: a real Docker engine (or a skip/fail), workspaces and local interpreters.

Outside CI a missing engine or image skips the docker tests with the reason; with CI=true it fails them.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sandbox import LocalSandbox, Workspace
from sandbox.base import SANDBOX_UID, SandboxUnavailable
from sandbox.local import uid_can_run
from swarm.config import ExecutionConfig

IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
SECRET = "sk-swarm-test-secret-0123456789"


def require_docker_engine() -> str:
    """The sandbox image tag when an engine answers and the image exists; otherwise skip (fail in CI)."""
    image = ExecutionConfig().image
    try:
        from sandbox.docker_backend import docker_client, image_exists

        client = docker_client(timeout=30)
        if not image_exists(client, image):
            raise SandboxUnavailable(f"image {image} is missing; run sandbox/build_image.sh")
    except SandboxUnavailable as exc:
        if IN_CI:
            pytest.fail(f"CI=true but the Docker backend is unusable: {exc}")
        pytest.skip(f"Docker backend unusable: {exc}")
    return image


@pytest.fixture(scope="session")
def docker_image() -> str:
    return require_docker_engine()


def cfg(**overrides) -> ExecutionConfig:
    """A small, fast execution config for tests."""
    base = {"timeout_s": 30, "memory_mb": 512, "cpus": 1.0, "pids_limit": 64, "disk_mb": 64}
    base.update(overrides)
    return ExecutionConfig(**base)


def isolated_python() -> str | None:
    """An interpreter the sandbox uid can run (needed for the local isolation tests as root)."""
    for candidate in (sys.executable, "/usr/bin/python3"):
        if Path(candidate).is_file() and uid_can_run(candidate, SANDBOX_UID):
            return candidate
    return None


@pytest.fixture
def make_backend(request) -> Callable[..., object]:
    """Build the backend named by the test's `backend` parameter with config overrides."""

    def build(backend: str, **overrides):
        if backend == "docker":
            require_docker_engine()
            from sandbox.docker_backend import DockerSandbox

            return DockerSandbox(cfg(**overrides))
        if os.geteuid() == 0:
            python = isolated_python()
            if python is None:
                pytest.skip("no interpreter the sandbox uid can run")
            return LocalSandbox(cfg(**overrides), python=python)
        return LocalSandbox(cfg(**overrides))

    return build


@pytest.fixture
def comp_dir() -> Iterator[Path]:
    """A competition dir under /tmp (traversable by the sandbox uid) with public/ and a 0700 private/."""
    base = Path(tempfile.mkdtemp(prefix="swarm-sbx-", dir="/tmp"))
    base.chmod(0o755)
    public = base / "public"
    public.mkdir()
    (public / "train.csv").write_text("id,x,y\n1,0.5,1\n2,0.1,0\n", encoding="utf-8")
    (public / "test.csv").write_text("id,x\n3,0.7\n4,0.2\n", encoding="utf-8")
    for path in (public, *public.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    private = base / "private"
    private.mkdir(mode=0o700)
    (private / "answers.csv").write_text("id,y\n3,1\n4,0\n", encoding="utf-8")
    (private / "answers.csv").chmod(0o600)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def workspace(comp_dir: Path) -> Workspace:
    return Workspace(comp_dir / "ws", comp_dir / "public")
