"""Merge result files of `search_quality.py` (e.g. one per seed) into one JSON and a Markdown summary table.

    python -m benchmarks.search_quality_table RESULT.json [RESULT.json ...] [--json merged.json]

Per (competition, policy): the mean delivered score (blend or single node), the mean score of the best single
node, how often the blend was delivered, the medals per seed, and whether the run beat the strongest reference
pipeline of the competition's leaderboard (its top score), the mean half-width of the 95% interval of the harness
pick's score and how often the pick's hidden-test score fell inside that interval ("hidden inside interval").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from swarm.competitions.build_leaderboards import LEADERBOARD_DIR
from swarm.competitions.bundled import get_spec
from swarm.competitions.leaderboard import read_leaderboard
from swarm.competitions.metrics import get_metric


def top_reference(competition: str, lower_is_better: bool) -> float:
    """The best score of the competition's bundled leaderboard (its strongest reference pipeline)."""
    scores = read_leaderboard(LEADERBOARD_DIR / f"{competition}.csv")["score"].astype(float)
    return float(scores.min() if lower_is_better else scores.max())


def merge(paths: list[Path]) -> list[dict]:
    """Every result of the files, later files winning for the same (competition, policy, seed)."""
    merged: dict[tuple, dict] = {}
    for path in paths:
        for result in json.loads(path.read_text(encoding="utf-8"))["results"]:
            merged[(result["competition"], result["policy"], result["seed"])] = result
    return sorted(merged.values(), key=lambda r: (r["competition"], r["policy"], r["seed"]))


def _mean(values: list) -> str:
    values = [v for v in values if v is not None]
    return f"{statistics.mean(values):.5g}" if values else "-"


def _share(values: list) -> str:
    """The mean of relative gaps as a percentage ("-" where none was measured)."""
    values = [v for v in values if v is not None]
    return f"{100 * statistics.mean(values):.1f}%" if values else "-"


def _half_width(runs: list[dict]) -> str:
    """The mean half-width of the harness pick's 95% interval, as `±0.031` ("-" where no run has one)."""
    halves = [(i[1] - i[0]) / 2 for i in (r.get("harness_pick_interval") for r in runs) if i]
    return f"±{statistics.mean(halves):.2g}" if halves else "-"


def _inside(runs: list[dict]) -> str:
    """How many of the runs whose pick has an interval and a hidden score had that score inside the interval."""
    known = [r["hidden_inside_interval"] for r in runs if r.get("hidden_inside_interval") is not None]
    return f"{sum(known)}/{len(known)}" if known else "-"


def table(results: list[dict]) -> str:
    lines = [
        "| competition | policy | top reference | bronze at | delivered (mean) | best single (mean) | blend chosen "
        "| medals (by seed) | beat the top reference | harness gap (mean) | pick's interval (mean ±) "
        "| hidden inside interval |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    cells: dict[tuple, list[dict]] = {}
    for result in results:
        cells.setdefault((result["competition"], result["policy"]), []).append(result)
    for (competition, policy), runs in cells.items():
        lower = get_metric(get_spec(competition).metric).lower_is_better
        top = top_reference(competition, lower)
        beat = sum(
            1 for r in runs if r["score"] is not None and (r["score"] < top if lower else r["score"] > top)
        )
        blends = sum(1 for r in runs if r.get("delivered") == "ensemble")
        medals = ", ".join(f"{r['seed']}: {r['medal'] or 'none'}" for r in runs)
        lines.append(
            f"| {competition} | {policy} | {top:.5g} | {runs[0]['bronze_threshold']:.5g} | "
            f"{_mean([r['score'] for r in runs])} | {_mean([r.get('single_score') for r in runs])} | "
            f"{blends}/{len(runs)} | {medals} | {beat}/{len(runs)} | {_share([r.get('harness_gap') for r in runs])} "
            f"| {_half_width(runs)} | {_inside(runs)} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="write the merged results here")
    args = parser.parse_args()
    results = merge(args.results)
    if args.json:
        args.json.write_text(json.dumps({"results": results}, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
