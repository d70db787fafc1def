"""The GPU check script: on a host without GPUs it says so and exits 2 (a GPU host runs it for real)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.gpus import discover_gpus

REPO = Path(__file__).parents[2]
SCRIPT = ("-m", "benchmarks.gpu_check")  # run from REPO, as benchmarks/README.md says


@pytest.mark.skipif(bool(discover_gpus()), reason="this host has a GPU: the check would run for real")
def test_without_a_gpu_the_check_exits_2_and_says_why(tmp_path: Path) -> None:
    out = tmp_path / "check.json"
    done = subprocess.run(
        [sys.executable, *SCRIPT, "--json", str(out)], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "this host has no GPU" in json.loads(out.read_text())["error"]


@pytest.mark.skipif(os.geteuid() != 0, reason="the local backend runs solutions as slot uids only as root")
def test_the_local_backend_reaches_the_checks_run_dir(tmp_path: Path) -> None:
    """The check's temporary dir is made by mkdtemp (mode 0700); the local backend's slot uids must still reach
    the run dirs inside it (on the first H100 it stopped with 'not traversable by others'). A fake nvidia-smi
    lists one GPU, so the check runs its solution: here without torch or a GPU it reports that, exit 1."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho '0, Fake GPU, 1024, GPU-00000000-0000-0000-0000-000000000000, 0'\n")
    smi.chmod(0o755)
    out = tmp_path / "check.json"
    # An interpreter the slot uids can run, else the local backend falls back to bwrap (no such check there).
    python = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if Path(p).exists()), None)
    if python is None:
        pytest.skip("no system interpreter for the local backend's slot uids")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SWARM_SANDBOX_PYTHON": python}
    done = subprocess.run(
        [sys.executable, *SCRIPT, "--sandbox", "local", "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert "not traversable" not in done.stdout + done.stderr
    assert "\nsandbox: local:" in done.stdout, done.stdout
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert report["exit"] == 1 and "sandbox cannot run" not in report.get("error", "")
