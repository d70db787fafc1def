"""throughput.py's short solutions: real, valid and pairwise different, so every step runs and scores."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from swarm.competitions import load_competition

REPO = Path(__file__).resolve().parents[2]


def throughput_module():
    spec = importlib.util.spec_from_file_location("throughput_script", REPO / "benchmarks" / "throughput.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_short_solutions_run_and_write_a_varied_submission(tmp_path: Path, competition_cache: Path) -> None:
    competition = load_competition("titanic", competition_cache)
    replies = throughput_module().short_replies(competition, 3)
    codes = [re.search(r"```python\n(.*)```", reply, re.S).group(1) for reply in replies]
    assert len(set(codes)) == 3
    for index, code in enumerate(codes):
        work = tmp_path / str(index)
        (work / "input").mkdir(parents=True)
        for name in ("train.csv", "test.csv", "sample_submission.csv"):
            (work / "input" / name).write_bytes((competition.public_dir / name).read_bytes())
        (work / "solution.py").write_text(code)
        done = subprocess.run(
            [sys.executable, "solution.py"], cwd=work, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        metric = json.loads(done.stdout.split("SWARM_METRIC ", 1)[1])
        assert metric["name"] == "accuracy" and 0 < metric["value"] <= 1
        rows = (work / "submission" / "submission.csv").read_text().splitlines()
        sample = (competition.public_dir / "sample_submission.csv").read_text().splitlines()
        assert rows[0] == sample[0] and len(rows) == len(sample)
        assert len({row.split(",")[1] for row in rows[1:]}) > 1  # not a constant guess


@pytest.mark.slow
def test_throughput_with_short_solutions(tmp_path: Path, competition_cache: Path) -> None:
    out = tmp_path / "throughput.json"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "benchmarks.throughput"),
            *("--steps", "2", "--latency", "0.3", "--parallel", "1", "2", "--plain", "--solutions", "short"),
            *("--cache-dir", str(competition_cache), "--json", str(out)),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "short solutions" in done.stdout
    data = json.loads(out.read_text())
    assert [(r["runner"], r["parallel"]) for r in data["results"]] == [("prefect", 1), ("prefect", 2)]
    for r in data["results"]:
        assert r["steps"] == r["model_calls"] == 2 and r["one_call_per_step"] and r["buggy"] == 0
    assert set(data["speedup_over_parallel_1"]) == {"prefect 1", "prefect 2"}
