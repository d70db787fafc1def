"""The AIDE side-by-side benchmark: a tiny run when AIDE is installed, and a clear exit when it is not."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = ("-m", "benchmarks.aide_side_by_side")  # run from REPO, as benchmarks/README.md says


def aide_importable() -> bool:
    if importlib.util.find_spec("aide") is None:
        return False
    probe = subprocess.run([sys.executable, "-c", "import aide.run"], capture_output=True, timeout=120)
    return probe.returncode == 0


def test_without_aide_it_exits_with_how_to_install(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "aide"  # an `aide` that cannot be imported, installed or not
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no module named omegaconf')\n")
    done = subprocess.run(
        [sys.executable, *SCRIPT, "--json", str(tmp_path / "out.json")],
        cwd=REPO,
        env={**_env(), "PYTHONPATH": str(shadow.parent)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install --no-deps aideml==0.2.2" in done.stderr and 'pip install -e ".[bench]"' in done.stderr
    assert not (tmp_path / "out.json").exists()


@pytest.mark.slow
def test_tiny_side_by_side(tmp_path: Path, competition_cache: Path) -> None:
    if not aide_importable():
        pytest.skip('AIDE is not installed: pip install --no-deps aideml==0.2.2 && pip install -e ".[bench]"')
    out = tmp_path / "aide.json"
    latency = 0.3
    done = subprocess.run(
        [
            sys.executable,
            *SCRIPT,
            # The plain runner only: the Prefect epochs' timing is the throughput benchmark's (its own test), and
            # starting Prefect's server here would double this test's time.
            *("--steps", "2", "--latency", str(latency), "--parallel", "--plain", "1"),
            *("--cache-dir", str(competition_cache), "--json", str(out)),
        ],
        cwd=REPO,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "2 steps per run, 0.3 s per code-model call" in done.stdout
    results = json.loads(out.read_text())["results"]
    assert [(r["agent"], r["runner"], r["parallel"]) for r in results] == [
        ("AIDE", "aideml 0.2.2", 1),
        ("Swarm-Ev2", "plain", 1),
    ]
    for r in results:
        assert r["steps"] == r["code_calls"] == 2, r  # one code call per step, both agents
        assert r["model_calls"] == 4, r  # and one review
        assert r["buggy"] == 0, r  # the same real solutions ran on both
        assert r["steps_per_min"] > 0 and r["model_s"] >= 2 * latency
    aide, plain = results
    assert (
        "where a Swarm-Ev2 step's time went" in done.stdout
        and "model: wait for the code model" in done.stdout
    )
    assert plain["breakdown"]["phases"]["model"] >= latency and plain["breakdown"]["other_s"] is not None
    for r in (aide, plain):  # sequential: a step's orchestration time is defined, and positive
        assert 0 < r["orchestration_s_per_step"] < r["wall_s"] / r["steps"]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "PREFECT_API"))}
