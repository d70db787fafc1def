"""The GPU check script: on a host without GPUs it says so and exits 2 (a GPU host runs it for real)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.gpus import discover_gpus

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "gpu_check.py"


@pytest.mark.skipif(bool(discover_gpus()), reason="this host has a GPU: the check would run for real")
def test_without_a_gpu_the_check_exits_2_and_says_why(tmp_path: Path) -> None:
    out = tmp_path / "check.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--json", str(out)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "this host has no GPU" in json.loads(out.read_text())["error"]
