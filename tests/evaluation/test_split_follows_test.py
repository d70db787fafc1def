"""`auto` follows how the test rows were drawn (issue 30, point 3): where they fall on calendar days train.csv
lacks (hourly rentals, the later days of each month in test) whole days are held out; where their values of a key
column are ones train.csv lacks (new stores) whole groups of it; neither where the test shares train's days and
keys."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from swarm.evaluation.split import check_split, choose_split, held_out_positions


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


def test_test_rows_on_days_train_lacks_hold_out_whole_days() -> None:
    train, test = hourly()
    split, why = choose_split("auto", None, train, test, False, "id")
    assert split == "day:datetime"
    assert (
        why
        == "100% of test.csv's rows fall on days train.csv lacks, between its own: whole days held out (24 rows a day), as the test was drawn"
    )
    held = held_out_positions(split, train, train["datetime"], 0.2, seed=3)
    days = train["datetime"].str[:10]
    held_days = set(days.iloc[held])
    assert held_days.isdisjoint(set(days.drop(train.index[held])))  # no day on both sides
    assert abs(len(held) - 0.2 * len(train)) <= 24 and len(held) % 24 == 0


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
    assert choose_split("auto", None, train, test, False, "id")[0] == "random"


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
    holdout = build_holdout(
        load_competition(str(tmp_path / "bikes"), tmp_path / "cache"), tmp_path / "h", fraction=0.2
    )
    assert holdout.split == "day:datetime" and "whole days held out" in holdout.describe()
    seen = pd.read_csv(holdout.public_dir / "train.csv", dtype=str)
    held = train[train["id"].isin(set(holdout.ids))]
    assert len(held) % 24 == 0 and set(held["datetime"].str[:10]).isdisjoint(seen["datetime"].str[:10])
