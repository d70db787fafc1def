"""A long submission with a row per (example, class) (issue 29): rsna-2022-cervical-spine-fracture-detection's
`train.csv` has a study per row and a column per class, while `test.csv` and the submission have a row per
(study, class), `row_id` = `<StudyInstanceUID>_<prediction_type>`, `fractured` that class's value. The run's
preflight accepts the test table's long keys; the harness holds out whole studies, moves them to the test table
as a row per class, their DICOM folders to `test_images/` and hides their side files (bounding boxes,
segmentations); labels.csv holds their rows' values, scored with the competition's weighted log loss."""

from __future__ import annotations

import math
import shutil
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import CompetitionError, load_competition_dir
from swarm.competitions.public_files import check_public_files
from swarm.evaluation.blend import Blender
from swarm.evaluation.ensemble import build_library
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import Holdout, NoHoldout, build_holdout
from swarm.layouts.long_classes.detect import long_classes
from tests.layouts.long_classes.miniatures import CLASSES, dicom, spine_competition

METRIC = "spine_weighted_logloss"
KEY, CLASS, ID, TARGET = "StudyInstanceUID", "prediction_type", "row_id", "fractured"


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def study_of(row_id: str) -> str:
    return row_id.split("_", 1)[0]


def split(tmp_path: Path, **kwargs) -> tuple[Path, Holdout]:
    """The miniature (12 training studies, 4 test studies) and its harness split of a quarter of the studies."""
    root = spine_competition(tmp_path / "rsna", metric=METRIC, **kwargs)
    return root, build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)


# ---- preflight -----------------------------------------------------------------------------------------------


def test_the_preflight_accepts_the_long_keys(tmp_path: Path) -> None:
    root = spine_competition(tmp_path / "rsna")
    public = root / "prepared" / "public"
    check_public_files(load_competition_dir(root))
    layout = long_classes(public, ID, [TARGET])
    assert layout is not None and (layout.key, layout.class_column, layout.classes) == (KEY, CLASS, CLASSES)


@pytest.mark.parametrize(
    ("change", "extra"),
    [
        # an input column the training rows lack is still an error, the long keys named beside it
        (lambda test: test.assign(Age="61"), r"'prediction_type', 'row_id', 'Age'"),
        # ids that are not `<study>_<class>`: no long layout, so its columns are what train lacks
        (lambda test: test.assign(row_id="x" + test["row_id"]), r"'prediction_type', 'row_id' that"),
    ],
    ids=["input column", "other ids"],
)
def test_the_preflight_still_refuses_other_extra_columns(tmp_path: Path, change, extra: str) -> None:
    root = spine_competition(tmp_path / "rsna")
    public = root / "prepared" / "public"
    test = change(read(public / "test.csv"))
    test.to_csv(public / "test.csv", index=False)
    test[[ID]].assign(fractured=0.5).to_csv(public / "sample_submission.csv", index=False)
    with pytest.raises(
        CompetitionError, match=rf"test.csv does not match train.csv: it has column\(s\) {extra}"
    ):
        check_public_files(load_competition_dir(root))


# ---- the split -----------------------------------------------------------------------------------------------


def test_whole_studies_move_to_the_test_table_as_a_row_per_class(tmp_path: Path) -> None:
    root, holdout = split(tmp_path)
    public, view = root / "prepared" / "public", holdout.public_dir
    original, test_before = read(public / "train.csv"), read(public / "test.csv")
    # every test and held-out study has a fresh StudyInstanceUID in the view; the harness keeps each row's own
    own = holdout.own_ids("held")
    fresh = list(dict.fromkeys(study_of(i) for i in holdout.ids))
    held = list(dict.fromkeys(study_of(own[i]) for i in holdout.ids))
    assert len(held) == 3 and holdout.ids == [f"{s}_{c}" for s in fresh for c in CLASSES]
    assert [own[f"{f}_{c}"] for f in fresh for c in CLASSES] == [f"{s}_{c}" for s in held for c in CLASSES]
    assert holdout.key_columns == [KEY, CLASS] and holdout.target_columns == [TARGET] and holdout.fresh_ids
    assert holdout.split == "stratified" and "moves whole, as its 8 rows of test.csv" in holdout.split_reason
    assert (
        "holds out 24 labelled rows of train.csv's 8 class columns (3 StudyInstanceUIDs" in holdout.describe()
    )
    assert "(ids <StudyInstanceUID>_<prediction_type>)" in holdout.describe()
    # train.csv: the other studies, as they were
    train = read(view / "train.csv")
    assert list(train.columns) == list(original.columns) and holdout.n_train == len(train) == 9
    assert not set(held) & set(train[KEY])
    assert train.equals(original[~original[KEY].isin(held)].reset_index(drop=True))
    # test.csv: its rows and a row per (held-out study, class), in its columns, melted a class at a time as
    # MLE-bench's, the studies shuffled in (one order for every class)
    test = read(view / "test.csv")
    assert list(test.columns) == list(test_before.columns) and len(test) == len(test_before) + 24
    own_test = holdout.own_ids("test")
    assert set(own_test.values()) == set(test_before[ID]) and set(test[ID]) == set(own_test) | set(
        holdout.ids
    )
    assert (test[ID] == test[KEY] + "_" + test[CLASS]).all()
    blocks = [rows[KEY].tolist() for _, rows in test.groupby(CLASS, sort=False)]
    assert [c for c in dict.fromkeys(test[CLASS])] == list(CLASSES) and all(b == blocks[0] for b in blocks)
    assert len(blocks[0]) == 7 and set(blocks[0][-3:]) != set(fresh)  # not simply appended
    assert long_classes(view, ID, [TARGET]) is not None  # the view keeps the layout
    # the sample lists the test table's ids in its order, the held-out rows with the filler 0.5
    sample = read(view / "sample_submission.csv")
    assert sample[ID].tolist() == test[ID].tolist() and set(sample[TARGET]) == {"0.5"}
    # labels.csv: each held-out row's value, in the submission's columns, private
    labels = read(holdout.labels_path)
    assert list(labels.columns) == [ID, TARGET] and labels[ID].tolist() == holdout.ids
    wide = original.set_index(KEY)
    assert labels[TARGET].tolist() == [wide.loc[study_of(own[i]), i.split("_", 1)[1]] for i in labels[ID]]
    assert stat.S_IMODE(holdout.labels_path.stat().st_mode) == 0o600


def test_the_view_holds_no_held_out_label_and_their_folders_sit_with_the_tests(tmp_path: Path) -> None:
    root, holdout = split(tmp_path)
    public, view = root / "prepared" / "public", holdout.public_dir
    own = holdout.own_ids("held")
    held = {study_of(own[i]) for i in holdout.ids}  # the held-out studies' own keys (the view has fresh ones)
    fresh = {study_of(i) for i in holdout.ids}
    kept = set(read(view / "train.csv")[KEY])
    # no table of the view gives a held-out study's class values, nor is its target anywhere
    assert not any(
        TARGET in read(path).columns for path in view.glob("*.csv") if path.name != "sample_submission.csv"
    )
    assert not (view / "labels.csv").exists() and not (view / "answers.csv").exists()
    # side files: the held-out studies' boxes (fractures!) and segmentations are hidden, the others' stay
    boxes, boxes_before = read(view / "train_bounding_boxes.csv"), read(public / "train_bounding_boxes.csv")
    assert not held & set(boxes[KEY]) and set(boxes[KEY]) == set(boxes_before[KEY]) - held
    segmented = {p.stem for p in (public / "segmentations").glob("*.nii")}
    assert {p.stem for p in (view / "segmentations").glob("*.nii")} == segmented - held and segmented & held
    assert {"train_bounding_boxes.csv", *(f"segmentations/{s}.nii" for s in segmented & held)} == set(
        holdout.hidden_side_files
    )
    # folders: a held-out study's DICOM files under test_images/<study>/, none left under train_images/
    assert sorted(holdout.file_dirs) == ["test_images", "train_images"]
    assert {p.name for p in (view / "train_images").iterdir()} == kept
    test_studies = {study_of(i) for i in read(view / "test.csv")[ID]}  # fresh keys, test and held-out
    assert {p.name for p in (view / "test_images").iterdir()} == test_studies and fresh <= test_studies
    assert fresh
    for study in fresh:
        files = sorted((view / "test_images" / study).iterdir())
        assert [p.name for p in files] == ["1.dcm", "2.dcm", "3.dcm"]
        own_study = study_of(own[f"{study}_{CLASSES[0]}"])
        assert [p.read_bytes() for p in files] == [dicom(own_study, n) for n in (1, 2, 3)]
    # no path of the view names a held-out study by its own key
    assert [p for p in view.rglob("*") if held & {p.name, p.stem}] == []


def submission_for(holdout: Holdout, truth: dict[str, str], path: Path, change=None) -> None:
    """The view's sample with every held-out row's true value (`change(row_id, value)` where given)."""
    sample = read(holdout.public_dir / "sample_submission.csv")
    values = [truth.get(i, v) for i, v in zip(sample[ID], sample[TARGET], strict=True)]
    if change is not None:
        values = [change(i, v) if i in truth else v for i, v in zip(sample[ID], values, strict=True)]
    sample.assign(fractured=values).to_csv(path, index=False)


def test_a_perfect_submission_scores_0_and_a_perturbed_one_the_hand_value(tmp_path: Path) -> None:
    root, holdout = split(tmp_path)
    competition = load_competition_dir(root)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    labels = read(holdout.labels_path)
    truth = dict(zip(labels[ID], labels[TARGET], strict=True))
    path, test_rows = tmp_path / "submission.csv", tmp_path / "test_rows.csv"
    submission_for(holdout, truth, path)
    perfect = harness.evaluate(path, test_rows)
    assert perfect.score == 0.0, perfect.problem
    assert read(test_rows)[ID].tolist() == read(competition.sample_submission)[ID].tolist()
    # every held-out study's patient_overall at 0.5, the rest right: each study's loss is ln 2 weighted 7
    # (negative) or 14 (positive), over its weights (patient_overall's, and 1 or 2 per vertebra)
    submission_for(holdout, truth, path, lambda i, v: "0.5" if i.endswith("_patient_overall") else v)
    losses = []
    for study in dict.fromkeys(study_of(i) for i in holdout.ids):
        y = {c: int(truth[f"{study}_{c}"]) for c in CLASSES}
        weight = 7 * (1 + y["patient_overall"])
        losses.append(weight * math.log(2) / (weight + sum(1 + y[c] for c in CLASSES[1:])))
    perturbed = harness.evaluate(path, test_rows, tmp_path / "heldout.csv")
    assert perturbed.score == round(float(np.mean(losses)), 6) and perturbed.score > 0.3, perturbed.problem
    # the ensembles' library scores the kept held-out rows alike (the row ids are its groups too)
    library = build_library(harness.spec, harness.labels, {"n1": read(tmp_path / "heldout.csv")}, 4)
    assert library.score(Blender(harness.spec), library.predictions[0]) == pytest.approx(
        np.mean(losses), abs=1e-9
    )


def test_studies_that_collide_with_the_tests_are_rekeyed(tmp_path: Path) -> None:
    # the test's studies have the training studies' UIDs (and their own folders and values)
    root, holdout = split(tmp_path, n_test=12, test_numbers=10001)
    public, view = root / "prepared" / "public", holdout.public_dir
    original = read(public / "train.csv").set_index(KEY)
    assert holdout.rekeyed
    new = list(dict.fromkeys(study_of(i) for i in holdout.ids))
    assert len(new) == 3 and not set(new) & set(original.index)
    labels = read(holdout.labels_path).set_index(ID)
    for study in new:
        # each new study's folder holds one training study's files, and its rows that study's values
        first = (view / "test_images" / study / "1.dcm").read_bytes()
        old = first[132:].decode().split("/")[0]
        assert (
            first == dicom(old, 1) and old in original.index and old not in set(read(view / "train.csv")[KEY])
        )
        assert [labels.loc[f"{study}_{c}", TARGET] for c in CLASSES] == original.loc[
            old, list(CLASSES)
        ].tolist()
    # the test's own studies are there under fresh UIDs, each with its own files
    test = read(view / "test.csv")
    own_test = holdout.own_ids("test")
    assert {study_of(own_test[i]) for i in test[ID] if i in own_test} == set(read(public / "test.csv")[KEY])
    renamed = [i for i in test[ID] if i in own_test][:3]
    assert len(renamed) == 3
    for row_id in renamed:
        study, own = study_of(row_id), study_of(own_test[row_id])
        assert (view / "test_images" / study / "1.dcm").read_bytes() == (
            public / "test_images" / own / "1.dcm"
        ).read_bytes()


# ---- refusals ------------------------------------------------------------------------------------------------


def test_training_inputs_in_no_folder_are_refused_in_one_sentence(tmp_path: Path) -> None:
    root = spine_competition(tmp_path / "rsna", metric=METRIC)
    shutil.rmtree(root / "prepared" / "public" / "train_images")  # the training studies' DICOMs are elsewhere
    with pytest.raises(NoHoldout) as refused:
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)
    reason = str(refused.value)
    assert reason == (
        "the test's inputs are named by StudyInstanceUID in a test folder, but no folder beside it holds the "
        "held-out StudyInstanceUIDs' inputs (are they in an archive?), so a held-out example would have no input "
        "in the sandbox"
    )
    assert ". " not in reason and "\n" not in reason


def test_a_study_on_two_rows_is_refused_in_one_sentence(tmp_path: Path) -> None:
    root = spine_competition(tmp_path / "rsna", metric=METRIC)
    path = root / "prepared" / "public" / "train.csv"
    train = read(path)
    pd.concat([train, train.iloc[[0]]]).to_csv(path, index=False)
    with pytest.raises(
        NoHoldout, match=r"^train.csv has a 'StudyInstanceUID' on several rows \(or none\), so "
    ):
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)
