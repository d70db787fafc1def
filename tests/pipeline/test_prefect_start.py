"""A newcomer's first minute: the main job says that Prefect's API is starting, or which server it uses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from prefect.settings import PREFECT_API_URL, temporary_settings

from flows.run_competition import start_prefect_api

REPO = Path(__file__).resolve().parents[2]


def test_a_configured_server_is_named_and_nothing_starts():
    said: list[str] = []
    with temporary_settings(updates={PREFECT_API_URL: "http://127.0.0.1:9/api"}):
        start_prefect_api(said.append)
    assert said == ["Prefect API: http://127.0.0.1:9/api (a running server; runs show in its UI)"]


@pytest.mark.slow
def test_the_temporary_api_start_is_announced_then_timed(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env |= {"PREFECT_HOME": str(tmp_path / "prefect"), "PYTHONPATH": str(REPO)}
    code = "from flows.run_competition import start_prefect_api; start_prefect_api(print)"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if "Prefect" in line]
    assert lines[0].startswith("Starting Prefect's temporary local API (10-20 s; to skip it, run `prefect")
    assert lines[-1].startswith("Prefect API ready at http://127.0.0.1:") and lines[-1].endswith(" s")
