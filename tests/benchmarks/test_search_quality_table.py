"""The search-quality table merges result files and compares each run with the leaderboard's top score."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def load_script():
    spec = importlib.util.spec_from_file_location("sq_table", REPO / "benchmarks" / "search_quality_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def result(
    seed: int, score: float, medal: str | None, delivered: str = "single", single: float | None = None
):
    return {"competition": "house-prices", "policy": "aide", "seed": seed, "score": score, "medal": medal,
            "delivered": delivered, "single_score": single if single is not None else score,
            "bronze_threshold": 0.14727, "harness_gap": 0.01 * (seed + 1)}  # fmt: skip


def test_merge_keeps_the_later_file_per_run_and_counts_blends_and_wins(tmp_path):
    sq = load_script()
    top = sq.top_reference("house-prices", lower_is_better=True)
    first = tmp_path / "a.json"
    second = tmp_path / "b.json"
    first.write_text(json.dumps({"results": [result(0, 0.5, None), result(1, top + 0.01, "gold")]}))
    second.write_text(json.dumps({"results": [result(0, top - 0.01, "gold", "ensemble", top + 0.002)]}))
    merged = sq.merge([first, second])
    assert [(r["seed"], r["score"]) for r in merged] == [(0, top - 0.01), (1, top + 0.01)]
    row = sq.table(merged).splitlines()[-1]
    assert row.startswith(f"| house-prices | aide | {top:.5g} | 0.14727 | {top:.5g} |")
    assert "| 1/2 | 0: gold, 1: gold | 1/2 | 1.5% |" in row  # the harness gaps 1% and 2%, as percentages
