"""Miniatures of the plain labelled table: a table beside a test table (`make_competition`,
`binary_competition`), labels beside image folders (`image_competition`, `labels_table_competition`, seti's
filing by the id's first character), images only in archives (aerial-cactus-identification), and `read`, a
written table as text. The census's miniatures of plain-table competitions are in the other modules here, by
kind."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

from tests.competitions.archive_builders import make_zip


def make_competition(
    root: Path,
    train: pd.DataFrame,
    test: pd.DataFrame,
    sample: pd.DataFrame,
    metric: str,
    meta: dict | None = None,
) -> Path:
    """An MLE-bench layout: prepared/public with the three CSVs and a description, answers in private/."""
    public = root / "prepared" / "public"
    private = root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    train.to_csv(public / "train.csv", index=False)
    test.to_csv(public / "test.csv", index=False)
    sample.to_csv(public / "sample_submission.csv", index=False)
    sample.to_csv(private / "answers.csv", index=False)
    (public / "description.md").write_text("# A competition\n", encoding="utf-8")
    data = {"metric": {"name": metric}, **(meta or {})}
    (root / "competition.json").write_text(json.dumps(data), encoding="utf-8")
    return root


def binary_competition(root: Path, n_train: int = 200, n_test: int = 50, first_test_id: int = 1001) -> Path:
    rng = np.random.default_rng(0)
    labels = np.array([0] * (n_train * 3 // 4) + [1] * (n_train - n_train * 3 // 4))
    train = pd.DataFrame({"id": np.arange(1, n_train + 1), "x": rng.normal(size=n_train), "y": labels})
    test_ids = np.arange(first_test_id, first_test_id + n_test)
    test = pd.DataFrame({"id": test_ids, "x": rng.normal(size=n_test)})
    sample = pd.DataFrame({"id": test_ids, "y": 0})
    return make_competition(root, train, test, sample, "accuracy")


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def image_competition(
    root: Path, table: str = "train_labels.csv", suffix: str = "", n_train: int = 40, n_test: int = 10
) -> Path:
    """Images in train/ and test/ named `<id>.tif`, labels in `table` (ids with `suffix`: "" = stems)."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    for folder in (public / "train", public / "test", private):
        folder.mkdir(parents=True)
    rng = np.random.default_rng(7)
    train_ids = [f"{rng.integers(16**12):012x}" for _ in range(n_train)]
    test_ids = [f"{rng.integers(16**12):012x}" for _ in range(n_test)]
    for folder, ids in (("train", train_ids), ("test", test_ids)):
        for name in ids:
            (public / folder / f"{name}.tif").write_bytes(f"{folder}/{name}".encode())
    labels = pd.DataFrame({"id": [i + suffix for i in train_ids], "label": [0, 1] * (n_train // 2)})
    labels.to_csv(public / table, index=False)
    sample = pd.DataFrame({"id": [i + suffix for i in test_ids], "label": 0.5})
    sample.to_csv(public / "sample_submission.csv", index=False)
    sample.assign(label=[0, 1] * (n_test // 2)).to_csv(private / "answers.csv", index=False)
    (public / "description.md").write_text("# Tissue\n\nPredict `label`; scored by ROC AUC.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "auc"}}))
    return root


def filed_by_first_character(root: Path) -> Path:
    """seti's filing: `train/<c>/<id>.npy`, `test/<c>/<id>.npy` (here `.tif`), c the id's first character."""
    for folder in ("train", "test"):
        for path in list((root / "prepared" / "public" / folder).iterdir()):
            (path.parent / path.stem[0]).mkdir(exist_ok=True)
            path.rename(path.parent / path.stem[0] / path.name)
    return root


def seti(root: Path) -> Path:
    """seti-breakthrough-listen: image_competition's layout, each file filed under its id's first character."""
    return filed_by_first_character(image_competition(root))


def labels_table_competition(root: Path, n_train: int = 80, n_test: int = 24) -> Path:
    """Bright and dark 16x16 PNGs named `<hex id>.png` in train/ and test/; labels in train_labels.csv with
    ids that are the files' stems; the sample submission lists the test ids; answers in private/."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    for folder in (public / "train", public / "test", private):
        folder.mkdir(parents=True)
    rng = np.random.default_rng(11)
    ids = [f"{value:012x}" for value in rng.choice(16**10, size=n_train + n_test, replace=False)]
    labels = rng.integers(0, 2, size=n_train + n_test)
    for k, (name, label) in enumerate(zip(ids, labels, strict=True)):
        base = 170 if label else 70
        pixels = np.clip(rng.normal(base, 30, size=(16, 16)), 0, 255).astype(np.uint8)
        Image.fromarray(pixels, mode="L").save(public / ("train" if k < n_train else "test") / f"{name}.png")
    pd.DataFrame({"id": ids[:n_train], "label": labels[:n_train]}).to_csv(
        public / "train_labels.csv", index=False
    )
    pd.DataFrame({"id": ids[n_train:], "label": 0}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"id": ids[n_train:], "label": labels[n_train:]}).to_csv(
        private / "answers.csv", index=False
    )
    (public / "description.md").write_text("# Bright or dark\n\nPredict `label` for each image in test/.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "accuracy"}}))
    return root


FAKE_JPEG = b"\xff\xd8\xff\xe0 not really a jpeg "


def cactus(root: Path, n_train: int = 40, n_test: int = 20) -> Path:
    """A miniature aerial-cactus-identification: ids `<hex>.jpg`, images only in train.zip and test.zip."""
    rng = random.Random(0)
    ids = [f"{rng.getrandbits(64):016x}.jpg" for _ in range(n_train + n_test)]
    train_ids, test_ids = ids[:n_train], ids[n_train:]
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text("# Aerial cactus\n\nPredict has_cactus; scored by ROC AUC.\n")
    labels = [i % 2 for i in range(n_train)]
    pd.DataFrame({"id": train_ids, "has_cactus": labels}).to_csv(public / "train.csv", index=False)
    pd.DataFrame({"id": test_ids, "has_cactus": 0.5}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"id": test_ids, "has_cactus": [i % 2 for i in range(n_test)]}).to_csv(
        private / "test.csv", index=False
    )
    make_zip(public / "train.zip", {f"train/{i}": FAKE_JPEG + i.encode() for i in train_ids})
    make_zip(public / "test.zip", {f"test/{i}": FAKE_JPEG + i.encode() for i in test_ids})
    return root
