"""Search quality: the AIDE, GA and MCTS policies side by side, same budget, offline coder, every bundled competition.

    python -m benchmarks.search_quality [--steps 20] [--seeds 0 1 2] [--competitions titanic ...]
                                        [--parallel 2] [--folds auto] [--json benchmarks/results/search_quality.json]

Each (competition, policy, seed) is one run of the main job (the competition flow, local sandbox, offline
coder). It prints, side by side, the final grade on the hidden answers, the medal, and the steps it took
until the node the run would have submitted (the best by validation metric so far) scored at bronze or
better on the hidden answers; the JSON file holds every figure. The hidden answers are used here only after
each run, for the report, as in the main job.

Trusted evaluation: for the same runs it also reports the hidden-test score of the node picked by the harness's
score (what the run submits, before the refit) and of the node the solutions' printed metrics would have
picked, and the mean absolute gap between the claimed and the harness scores of the good nodes; and the harness
gap, |harness score - hidden score| / |hidden score| of the node the harness picked (before its refit): how well
the split's held-out rows stand for the test (a split that does not follow how the test was drawn is
optimistic); with `--folds` K the harness score is the pick's mean over K folds (`evaluation.folds`); and the
harness pick's 95% interval (the bootstrap of its held-out rows) and whether the pick's
hidden-test score fell inside it.

Ensembles: `single` is the hidden-test score of the best single node's final submission (its refit when it was
refit), `score` that of the delivered submission; `delivered` says whether the run delivered a blend (and of how
many nodes) or the single node, and the mean row counts how often the blend was chosen.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from flows.prefect_env import apply_prefect_defaults

apply_prefect_defaults(PREFECT_LOGGING_LEVEL="ERROR")

from prefect.settings import temporary_settings  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from flows.competition import CompetitionParams, competition_flow  # noqa: E402
from swarm.competitions import grade_submission, list_bundled, load_competition  # noqa: E402
from swarm.config import AgentConfig  # noqa: E402
from swarm.journal import Journal  # noqa: E402
from swarm.metric import MetricValue  # noqa: E402

POLICIES = {
    "aide": ["search.policy=aide"],
    "ga": [
        "search.policy=ga",
        "evolution.population_size=6",
        "evolution.elite_size=2",
        "evolution.ga_min_population=3",
        "evolution.evolution_interval=2",
        "evolution.min_records_for_evolution=8",
    ],
    "mcts": ["search.policy=mcts"],
}


def steps_to_bronze(run_dir: Path, competition: Any) -> tuple[int | None, list[float | None]]:
    """The first step after which the run's pick (best validation metric so far) reached bronze, and the
    hidden-answer score of that pick after every step."""
    journal = Journal.load(run_dir / "journal.jsonl")
    best: MetricValue | None = None
    pick_score: float | None = None
    scores: list[float | None] = []
    reached: int | None = None
    for index, node in enumerate(journal, start=1):
        submission = node.meta.submission_path
        if node.is_good and node.metric is not None and submission and (best is None or node.metric > best):
            best = node.metric
            report = grade_submission(competition, submission)
            pick_score = report.score if report.valid else None
            if reached is None and report.any_medal:
                reached = index
        scores.append(pick_score)
    return reached, scores


def picks(journal: Journal, competition: Any, picked: str | None = None) -> dict[str, float | None]:
    """Hidden-test scores of the node picked by the harness score (`picked`, where the run's folds picked
    another) and of the one the printed claims would pick, and the mean |claimed - harness| over good nodes that
    have both."""
    lower = competition.metric.lower_is_better
    good = [n for n in journal.good_nodes() if n.meta.submission_path]

    def hidden(node: Any) -> float | None:
        if node is None:
            return None
        report = grade_submission(competition, node.meta.submission_path)
        return report.score if report.valid else None

    def best(key: Any) -> Any:
        scored = [n for n in good if key(n) is not None]
        return min(scored, key=lambda n: key(n) if lower else -key(n)) if scored else None

    gaps = [
        abs(n.meta.claimed_metric - n.metric.value)
        for n in good
        if n.meta.claimed_metric is not None and n.metric and n.metric.value is not None
    ]
    pick = journal.get(picked) if picked else best(lambda n: n.metric.value if n.metric else None)
    pick_score = hidden(pick)
    interval = pick.meta.score_interval if pick is not None else None
    return {
        "harness_pick_score": pick_score,
        "harness_pick_interval": interval,
        "hidden_inside_interval": inside(interval, pick_score),
        "printed_pick_score": hidden(best(lambda n: n.meta.claimed_metric)),
        "claim_gap": statistics.mean(gaps) if gaps else None,
    }


def folds_judged(trusted: dict[str, Any], summary: dict[str, Any]) -> dict[str, Any]:
    """`picks`' figures, with the pick's interval that of its mean over the folds where the run scored on folds
    (the harness figure reported is then that mean, not the search's one fold)."""
    if summary.get("validation_mean_over_folds") is None:
        return trusted
    interval = summary.get("validation_mean_over_folds_interval")
    return trusted | {
        "harness_pick_interval": interval,
        "hidden_inside_interval": inside(interval, trusted.get("harness_pick_score")),
    }


def inside(interval: list[float] | None, hidden: float | None) -> bool | None:
    """Whether the hidden-test score lies within the harness score's 95% interval; None where either is missing.
    (The hidden score is itself measured on a sample of rows, so even a true interval misses it more often
    than 5% of the time.)"""
    if not interval or hidden is None:
        return None
    return bool(interval[0] <= hidden <= interval[1])


def relative_gap(harness: float | None, hidden: float | None) -> float | None:
    """|harness - hidden| / |hidden|: how far the harness's score of a node is from its hidden score (a
    measure of whether the split follows how the test was drawn); None where either is missing or hidden is 0."""
    if harness is None or hidden is None or hidden == 0:
        return None
    return round(abs(harness - hidden) / abs(hidden), 4)


def run_one(competition_id: str, policy: str, seed: int, args: argparse.Namespace, root: Path) -> dict:
    run_dir = root / f"{competition_id}-{policy}-{seed}"
    overrides = [
        f"project.cache_dir={args.cache_dir}",
        f"project.seed={seed}",
        f"data.competition={competition_id}",
        "execution.sandbox=local",
        f"execution.timeout_s={args.timeout}",
        *(f"llm.{stage}.provider=offline" for stage in ("code", "feedback", "evolution")),
        f"agent.max_steps={args.steps}",
        f"search.parallel={args.parallel}",
        "search.num_drafts=3",
        "evolution.steps_per_epoch=4",
        f"evaluation.split={args.split}",
        f"evaluation.folds={args.folds}",
        *POLICIES[policy],
    ]
    started = time.perf_counter()
    summary = competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
    seconds = time.perf_counter() - started
    competition = load_competition(competition_id, args.cache_dir)
    reached, curve = steps_to_bronze(run_dir, competition)
    grade = summary.get("grade") or {}
    journal = Journal.load(run_dir / "journal.jsonl")
    folds_mean = summary.get("validation_mean_over_folds")
    trusted = folds_judged(
        picks(journal, competition, summary.get("best_node") if folds_mean is not None else None), summary
    )
    harness = folds_mean if folds_mean is not None else summary.get("validation_metric")
    single = summary.get("single_submission")
    single_grade = grade_submission(competition, single) if single else None
    return {
        "competition": competition_id,
        "policy": policy,
        "seed": seed,
        "steps": len(journal),
        "buggy": len(journal.buggy_nodes()),
        "task_types": sorted({n.task_type for n in journal}),
        "score": grade.get("score"),
        "medal": grade.get("medal"),
        "bronze_threshold": grade.get("bronze_threshold"),
        "steps_to_bronze": reached,
        "pick_score_by_step": curve,
        "validation_source": summary.get("validation_source"),
        "refit": summary.get("refit"),
        **trusted,
        # What the harness said of the node it picked (its mean over the folds, with evaluation.folds), and how
        # far the hidden answers are from it (relative).
        "harness_score": harness,
        "harness_gap": relative_gap(harness, trusted.get("harness_pick_score")),
        "folds": len((summary.get("folds") or {}).get("folds") or []) or 1,
        "delivered": summary.get("delivered"),
        "single_score": single_grade.score if single_grade is not None and single_grade.valid else None,
        "ensemble_members": len(((summary.get("ensemble") or {}).get("choice") or {}).get("weights") or {}),
        "seconds": round(seconds, 1),
    }


def print_tables(results: list[dict], console: Console) -> None:
    for competition_id in dict.fromkeys(r["competition"] for r in results):
        rows = [r for r in results if r["competition"] == competition_id]
        table = Table(title=f"{competition_id} (bronze at {rows[0]['bronze_threshold']})")
        columns = (
            "policy",
            "seed",
            "score",
            "medal",
            "steps to bronze",
            "harness pick",
            "pick interval",
            "inside",
            "printed pick",
            "claim gap",
            "harness gap",
            "single",
            "delivered",
            "buggy/steps",
            "s",
        )
        for column in columns:
            table.add_column(column, justify="right")
        for r in rows:
            table.add_row(
                r["policy"],
                str(r["seed"]),
                _num(r["score"]),
                r["medal"] or "none",
                "-" if r["steps_to_bronze"] is None else str(r["steps_to_bronze"]),
                _num(r.get("harness_pick_score")),
                _bounds(r.get("harness_pick_interval")),
                _yes_no(r.get("hidden_inside_interval")),
                _num(r.get("printed_pick_score")),
                _num(r.get("claim_gap")),
                _num(r.get("harness_gap")),
                _num(r.get("single_score")),
                _delivered(r),
                f"{r['buggy']}/{r['steps']}",
                f"{r['seconds']:.0f}",
            )
        for policy in dict.fromkeys(r["policy"] for r in rows):
            mine = [r for r in rows if r["policy"] == policy]
            scores = [r["score"] for r in mine if r["score"] is not None]
            medals = sum(1 for r in mine if r["medal"])
            table.add_row(
                f"[b]{policy} mean[/b]",
                "",
                f"{statistics.mean(scores):.5g}" if scores else "-",
                f"{medals}/{len(mine)} medals",
                "",
                _mean(mine, "harness_pick_score"),
                "",
                f"{sum(1 for r in mine if r.get('hidden_inside_interval'))}/{len(mine)}",
                _mean(mine, "printed_pick_score"),
                _mean(mine, "claim_gap"),
                _mean(mine, "harness_gap"),
                _mean(mine, "single_score"),
                f"blend {sum(1 for r in mine if r.get('delivered') == 'ensemble')}/{len(mine)}",
                "",
                "",
            )
        console.print(table)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.5g}"


def _bounds(interval: list[float] | None) -> str:
    return "-" if not interval else f"[{interval[0]:.4g}, {interval[1]:.4g}]"


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _delivered(row: dict) -> str:
    """The delivered submission: its hidden-test score is the `score` column; here what it was."""
    if row.get("delivered") == "ensemble":
        return f"blend of {row['ensemble_members']}"
    return row.get("delivered") or "-"


def _mean(rows: list[dict], key: str) -> str:
    values = [r[key] for r in rows if r.get(key) is not None]
    return f"{statistics.mean(values):.5g}" if values else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--steps",
        type=int,
        default=AgentConfig().max_steps,
        help="steps per run, the same for both policies (default: the main job's budget, agent.max_steps)",
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--competitions", nargs="+", default=None, help="default: every bundled one")
    parser.add_argument("--policies", nargs="+", default=list(POLICIES), choices=list(POLICIES))
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument(
        "--split",
        default="auto",
        help="evaluation.split for every run (e.g. stratified, to compare with auto's)",
    )
    parser.add_argument(
        "--folds",
        default="auto",
        help="evaluation.folds: score the best candidates on this many folds (default auto, as the main job)",
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="per-execution timeout (s)")
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "swarm-bench-cache")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/search_quality.json"))
    args = parser.parse_args(argv)
    competitions = args.competitions or list_bundled()
    console = Console()
    results: list[dict] = []
    with (
        tempfile.TemporaryDirectory(prefix="swarm-search-") as tmp,
        temporary_settings(updates={"flows.heartbeat_frequency": None}),
    ):
        for competition_id in competitions:
            for seed in args.seeds:
                for policy in args.policies:
                    result = run_one(competition_id, policy, seed, args, Path(tmp))
                    console.print(
                        f"{competition_id} {policy} seed {seed}: score {result['score']}, "
                        f"medal {result['medal'] or 'none'}, {result['seconds']:.0f} s"
                    )
                    results.append(result)
    print_tables(results, console)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "results": results}, indent=1)
    )
    console.print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
