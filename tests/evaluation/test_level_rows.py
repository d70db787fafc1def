"""Examples at two levels, each with rows in the sample (siim-covid19-detection's studies and images): the layout
is recognised, the harness holds out whole studies with their images and writes their strings as prepare.py
writes the answers, and the offline coder reads both levels."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.competitions import load_competition
from swarm.evaluation.holdout import build_holdout
from swarm.level_rows import level_fields, level_rows
from swarm.offline_coder.inference import infer_task_from_dir
from tests.evaluation.census_builders import SIIM_CLASSES, siim_covid


def _text(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_the_layout_names_both_levels_and_the_column_linking_them(tmp_path: Path) -> None:
    public = siim_covid(tmp_path / "s") / "prepared" / "public"
    sample = _text(public / "sample_submission.csv")
    fields = level_fields(str(public), sorted(p.name for p in public.iterdir()), sample)
    assert fields is not None
    assert (fields["parent"], fields["child"], fields["link"]) == ("study", "image", "StudyInstanceUID")
    assert fields["levels"]["study"]["classes"] == list(SIIM_CLASSES)
    assert fields["levels"]["image"]["label"] == "label"
    # one level only, or ids without levels: not this layout
    studies = sample[sample["id"].str.endswith("_study")]
    assert level_fields(str(public), sorted(p.name for p in public.iterdir()), studies) is None


def test_a_studys_string_is_its_class_word_and_the_samples_dummy_box(tmp_path: Path) -> None:
    public = siim_covid(tmp_path / "s") / "prepared" / "public"
    sample = _text(public / "sample_submission.csv")
    fields = level_fields(str(public), sorted(p.name for p in public.iterdir()), sample)
    rows = level_rows(str(public), fields, "id", "PredictionString").set_index("id")
    studies = _text(public / "train_study_level.csv")
    for _, row in studies.iterrows():
        word = next(c for c in SIIM_CLASSES if row[c] == "1")
        assert rows.loc[row.id, "PredictionString"] == word.split()[0].lower() + " 1 0 0 1 1"
    images = _text(public / "train_image_level.csv").set_index("id")
    assert rows.loc[images.index, "PredictionString"].tolist() == images["label"].tolist()
    assert set(rows["level"]) == {"study", "image"}


def test_whole_studies_move_to_the_test_side_with_their_images(tmp_path: Path) -> None:
    root = siim_covid(tmp_path / "s", n_train=30, n_test=6)
    public = root / "prepared" / "public"
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2, seed=1
    )
    view = holdout.public_dir
    labels = _text(holdout.root / "labels.csv").set_index("id")
    held_studies = [i[: -len("_study")] for i in labels.index if i.endswith("_study")]
    assert len(held_studies) == 6 and holdout.n_train == 24
    images = _text(public / "train_image_level.csv")
    held_images = images[images["StudyInstanceUID"].isin(held_studies)]
    # every image of a held-out study is held out, scored by its own label; none is left in the view's tables
    assert sorted(i for i in labels.index if i.endswith("_image")) == sorted(held_images["id"])
    assert labels.loc[held_images["id"], "PredictionString"].tolist() == held_images["label"].tolist()
    view_images, view_studies = _text(view / "train_image_level.csv"), _text(view / "train_study_level.csv")
    assert not set(view_images["StudyInstanceUID"]) & set(held_studies)
    assert not set(view_studies["id"]) & set(labels.index)
    for study in held_studies:  # the study's folder is where the test's are, and no longer under train/
        assert not (view / "train" / study).exists()
        moved = sorted(p.relative_to(view / "test" / study) for p in (view / "test" / study).rglob("*.dcm"))
        assert moved == sorted(
            p.relative_to(public / "train" / study) for p in (public / "train" / study).rglob("*.dcm")
        )
    # the sample lists them with their level's dummy string, as it lists the test's
    sample = _text(view / "sample_submission.csv").set_index("id")
    shown = sample.loc[labels.index, "PredictionString"]
    assert (shown[shown.index.str.endswith("_study")] == "negative 1 0 0 1 1").all()
    assert (shown[shown.index.str.endswith("_image")] == "none 1 0 0 1 1").all()


def test_the_offline_coder_reads_both_levels_of_the_view(tmp_path: Path) -> None:
    root = siim_covid(tmp_path / "s")
    holdout = build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)
    task = infer_task_from_dir(str(holdout.public_dir))
    assert task["files"]["levels"]["parent"] == "study"
    assert [t["task"] for t in task["targets"]] == ["boxes"]  # each class's confidence at its mean box
    assert "level" in task["columns"]
