"""Time and memory of the harness's split of a log whose later events are the targets, and of the offline coder's
recommendations over it (h-and-m-personalized-fashion-recommendations' layout).

    python -m benchmarks.later_events_split [--rows 3000000] [--customers 300000] [--articles 30000] [--days 365]
                                            [--json benchmarks/results/later_events_split.json]

Writes a synthetic h-and-m-like public dir (`transactions_train.csv` of `--rows` purchases over `--days` days,
sorted by day, ids of 64 hex digits as Kaggle's; `sample_submission.csv` every customer with 12 article ids) a
block at a time, then builds the harness split (swarm/layouts/later_events/split.py: the log read and written
in chunks, its last 7 days held out) and the offline coder's recommendations for every customer of the sample
(swarm/layouts/later_events/reader.py's `recommended`), each in a process of its own. Prints the seconds and peak resident memory
of each.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import write_json
from swarm.competitions import load_competition
from swarm.layouts.holdout import build_holdout
from swarm.layouts.later_events.reader import later_events_fields, recommended

DESCRIPTION = """# Synthetic H&M

Predict the articles each customer will purchase in the 7-day period immediately after the training data ends.
Scored by MAP@12.
"""
BLOCK = 500_000  # purchases written at a time


def write_competition(root: Path, rows: int, customers: int, articles: int, days: int) -> int:
    """The public dir; returns the log's size in bytes."""
    public = root / "prepared" / "public"
    public.mkdir(parents=True)
    (root / "prepared" / "private").mkdir()
    (public / "description.md").write_text(DESCRIPTION)
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "map_at_k", "params": {"k": 12}}}))
    rng = np.random.default_rng(0)
    ids = np.array([f"{v:064x}" for v in rng.integers(0, 2**62, customers)])
    items = np.array([f"{v}" for v in rng.choice(10**8, articles, replace=False) + 10**8])
    first = pd.Timestamp("2019-09-23")
    with open(public / "transactions_train.csv", "w") as log:
        log.write("t_dat,customer_id,article_id,price,sales_channel_id\n")
        for start in range(0, rows, BLOCK):
            count = min(BLOCK, rows - start)
            day = (np.arange(start, start + count) * days) // rows  # sorted by day, as Kaggle's
            dates = (first + pd.to_timedelta(day, unit="D")).strftime("%Y-%m-%d")
            block = pd.DataFrame(
                {
                    "t_dat": dates,
                    "customer_id": ids[rng.integers(0, customers, count)],
                    "article_id": items[np.minimum(rng.zipf(1.3, count), articles) - 1],
                    "price": np.round(rng.uniform(0.01, 0.1, count), 6),
                    "sales_channel_id": rng.integers(1, 3, count),
                }
            )
            block.to_csv(log, header=False, index=False)
    sample = pd.DataFrame({"customer_id": ids, "prediction": " ".join("0" + i for i in items[:12])})
    sample.drop_duplicates("customer_id").to_csv(public / "sample_submission.csv", index=False)
    return (public / "transactions_train.csv").stat().st_size


def peak_mb() -> float:
    """This process's own peak resident memory (Linux's VmHWM, which a new process starts afresh; ru_maxrss
    carries the parent's peak across fork and exec), else ru_maxrss."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _split(root: str, cache: str, queue: multiprocessing.Queue) -> None:
    """The harness split: (seconds, held-out ids, its description, peak resident MB of this process)."""
    competition = load_competition(root, Path(cache))
    start = time.perf_counter()
    holdout = build_holdout(competition, Path(cache).parent / "harness", fraction=0.2)
    queue.put((time.perf_counter() - start, len(holdout.ids), holdout.describe(), peak_mb()))


def _recommend(public: str, queue: multiprocessing.Queue) -> None:
    """The offline coder's recommendations for every customer of the sample: (seconds, MAP@12 on the log's own
    last week, customers, peak resident MB of this process)."""
    start = time.perf_counter()
    sample = pd.read_csv(Path(public) / "sample_submission.csv", dtype=str, keep_default_na=False)
    fields = later_events_fields(public, sample)
    strings, score = recommended(public, fields, sample["customer_id"].tolist(), 7)
    queue.put((time.perf_counter() - start, score, len(strings), peak_mb()))


def in_child(target, *args) -> tuple:
    """What `target(*args, queue)` puts on its queue, run in a new process (so that its memory is its own)."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=target, args=(*args, queue))
    child.start()
    found = queue.get()
    child.join()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--customers", type=int, default=300_000)
    parser.add_argument("--articles", type=int, default=30_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--json", default="benchmarks/results/later_events_split.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "h-and-m"
        size = write_competition(root, args.rows, args.customers, args.articles, args.days)
        seconds, held_ids, described, split_mb = in_child(_split, str(root), str(Path(tmp) / "cache"))
        public = str(root / "prepared" / "public")
        rec_seconds, rec_map, rec_customers, rec_peak_mb = in_child(_recommend, public)
    print(
        f"later-events split: {args.rows:,} purchases ({size / 1e6:,.0f} MB), {held_ids:,} customers held out"
    )
    print(f"  {seconds:.1f} s, peak resident memory {split_mb:.0f} MB")
    print(f"  {described}")
    print(
        f"offline recommendations: {rec_customers:,} customers in {rec_seconds:.1f} s, peak resident memory "
        f"{rec_peak_mb:.0f} MB, MAP@12 {rec_map:.4f} on the log's own last week"
    )
    write_json(
        Path(args.json),
        args,
        {
            "rows": args.rows,
            "log_mb": round(size / 1e6),
            "held_ids": held_ids,
            "seconds": round(seconds, 2),
            "peak_rss_mb": round(split_mb),
            "split": described,
            "recommend_seconds": round(rec_seconds, 2),
            "recommend_peak_rss_mb": round(rec_peak_mb),
            "recommend_map": round(rec_map, 4),
        },
    )


if __name__ == "__main__":
    main()
