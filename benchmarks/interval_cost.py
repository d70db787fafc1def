"""What the score's bootstrap interval adds to a review: the harness's scoring of one submission with and without
it, on every bundled competition and on a large made-up held-out set.

    python -m benchmarks.interval_cost [--competitions titanic ...] [--large-rows 100000] [--repeats 3]
                                       [--json benchmarks/results/interval_cost.json]

For each bundled competition the harness's split is built as a run builds it (20% held out, seed 0) and a
submission written for the view: each held-out row predicted by its own label (70%) or another row's (30%), so
the score is neither perfect nor chance. `Harness.evaluate` (what the review's bounded child runs: read, split,
score, and now the interval) is timed `--repeats` times, the interval's own seconds inside each call apart; the
table gives the medians of the scoring without the interval and of the interval (what it adds to a review), the
interval and its note.
`--large-rows` N adds made-up tables whose split holds out N rows (binary labels scored by accuracy and by ROC
AUC, a number by RMSE): there the bootstrap runs on a subsample (`swarm.competitions.score_interval.MAX_UNITS`).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import print_table, write_json
from swarm.competitions import list_bundled, load_competition
from swarm.competitions.competition import Competition
from swarm.competitions.loader import load_competition_dir
from swarm.config import Config
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from swarm.metric import with_interval

RIGHT_SHARE = 0.7


def held_out_submission(harness: Harness, path: Path, seed: int) -> None:
    """The view's sample submission with every held-out row predicted by its own label (`RIGHT_SHARE` of them)
    or another held-out row's."""
    spec, holdout = harness.spec, harness.holdout
    sample = pd.read_csv(holdout.public_dir / "sample_submission.csv", dtype=str, keep_default_na=False)
    labels = harness.labels.set_index(spec.id_column)
    rng = np.random.default_rng(seed)
    held = sample[spec.id_column].isin(labels.index)
    ids = sample.loc[held, spec.id_column]
    shuffled = rng.permutation(ids.to_numpy())
    wrong = rng.random(len(ids)) >= RIGHT_SHARE
    source = np.where(wrong, shuffled, ids.to_numpy())
    for column in spec.target_columns:
        if column in labels.columns:
            sample.loc[held, column] = labels.loc[source, column].to_numpy()
    sample.to_csv(path, index=False)


def timed(harness: Harness, submission: Path, out: Path, repeats: int) -> tuple[float, float, object]:
    """The median seconds of `harness.evaluate` without its interval and of the interval alone (each call's
    interval timed inside it), and the last result."""
    compute = harness.interval
    spent: list[float] = []

    def interval(rows: object, score: float) -> object:
        started = time.perf_counter()
        try:
            return compute(rows, score)  # type: ignore[arg-type]
        finally:
            spent.append(time.perf_counter() - started)

    harness.interval = interval  # type: ignore[method-assign]
    scoring, result = [], None
    try:
        for _ in range(repeats):
            started = time.perf_counter()
            result = harness.evaluate(submission, out / "test.csv", out / "heldout.csv")
            scoring.append(time.perf_counter() - started - spent[-1])
    finally:
        vars(harness).pop("interval", None)
    return statistics.median(scoring), statistics.median(spent), result


def measure(name: str, competition: Competition, root: Path, repeats: int, fraction: float = 0.2) -> dict:
    """One competition's figures: held-out rows, the scoring's seconds without the interval and the
    interval's own."""
    holdout = build_holdout(competition, root / "harness", fraction=fraction, seed=0)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    submission = root / "submission.csv"
    held_out_submission(harness, submission, seed=0)
    without, added, result = timed(harness, submission, root, repeats)
    interval = result.interval
    bounds = [interval.low, interval.high] if interval is not None and interval.known else None
    return {
        "competition": name,
        "metric": competition.metric.name,
        "split": holdout.split,
        "held_out_rows": len(holdout.ids),
        "score": result.score,
        "interval": bounds,
        "se": interval.se if interval is not None else None,
        "note": interval.note if interval is not None else None,
        "warning": interval.warning if interval is not None else None,
        "seconds_without": round(without, 4),
        "added_seconds": round(added, 4),
        "seconds_with": round(without + added, 4),
    }


def large_competition(root: Path, rows: int, metric: str) -> Competition:
    """A table of 2 x `rows` labelled rows (half of them held out) scored by `metric`."""
    from tests.layouts.tables.miniatures import make_competition  # the repository's tests: run from its root

    rng = np.random.default_rng(0)
    n = 2 * rows
    x = rng.normal(size=n)
    numeric = metric == "rmse"
    y = x + rng.normal(size=n) if numeric else (x + rng.normal(size=n) > 0).astype(int)
    train = pd.DataFrame({"id": np.arange(n), "x": x, "y": y})
    test = pd.DataFrame({"id": np.arange(n, n + 1000), "x": rng.normal(size=1000)})
    sample = pd.DataFrame({"id": test["id"], "y": 0.0 if numeric else 0})
    return load_competition_dir(make_competition(root / "c", train, test, sample, metric))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--competitions", nargs="*", default=None, help="bundled ids (default: all)")
    parser.add_argument(
        "--large-rows", type=int, default=100_000, help="held-out rows of the made-up tables (0: none)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cache-dir", type=Path, default=Config().project.cache_dir)
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/interval_cost.json"))
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="swarm-interval-") as tmp:
        for name in args.competitions if args.competitions is not None else list_bundled():
            competition = load_competition(name, args.cache_dir)
            results.append(measure(name, competition, Path(tmp) / name, args.repeats))
        if args.large_rows:
            for metric in ("accuracy", "auc", "rmse"):
                root = Path(tmp) / f"large-{metric}"
                competition = large_competition(root, args.large_rows, metric)
                results.append(measure(f"made-up ({metric})", competition, root, args.repeats, fraction=0.5))
    print_table(
        "The harness's scoring of one submission, with and without the score's interval",
        ["competition", "metric", "held-out rows", "score [95% interval]", "without s", "with s", "added s"],
        [
            [
                r["competition"],
                r["metric"],
                r["held_out_rows"],
                with_interval(r["score"], r["interval"]) if r["score"] is not None else "-",
                r["seconds_without"],
                r["seconds_with"],
                r["added_seconds"],
            ]
            for r in results
        ],
    )
    for r in results:
        for key in ("note", "warning"):
            if r[key]:
                print(f"{r['competition']}: {key}: {r[key]}")
    write_json(args.json, args, {"results": results})


if __name__ == "__main__":
    main()
