"""A sample written with its index and an id named as the tables name it but for case (issue 29): iwildcam-2019's
`sample_submission.csv` is `to_csv(index=True)` (an unnamed column 0..n-1, `Id`, `Category`) while train.csv
and test.csv call the id `id` and the target `category_id`. The harness reads the tables' `id` as the sample's
`Id`, writes the view in the competition's own names (train.csv and test.csv with `id`, the sample with its
unnamed index numbered again), keys labels.csv by `Id`, and scores a perfect submission 1.0."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.competitions import load_competition
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.image_miniatures import iwildcam


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_the_view_keeps_the_tables_names_and_the_sample_its_index(tmp_path: Path) -> None:
    root = iwildcam(tmp_path / "iw")
    competition = load_competition(str(root), tmp_path / "cache")
    spec = competition.metric
    assert spec is not None and (spec.id_column, spec.target_columns) == ("Id", ("Category",))
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.2, seed=0)
    view = holdout.public_dir
    train, test = read(view / "train.csv"), read(view / "test.csv")
    assert "id" in train.columns and "Id" not in train.columns and "category_id" in train.columns
    assert "id" in test.columns and "Id" not in test.columns and "category_id" not in test.columns
    assert (view / "sample_submission.csv").read_text().splitlines()[0] == ",Id,Category"
    sample = read(view / "sample_submission.csv")
    assert sample["Unnamed: 0"].tolist() == [str(k) for k in range(len(sample))]
    # the held-out rows are among the test rows, in both tables
    assert sorted(sample["Id"]) == sorted(test["id"])
    assert set(holdout.ids) <= set(test["id"]) and not set(holdout.ids) & set(train["id"])
    images = {p.stem for p in (view / "test_images").iterdir()}
    assert set(holdout.ids) <= images  # each held-out row's image sits with the test images
    assert holdout.table == "train.csv (id as Id) (category_id as Category)"

    labels = read(holdout.labels_path)
    assert list(labels.columns[:2]) == ["Id", "Category"]
    truth = dict(zip(labels["Id"], labels["Category"], strict=True))
    submission = sample.assign(Category=[truth.get(i, "0") for i in sample["Id"]])
    submission.to_csv(tmp_path / "submission.csv", index=False)
    harness = Harness(holdout, spec, competition.sample_submission)
    result = harness.evaluate(tmp_path / "submission.csv", tmp_path / "test_rows.csv")
    assert result.score == 1.0, result.problem
    wrong = submission.assign(Category="19")
    wrong.to_csv(tmp_path / "wrong.csv", index=False)
    assert harness.evaluate(tmp_path / "wrong.csv", tmp_path / "test_rows.csv").score < 0.5
