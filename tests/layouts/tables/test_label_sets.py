"""Labels as sets of the submission's class columns (issue 29): freesound-audio-tagging-2019's `train_curated.csv`
and `train_noisy.csv` hold `fname` and `labels` (`Bark,Walk_and_footsteps`), while the submission has a 0/1 column
per class. Where two tables hold labels, the harness holds rows out of the one evaluation.labels_table (or
competition.json's `labels_table`) names, else of the one not named as weaker labels (train_noisy.csv), else it
refuses naming the setting; it links the held-out clips' audio where the test clips are and writes their sets as
the submission's class columns in labels.csv. The offline coder spreads the sets into a 0/1 target per class."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.config import load_config
from swarm.formats.label_sets import class_sets, holds_several, spread_label_sets
from swarm.layouts.holdout import NoHoldout, build_holdout
from swarm.offline_coder.client import coarse_metric
from swarm.offline_coder.task import infer_task_from_dir
from swarm.pipeline.context import create_run
from swarm.pipeline.evaluation_setup import load_evaluation
from tests.layouts.tables.tabular_miniatures import FREESOUND_CLASSES, freesound


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_class_sets_reads_one_class_or_a_set_a_row_and_nothing_else() -> None:
    classes = ["cat", "dog", "owl"]
    assert class_sets(pd.Series(["cat", "dog"]), classes) == [{"cat"}, {"dog"}]
    assert class_sets(pd.Series(["cat, owl", "dog"]), classes) == [{"cat", "owl"}, {"dog"}]
    assert class_sets(pd.Series(["cat,emu", "dog"]), classes) is None  # a class the submission lacks
    assert class_sets(pd.Series(["cat", "cat"]), classes) is None  # one class: no labels to learn
    spread = spread_label_sets(pd.DataFrame({"id": [1, 2], "tags": ["cat,owl", "dog"]}), "tags", classes)
    assert spread.to_dict("list") == {"id": [1, 2], "cat": [1, 0], "dog": [0, 1], "owl": [1, 0]}


def test_class_sets_read_lists_joined_with_blanks_as_plant_pathology_2021_writes_them() -> None:
    classes = ["scab", "rust", "frog_eye_leaf_spot", "Leaf Mold"]
    assert class_sets(pd.Series(["scab frog_eye_leaf_spot", " rust "]), classes) == [
        {"scab", "frog_eye_leaf_spot"},
        {"rust"},
    ]
    assert class_sets(pd.Series(["Leaf Mold", "rust"]), classes) == [
        {"Leaf Mold"},
        {"rust"},
    ]  # a name with a blank
    assert class_sets(pd.Series(["Leaf Mold,rust", "scab"]), classes) == [{"Leaf Mold", "rust"}, {"scab"}]
    assert class_sets(pd.Series(["scab rust", ""]), classes) is None  # a blank list names no class
    assert (
        class_sets(pd.Series(["scab rust", "scab healthy"]), classes) is None
    )  # a class the submission lacks
    assert holds_several(pd.Series(["scab rust", "rust"]), classes)
    assert not holds_several(pd.Series(["Leaf Mold", "rust"]), classes)
    spread = spread_label_sets(
        pd.DataFrame({"image": ["a", "b"], "labels": ["scab rust", "rust"]}), "labels", classes
    )
    assert spread[classes].to_dict("list") == {
        "scab": [1, 0],
        "rust": [1, 1],
        "frog_eye_leaf_spot": [0, 0],
        "Leaf Mold": [0, 0],
    }


def split(root: Path, tmp_path: Path, **kwargs):
    competition = load_competition(str(root), tmp_path / "cache")
    return competition, build_holdout(competition, tmp_path / "h", fraction=0.25, seed=0, **kwargs)


def test_of_two_labels_tables_a_plain_name_beats_a_weaker_one_and_else_the_setting_is_named(
    tmp_path: Path,
) -> None:
    """freesound's train_noisy.csv is named as weaker labels, so rows are held out of train_curated.csv; where
    neither name says so, the split refuses naming the setting that chooses (and a setting naming no labels table
    is refused too)."""
    _, holdout = split(freesound(tmp_path / "fs"), tmp_path / "a")
    assert holdout.table == "train_curated.csv"
    root = freesound(tmp_path / "fs2")
    public = root / "prepared" / "public"
    (public / "train_noisy.csv").rename(public / "train_second.csv")
    with pytest.raises(
        NoHoldout, match=r"several tables hold the labels \(train_curated.csv, train_second.csv\)"
    ):
        split(root, tmp_path / "b")
    with pytest.raises(
        NoHoldout, match=r"evaluation.labels_table names 'sample_submission.csv', which is no"
    ):
        split(root, tmp_path / "c", labels_table="sample_submission.csv")


@pytest.mark.parametrize(
    ("how", "chosen", "other"),
    [
        ("by name", "train_curated", "train_noisy"),
        ("setting", "train_noisy", "train_curated"),
        ("competition.json", "train_noisy", "train_curated"),
    ],
)
def test_held_out_clips_of_the_chosen_table_get_their_audio_and_their_sets_as_columns(
    tmp_path: Path, how: str, chosen: str, other: str
) -> None:
    root = freesound(tmp_path / "fs")
    if how == "competition.json":
        spec = json.loads((root / "competition.json").read_text())
        (root / "competition.json").write_text(json.dumps({**spec, "labels_table": f"{chosen}.csv"}))
    setting = {"labels_table": f"{chosen}.csv"} if how == "setting" else {}
    competition, holdout = split(root, tmp_path, **setting)
    public, view = competition.public_dir, holdout.public_dir
    table = read(public / f"{chosen}.csv").set_index("fname")
    labels = read(holdout.labels_path).set_index("fname")
    assert holdout.ids and sorted(labels.index) == sorted(holdout.ids)
    assert list(labels.columns) == list(FREESOUND_CLASSES)
    own = holdout.own_ids("held")  # each held-out clip's fresh name in the view -> its own
    for clip, row in labels.iterrows():
        assert {c for c in FREESOUND_CLASSES if row[c] == "1"} == set(
            table.loc[own[clip], "labels"].split(",")
        )
        assert (view / "test" / clip).read_bytes() == (public / chosen / own[clip]).read_bytes()
        assert not (view / chosen / own[clip]).exists()
    assert not set(read(view / f"{chosen}.csv")["fname"]) & set(own.values())
    # the other table stays whole
    assert read(view / f"{other}.csv").equals(read(public / f"{other}.csv"))
    assert set(holdout.ids) <= set(read(view / "sample_submission.csv")["fname"])
    assert not list(view.glob("*.zip"))  # the archives hold the held-out clips under their training names
    # The offline coder, given the run's metric as a no-key run gives it: a 0/1 target per class, probabilities,
    # read from the table not named as weaker labels.
    task = infer_task_from_dir(str(view), metric=coarse_metric("lwlrap"))
    assert task["files"]["train"] == "train_curated.csv" and task["files"]["label_sets"] == "labels"
    assert [t["name"] for t in task["targets"]] == list(FREESOUND_CLASSES)
    assert {t["output"] for t in task["targets"]} == {"proba"}


def test_a_runs_labels_table_setting_reaches_its_split(tmp_path: Path, base_overrides: list[str]) -> None:
    """`evaluation.labels_table` in a run's config (here the noisy table, which the names would not pick) is the
    table its harness split holds rows out of, as evaluation.json says."""
    root = freesound(tmp_path / "fs")
    overrides = [o for o in base_overrides if not o.startswith("data.competition=")]
    cfg = load_config(None, [*overrides, f"data.data_dir={root}", "evaluation.labels_table=train_noisy.csv"])
    paths = create_run(cfg, tmp_path / "run")
    setup = load_evaluation(paths.root)
    assert setup is not None and setup.holdout is not None and setup.holdout.table == "train_noisy.csv"
    assert "train_noisy.csv" in json.loads((paths.root / "evaluation.json").read_text())["holdout"]
