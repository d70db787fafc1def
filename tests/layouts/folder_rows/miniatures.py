"""Miniatures of smartphone-decimeter-2022's labels table in each example folder, keyed by the folder and a
time: the census's (`smartphone`, GNSS tables along tracks) and a larger one for the no-key run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, write_files


def smartphone(root: Path, n_drives: int = 6, n_test: int = 2) -> Path:
    """smartphone-decimeter-2022: `train/<drive>/<phone>/` (`device_gnss.csv`, `device_imu.csv`,
    `ground_truth.csv`), `test/<drive>/<phone>/` without `ground_truth.csv`, `metadata/`, `sample_submission.csv`
    `tripId` = `<drive>-<phone>`, `UnixTimeMillis`, `LatitudeDegrees`, `LongitudeDegrees` (many rows a trip):
    `smartphone_tracks` at 5 seconds a trip. The metric: `trip_distance_error` grouped by `tripId`."""
    return smartphone_tracks(root, n_drives, n_test, seconds=5)


def ecef(latitude: np.ndarray, longitude: np.ndarray, height: float = 10.0) -> tuple:
    """WGS84 earth-centred coordinates (metres) of points given in degrees."""
    a, e2 = 6378137.0, 6.69437999014e-3
    phi, lam = np.radians(latitude), np.radians(longitude)
    n = a / np.sqrt(1 - e2 * np.sin(phi) ** 2)
    return (
        (n + height) * np.cos(phi) * np.cos(lam),
        (n + height) * np.cos(phi) * np.sin(lam),
        (n * (1 - e2) + height) * np.sin(phi),
    )


def smartphone_tracks(root: Path, n_drives: int = 10, n_test: int = 2, seconds: int = 40) -> Path:
    """smartphone-decimeter-2022's layout, with tracks: each drive a straight run from its own start within about
    300 m of (37.4, -122.1), so that drives cross the same streets, for `seconds` seconds, each phone's `ground_truth.csv` (`MessageType`, `Provider`,
    `LatitudeDegrees`, `LongitudeDegrees`, `AltitudeMeters`, `UnixTimeMillis`) a row a second, its
    `device_gnss.csv` four rows a second (a satellite each: `utcTimeMillis`, `Svid`, `Cn0DbHz`, and the epoch's
    `WlsPositionXEcefMeters`, `...Y...`, `...Z...`, the true position a few metres off) and `device_imu.csv` ten
    rows a second; `private/test.csv` the test phones' rows. The metric: `trip_distance_error` by `tripId`."""
    public, private = dirs(
        root,
        "trip_distance_error",
        "# Smartphone Decimeter\n\nScored by distance errors.\n",
        {"group_column": "tripId"},
    )
    rng = np.random.default_rng(167)
    answers = []
    for k in range(n_drives):
        drive = f"2021-{k % 12 + 1:02d}-{10 + k}-US-SJC-{k}"
        side = "test" if k >= n_drives - n_test else "train"
        start = 1_600_000_000_000 + k * 10_000_000
        lat0, lon0 = 37.4 + rng.uniform(-0.003, 0.003), -122.1 + rng.uniform(-0.003, 0.003)
        heading = rng.uniform(0, 2 * np.pi)
        for phone in ("GooglePixel4", "SamsungS20Ultra"):
            folder = public / side / drive / phone
            folder.mkdir(parents=True)
            times = start + 1000 * np.arange(seconds)
            lat = lat0 + 1e-4 * np.arange(seconds) * np.cos(heading)
            lon = lon0 + 1e-4 * np.arange(seconds) * np.sin(heading)
            truth = pd.DataFrame(
                {"MessageType": "Fix", "Provider": "GT", "LatitudeDegrees": lat, "LongitudeDegrees": lon,
                 "AltitudeMeters": 10.0, "UnixTimeMillis": times}
            )  # fmt: skip
            x, y, z = ecef(lat, lon)
            gnss = pd.DataFrame(
                {
                    "utcTimeMillis": np.repeat(times, 4),
                    "Svid": np.tile([3, 7, 12, 21], seconds),
                    "Cn0DbHz": rng.uniform(20, 45, 4 * seconds),
                    **{
                        f"WlsPosition{axis}EcefMeters": np.repeat(v + 3 * rng.standard_normal(seconds), 4)
                        for axis, v in (("X", x), ("Y", y), ("Z", z))
                    },
                }
            )
            gnss.to_csv(folder / "device_gnss.csv", index=False)
            imu_times = start + 100 * np.arange(10 * seconds)
            pd.DataFrame(
                {
                    "utcTimeMillis": imu_times,
                    "MessageType": "UncalAccel",
                    "MeasurementX": rng.standard_normal(10 * seconds),
                }
            ).to_csv(folder / "device_imu.csv", index=False)
            if side == "train":
                truth.to_csv(folder / "ground_truth.csv", index=False)
            else:
                answers.append(truth.assign(tripId=f"{drive}-{phone}"))
    write_files(public / "metadata", ["accumulated_delta_range_error.csv"])
    columns = ["tripId", "UnixTimeMillis", "LatitudeDegrees", "LongitudeDegrees"]
    test = pd.concat(answers, ignore_index=True)[columns]
    test.to_csv(private / "test.csv", index=False)
    test.assign(LatitudeDegrees=37.904611315634504, LongitudeDegrees=-86.48107806249548).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def folder_rows_competition(root: Path) -> Path:
    """smartphone-decimeter-2022's layout (smartphone_tracks): a folder per drive and phone, its
    `ground_truth.csv` (a row per second) in train/ only beside the GNSS and IMU tables, and the sample a row
    per test trip and second."""
    return smartphone_tracks(root, n_drives=14, n_test=3)
