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


def test_the_table_gives_the_picks_interval_and_whether_the_hidden_score_fell_inside(tmp_path):
    sq = load_script()
    runs = [result(0, 0.12, "gold"), result(1, 0.13, "gold"), result(2, 0.2, None)]
    runs[0] |= {"harness_pick_interval": [0.10, 0.14], "hidden_inside_interval": True}
    runs[1] |= {"harness_pick_interval": [0.11, 0.17], "hidden_inside_interval": False}
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"results": runs}))  # the third run: no interval (an older result file)
    lines = sq.table(sq.merge([path])).splitlines()
    assert lines[0].endswith("| pick's interval (mean ±) | hidden inside interval |")
    assert lines[-1].endswith("| ±0.025 | 1/2 |")  # half-widths 0.02 and 0.03


def test_a_pick_is_inside_its_interval_only_where_both_are_known():
    import importlib

    quality = importlib.import_module("benchmarks.search_quality")
    assert quality.inside([0.74, 0.85], 0.80) is True and quality.inside([0.74, 0.85], 0.86) is False
    assert quality.inside(None, 0.8) is None and quality.inside([0.74, 0.85], None) is None


def test_a_pick_scored_on_folds_is_judged_by_its_means_interval():
    import importlib

    quality = importlib.import_module("benchmarks.search_quality")
    one_fold = {
        "harness_pick_score": 0.2755,
        "harness_pick_interval": [0.226, 0.380],
        "hidden_inside_interval": True,
    }
    folds = {"validation_mean_over_folds": 0.2788, "validation_mean_over_folds_interval": [0.280, 0.300]}
    judged = quality.folds_judged(one_fold, folds)
    assert judged["harness_pick_interval"] == [0.280, 0.300] and judged["hidden_inside_interval"] is False
    assert judged["harness_pick_score"] == 0.2755
    assert quality.folds_judged(one_fold, {"validation_mean_over_folds": None}) == one_fold
