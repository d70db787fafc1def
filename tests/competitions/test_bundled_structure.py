"""The bundled competitions whose test rows are drawn with structure: electricity-demand's test is the 20th and
later days of each month, exam-schools' test every pupil of schools the training rows lack; the harness's `auto`
split holds out rows as each test was drawn; their reference teams suit their targets."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import CompetitionError, load_competition
from swarm.competitions.build_leaderboards import POPULATIONS, build_one
from swarm.competitions.bundled import electricity_demand, exam_schools
from swarm.competitions.reference_pipelines import sample_population
from swarm.layouts.holdout import build_holdout

LEADERBOARDS = Path(__file__).parents[2] / "swarm" / "competitions" / "leaderboards"


def _frames(cache_dir: Path, competition_id: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    public = load_competition(competition_id, cache_dir).public_dir
    return pd.read_csv(public / "train.csv"), pd.read_csv(public / "test.csv")


def test_electricity_demand_is_every_hour_of_2014_with_the_later_days_as_test(cache_dir: Path) -> None:
    train, test = _frames(cache_dir, "electricity-demand")
    assert list(train.columns) == ["id", "datetime", "temperature", "workday", "demand"]
    both = pd.concat([train, test])
    hours = pd.to_datetime(both["datetime"], format="%Y-%m-%d %H:%M:%S")
    expected = pd.date_range("2014-01-01 00:00", "2014-12-31 23:00", freq="h")
    assert sorted(hours) == list(expected)  # every hour of the year once
    assert set(test["datetime"].str[8:10].astype(int)) == set(range(20, 32))
    assert set(train["datetime"].str[8:10].astype(int)) == set(range(1, 20))
    assert (len(train), len(test)) == (228 * 24, 137 * 24)
    assert train["demand"].between(2.5, 10).all() and set(both["workday"]) == {0, 1}


def test_electricity_demand_rows_are_2014s_half_hours_by_its_working_days() -> None:
    """The data set has no timestamps: 1 January 2014 is a holiday, the 4th and 5th a weekend, the 2nd a working
    day; a shift by one day would put working days on weekends, which `check_calendar` refuses."""
    frame = electricity_demand.build()
    by_day = frame.groupby(frame["datetime"].str[:10])["workday"].agg(["first", "nunique", "size"])
    assert (by_day["nunique"] == 1).all() and (by_day["size"] == 24).all()
    first_days = ["2014-01-01", "2014-01-02", "2014-01-04", "2014-01-05"]
    assert by_day.loc[first_days, "first"].tolist() == [0, 1, 0, 0]
    shifted = pd.DataFrame({"WorkDay": np.roll(np.repeat(by_day["first"].to_numpy(), 48), 48)})
    with pytest.raises(CompetitionError, match="working days on weekends"):
        electricity_demand.check_calendar(shifted, electricity_demand.half_hour_times(len(shifted)))


def test_exam_schools_test_is_every_pupil_of_unseen_schools(cache_dir: Path) -> None:
    train, test = _frames(cache_dir, "exam-schools")
    assert "student" not in train.columns and "school" in test.columns
    assert not set(train["school"]) & set(test["school"])  # no school on both sides
    assert test["school"].nunique() == exam_schools.TEST_SCHOOLS and train["school"].nunique() == 50
    raw = exam_schools.build()
    pupils = raw["school"].value_counts()
    in_test = test["school"].value_counts()
    assert in_test.sort_index().equals(
        pupils.loc[in_test.index].sort_index()
    )  # all of a test school's pupils
    assert sorted(set(test["school"])) == exam_schools.drawn_schools(raw["school"])
    assert (train["normexam"] < 0).mean() > 0.3  # a standardised score: negative values are common


@pytest.mark.parametrize(
    ("competition_id", "split", "why"),
    [
        ("electricity-demand", "blocks:datetime", "fall on days train.csv lacks"),
        ("exam-schools", "group:school", "'school' values train.csv lacks"),
    ],
)
def test_auto_holds_out_rows_as_the_test_was_drawn(
    cache_dir: Path, tmp_path: Path, competition_id: str, split: str, why: str
) -> None:
    comp = load_competition(competition_id, cache_dir)
    train, _ = _frames(cache_dir, competition_id)
    holdout = build_holdout(comp, tmp_path / "harness", fraction=0.2, seed=5)
    assert holdout.split == split and why in holdout.split_reason
    held = train[train["id"].astype(str).isin(holdout.own_ids("held").values())]
    kept = pd.read_csv(holdout.public_dir / "train.csv")
    column = split.split(":", 1)[1]
    units = (lambda f: f[column].str[:10]) if split.startswith("blocks:") else (lambda f: f[column])
    assert len(held) == len(holdout.ids) > 0 and set(units(held)).isdisjoint(set(units(kept)))


def test_a_signed_target_gets_no_log_target_teams_and_unclipped_values() -> None:
    """exam-schools' target is negative for half the pupils: no team fits its logarithm (NaN), no submission is
    clipped to >= 1 (nearly every prediction 1, RMSE about 1.4); the other draws are those of a population with
    log targets. (The shipped board is what a rebuild scores: `test_small_rebuild_matches_the_shipped_rows`.)"""
    features = ["school", "standLRT", "sex"]
    signed = sample_population(features, "regression", 40, seed=19, log_targets=False)
    plain = sample_population(features, "regression", 40, seed=19)
    assert not any(t.log_target for t in signed) and any(t.log_target for t in plain)
    assert [(t.family, t.params) for t in signed] == [(t.family, t.params) for t in plain]
    assert POPULATIONS["exam-schools"].signed and not POPULATIONS["electricity-demand"].signed
    board = pd.read_csv(LEADERBOARDS / "exam-schools.csv")
    assert board["score"].median() < 0.9 and (board["log_target"] == False).all()  # noqa: E712


@pytest.mark.parametrize("competition_id", ["electricity-demand", "exam-schools"])
def test_small_rebuild_matches_the_shipped_rows(cache_dir: Path, tmp_path: Path, competition_id: str) -> None:
    """The first teams of a rebuild score what the shipped leaderboard says (same draws, same answers)."""
    meta = json.loads((LEADERBOARDS / f"{competition_id}.json").read_text())
    assert meta["teams"] == len(pd.read_csv(LEADERBOARDS / f"{competition_id}.csv")) >= 100
    board = build_one(competition_id, cache_dir, tmp_path, n_teams=3).set_index("teamName").sort_index()
    shipped = pd.read_csv(LEADERBOARDS / f"{competition_id}.csv").set_index("teamName").loc[board.index]
    assert board["params"].tolist() == shipped["params"].tolist()
    assert board["score"].to_numpy() == pytest.approx(shipped["score"].to_numpy(), abs=1e-6)
