"""The main job asked to stop (SIGTERM, Ctrl-C) while a step's review waits on a reviewer that never answers: it
stops within seconds, not when the review ends, its journal and state readable, and a resume finishes the run."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from prefect.settings import PREFECT_API_URL

from swarm.journal import Journal
from swarm.pipeline.state import RunPaths, load_state
from tests.doubles.loopback_server import LoopbackServer, Reply

from .conftest import stage_overrides
from .test_kill_resume import launch

pytestmark = pytest.mark.usefixtures("prefect_server", "model_key")

STOP_BOUND_S = 60  # generous on a busy machine: the run's own bound is 10 s after the signal
START_BOUND_S = 300


def wait_for_review(server: LoopbackServer, proc: subprocess.Popen) -> None:
    """Until the run's first review call has reached the reviewer (which holds it)."""
    deadline = time.monotonic() + START_BOUND_S
    while not server.requests and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server.requests, f"no review was asked for: {proc.communicate()[1][-3000:]}"


@pytest.mark.slow
def test_a_run_stops_within_seconds_mid_review_and_resumes(tmp_path, base_overrides) -> None:
    # SIGINT (Ctrl-C) takes the same handler: its process-level check is test_bounded_review's, cheaper.
    sig = signal.SIGTERM
    run_dir = tmp_path / "run"
    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value(), "PREFECT_HOME": str(tmp_path / "home")}
    with LoopbackServer() as server:
        server.enqueue(*[Reply.slow(3600) for _ in range(4)])  # a reviewer that never answers in time
        overrides = [
            *base_overrides,
            *stage_overrides(server, stage="feedback", timeout_s=3600),
            "agent.max_steps=2",
            "search.parallel=1",
            "search.num_drafts=2",
        ]
        proc = launch(run_dir, overrides, env)
        try:
            wait_for_review(server, proc)
            stopped = time.monotonic()
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=STOP_BOUND_S)
            took = time.monotonic() - stopped
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode != 0 and took < STOP_BOUND_S, err[-2000:]
    assert "stopping the run" in err, err[-2000:]
    paths = RunPaths(run_dir)
    Journal.load(paths.journal)  # readable: every node whole
    assert not load_state(paths).finished
    resumed = launch(run_dir, [*base_overrides, "llm.feedback.provider=offline"], env)
    resumed.communicate(timeout=START_BOUND_S)
    assert resumed.returncode == 0
    assert load_state(paths).finished and len(Journal.load(paths.journal)) == 2
    assert Path(run_dir / "report.md").is_file()
