"""How far honest refits move a node's test predictions: the basis of the refit check's floors.

    python -m benchmarks.refit_drift [--competitions titanic ...] [--seeds 0] [--steps 6] [--parallel 2]
                                     [--json benchmarks/results/refit_drift.json]

For each bundled competition (default: all) and seed, runs the main job with the offline coder (no model), then
refits every good node of its journal (its code rerun on every labelled row, as the run's end does for the
delivered node) and measures how its test predictions agree with those of its scored run
(swarm/evaluation/refit_check.py: rank correlation for numbers, label agreement for classes, token overlap for
other text; the worst target column). Prints, per competition, the number of refits and the lowest and median
agreement, and beside them the floors the check applies.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from benchmarks.common import prefect_env, write_json

prefect_env(None)  # an ephemeral API with a temporary home of its own

from prefect.settings import temporary_settings  # noqa: E402

from flows.competition import CompetitionParams, competition_flow  # noqa: E402
from swarm.competitions import list_bundled  # noqa: E402
from swarm.evaluation.refit_check import FLOORS, read_predictions, refit_agreement  # noqa: E402
from swarm.journal import Journal  # noqa: E402
from swarm.layouts.holdout import harness_root  # noqa: E402
from swarm.pipeline.context import open_run  # noqa: E402
from swarm.pipeline.refit import refit  # noqa: E402


def drift(competition_id: str, seed: int, args: argparse.Namespace, root: Path) -> list[dict]:
    """One run's good nodes, each refit: its agreement with its scored run's test predictions."""
    run_dir = root / f"{competition_id}-{seed}"
    overrides = [
        f"project.cache_dir={args.cache_dir}",
        f"project.seed={seed}",
        f"data.competition={competition_id}",
        "execution.sandbox=local",
        *(f"llm.{stage}.provider=offline" for stage in ("code", "feedback", "evolution")),
        f"agent.max_steps={args.steps}",
        f"search.parallel={args.parallel}",
        "search.num_drafts=3",
    ]
    competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
    rc, _, _ = open_run(run_dir)
    spec = rc.competition.metric
    found = []
    for node in Journal.load(run_dir / "journal.jsonl").good_nodes():
        scored = node.meta.submission_path
        target = harness_root(run_dir) / "drift" / f"{node.id}.csv"
        _, note = refit(rc, node, target)
        if not scored or not target.is_file():
            print(f"  {competition_id} seed {seed} node {node.id[:8]}: no refit ({note})")
            continue
        agreement = refit_agreement(
            read_predictions(Path(scored)), read_predictions(target), spec, rc.harness.holdout.shifted
        )
        if agreement is None:
            continue
        print(f"  {competition_id} seed {seed} node {node.id[:8]}: {agreement.describe()}")
        found.append(
            {
                "competition": competition_id,
                "seed": seed,
                "node": node.id,
                "measure": agreement.measure,
                "value": round(agreement.value, 4),
                "column": agreement.column,
                "accepted": agreement.accepted,
            }
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--competitions", nargs="*", default=None)
    parser.add_argument("--seeds", nargs="*", type=int, default=[0])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--json", default="benchmarks/results/refit_drift.json")
    args = parser.parse_args()
    competitions = args.competitions or list_bundled()
    rows: list[dict] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        temporary_settings(updates={"flows.heartbeat_frequency": None}),
    ):
        root = Path(tmp)
        args.cache_dir = args.cache_dir or str(root / "cache")
        for competition_id in competitions:
            for seed in args.seeds:
                rows += drift(competition_id, seed, args, root)
    print(f"\nfloors: {', '.join(f'{m} {f:.2f}' for m, f in FLOORS.items())}")
    print(f"{'competition':<20} {'measure':<18} {'refits':>6} {'lowest':>8} {'median':>8} {'rejected':>8}")
    summary = []
    for competition_id in competitions:
        mine = [r for r in rows if r["competition"] == competition_id]
        for measure in sorted({r["measure"] for r in mine}):
            values = [r["value"] for r in mine if r["measure"] == measure]
            rejected = sum(not r["accepted"] for r in mine if r["measure"] == measure)
            print(
                f"{competition_id:<20} {measure:<18} {len(values):>6} {min(values):>8.3f} "
                f"{statistics.median(values):>8.3f} {rejected:>8}"
            )
            summary.append(
                {
                    "competition": competition_id,
                    "measure": measure,
                    "refits": len(values),
                    "lowest": min(values),
                    "median": statistics.median(values),
                    "rejected": rejected,
                }
            )
    write_json(Path(args.json), args, {"floors": FLOORS, "refits": rows, "per_competition": summary})


if __name__ == "__main__":
    main()
