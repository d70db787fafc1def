"""Helpers for the fault-injection suite (imported by its modules): quick solutions a scripted model can
send, stage overrides that point a run at the loopback server, readers of what a run leaves on disk; and the
fixtures that need set-up."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.tree_ops import iter_tree, remove_tree
from tests.doubles.loopback_server import LoopbackServer
from tests.doubles.replies import QUICK_SOLUTION, solution  # noqa: F401 - the fault tests import them from here

MODEL_KEY_ENV = "SWARM_TEST_MODEL_KEY"
MODEL_KEY = "sk-faults-test-key-0123456789"
MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-haiku-4-5"}


def bwrap_or_skip() -> None:
    """Skip (fail with CI=true) where bubblewrap cannot build a sandbox."""
    from sandbox.base import SandboxUnavailable
    from sandbox.bwrap_backend import BwrapSandbox
    from sandbox.config import ExecutionConfig

    try:
        BwrapSandbox(ExecutionConfig())
    except SandboxUnavailable as exc:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but the bwrap backend is unusable: {exc}")
        pytest.skip(f"bwrap backend unusable: {exc}")


def ready_backend(backend: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `backend` usable for a test, or skip it (fail with CI=true where Docker or bwrap cannot start): Docker
    needs its engine and image, bwrap a working bubblewrap, local an interpreter its slot uids can run."""
    if backend == "docker":
        request.getfixturevalue("docker_image")
    elif backend == "bwrap":
        bwrap_or_skip()
    elif backend == "local":
        from sandbox.local import find_isolated_python

        python = find_isolated_python()
        if python is None:
            pytest.skip(
                "the local backend isolates solutions only as root with an interpreter its uids can run"
            )
        monkeypatch.setenv("SWARM_SANDBOX_PYTHON", python)


@pytest.fixture
def model_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The fake API key the loopback stages read (from $SWARM_TEST_MODEL_KEY)."""
    monkeypatch.setenv(MODEL_KEY_ENV, MODEL_KEY)
    return MODEL_KEY


def stage_overrides(
    server: LoopbackServer, stage: str = "code", protocol: str = "openai", **fields
) -> list[str]:
    """Overrides that send one LLM stage to the loopback server over `protocol`."""
    base_url = server.openai_base_url if protocol == "openai" else server.anthropic_base_url
    values = {
        "provider": protocol,
        "model": MODELS[protocol],
        "base_url": base_url,
        "api_key_env": MODEL_KEY_ENV,
        "max_retries": 0,
        **fields,
    }
    return [f"llm.{stage}.{name}={value}" for name, value in values.items()]


def files_holding(root: Path, needles: list[str]) -> list[str]:
    """Files under `root` (symlinks not followed) whose bytes contain any needle (an explicit stack: a
    solution's tree may be deeper than the recursion limit, or than PATH_MAX, which is skipped)."""
    found = []
    for entry in iter_tree(root):
        if entry.is_file(follow_symlinks=False):
            data = Path(entry.path).read_bytes()
            found += [f"{entry.path}: {n[:20]}" for n in needles if n.encode() in data]
    return found


def read_ledger(run_dir: Path) -> list[dict]:
    """The run's usage ledger, one dict per model-call attempt, in the order written."""
    path = Path(run_dir) / "llm_usage.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


@pytest.fixture
def open_competition(competition_cache: Path) -> Iterator[Path]:
    """A copy of the prepared competitions under a dir every uid may traverse (for the isolated local
    sandbox, whose uids cannot enter pytest's 0700 temp dirs); the private answers stay root-only."""
    base = Path(tempfile.mkdtemp(prefix="swarm-faults-", dir="/tmp"))
    base.chmod(0o755)
    shutil.copytree(competition_cache, base / "cache", symlinks=True)
    for path in [base / "cache", *(base / "cache").rglob("*")]:
        if path.is_dir() and path.name != "private":
            path.chmod(0o755)
    yield base
    remove_tree(base, ignore_errors=True)  # hostile solutions leave trees deeper than shutil.rmtree can go


def tree_digest(root: Path) -> dict[str, str]:
    """Every entry under `root` by relative path: contents, modification times, link targets and modes (to
    prove nothing changed)."""
    digest = {}
    for path in sorted(Path(root).rglob("*")):
        rel = str(path.relative_to(root))
        stat = path.lstat()
        if path.is_symlink():
            digest[rel] = f"link {os.readlink(path)}"
        elif path.is_file():
            digest[rel] = (
                f"{stat.st_mode:o} {hashlib.sha256(path.read_bytes()).hexdigest()} {stat.st_mtime_ns}"
            )
        else:
            digest[rel] = f"{stat.st_mode:o} dir"
    return digest


REPO = Path(__file__).resolve().parents[2]


def refused_main_job(*args: str, env: dict[str, str], cwd: Path = REPO) -> subprocess.CompletedProcess:
    """Run `python flows/run_competition.py --no-live ARGS`; assert it refused (exit 2, nothing on stdout, no
    traceback) and return what it did."""
    done = subprocess.run(
        [sys.executable, str(REPO / "flows" / "run_competition.py"), "--no-live", *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(REPO)},  # this checkout's packages, wherever pip points
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stdout == "" and "Traceback" not in done.stderr
    return done
