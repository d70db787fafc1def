"""Miniatures of osic-pulmonary-fibrosis-progression's visits a row, each test patient's first in test.csv:
the census's (`osic`) and a larger one for the no-key run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, write_files


def osic(root: Path, n_train: int = 24, n_test: int = 6) -> Path:
    """osic-pulmonary-fibrosis-progression: `train.csv` a row per (patient, visit) (`Patient` = "ID" and 21
    digits, `Weeks`, `FVC`, `Percent`, `Age`, `Sex`, `SmokingStatus`), `test.csv` each test patient's first
    visit in the same columns, `sample_submission.csv` `Patient_Week` for every test patient and every week from
    the test visits' first to their last, `FVC` = 2000, `Confidence` = 100; `train/<Patient>/<n>.dcm`,
    `test/<Patient>/<n>.dcm`; `private/test.csv` the answers (the weeks without a visit have no FVC), as
    `prepare.py` writes them. Here FVC falls 5 ml a week from a baseline that grows with the patient's age. The
    metric: `laplace_log_likelihood`."""
    public, private = dirs(
        root, "laplace_log_likelihood", "# OSIC\n\nScored by the Laplace log likelihood.\n"
    )
    rng = np.random.default_rng(171)
    patients = [f"ID{v:021d}" for v in rng.choice(10**12, n_train + n_test, replace=False)]
    rows = []
    for patient in patients:
        age, first = int(rng.integers(50, 85)), int(rng.integers(-5, 10))
        sex, smoking = rng.choice(["Male", "Female"]), rng.choice(["Ex-smoker", "Never smoked"])
        for week in sorted({first, *rng.integers(first + 1, first + 60, 6).tolist()}):
            fvc = 1500 + 30 * (age - 50) - 5 * (week - first) + int(rng.integers(-40, 40))
            rows.append([patient, week, fvc, round(fvc / 40, 3), age, sex, smoking])
    columns = ["Patient", "Weeks", "FVC", "Percent", "Age", "Sex", "SmokingStatus"]
    table = pd.DataFrame(rows, columns=columns)
    train, test = (
        table[table["Patient"].isin(patients[:n_train])],
        table[table["Patient"].isin(patients[n_train:])],
    )
    train.to_csv(public / "train.csv", index=False)
    test.sort_values("Weeks").groupby("Patient").first().reset_index().to_csv(
        public / "test.csv", index=False
    )
    weeks = range(int(test["Weeks"].min()), int(test["Weeks"].max()) + 1)
    grid = pd.DataFrame(
        [(p, w) for p in test["Patient"].unique() for w in weeks], columns=["Patient", "Weeks"]
    )
    answers = grid.merge(test, on=["Patient", "Weeks"], how="left")
    answers["Patient_Week"] = answers["Patient"] + "_" + answers["Weeks"].astype(str)
    answers["Confidence"] = 100
    answers.to_csv(private / "test.csv", index=False)
    answers[["Patient_Week"]].assign(FVC=2000, Confidence=100).to_csv(
        public / "sample_submission.csv", index=False
    )
    for folder, group in (("train", patients[:n_train]), ("test", patients[n_train:])):
        write_files(public / folder, [f"{p}/{k}.dcm" for p in group for k in range(1, 3)])
    return root


def first_visits_competition(root: Path) -> Path:
    """osic-pulmonary-fibrosis-progression's layout (osic): a row per visit in train.csv, each test patient's
    first visit in test.csv, a sample row per test patient and week (`Patient_Week`) with `FVC` and
    `Confidence`, which no table holds."""
    return osic(root, n_train=80, n_test=16)
