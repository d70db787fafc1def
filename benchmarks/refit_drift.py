"""How far honest refits move a node's test predictions: the basis of the refit check's floors.

    python -m benchmarks.refit_drift [--competitions titanic ...] [--seeds 0] [--steps 6] [--parallel 2]
                                     [--json benchmarks/results/refit_drift.json]

For each bundled competition (default: all) and seed, runs the main job with the offline coder (no model), then
refits every good node of its journal (its code rerun on every labelled row, as the run's end does for the
delivered node) and measures how its test predictions agree with those of its scored run
(swarm/evaluation/refit_check.py: rank correlation for numbers, label agreement for classes, token overlap for
other text; the worst target column) and how far they lie from them by the competition's metric, as a multiple of
the node's harness error (the ratio; skipped where the metric cannot take predictions as answers, as for AUC).
Beside each honest refit, three broken ones made from it are checked the same way: every value doubled (numbers),
30% of the rows' values shuffled among them, and 12% of the rows' labels flipped to another (labels). Prints, per
competition, the number of refits, the lowest and median agreement, the highest and median ratio and how many
the check rejects, then per broken kind how many it rejects and the figures of the one it came nearest to
accepting; beside them the floors and the factor the check applies.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import prefect_env, write_json

prefect_env(None)  # an ephemeral API with a temporary home of its own

from prefect.settings import temporary_settings  # noqa: E402

from flows.competition import CompetitionParams, competition_flow  # noqa: E402
from swarm.competitions import list_bundled  # noqa: E402
from swarm.competitions.competition import MetricSpec  # noqa: E402
from swarm.competitions.metrics import get_metric  # noqa: E402
from swarm.evaluation.refit_check import (  # noqa: E402
    DISTANCE_FACTOR,
    FLOORS,
    RefitCheck,
    check_refit,
    read_predictions,
)
from swarm.journal import Journal  # noqa: E402
from swarm.layouts.holdout import harness_root  # noqa: E402
from swarm.pipeline.context import open_run  # noqa: E402
from swarm.pipeline.refit import harness_score, refit  # noqa: E402

HONEST = "honest"
BROKEN = ("doubled", "shuffled 30%", "flipped 12%")


def broken(kind: str, frame: pd.DataFrame, spec: MetricSpec, seed: int) -> pd.DataFrame | None:
    """The refit's predictions broken as `kind` says; None where the kind does not apply to its targets (numbers
    doubled, labels flipped)."""
    rng = np.random.default_rng(seed)
    columns = [c for c in spec.target_columns if c in frame.columns]
    out = frame.copy()
    rows = rng.choice(
        len(out), size=int(round(len(out) * (0.3 if kind == "shuffled 30%" else 0.12))), replace=False
    )
    if kind == "shuffled 30%":
        values = out[columns].to_numpy().copy()
        values[rows] = values[rng.permutation(rows)]
        return out.assign(**{c: values[:, i] for i, c in enumerate(columns)})
    numeric = get_metric(spec.name).numeric
    if kind == "doubled":  # numbers only
        numbers = {c: pd.to_numeric(out[c], errors="coerce") for c in columns}
        if not numeric or any(n.isna().any() for n in numbers.values()):
            return None
        return out.assign(**{c: (2 * n).astype(str) for c, n in numbers.items()})
    if numeric:  # flipped: labels only
        return None
    for column in columns:
        labels = sorted(out[column].unique())
        if len(labels) < 2:
            return None
        cells = out[column].to_numpy().copy()
        for row in rows:
            cells[row] = rng.choice([label for label in labels if label != cells[row]])
        out[column] = cells
    return out


def measured(check: RefitCheck, base: dict) -> dict:
    """One checked refit as a result row: the agreement, the metric distance's ratio to the harness error."""
    distance = check.distance
    ratio = None
    if distance is not None:
        ratio = distance.value / distance.error if distance.error > 0 else math.inf
    return {
        **base,
        "measure": check.agreement.measure,
        "value": round(check.agreement.value, 4),
        "column": check.agreement.column,
        "distance": None if distance is None else round(distance.value, 5),
        "harness_error": None if distance is None else round(distance.error, 5),
        "ratio": None if ratio is None else round(ratio, 4),
        "accepted": check.accepted,
    }


def drift(competition_id: str, seed: int, args: argparse.Namespace, root: Path) -> list[dict]:
    """One run's good nodes, each refit: its check against its scored run's test predictions, and the checks of
    the broken refits made from it."""
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
        scored_frame, refit_frame = read_predictions(Path(scored)), read_predictions(target)
        score, shifted = harness_score(node), rc.harness.holdout.shifted
        check = check_refit(scored_frame, refit_frame, spec, score, shifted)
        if check is None:
            continue
        print(f"  {competition_id} seed {seed} node {node.id[:8]}: {check.describe()}")
        base = {"competition": competition_id, "seed": seed, "node": node.id}
        found.append(measured(check, {**base, "case": HONEST}))
        for i, kind in enumerate(BROKEN):
            frame = broken(kind, refit_frame, spec, seed * 100 + i)
            if frame is not None:
                found.append(
                    measured(check_refit(scored_frame, frame, spec, score, shifted), {**base, "case": kind})
                )
    return found


def _figures(values: list[float]) -> str:
    return f"{min(values):.3f}/{statistics.median(values):.3f}/{max(values):.3f}" if values else "-"


def summarise(competitions: list[str], rows: list[dict]) -> list[dict]:
    """Prints and returns, per competition and case, the refits, how many the check rejected, and the agreement's
    and the ratio's lowest/median/highest (ratio "-" where the metric distance does not apply)."""
    print(
        f"{'competition':<18} {'case':<13} {'measure':<17} {'refits':>6} {'rejected':>8} "
        f"{'agreement low/med/high':>23} {'ratio low/med/high':>23}"
    )
    summary = []
    for competition_id in competitions:
        for case in (HONEST, *BROKEN):
            mine = [r for r in rows if r["competition"] == competition_id and r["case"] == case]
            if not mine:
                continue
            values = [r["value"] for r in mine]
            ratios = [r["ratio"] for r in mine if r["ratio"] is not None]
            rejected = sum(not r["accepted"] for r in mine)
            measure = "/".join(sorted({r["measure"] for r in mine}))
            print(
                f"{competition_id:<18} {case:<13} {measure:<17} {len(mine):>6} {rejected:>8} "
                f"{_figures(values):>23} {_figures(ratios):>23}"
            )
            summary.append(
                {
                    "competition": competition_id,
                    "case": case,
                    "measure": measure,
                    "refits": len(mine),
                    "rejected": rejected,
                    "lowest": min(values),
                    "median": statistics.median(values),
                    "highest_ratio": max(ratios) if ratios else None,
                    "median_ratio": statistics.median(ratios) if ratios else None,
                    "lowest_ratio": min(ratios) if ratios else None,
                }
            )
    return summary


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
    print(
        f"\nfloors: {', '.join(f'{m} {f:.2f}' for m, f in FLOORS.items())}; distance factor {DISTANCE_FACTOR:g}"
    )
    summary = summarise(competitions, rows)
    write_json(
        Path(args.json),
        args,
        {"floors": FLOORS, "distance_factor": DISTANCE_FACTOR, "refits": rows, "per_competition": summary},
    )


if __name__ == "__main__":
    main()
