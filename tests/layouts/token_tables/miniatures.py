"""Miniatures of 3d-object-detection-for-autonomous-vehicles' nuScenes-style JSON tables linked by tokens: the
census's (`lyft_3d`) and a larger one for the no-key run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, write_files


def lyft_3d(root: Path, n_scenes: int = 5, n_test: int = 1, samples: int = 4) -> Path:
    """3d-object-detection-for-autonomous-vehicles: `train.csv` (`Id` a sample token of 64 hex digits,
    `PredictionString` of 8 tokens an object: `x y z width length height yaw class`), `train_data/` and `test_data/`
    of nuScenes-style JSON tables (`log.json`, `scene.json`, `sample.json` keyed by `token`, `sample_data.json`
    naming each sample's lidar file by `sample_token`; `sample_annotation.json` in train only), the lidar files in
    `train_lidar/` and `test_lidar/`, `sample_submission.csv` `Id`, `PredictionString` (empty); the answers with a
    confidence of 1.0 before each object. The metric: `lyft_3d_map`."""
    public, private = dirs(
        root, "lyft_3d_map", "# Lyft 3D\n\nScored by the mean average precision over 3D IoU.\n"
    )
    rng = np.random.default_rng(173)
    rows: dict[str, list] = {"train": [], "test": []}
    for k in range(n_scenes):
        side = "test" if k >= n_scenes - n_test else "train"
        tables = rows[side]
        log, scene = f"{k:064x}"[::-1], f"{k + 100:064x}"[::-1]
        tables.append(("log", {"token": log}))
        tables.append(("scene", {"token": scene, "log_token": log, "nbr_samples": samples}))
        for s in range(samples):
            token = f"{k * 1000 + s + 7:064x}"
            objects = " ".join(
                " ".join(
                    f"{v:.3f}" for v in (*rng.uniform(0, 50, 3), *rng.uniform(1, 4, 3), rng.uniform(-3, 3))
                )
                + f" {name}"
                for name in rng.choice(["car", "pedestrian"], 2)
            )
            tables.append(("sample", {"token": token, "scene_token": scene, "timestamp": s}))
            lidar = f"lidar/host-{k}_lidar_{s}.bin"
            tables.append(
                ("sample_data", {"token": f"d{token[1:]}", "sample_token": token, "filename": lidar})
            )
            write_files(public / f"{side}_lidar", [Path(lidar).name])
            tables.append(("boxes", {"Id": token, "PredictionString": objects}))
            if side == "train":
                tables.append(("sample_annotation", {"token": f"a{token[1:]}", "sample_token": token}))
    for side, tables in rows.items():
        for name in ("log", "scene", "sample", "sample_data", "sample_annotation"):
            records = [record for table, record in tables if table == name]
            if records:
                (public / f"{side}_data").mkdir(exist_ok=True)
                (public / f"{side}_data" / f"{name}.json").write_text(json.dumps(records))
    train = pd.DataFrame([record for table, record in rows["train"] if table == "boxes"])
    test = pd.DataFrame([record for table, record in rows["test"] if table == "boxes"])
    train.to_csv(public / "train.csv", index=False)
    with_confidence = test["PredictionString"].map(
        lambda cell: " ".join(
            f"1.0 {' '.join(cell.split()[i : i + 8])}" for i in range(0, len(cell.split()), 8)
        )
    )
    test.assign(PredictionString=with_confidence).to_csv(private / "test.csv", index=False)
    test.assign(PredictionString="").to_csv(public / "sample_submission.csv", index=False)
    return root


def token_tables_competition(root: Path) -> Path:
    """3d-object-detection-for-autonomous-vehicles' layout (lyft_3d): train.csv of sample tokens and their
    objects, the inputs nuScenes-style JSON tables linked by tokens and lidar files, the sample's strings
    empty."""
    return lyft_3d(root, n_scenes=8, n_test=1, samples=6)
