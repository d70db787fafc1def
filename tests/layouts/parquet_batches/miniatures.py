"""Miniatures of icecube-neutrinos-in-deep-ice's parquet tables, the inputs filed by a batch column: the
census's (`icecube`) and one with learnable angles for the no-key run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs


def icecube(root: Path, n_batches: int = 8, n_test: int = 2, per_batch: int = 6) -> Path:
    """icecube-neutrinos-in-deep-ice: `train_meta.parquet` (`batch_id`, `event_id`, `first_pulse_index`,
    `last_pulse_index`, `azimuth`, `zenith`; written with fastparquet, whole batches drawn for the test),
    `test_meta.parquet` (the same without the two angles), the pulses `train/batch_<n>.parquet` and
    `test/batch_<n>.parquet` (a row per pulse, indexed by `event_id`: `sensor_id`, `time`, `charge`,
    `auxiliary`), `sensor_geometry.csv`, `sample_submission.csv` `event_id`, `azimuth`, `zenith` (1, 1)."""
    public, private = dirs(
        root,
        "mean_angular_error",
        "# IceCube\n\nScored by the mean angular error of the predicted direction.\n",
    )
    rng = np.random.default_rng(661)
    meta, event = [], 24
    for batch in range(1, n_batches + 1):
        pulses, first = [], 0
        for _ in range(per_batch):
            count = int(rng.integers(3, 7))
            meta.append(
                (
                    batch,
                    event,
                    first,
                    first + count - 1,
                    float(rng.uniform(0, 2 * np.pi)),
                    float(rng.uniform(0, np.pi)),
                )
            )
            for _ in range(count):
                pulses.append((event, int(rng.integers(0, 5160)), int(rng.integers(6000, 20000)),
                               float(rng.uniform(0.2, 3)), bool(rng.random() < 0.5)))  # fmt: skip
            first += count
            event += int(rng.integers(1, 40))
        folder = public / ("test" if batch > n_batches - n_test else "train")
        folder.mkdir(exist_ok=True)
        frame = pd.DataFrame(pulses, columns=["event_id", "sensor_id", "time", "charge", "auxiliary"])
        frame.set_index("event_id").to_parquet(folder / f"batch_{batch}.parquet")
    columns = ["batch_id", "event_id", "first_pulse_index", "last_pulse_index", "azimuth", "zenith"]
    table = pd.DataFrame(meta, columns=columns)
    test = table["batch_id"] > n_batches - n_test
    table[~test].to_parquet(public / "train_meta.parquet", index=False)
    table[test].drop(columns=["azimuth", "zenith"]).to_parquet(public / "test_meta.parquet", index=False)
    table[test][["event_id", "azimuth", "zenith"]].to_csv(private / "test.csv", index=False)
    table[test][["event_id"]].assign(azimuth=1, zenith=1).to_csv(
        public / "sample_submission.csv", index=False
    )
    sensors = pd.DataFrame({"sensor_id": range(5160), "x": 0.0, "y": 0.0, "z": 0.0})
    sensors.to_csv(public / "sensor_geometry.csv", index=False)
    return root


def parquet_batches_competition(root: Path) -> Path:
    """icecube-neutrinos-in-deep-ice's layout (icecube): the labels in `train_meta.parquet`, the test events
    in `test_meta.parquet`, the pulses in `train/batch_<n>.parquet` and `test/`, whole batches on each side;
    here an event's zenith grows with the index of its first pulse in its batch and its azimuth is near 1."""
    icecube(root, n_batches=12, n_test=3, per_batch=15)
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    rng = np.random.default_rng(5)

    def angles(table: pd.DataFrame) -> pd.DataFrame:
        noise = rng.normal(0, 0.05, (2, len(table)))
        return table.assign(azimuth=1.0 + noise[0], zenith=0.3 + 0.03 * table["first_pulse_index"] + noise[1])

    angles(pd.read_parquet(public / "train_meta.parquet")).to_parquet(
        public / "train_meta.parquet", index=False
    )
    test = angles(pd.read_parquet(public / "test_meta.parquet"))
    test[["event_id", "azimuth", "zenith"]].to_csv(private / "test.csv", index=False)
    return root
