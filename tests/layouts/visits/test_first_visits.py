"""Visits a row, each test patient's first visit in test.csv, the sample every week of each test patient
(osic-pulmonary-fibrosis-progression): the harness holds out whole patients as prepare.py draws its test
(issue 29)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.competitions import load_competition
from swarm.competitions.grading import score_frame
from swarm.layouts.holdout import build_holdout
from swarm.layouts.visits.reader import visit_fields
from swarm.offline_coder.task import infer_task_from_dir
from tests.layouts.visits.miniatures import osic


def text(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_the_harness_holds_out_whole_patients_as_their_first_visits(tmp_path: Path) -> None:
    competition = load_competition(str(osic(tmp_path / "osic", n_train=40, n_test=8)), tmp_path / "cache")
    public = competition.public_dir
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.2, seed=2)
    view = holdout.public_dir
    assert holdout.split == "group:Patient"
    train, kept, sample = (
        text(public / "train.csv"),
        text(view / "train.csv"),
        text(public / "sample_submission.csv"),
    )
    steps = sample["Patient_Week"].str.rsplit("_", n=1).str[1][:-1].tolist()
    labels = text(holdout.labels_path)
    patients = sorted(set(labels["Patient_Week"].str.rsplit("_", n=1).str[0]))  # fresh keys in the view
    own_ids = holdout.own_ids("held")
    own = {fresh.rsplit("_", 1)[0]: mine.rsplit("_", 1)[0] for fresh, mine in own_ids.items()}
    owns = [own[p] for p in patients]
    assert holdout.fresh_ids and not set(patients) & set(train["Patient"])
    assert patients and not set(owns) & set(kept["Patient"])  # no visit of a held-out patient is left
    assert len(kept) + train["Patient"].isin(owns).sum() == len(train)

    test = text(view / "test.csv")
    assert list(test.columns) == list(text(public / "test.csv").columns) and len(test) == 8 + len(patients)
    visits = train[train["Patient"].isin(owns)].assign(week=lambda t: t["Weeks"].astype(int))
    first = visits.sort_values("week").groupby("Patient").head(1).set_index("Patient")
    for patient in patients:  # the first visit, whole, as prepare.py's test.csv has it
        row = test[test["Patient"] == patient].iloc[0]
        assert row[1:].tolist() == first.loc[own[patient], list(test.columns[1:])].tolist()
        assert row["Weeks"] in sample["Patient_Week"].str.rsplit("_", n=1).str[1].tolist()

    listed = text(view / "sample_submission.csv")
    assert len(listed) == len(sample) + len(labels) == len(sample) + len(patients) * (len(sample) // 8)
    measured = {
        f"{p}_{w}": f for p, w, f in zip(visits["Patient"], visits["Weeks"], visits["FVC"], strict=True)
    }
    for row in labels.itertuples():
        assert (row.FVC, row.Confidence) == (measured.get(own_ids[row.Patient_Week], ""), "100")
    assert (labels["FVC"] != "").any() and steps
    for patient in patients:  # the inputs where the test's are
        assert sorted(p.name for p in (view / "test" / patient).iterdir()) == ["1.dcm", "2.dcm"]
        assert not (view / "train" / own[patient]).exists()
    perfect = labels.assign(FVC=labels["FVC"].replace("", "2000"))
    assert score_frame(perfect, labels, competition.metric) > -5  # the measured weeks are scored, exactly


def test_other_tables_are_not_visits() -> None:
    test = pd.DataFrame({"Patient": ["a", "b"], "Weeks": ["0", "3"], "FVC": ["1", "2"]})
    ids = pd.Series(["a_0", "a_1", "b_0", "b_3"])
    columns = ["Patient", "Weeks", "FVC"]
    found = visit_fields(columns, test, "Patient_Week", ["FVC", "Confidence"], ids)
    assert found is not None and found["key"] == "Patient" and found["free"] == ["Confidence"]
    assert visit_fields(columns, test, "Patient_Week", ["Confidence"], ids) is None  # train holds no target
    assert visit_fields(columns, pd.concat([test, test]), "Patient_Week", ["FVC"], ids) is None  # keys repeat
    assert visit_fields(columns, test, "Patient_Week", ["FVC"], pd.Series(["a0", "b3"])) is None  # no steps
    assert visit_fields(columns, test.assign(Weeks=["9", "9"]), "Patient_Week", ["FVC"], ids) is None


def test_the_offline_coder_models_the_measured_target_and_keeps_the_samples_confidence(
    tmp_path: Path,
) -> None:
    competition = load_competition(str(osic(tmp_path / "osic")), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2)
    task = infer_task_from_dir(str(holdout.public_dir))
    assert task["files"]["visits"]["key"] == "Patient" and task["files"]["visits"]["step"] == "Weeks"
    assert [(t["name"], t["task"]) for t in task["targets"]] == [
        ("FVC", "regression"),
        ("Confidence", "lookup"),
    ]
    assert {"Weeks", "first_Weeks", "first_FVC", "first_Age"} <= set(task["columns"])
