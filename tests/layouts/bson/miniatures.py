"""Miniatures of cdiscount-image-classification-challenge's BSON documents, a product each: the census's
(`cdiscount`) and a larger one for the no-key run (`bson_documents_competition`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.layouts.bson import reader as bson_records
from tests.layouts.kit import dirs


def cdiscount(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """cdiscount-image-classification-challenge: `train.bson` (`_id`, `category_id`, `imgs`: a list of
    `{picture: <bytes>}`), `test.bson` (`_id`, `imgs`), `train_example.bson` (the first train records),
    `category_names.csv` (`category_id`, `category_level1`-`3`), `sample_submission.csv` `_id`, `category_id` =
    1000010653; `private/answers.csv` the test's categories. Here a product's pictures are larger the later its
    category in `categories`."""
    public, private = dirs(root, "accuracy", "# Cdiscount\n\nScored by accuracy.\n")
    rng = np.random.default_rng(126)
    ids = sorted(int(v) for v in rng.choice(10**6, n_train + n_test, replace=False))
    categories = [1000010653, 1000010667, 1000004079]

    def product(k: int, i: int, labelled: bool) -> dict:
        pictures = [
            {"picture": bytes(int(rng.integers(1, 30)) + 100 * (k % 3))}
            for _ in range(int(rng.integers(1, 3)))
        ]
        return {"_id": i, **({"category_id": categories[k % 3]} if labelled else {}), "imgs": pictures}

    train = [product(k, i, True) for k, i in enumerate(ids[:n_train])]
    test = [product(k, i, False) for k, i in enumerate(ids[n_train:], start=n_train)]
    (public / "train.bson").write_bytes(b"".join(map(bson_records.encode, train)))
    (public / "test.bson").write_bytes(b"".join(map(bson_records.encode, test)))
    (public / "train_example.bson").write_bytes(b"".join(map(bson_records.encode, train[:5])))
    names = {"category_id": categories, "category_level1": "ABONNEMENT / SERVICES",
             "category_level2": "CARTE PREPAYEE", "category_level3": ["CARTE A", "CARTE B", "CARTE C"]}  # fmt: skip
    pd.DataFrame(names).to_csv(public / "category_names.csv", index=False)
    pd.DataFrame({"_id": ids[n_train:], "category_id": 1000010653}).to_csv(
        public / "sample_submission.csv", index=False
    )
    answers = [categories[k % 3] for k in range(n_train, n_train + n_test)]
    pd.DataFrame({"_id": ids[n_train:], "category_id": answers}).to_csv(private / "answers.csv", index=False)
    return root


def bson_documents_competition(root: Path) -> Path:
    """cdiscount-image-classification-challenge's layout (cdiscount): a BSON document per product (its
    pictures as bytes) in train.bson with its category, in test.bson without."""
    return cdiscount(root, n_train=120, n_test=30)
