"""Time and memory of the harness's streamed split of a large parquet table (icecube's layout).

    python -m benchmarks.parquet_split [--rows 5000000] [--batches 110] [--test-batches 10]
                                       [--json benchmarks/results/parquet_split.json]

Writes a synthetic icecube-like public dir (`train_meta.parquet` of `--rows` events in `--batches` equal batches,
the last `--test-batches` of them as `test_meta.parquet`, each batch's pulses in `train/batch_<n>.parquet` or
`test/batch_<n>.parquet`, five an event) a batch at a time, then builds the harness split with
evaluation.max_train_mb below the table's size, so it is streamed (swarm/layouts/parquet_batches/split.py: the test
side's pulse files written anew under fresh ids). Prints the seconds the split took and this process's peak
resident memory (the table is never held whole: the data are written in batches, so the peak is the split's).
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks.common import write_json
from swarm.competitions import load_competition
from swarm.layouts.holdout import build_holdout


def write_competition(root: Path, rows: int, batches: int, test_batches: int) -> int:
    """The public dir; returns the number of test events."""
    public = root / "prepared" / "public"
    for folder in ("train", "test"):
        (public / folder).mkdir(parents=True)
    (root / "prepared" / "private").mkdir()
    (public / "description.md").write_text("# Synthetic IceCube\n\nScored by the mean angular error.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "mean_angular_error"}}))
    rng, per, first_test = np.random.default_rng(0), rows // batches, batches - test_batches + 1
    writers, test_rows = {}, 0
    for batch in range(1, batches + 1):
        frame = pd.DataFrame(
            {
                "batch_id": np.full(per, batch),
                "event_id": np.arange(per) + batch * per,
                "first_pulse_index": np.arange(per) * 5,
                "last_pulse_index": np.arange(per) * 5 + 4,
                "azimuth": rng.uniform(0, 2 * np.pi, per),
                "zenith": rng.uniform(0, np.pi, per),
            }
        )
        test = batch >= first_test
        if test:
            frame = frame.drop(columns=["azimuth", "zenith"])
            test_rows += per
        name = "test_meta.parquet" if test else "train_meta.parquet"
        table = pa.Table.from_pandas(frame, preserve_index=False)
        if name not in writers:
            writers[name] = pq.ParquetWriter(public / name, table.schema)
        writers[name].write_table(table)
        events = frame["event_id"].to_numpy()
        pulses = pd.DataFrame(  # five pulses an event, as first_pulse_index and last_pulse_index say
            {
                "event_id": np.repeat(events, 5),
                "sensor_id": rng.integers(0, 5160, 5 * per),
                "time": rng.integers(6000, 20000, 5 * per),
                "charge": rng.uniform(0.2, 3, 5 * per),
                "auxiliary": rng.random(5 * per) < 0.5,
            }
        )
        pulses.set_index("event_id").to_parquet(
            public / ("test" if test else "train") / f"batch_{batch}.parquet"
        )
    for writer in writers.values():
        writer.close()
    ids = np.concatenate([np.arange(per) + b * per for b in range(first_test, batches + 1)])
    pd.DataFrame({"event_id": ids, "azimuth": 1, "zenith": 1}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return test_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--batches", type=int, default=110)
    parser.add_argument("--test-batches", type=int, default=10)
    parser.add_argument("--json", default="benchmarks/results/parquet_split.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "icecube"
        test_rows = write_competition(root, args.rows, args.batches, args.test_batches)
        competition = load_competition(str(root), Path(tmp) / "cache")
        start = time.perf_counter()
        holdout = build_holdout(competition, Path(tmp) / "harness", fraction=0.2, max_train_mb=0.001)
        seconds = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        held = len(holdout.ids)
        described = holdout.describe()
    labelled = args.rows // args.batches * (args.batches - args.test_batches)
    print(f"streamed parquet split: {labelled:,} labelled rows, {test_rows:,} test rows, {held:,} held out")
    print(f"  {seconds:.1f} s, peak resident memory {peak_mb:.0f} MB")
    print(f"  {described}")
    write_json(
        Path(args.json),
        args,
        {
            "labelled_rows": labelled,
            "test_rows": test_rows,
            "held_rows": held,
            "seconds": round(seconds, 2),
            "peak_rss_mb": round(peak_mb),
            "split": described,
        },  # fmt: skip
    )


if __name__ == "__main__":
    main()
