"""How far honest nodes' agreement with the harness's reference model drops from held-out to test rows: the basis
of the consistency check's tolerance (`swarm/evaluation/consistency.py`).

    python -m benchmarks.consistency_gap [--competitions titanic ...] [--miniatures aerial-cactus-identification ...]
                                         [--seeds 0] [--steps 6] [--json benchmarks/results/consistency_gap.json]

For each bundled competition (default: all), and each named layout miniature (tests/evaluation/
census_miniatures.py), runs the main job's core with the offline coder (no model, the plain runner), whose
reviews record each good node's agreement with the reference on held-out and on test rows. Prints, per
competition, the nodes checked, the largest and median drop (held-out minus test agreement), the nodes flagged,
and the tolerance the check applies.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from benchmarks.common import write_json
from swarm.competitions import list_bundled
from swarm.evaluation.consistency import TOLERANCE
from swarm.journal import Journal
from swarm.pipeline.context import open_run
from swarm.pipeline.lifecycle import prepare_run
from swarm.pipeline.plain import run_to_end


def gaps(name: str, seed: int, args: argparse.Namespace, root: Path, data_dir: Path | None) -> list[dict]:
    """One run's good nodes: each one's agreement with the reference on held-out and on test rows."""
    run_dir = root / f"{name}-{seed}"
    overrides = [
        f"project.cache_dir={args.cache_dir}",
        f"project.seed={seed}",
        *([] if data_dir else [f"data.competition={name}"]),
        *(f"llm.{stage}.provider=offline" for stage in ("code", "feedback", "evolution")),
        f"agent.max_steps={args.steps}",
        f"search.parallel={args.parallel}",
        "search.num_drafts=3",
    ]
    try:
        paths = prepare_run(
            data_dir=str(data_dir) if data_dir else None, overrides=overrides, run_dir=run_dir
        )
        run_to_end(open_run(paths.root)[0])
    except Exception as exc:  # noqa: BLE001 - one competition that cannot run does not end the benchmark
        print(f"  {name} seed {seed}: the run failed ({type(exc).__name__}: {exc})")
        return []
    found = []
    for node in Journal.load(run_dir / "journal.jsonl").good_nodes():
        record = node.meta.consistency
        if not record:
            continue
        drop = record["heldout"] - record["test"]
        print(
            f"  {name} seed {seed} node {node.id[:8]}: {record['measure']} {record['heldout']:.3f} held-out, "
            f"{record['test']:.3f} test, drop {drop:.3f}"
        )
        found.append({"competition": name, "seed": seed, "node": node.id, **record, "drop": round(drop, 4)})
    if not found:
        reason = (
            (run_dir / "harness" / "reference" / "failed.txt").read_text().strip()
            if (run_dir / "harness" / "reference" / "failed.txt").is_file()
            else "no good node was checked"
        )
        print(f"  {name} seed {seed}: nothing checked ({reason})")
    return found


def miniature_dirs(names: list[str], root: Path) -> dict[str, Path]:
    """The named layout miniatures, built under `root` (their builders live with the tests)."""
    from tests.evaluation.census_miniatures import MINIATURES  # the repository's tests: run from its root

    return {name: MINIATURES[name](root / "miniatures" / name) for name in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--competitions", nargs="*", default=None)
    parser.add_argument("--miniatures", nargs="*", default=[])
    parser.add_argument("--seeds", nargs="*", type=int, default=[0])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--json", default="benchmarks/results/consistency_gap.json")
    args = parser.parse_args()
    competitions = list_bundled() if args.competitions is None else args.competitions
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        args.cache_dir = args.cache_dir or str(root / "cache")
        runs = {name: None for name in competitions} | miniature_dirs(args.miniatures, root)
        for name, data_dir in runs.items():
            for seed in args.seeds:
                rows += gaps(name, seed, args, root, data_dir)
    print(f"\ntolerance: {TOLERANCE:.2f}")
    print(f"{'competition':<45} {'nodes':>5} {'largest drop':>12} {'median':>8} {'flagged':>8}")
    summary = []
    for name in runs:
        drops = [r["drop"] for r in rows if r["competition"] == name]
        if not drops:
            continue
        flagged = sum(not r["consistent"] for r in rows if r["competition"] == name)
        print(f"{name:<45} {len(drops):>5} {max(drops):>12.3f} {statistics.median(drops):>8.3f} {flagged:>8}")
        summary.append(
            {
                "competition": name,
                "nodes": len(drops),
                "largest_drop": max(drops),
                "median_drop": statistics.median(drops),
                "flagged": flagged,
            }
        )
    write_json(Path(args.json), args, {"tolerance": TOLERANCE, "nodes": rows, "per_competition": summary})


if __name__ == "__main__":
    main()
