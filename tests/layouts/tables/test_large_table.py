"""A labelled table over evaluation.max_train_mb (issue 29): new-york-city-taxi-fare-prediction's 55 million rows
are too many to read whole, so the harness streams the table a chunk at a time, holds out each row with one
probability (about min(fraction of the rows, max(MIN_HELD, 2 x the test rows)) rows), writes the kept rows to the
view as they are read, and adds the held-out rows to test.csv and the sample. Only a plain layout is streamed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import NoHoldout, build_holdout
from swarm.layouts.tables import streamed as large_table
from tests.layouts.tables.tabular_miniatures import nyc_taxi


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def taxi(tmp_path: Path, n_train: int = 3000) -> Path:
    return nyc_taxi(tmp_path / "taxi", n_train=n_train, n_test=10)


def split(root: Path, tmp_path: Path, **options):
    competition = load_competition(str(root), tmp_path / "cache")
    options = {"fraction": 0.2, "seed": 0, "max_train_mb": 0.01, **options}
    return competition, build_holdout(competition, tmp_path / "harness", **options)


def test_a_table_over_the_limit_is_streamed_a_chunk_at_a_time(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(large_table, "CHUNK_ROWS", 500)
    monkeypatch.setattr(large_table, "MIN_HELD", 150)  # 3000 rows: about 150 held out, not 20 % (600)
    root = taxi(tmp_path)
    public = root / "prepared" / "public"
    competition, holdout = split(root, tmp_path)
    view = holdout.public_dir
    original, kept, test = read(public / "labels.csv"), read(view / "labels.csv"), read(view / "test.csv")
    held = set(holdout.ids)
    assert 90 <= len(held) <= 220 and holdout.split == "random" and "streamed" in holdout.split_reason
    assert holdout.n_train == len(kept) == len(original) - len(held)
    # the kept rows as they were, in their order; the held-out rows among the tests, without their fares
    assert kept.equals(original[~original["key"].isin(held)].reset_index(drop=True))
    assert held <= set(test["key"]) and "fare_amount" not in test.columns and len(test) == 10 + len(held)
    assert set(read(view / "sample_submission.csv")["key"]) == set(test["key"])
    labels = read(holdout.labels_path)
    fares = original.set_index("key")["fare_amount"]
    assert labels.set_index("key")["fare_amount"].to_dict() == {k: fares[k] for k in labels["key"]}
    # a perfect submission scores 0 (RMSE), one a dollar off everywhere 1
    sample = read(view / "sample_submission.csv")
    truth = labels.set_index("key")["fare_amount"].astype(float)
    exact = sample.assign(fare_amount=[truth.get(k, 11.35) for k in sample["key"]])
    exact.to_csv(tmp_path / "s.csv", index=False)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    assert harness.evaluate(tmp_path / "s.csv", tmp_path / "t.csv").score == 0.0
    exact.assign(fare_amount=exact["fare_amount"] + 1).to_csv(tmp_path / "s.csv", index=False)
    assert harness.evaluate(tmp_path / "s.csv", tmp_path / "t.csv").score == pytest.approx(1.0, abs=1e-6)


def test_under_the_limit_the_table_is_read_whole_as_before(tmp_path: Path) -> None:
    _, holdout = split(taxi(tmp_path, n_train=200), tmp_path, max_train_mb=2048)
    assert "streamed" not in holdout.split_reason and len(holdout.ids) == 40


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda public: (public / "extra.csv").write_text("key,fare_amount\n1,2\n"), "extra.csv beside it"),
        (lambda public: (public / "images").mkdir(), "images beside it"),
    ],
)
def test_a_layout_beyond_the_plain_one_is_refused_in_one_sentence(tmp_path: Path, change, words: str) -> None:
    root = taxi(tmp_path, n_train=200)
    change(root / "prepared" / "public")
    with pytest.raises(NoHoldout, match=words) as refused:
        split(root, tmp_path)
    assert "over evaluation.max_train_mb" in str(refused.value) and "\n" not in str(refused.value)


def test_a_split_that_needs_the_whole_table_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NoHoldout, match="needs it whole"):
        split(taxi(tmp_path, n_train=200), tmp_path, split="stratified")


def test_the_share_aims_at_the_cap_from_the_tables_size(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "t.csv"
    pd.DataFrame({"a": np.arange(10_000, 30_000), "b": "x" * 20}).to_csv(path, index=False)  # 20,000 rows
    assert large_table.held_share(path, 0.2, 10) == 0.2  # MIN_HELD (50,000) is over 20 % of the rows
    monkeypatch.setattr(large_table, "MIN_HELD", 1000)
    assert large_table.held_share(path, 0.2, 10) == pytest.approx(1000 / 20_000, rel=0.05)
    assert large_table.held_share(path, 0.2, 1500) == pytest.approx(3000 / 20_000, rel=0.05)  # 2 x test rows


def test_texts_over_several_lines_and_copied_columns_stream_as_facebooks(tmp_path: Path) -> None:
    """facebook-recruiting-iii's layout: `train.csv` (`Id`, `Title`, `Body` over several lines, `Tags`), test.csv
    without `Tags`, the sample copying `Title` and `Body` beside `Tags`; a multi-label F1 over tag sets."""
    import json

    root = tmp_path / "fb"
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir()
    rng = np.random.default_rng(3)
    tags = ["c#", "java", "php", "python", "sql"]
    rows = pd.DataFrame(
        {
            "Id": range(1, 611),
            "Title": [f"How to {k}?" for k in range(610)],
            "Body": [f"<p>line one {k}\nline, two</p>\n" for k in range(610)],
            "Tags": [" ".join(sorted(rng.choice(tags, 2, replace=False))) for _ in range(610)],
        }
    )
    rows[:600].to_csv(public / "train.csv", index=False)
    rows[600:].drop(columns="Tags").to_csv(public / "test.csv", index=False)
    rows[600:].assign(Tags="javascript c# python php java").to_csv(
        public / "sample_submission.csv", index=False
    )
    (public / "description.md").write_text("# Keywords\n\nScored by the mean F1 over tags.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "multilabel_f1_micro"}}))
    competition, holdout = split(root, tmp_path)
    assert competition.metric is not None and competition.metric.passthrough_columns == ("Title", "Body")
    view = holdout.public_dir
    kept, test, sample = (
        read(view / "train.csv"),
        read(view / "test.csv"),
        read(view / "sample_submission.csv"),
    )
    assert "streamed" in holdout.split_reason and len(kept) + len(holdout.ids) == 600
    assert kept["Body"].str.contains("\n").all()  # each body still over two lines
    held = rows[rows["Id"].astype(str).isin(holdout.ids)].astype(str).set_index("Id")
    copied = sample.set_index("Id").loc[list(held.index)]
    assert copied["Title"].equals(held["Title"]) and copied["Body"].equals(held["Body"])
    assert set(test["Id"]) == set(sample["Id"]) and "Tags" not in test.columns
