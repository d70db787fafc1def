"""Fixtures for the sandbox tests: a real Docker engine (or a skip/fail), workspaces and local interpreters.

The engine itself comes from the `docker_image` fixture in tests/conftest.py.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sandbox import LocalSandbox, SandboxUnavailable, Workspace
from sandbox.config import ExecutionConfig
from sandbox.local import find_isolated_python
from sandbox.tree_ops import remove_tree

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

SECRET = "sk-swarm-test-secret-0123456789"


def cfg(**overrides) -> ExecutionConfig:
    """A small, fast execution config for tests."""
    base = {"timeout_s": 30, "memory_mb": 512, "cpus": 1.0, "pids_limit": 64, "disk_mb": 64}
    base.update(overrides)
    return ExecutionConfig(**base)


@pytest.fixture
def make_backend(request) -> Callable[..., object]:
    """Build the backend named by the test's `backend` parameter with config overrides."""

    def build(backend: str, **overrides):
        if backend == "docker":
            request.getfixturevalue("docker_image")  # skips, or fails in CI, without an engine
            from sandbox.docker_backend import DockerSandbox

            return DockerSandbox(cfg(**overrides))
        if backend == "bwrap":
            return bwrap_backend(**overrides)
        if backend == "unsafe-local":
            from sandbox import UnsafeLocalSandbox

            return UnsafeLocalSandbox(cfg(**overrides))
        if os.geteuid() != 0:
            pytest.skip("the local backend isolates (so runs) only as root")
        python = find_isolated_python()
        if python is None:
            pytest.skip("no interpreter the sandbox uid can run")
        return LocalSandbox(cfg(**overrides), python=python)

    return build


def processes_under(under: Path) -> list[int]:
    """Live processes (any uid) whose cwd lies under `under`: how a test finds a sandbox's processes by their
    host pids (a bwrap solution sees only its own pid namespace's numbers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if state != "Z" and (cwd == under or under in cwd.parents):
            found.append(int(entry.name))
    return found


def bwrap_backend(python: str | None = None, **overrides):
    """A BwrapSandbox (on `python`, default this interpreter); outside CI a host without user namespaces skips
    the test, with CI=true it fails it."""
    from sandbox.bwrap_backend import BwrapSandbox

    try:
        return BwrapSandbox(cfg(**overrides), python=python)
    except SandboxUnavailable as exc:
        if IN_CI:
            pytest.fail(f"CI=true but the bwrap backend is unusable: {exc}")
        pytest.skip(f"bwrap backend unusable: {exc}")


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
    remove_tree(base, ignore_errors=True)  # solutions may leave trees deeper than shutil.rmtree can go


@pytest.fixture
def workspace(comp_dir: Path) -> Workspace:
    return Workspace(comp_dir / "ws", comp_dir / "public")
