"""benchmarks/real_machine_check.py: its pure parts (overlap of execution intervals, the solutions'
report line, the scripted replies, the budget), its GPU-check part on a host without GPUs, and one CNN
solution on the real digit-images data where torch is installed."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sandbox.gpus import discover_gpus
from swarm.ga.genes import missing_sections
from swarm.llm.response import parse_response

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "real_machine_check.py"


@pytest.fixture(scope="module")
def rmc():
    spec = importlib.util.spec_from_file_location("real_machine_check_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def brute_force_overlap(intervals: list[tuple[float, float]]) -> int:
    """Most intervals holding one moment: checked at every start (a maximum is always reached at one)."""
    return max(
        (sum(1 for s, e in intervals if s <= t < e or s == t == e) for t, _ in intervals),
        default=0,
    )


def test_max_overlap_matches_a_brute_force_count(rmc) -> None:
    rng = random.Random(7)
    for _ in range(300):
        intervals = []
        for _ in range(rng.randint(0, 9)):
            start = rng.randint(0, 20) / 2
            intervals.append((start, start + rng.randint(1, 12) / 2))
        assert rmc.max_overlap(intervals) == brute_force_overlap(intervals), intervals


def test_max_overlap_edges(rmc) -> None:
    assert rmc.max_overlap([]) == 0
    assert rmc.max_overlap([(0, 1), (1, 2), (2, 3)]) == 1  # touching ends: one after another
    assert rmc.max_overlap([(0, 10), (1, 2), (1.5, 3), (2.5, 4)]) == 3
    assert rmc.max_overlap([(5, 6)] * 4) == 4
    with pytest.raises(ValueError):
        rmc.max_overlap([(2, 1)])


def test_overlaps_counts_per_gpu_and_skips_executions_without_times(rmc) -> None:
    gpu = {"cuda_available": True, "device_name": "NVIDIA H200", "cuda_visible_devices": "GPU-a"}
    other = {"cuda_available": True, "device_name": "NVIDIA H200", "cuda_visible_devices": "GPU-b"}
    facts = [
        {**gpu, "start": 0.0, "end": 10.0},
        {**gpu, "start": 1.0, "end": 5.0},
        {**other, "start": 2.0, "end": 4.0},
        {"cuda_available": False, "start": 3.0, "end": 3.5},
        {**gpu, "start": None, "end": 3.0},  # no start reported: not counted
    ]
    found = rmc.overlaps(facts)
    assert found["executions"] == 4 and found["on_gpu"] == 3
    assert found["max_at_once"] == 4
    per_gpu = found["max_at_once_per_gpu"]
    assert sorted(per_gpu.values()) == [1, 2]
    assert per_gpu[next(k for k in per_gpu if "GPU-a" in k)] == 2


def test_parse_facts_reads_the_last_report_line(rmc) -> None:
    out = "\n".join(
        [
            "saw: {}",
            rmc.TAG + json.dumps({"start": 1.0, "end": 2.0, "affinity": 3}),
            "more output",
            rmc.TAG + json.dumps({"start": 5.0, "end": 9.0, "affinity": 4}),
            "",
        ]
    )
    assert rmc.parse_facts(out) == {"start": 5.0, "end": 9.0, "affinity": 4}
    assert rmc.parse_facts("no report here\nSWARM_METRIC {}") is None
    assert rmc.parse_facts(rmc.TAG + "{not json") is None
    assert rmc.parse_facts(rmc.TAG + "[1, 2]") is None


def test_replies_hold_distinct_parseable_solutions_with_every_gene_section(rmc) -> None:
    codes = [parse_response(rmc.model_reply(variant, epochs=3)).code for variant in (0, 1, 2)]
    assert len(set(codes)) == 3
    for variant, code in enumerate(codes):
        compile(code, f"variant-{variant}", "exec")
        assert missing_sections(code) == []
        assert f"VARIANT, EPOCHS = {variant}, 3" in code
        assert "__VARIANT__" not in code and "__EPOCHS__" not in code


def test_steps_per_min_and_part_timeout(rmc) -> None:
    assert rmc.steps_per_min(8, 120.0) == pytest.approx(4.0)
    assert rmc.steps_per_min(8, 0) is None and rmc.steps_per_min(8, None) is None
    started = time.monotonic()
    assert rmc.part_timeout(100.0, started, budget_s=1000.0, parts_left=2) == pytest.approx(100.0)
    cut = rmc.part_timeout(500.0, started, budget_s=300.0, parts_left=2)
    assert 300.0 - 2 * rmc.RESERVE_S - 1 <= cut <= 300.0 - 2 * rmc.RESERVE_S
    assert rmc.part_timeout(500.0, started - 1000, budget_s=300.0, parts_left=0) == rmc.MIN_PART_S


@pytest.mark.skipif(bool(discover_gpus()), reason="this host has a GPU: the check would run for real")
def test_gpu_check_part_reports_no_gpu_and_the_script_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.real_machine_check", "--backends", "unsafe-local", "--parallel"]
        + ["--json", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(out.read_text())
    [check] = report["gpu_checks"]
    assert check["backend"] == "unsafe-local" and check["exit"] == 2 and check["ran"]
    assert "no GPU" in check["status"] and "this host has no GPU" in check["error"]
    assert report["runs"] == [] and report["machine"]["gpus"] == "none"
    assert "1. benchmarks/gpu_check.py per backend" in done.stdout


@pytest.mark.slow
def test_a_cnn_solution_trains_and_writes_a_valid_submission(rmc, tmp_path: Path, competition_cache) -> None:
    pytest.importorskip("torch")
    from swarm.competitions import load_competition

    competition = load_competition("digit-images", competition_cache)
    work = tmp_path / "node"
    (work / "submission").mkdir(parents=True)
    (work / "input").symlink_to(competition.public_dir)
    (work / "solution.py").write_text(rmc.solution_code(variant=5, epochs=2))
    done = subprocess.run(
        [sys.executable, "solution.py"], cwd=work, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    facts = rmc.parse_facts(done.stdout)
    assert facts is not None and facts["variant"] == 5
    assert facts["start"] < facts["end"] and facts["affinity"] >= 1 and facts["torch_threads"] >= 1
    assert facts["device"] == ("cuda" if facts["cuda_available"] else "cpu")
    assert 0.2 < facts["val_accuracy"] <= 1.0  # ten classes: better than chance after 2 epochs
    rows = (work / "submission" / "submission.csv").read_text().splitlines()
    sample = (competition.public_dir / "sample_submission.csv").read_text().splitlines()
    assert rows[0] == sample[0] and len(rows) == len(sample)
    assert {row.split(",")[0] for row in rows[1:]} == {row.split(",")[0] for row in sample[1:]}
    assert {row.split(",")[1] for row in rows[1:]} <= set("0123456789")
