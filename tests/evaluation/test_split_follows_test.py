"""`auto` follows how the test rows were drawn: where they fall on calendar days train.csv lacks in runs of several
days (hourly rentals, the later days of each month in test) a block of days at the end of each month's training
days is held out, as far from the kept days as the test is from train; where they fall on single days between
training days, whole days at random; where their values of a key column are ones train.csv lacks (new stores)
whole groups of it; neither where the test shares train's days and keys. The split's record says how the test
rows and the held-out rows stand to the rest, side by side."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from swarm.evaluation.harness import Harness
from swarm.evaluation.split import check_split, choose_split, held_out_positions
from swarm.evaluation.split_relation import nearest_distance


def hourly(days_in_test: range = range(20, 29), stores: int = 1, new_stores: bool = False) -> tuple:
    """(train, test): hourly rows of two months, the days `days_in_test` of each month in test."""
    hours = pd.date_range("2012-01-01", "2012-02-28 23:00", freq="h")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "datetime": hours.strftime("%Y-%m-%d %H:%M:%S"),
            "temp": rng.normal(10, 5, len(hours)).round(2),
            "store": [f"s{i % stores}" for i in range(len(hours))],
        }
    )
    frame.insert(0, "id", range(len(frame)))
    in_test = hours.day.isin(days_in_test)
    train, test = frame[~in_test].reset_index(drop=True), frame[in_test].reset_index(drop=True)
    if new_stores:
        test["store"] = "n" + test["store"]
    return train.astype(str), test.astype(str)


def test_test_rows_in_runs_of_days_train_lacks_hold_out_blocks_at_the_end_of_each_run() -> None:
    train, test = hourly()
    split, why = choose_split("auto", None, train, test, False, "id")
    assert split == "blocks:datetime"
    assert why.startswith(
        "100% of test.csv's rows fall on days train.csv lacks, between its own (24 rows a day), in 2"
    )
    assert "runs of about 9 days" in why
    held = held_out_positions(split, train, train["datetime"], 0.2, seed=3, test=test)
    days = pd.to_datetime(train["datetime"])
    held_days = days.iloc[held]
    assert set(held_days.dt.normalize()).isdisjoint(set(days.drop(train.index[held]).dt.normalize()))
    # One block of days at the end of each month's training days (the 1st-19th), as the test follows them.
    for month in (1, 2):
        in_month = held_days[held_days.dt.month == month].dt.day
        assert sorted(set(in_month)) == list(range(in_month.min(), 20)) and in_month.min() > 10
    # The held-out rows lie as far from the kept rows as the test rows from train.csv, in the median.
    train_s, test_s = _seconds(train["datetime"]), _seconds(test["datetime"])
    kept = np.delete(train_s, held)
    test_median = np.median(nearest_distance(test_s, train_s))
    held_median = np.median(nearest_distance(train_s[held], kept))
    assert abs(held_median - test_median) <= 0.25 * test_median


def test_test_rows_on_single_days_train_lacks_hold_out_whole_days_at_random() -> None:
    hours = hourly(days_in_test=range(0))[0]
    in_test = pd.to_datetime(hours["datetime"]).dt.day % 3 == 0  # every third day, between training days
    train, test = hours[~in_test].reset_index(drop=True), hours[in_test].reset_index(drop=True)
    split, why = choose_split("auto", None, train, test, False, "id")
    assert split == "day:datetime" and why.endswith("whole days held out, as the test was drawn")
    held = held_out_positions(split, train, train["datetime"], 0.2, seed=3)
    held_days = set(train["datetime"].str[:10].iloc[held])
    assert held_days.isdisjoint(set(train["datetime"].str[:10].drop(train.index[held])))
    assert len(held) % 24 == 0 and len(held_days) >= 5


def test_a_test_after_train_holds_out_a_span_as_long_as_its_horizon() -> None:
    days = pd.date_range("2001-01-01", periods=4000, freq="D")
    frame = pd.DataFrame({"id": range(4000), "date": days.strftime("%Y-%m-%d")})
    train, test = frame.iloc[:3000], frame.iloc[3000:]  # a horizon of 1000 days, a third of train's span
    assert choose_split("auto", None, train, test, False, "id")[0] == "time:date"
    held = held_out_positions("time:date", train, train["date"], 0.2, seed=0, test=test)
    assert held.tolist() == list(range(2000, 3000))  # the latest 1000 days, not the latest 20%
    assert len(held_out_positions("time:date", train, train["date"], 0.2, seed=0)) == 600  # no test: 20%


def _seconds(values: pd.Series) -> np.ndarray:
    return (pd.to_datetime(values) - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy()


def test_test_rows_of_new_key_values_hold_out_whole_groups() -> None:
    train, test = hourly(days_in_test=range(1, 32), stores=6, new_stores=True)
    train = pd.concat([train, hourly(range(0), stores=6)[0].head(500)], ignore_index=True)  # days both sides
    split, why = choose_split("auto", None, train, test, False, "id")
    assert split == "group:store" and why.startswith(
        "100% of test.csv's rows have 'store' values train.csv lacks"
    )


def test_shared_days_and_keys_keep_the_usual_split() -> None:
    hours = hourly(days_in_test=range(0))[0]
    mixed = hours.sample(frac=1, random_state=0)  # test hours drawn at random: every test day has train hours
    train, test = mixed.iloc[:1000], mixed.iloc[1000:]
    assert choose_split("auto", None, train, test, False, "id") == ("random", "a regression target")
    assert choose_split("auto", None, train, test, True, "id")[0] == "stratified"


def test_measurements_are_not_keys() -> None:
    mixed = hourly(days_in_test=range(0))[0].sample(frac=1, random_state=1)
    train, test = mixed.iloc[:800], mixed.iloc[800:]
    test = test.assign(temp=(test["temp"].astype(float) + 100).round(2).astype(str))  # all new, but numbers
    # Not whole groups of temperatures: the training rows most like the test's (a shift a classifier sees).
    assert choose_split("auto", None, train, test, False, "id")[0] == "like-test"


def test_the_day_split_is_a_known_kind() -> None:
    assert check_split("day:datetime") == "day:datetime"
    with pytest.raises(ValueError, match="day:<column>"):
        check_split("week:datetime")


def test_the_harness_holds_out_whole_days_of_an_hourly_competition(tmp_path) -> None:
    import json

    from swarm.competitions import load_competition
    from swarm.layouts.holdout import build_holdout

    train, test = hourly()
    train["count"] = (train["temp"].astype(float) * 3 + 50).round().astype(int).astype(str)
    public = tmp_path / "bikes" / "prepared" / "public"
    public.mkdir(parents=True)
    (tmp_path / "bikes" / "prepared" / "private").mkdir()
    (public / "description.md").write_text("# Bikes\n\nPredict the hourly rentals; scored by RMSLE.\n")
    (tmp_path / "bikes" / "competition.json").write_text(json.dumps({"metric": {"name": "rmsle"}}))
    train.drop(columns="store").to_csv(public / "train.csv", index=False)
    test.drop(columns="store").to_csv(public / "test.csv", index=False)
    test[["id"]].assign(count=0).to_csv(public / "sample_submission.csv", index=False)
    competition = load_competition(str(tmp_path / "bikes"), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2)
    assert holdout.split == "blocks:datetime" and "a block of days held out" in holdout.describe()
    seen = pd.read_csv(holdout.public_dir / "train.csv", dtype=str)
    held = train[train["id"].isin(set(holdout.ids))]
    assert len(held) % 24 == 0 and set(held["datetime"].str[:10]).isdisjoint(seen["datetime"].str[:10])
    assert f"({len(held) / len(train):.0%}," in holdout.describe()  # the share held out, not the one asked
    test_line, held_line = holdout.relation
    assert test_line.startswith(
        "test rows beside the training rows, in 'datetime': 432 rows in 2 blocks of 9 d"
    )
    assert held_line.startswith(
        f"held-out rows beside the kept ones, in 'datetime': {len(held)} rows in 2 blocks"
    )
    assert (
        "(median 3.02 d)" in test_line and "(median 3.02 d)" in held_line
    )  # as far from the rest, in the median
    # The score's bootstrap resamples the held-out days, not their hours.
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    assert harness.groups_note is None and harness.groups is not None
    assert sorted(set(harness.groups.values())) == sorted(set(held["datetime"].str[:10]))
