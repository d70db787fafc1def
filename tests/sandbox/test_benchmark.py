"""The overhead benchmark runs end to end and prints medians and ratios for every backend it can use."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]  # the benchmarks run as modules from the repository root
IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
ROW = re.compile(r"^(?P<name>.+?)\s+(?P<median>\d+\.\d{4})\s+(?P<ratio>\d+\.\d)x$")


@pytest.mark.slow
def test_benchmark_prints_medians_and_ratios(tmp_path):
    out_json = tmp_path / "sandbox.json"  # never the committed results
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.sandbox_overhead", "--runs", "2", "--json", str(out_json)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    rows = {
        m["name"]: (float(m["median"]), float(m["ratio"]))
        for m in map(ROW.match, done.stdout.splitlines())
        if m
    }
    assert "median_s" in done.stdout and "ratio" in done.stdout
    assert rows["bare python -c"][1] == 1.0
    local = [name for name in rows if name.startswith("local sandbox")]
    if os.geteuid() == 0:  # as root the benchmark measures the isolated local backend, as it runs
        assert local == ["local sandbox (isolated=True)"], done.stdout
    if IN_CI:
        assert "docker sandbox" in rows, done.stdout
        assert "bwrap sandbox (isolated=True)" in rows, done.stdout
    for name, (median, ratio) in rows.items():
        assert median > 0 and ratio > 0, name
    saved = {r["backend"]: r["median_s"] for r in json.loads(out_json.read_text())["results"]}
    assert len(saved) == len(rows)
