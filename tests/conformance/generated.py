"""A plain labelled table generated in the shapes the miniatures do not take: hundreds of classes, a class only
one training row has, a class only the test has, class labels pandas reads as missing. Its label is learnable
(each class has its own band of `x`, and its name is a word of `text`), so a run on it delivers a graded
submission."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs


def class_table(
    root: Path,
    classes: list[str],
    per_class: int = 6,
    n_test: int = 30,
    only_in_test: tuple[str, ...] = (),
    rare: tuple[str, ...] = (),
) -> Path:
    """train.csv (`id`, `x`, `text`, `label`), test.csv, sample_submission.csv (`id`, `label` = the first
    class), answers in private/: `per_class` training rows of each class (one of each `rare` class), and test rows
    of every class and of each of `only_in_test` (which no training row has); accuracy."""
    public, private = dirs(
        root, "accuracy", "# Classes\n\nPredict `label` for each row of test.csv; accuracy.\n"
    )
    rng = np.random.default_rng(7)
    counts = {c: 1 if c in rare else per_class for c in classes}
    train_labels = [c for c, n in counts.items() for _ in range(n)]
    test_labels = [*rng.choice(classes, n_test - len(only_in_test)), *only_in_test]
    band = {c: k for k, c in enumerate([*classes, *only_in_test])}

    def rows(labels: list[str], first: int) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "id": range(first, first + len(labels)),
                "x": [band[c] + rng.uniform(0.2, 0.8) for c in labels],
                "text": [f"a note on {c} today" for c in labels],
                "label": labels,
            }
        )

    train, test = rows(train_labels, 1), rows(test_labels, 100_000)
    train.sample(frac=1, random_state=0).to_csv(public / "train.csv", index=False)
    test.drop(columns="label").to_csv(public / "test.csv", index=False)
    test[["id"]].assign(label=classes[0]).to_csv(public / "sample_submission.csv", index=False)
    test[["id", "label"]].to_csv(private / "answers.csv", index=False)
    return root
