"""A log of events whose later events are the targets (h-and-m-personalized-fashion-recommendations): the layout
is recognised, the harness holds out the log's last span (the one the description names) as MLE-bench's
prepare.py made the test, read and written in chunks, without a held-out row reaching the view; every row of a
submission stays a test row while the held-out ids' rows are scored; and the offline coder's recommendations beat
the sample's."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import NoHoldout, build_holdout
from swarm.layouts.later_events import split as later_events_split
from swarm.layouts.later_events.reader import (
    DEFAULT_HORIZON_DAYS,
    horizon_days,
    later_events_fields,
    map_at_k,
    recommended,
)
from tests.layouts.later_events.miniatures import h_and_m_purchases


def read_text(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_the_layout_names_the_log_its_columns_and_k(tmp_path: Path) -> None:
    public = h_and_m_purchases(tmp_path / "h") / "prepared" / "public"
    sample = read_text(public / "sample_submission.csv")
    assert later_events_fields(str(public), sample) == {
        "log": "transactions_train.csv",
        "id": "customer_id",
        "item": "article_id",  # not sales_channel_id (one digit) nor price: the sample's items have 9 digits
        "time": "t_dat",
        "target": "prediction",
        "k": 12,
    }
    one_item = sample.assign(prediction=sample["prediction"].str.split().str[0])
    assert later_events_fields(str(public), one_item) is None  # a label a row: not a list of next items


def test_the_span_is_read_from_the_description() -> None:
    assert horizon_days("purchase in the 7-day period immediately after the training data ends") == (
        7,
        "7-day period",
    )
    assert horizon_days("Predict sales for the next 28 days.")[0] == 28
    assert horizon_days("Scored by MAP@12.") == (DEFAULT_HORIZON_DAYS, "")


def test_the_last_span_is_held_out_in_chunks_and_never_reaches_the_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = h_and_m_purchases(tmp_path / "h")
    competition = load_competition(str(root), tmp_path / "cache")
    monkeypatch.setattr(later_events_split, "EVENT_CHUNK_ROWS", 300)  # the log's 2045 rows in 7 chunks
    holdout = build_holdout(competition, tmp_path / "split", fraction=0.2, seed=0)
    log = read_text(competition.public_dir / "transactions_train.csv")
    seen = read_text(holdout.public_dir / "transactions_train.csv")
    after = log["t_dat"] > "2020-09-08"  # the last 7 days of a log ending 2020-09-15
    assert seen.equals(log[~after].reset_index(drop=True))  # the rows up to the cut, as they were, one header
    assert (
        holdout.shifted
        and holdout.split == "time:t_dat"
        and "'7-day period' in description.md" in holdout.split_reason
    )
    labels = read_text(holdout.labels_path)
    bought = log[after].groupby("customer_id", sort=False)["article_id"].agg(" ".join)
    assert dict(zip(labels["customer_id"], labels["prediction"], strict=True)) == bought.to_dict()
    assert sorted(holdout.ids) == sorted(bought.index)
    assert read_text(holdout.public_dir / "sample_submission.csv").equals(
        read_text(competition.sample_submission)
    )
    tables = sorted(holdout.public_dir.rglob("*.csv"))
    assert {"transactions_train.csv", "sample_submission.csv"} <= {p.name for p in tables}
    for path in tables:
        assert "2020-09-09" not in path.read_text(), f"a held-out day reached {path.name}"


def test_every_row_stays_a_test_row_and_the_held_out_ids_are_scored(tmp_path: Path) -> None:
    root = h_and_m_purchases(tmp_path / "h")
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "split", fraction=0.2, seed=0)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    labels = read_text(holdout.labels_path)
    sample = read_text(competition.sample_submission)
    answered = {
        c: " ".join(dict.fromkeys(p.split()))
        for c, p in zip(labels["customer_id"], labels["prediction"], strict=True)
    }
    perfect = sample.assign(prediction=[answered.get(c, "0000000000") for c in sample["customer_id"]])
    perfect.to_csv(tmp_path / "perfect.csv", index=False)
    result = harness.evaluate(tmp_path / "perfect.csv", tmp_path / "test.csv")
    assert result.score == 1.0 and result.problem is None
    assert read_text(tmp_path / "test.csv").equals(perfect)  # every customer: the submission delivered whole
    assert harness.evaluate(competition.sample_submission, tmp_path / "t2.csv").score == 0.0
    missing = perfect[perfect["customer_id"] != labels["customer_id"][0]]
    missing.to_csv(tmp_path / "missing.csv", index=False)
    assert "have no prediction" in harness.evaluate(tmp_path / "missing.csv", tmp_path / "t3.csv").problem


def test_recommendations_of_own_recent_items_beat_the_sample(tmp_path: Path) -> None:
    public = h_and_m_purchases(tmp_path / "h") / "prepared" / "public"
    sample = read_text(public / "sample_submission.csv")
    fields = later_events_fields(str(public), sample)
    strings, validated = recommended(str(public), fields, sample["customer_id"].tolist(), 7)
    answers = read_text(public.parent / "private" / "answers.csv")
    scored = answers[answers["keep"] == "True"]
    found = dict(zip(sample["customer_id"], strings, strict=True))
    hidden = map_at_k(
        [a.split() for a in scored["prediction"]], [found[c].split() for c in scored["customer_id"]], 12
    )
    given = map_at_k(
        [a.split() for a in scored["prediction"]], [sample["prediction"][0].split()] * len(scored), 12
    )
    assert all(len(s.split()) == 12 for s in strings)
    assert given == 0.0 and hidden > 0.3 and validated > 0.3


def test_a_log_without_dates_is_refused_naming_the_shared_ids(tmp_path: Path) -> None:
    """Without a time column no span can be held out: the one sentence says where the labels seem to be."""
    root = h_and_m_purchases(tmp_path / "h", n_customers=20, n_articles=20, days=15)
    log = root / "prepared" / "public" / "transactions_train.csv"
    read_text(log).drop(columns="t_dat").to_csv(log, index=False)
    competition = load_competition(str(root), tmp_path / "cache")
    with pytest.raises(NoHoldout) as refused:
        build_holdout(competition, tmp_path / "split", fraction=0.2, seed=0)
    assert "transactions_train.csv has customer_id but not prediction" in str(refused.value)
    assert "the sample asks about the same customer_ids (it lists them all)" in str(refused.value)
