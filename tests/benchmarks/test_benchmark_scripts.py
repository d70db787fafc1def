"""Smoke tests of the benchmark scripts: each runs as a user runs it (a subprocess, tiny sizes), prints its
table and writes JSON with sane figures. The scripts start their own ephemeral Prefect API."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from swarm.agents.prompting import PromptBudget
from swarm.pipeline.step_timing import PHASES

REPO = Path(__file__).resolve().parents[2]


def run_script(name: str, *args: str, timeout: float = 600) -> tuple[str, dict[str, Any]]:
    """Run `python -m benchmarks.<name>` from the repo root; its stdout and the JSON it wrote (given as --json)."""
    json_path = Path(args[args.index("--json") + 1])
    done = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{name}", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout, json.loads(json_path.read_text())


def positive(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


@pytest.mark.slow
def test_scale(tmp_path: Path, competition_cache: Path) -> None:
    out, data = run_script(
        "scale",
        *("--nodes", "300", "--records", "200", "--repeats", "1", "--codes", "6"),
        *("--cache-dir", str(competition_cache), "--json", str(tmp_path / "scale.json")),
    )
    assert "300 nodes, 200 pool records (ms)" in out and "select parent: with its prompt" in out
    shape = data["journal"]
    assert shape["nodes"] == 300 and 0 < shape["buggy"] < 300
    assert sum(shape[k] for k in ("draft", "improve", "debug", "merge", "mutate")) == 300
    assert 1 <= shape["max_debug_depth"] <= 3 and shape["mean_code_chars"] > 2000
    timings = data["timings"]
    for name in ("select parent: choose_next (aide)", "best-k (k=5)", "pool: top-K (k=5, re-scored)"):
        assert name in timings
    assert all(
        positive(t["median_ms"]) and t["min_ms"] <= t["median_ms"] <= t["max_ms"] for t in timings.values()
    )
    budget = PromptBudget().memory
    memory = timings[f"memory summary (budget {budget})"]
    assert memory["within_budget"] and budget / 2 < memory["chars"] <= budget
    assert data["memory_over_budget"] == [] and data["machine"]["cpus"] >= 1
    whole = timings["journal: write whole (migrating journal.json)"]["mb"] * 1e6
    assert whole > 300 * 2000  # the code really is in the file
    step = timings["step: record (update_population)"]
    assert 0 < step["journal_bytes"] < whole / 50  # one node's line, not the journal
    # both write one node's line (of different nodes, whose code lengths differ by a few characters)
    assert 0 < timings["journal: append one node (save)"]["journal_bytes"] <= 1.1 * step["journal_bytes"]
    assert 0 < data["step_targets"]["write_ms"] <= data["step_targets"]["step_ms"]


@pytest.mark.slow
def test_orchestration_overhead(tmp_path: Path, competition_cache: Path) -> None:
    out, data = run_script(
        "orchestration_overhead",
        *("--steps", "1", "--repeats", "1", "--cold-runs", "1"),
        *("--cache-dir", str(competition_cache), "--json", str(tmp_path / "orchestration.json")),
    )
    assert "cold start in a fresh process (s)" in out and "Prefect vs plain" in out
    summary, repeat = data["summary"], data["repeats"][0]
    # select_parent, step (generate, execute, review), update_population, then evolve_agents
    assert summary["task_runs"] == repeat["prefect"]["task_runs_expected"] == 7
    assert summary["same_code"] is True
    assert repeat["prefect"]["nodes"] == repeat["plain"]["nodes"] == 1
    for side in ("prefect", "plain"):
        assert positive(repeat[side]["exec_s"]) and repeat[side]["exec_s"] < repeat[side]["wall_s"]
        assert 0 <= repeat[side]["gc_s"] < repeat[side]["wall_s"] and repeat[side]["gc_full"] >= 0
    assert positive(summary["ratio_wall"]) and math.isfinite(summary["per_task_ms_outside_exec"])
    assert positive(repeat["noop_flow_ms_per_task"]) and "no-op task runs" in out
    cold = data["cold_start"]
    assert [c["database"] for c in cold] == ["new", "existing"]
    assert all(positive(c["import_s"]) and c["import_s"] + c["first_flow_s"] < c["process_s"] for c in cold)


@pytest.mark.slow
def test_throughput(tmp_path: Path, competition_cache: Path) -> None:
    latency = 0.5
    out, data = run_script(
        "throughput",
        *("--steps", "2", "--latency", str(latency), "--parallel", "2", "--plain", "1"),
        *("--cache-dir", str(competition_cache), "--json", str(tmp_path / "throughput.json")),
    )
    assert "2 steps per setting, 0.5 s per code-model call" in out
    results = data["results"]
    assert [(r["runner"], r["parallel"]) for r in results] == [("prefect", 2), ("plain", 1)]
    for r in results:
        assert r["steps"] == r["model_calls"] == r["model_calls_ok"] == 2 and r["one_call_per_step"]
        assert r["mean_model_wait_s"] >= latency  # every call really waited for the slow model
        assert math.isclose(r["steps_per_min"], 60 * r["steps"] / r["wall_s"])
    plain = results[1]
    assert (
        plain["wall_s"] >= 2 * latency + 2 * plain["mean_exec_s"] * 0.9
    )  # sequential: waits and runs add up
    assert "where a step's time went" in out and "libraries: numpy " in out
    for r in results:  # each phase's median is there; the model wait is the loopback's latency at least
        phases = r["breakdown"]["phases"]
        assert set(phases) == {p for p, _ in PHASES} and phases["model"] >= latency, phases
        assert 0 < r["breakdown"]["empty_run_s"] < phases["sandbox"]
    assert results[0]["breakdown"]["other_s"] is None and plain["breakdown"]["other_s"] is not None


@pytest.mark.slow
def test_sentence_split(tmp_path: Path) -> None:
    out, results = run_script(
        "sentence_split", *("--lines", "5000", "--test", "200"), "--json", str(tmp_path / "s.json")
    )
    assert "sentence split: 5,000 training sentences" in out
    assert results["lines"] == 5000 and results["held_rows"] == 1000  # a fifth, under the 50,000 cap
    assert positive(results["seconds"]) and positive(results["peak_rss_mb"]) and positive(results["train_mb"])
    assert "a word taken out of each" in results["split"]


@pytest.mark.slow
def test_refit_drift(tmp_path: Path, competition_cache: Path) -> None:
    out, results = run_script(
        "refit_drift",
        *("--competitions", "titanic", "--steps", "2", "--parallel", "1"),
        *("--cache-dir", str(competition_cache), "--json", str(tmp_path / "d.json")),
    )
    assert (
        "titanic            honest        label agreement" in out and "floors: rank correlation 0.60" in out
    )
    refits = [r for r in results["refits"] if r["case"] == "honest"]
    assert refits and all(r["measure"] == "label agreement" and 0 <= r["value"] <= 1 for r in refits)
    assert all(r["ratio"] is not None and r["ratio"] >= 0 for r in refits)  # 1 - accuracy beside the error
    assert results["per_competition"][0]["refits"] == len(refits)
    flipped = [r for r in results["refits"] if r["case"] == "flipped 12%"]
    assert len(flipped) == len(refits)
    assert all(f["value"] < h["value"] - 0.05 for f, h in zip(flipped, refits, strict=True))


@pytest.mark.slow
def test_later_events_split(tmp_path: Path) -> None:
    out, results = run_script(
        "later_events_split",
        *("--rows", "20000", "--customers", "2000", "--articles", "500", "--days", "60"),
        *("--json", str(tmp_path / "e.json")),
    )
    assert "later-events split: 20,000 purchases" in out and "offline recommendations: 2,000 customers" in out
    assert 0 < results["held_ids"] <= 2000 and results["rows"] == 20000
    assert (
        positive(results["seconds"])
        and positive(results["peak_rss_mb"])
        and positive(results["recommend_seconds"])
    )
    assert 0 < results["recommend_map"] <= 1  # the most bought articles of a Zipf log are bought again
    assert "its last 7 days (after 2019-11-14) are held out" in results["split"]


@pytest.mark.slow
def test_document_splits(tmp_path: Path) -> None:
    out, results = run_script("document_splits", "--mb", "3", "--json", str(tmp_path / "d.json"))
    assert "bson split: a 3 MB training file" in out and "questions split: a 3 MB training file" in out
    for name, words in (
        ("bson", "each joining test.bson without its category_id"),
        ("questions", "without its annotations"),
    ):
        found = results[name]
        assert found["train_mb"] == 3 and found["held_rows"] > 0 and words in found["split"]
        assert positive(found["seconds"]) and positive(found["peak_rss_mb"]) and positive(found["mb_per_s"])


@pytest.mark.slow
def test_parquet_split(tmp_path: Path) -> None:
    out, data = run_script(
        "parquet_split",
        *("--rows", "6000", "--batches", "12", "--test-batches", "2"),
        "--json",
        str(tmp_path / "p.json"),
    )
    assert "streamed parquet split: 5,000 labelled rows, 1,000 test rows" in out
    results = data
    assert results["labelled_rows"] == 5000 and 0 < results["held_rows"] < 5000
    assert results["held_rows"] % 500 == 0  # whole batches of 500 events
    assert positive(results["seconds"]) and positive(results["peak_rss_mb"])
    assert "streamed, whole batch_ids held out" in results["split"]


@pytest.mark.slow
def test_interval_cost(tmp_path: Path, competition_cache: Path) -> None:
    out, data = run_script(
        "interval_cost",
        *("--competitions", "titanic", "--large-rows", "6000", "--repeats", "1"),
        *("--cache-dir", str(competition_cache), "--json", str(tmp_path / "interval.json")),
    )
    assert "with and without the score's interval" in out
    titanic, *large = data["results"]
    assert titanic["competition"] == "titanic" and titanic["held_out_rows"] == 196
    low, high = titanic["interval"]
    assert low < titanic["score"] < high and 0.01 < titanic["se"] < 0.06  # 196 rows of an accuracy
    assert [r["metric"] for r in large] == ["accuracy", "auc", "rmse"]
    assert all(r["held_out_rows"] == 6000 and "2000 of the 6000 rows" in r["note"] for r in large)
    assert all(positive(r["seconds_with"]) and positive(r["seconds_without"]) for r in data["results"])


@pytest.mark.slow
def test_library_speed(tmp_path: Path, competition_cache: Path) -> None:
    out, data = run_script(
        "library_speed",
        *("--python", sys.executable, "--steps", "2", "--rounds", "1"),
        *("--cache-dir", str(competition_cache), "--json", str(tmp_path / "libraries.json")),
    )
    assert "2 offline-coder solutions on titanic" in out and "largest score difference" in out
    install, other = data["interpreters"]
    assert (install["interpreter"], other["interpreter"]) == ("install", "other")
    for side in (install, other):
        assert side["libraries"]["numpy"] and side["libraries"]["sklearn"]
        assert positive(side["import_s"]) and positive(side["process_s"]) and positive(side["steps_per_min"])
        assert len(side["rounds"][0]["scores"]) == 2
    # the same interpreter on both sides runs the same code to the same scores
    assert (
        other["largest_score_difference"] == 0.0
        and install["rounds"][0]["scores"] == other["rounds"][0]["scores"]
    )
