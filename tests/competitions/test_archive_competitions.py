"""Competitions whose public inputs ship in archives, loaded through their view: aerial-cactus-identification
(images in train.zip/test.zip, split by the harness), text-normalization (every table zipped), an MLE-bench
public-only dir."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.competitions import load_competition
from swarm.competitions.archive_view import VIEWS_DIR
from swarm.layouts.holdout import build_holdout
from tests.competitions.archive_builders import make_zip
from tests.layouts.tables.miniatures import cactus


def test_cactus_images_are_split_by_the_harness(tmp_path: Path) -> None:
    root = cactus(tmp_path / "aerial-cactus-identification")
    competition = load_competition(str(root), tmp_path / "cache", metric="auc")
    view = competition.public_dir
    assert view.parent == (tmp_path / "cache" / VIEWS_DIR).resolve()
    assert competition.shipped_public_dir == (root / "prepared" / "public").resolve()
    assert not competition.public_only and competition.answers is not None
    assert competition.sample_submission == view / "sample_submission.csv"
    assert len(list((view / "train").iterdir())) == 40 and len(list((view / "test").iterdir())) == 20

    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.2)
    assert len(holdout.ids) == 8 and holdout.n_train == 32
    assert set(holdout.file_dirs) == {"test", "train"}
    seen = holdout.public_dir
    test_files = {p.name for p in (seen / "test").iterdir()}
    assert set(holdout.ids) <= test_files and len(test_files) == 28  # the held-out examples have their images
    sample = pd.read_csv(seen / "sample_submission.csv", dtype=str)
    assert set(holdout.ids) <= set(sample["id"]) and len(sample) == 28
    train_left = pd.read_csv(seen / "train.csv", dtype=str)
    assert not set(train_left["id"]) & set(holdout.ids) and len(train_left) == 32


def test_every_load_of_a_run_reuses_the_view(tmp_path: Path) -> None:
    root = cactus(tmp_path / "aerial-cactus-identification")
    first = load_competition(str(root), tmp_path / "cache", metric="auc")
    second = load_competition(str(root), tmp_path / "cache")
    assert first.public_dir == second.public_dir
    image = next((first.public_dir / "test").iterdir())
    assert (second.public_dir / "test" / image.name).stat().st_ino == image.stat().st_ino


def test_grading_reads_the_dir_as_it_is(tmp_path: Path) -> None:
    root = cactus(tmp_path / "aerial-cactus-identification")
    competition = load_competition(str(root), tmp_path / "cache", metric="auc", extract=False)
    assert competition.public_dir == (root / "prepared" / "public").resolve()
    assert competition.shipped_public_dir is None and not (tmp_path / "cache").exists()


def test_text_normalization_tables_are_read_from_their_zips(tmp_path: Path) -> None:
    """Every table zipped (en_train.csv.zip, en_test_2.csv.zip, en_sample_submission_2.csv.zip), in an
    MLE-bench public-only dir: the extracted CSVs are read, the sample is the CSV, not its zip too."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "description.md").write_text("# Text normalization\n")
    rows = "sentence_id,token_id,class,before,after\n0,0,PLAIN,Hello,Hello\n0,1,DATE,2016,twenty sixteen\n"
    make_zip(data / "en_train.csv.zip", {"en_train.csv": rows.encode()})
    make_zip(
        data / "en_test_2.csv.zip", {"en_test_2.csv": b"sentence_id,token_id,before\n0,0,Hi\n0,1,2017\n"}
    )
    make_zip(
        data / "en_sample_submission_2.csv.zip", {"en_sample_submission_2.csv": b"id,after\n0_0,Hi\n0_1,x\n"}
    )
    competition = load_competition(str(data), tmp_path / "cache", metric="accuracy")
    view = competition.public_dir
    assert competition.public_only and competition.root == data.resolve()
    assert competition.sample_submission == view / "en_sample_submission_2.csv"
    assert (view / "en_train.csv").read_text() == rows and (view / "en_test_2.csv").is_file()
    assert competition.metric is not None and competition.metric.id_column == "id"
    assert sorted(p.name for p in data.iterdir()) == [
        "description.md",
        "en_sample_submission_2.csv.zip",
        "en_test_2.csv.zip",
        "en_train.csv.zip",
    ]  # nothing written into the public dir


def test_labels_in_file_names_inside_archives_split_without_the_archives(tmp_path: Path) -> None:
    """dogs-vs-cats-redux: `train.zip` holds `train/cat.0.jpg`..., `test.zip` holds `test/1.jpg`.... The view
    extracts them; the harness splits the extracted files and leaves the archives out of the sandbox's view, since
    train.zip still names every held-out image by its class."""
    root = tmp_path / "dogs-vs-cats-redux-kernels-edition"
    public = root / "prepared" / "public"
    public.mkdir(parents=True)
    (public / "description.md").write_text("# Dogs vs cats\n\nPredict the probability of a dog (1 = dog).\n")
    make_zip(
        public / "train.zip", {f"train/{'dog' if n % 2 else 'cat'}.{n}.jpg": b"t%d" % n for n in range(40)}
    )
    make_zip(public / "test.zip", {f"test/{n}.jpg": b"x%d" % n for n in range(1, 11)})
    pd.DataFrame({"id": range(1, 11), "label": 0.5}).to_csv(public / "sample_submission.csv", index=False)
    competition = load_competition(str(root), tmp_path / "cache", metric="logloss")

    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.25)
    seen = holdout.public_dir
    assert "labels in file names, dog = 1" in holdout.describe() and len(holdout.ids) == 10
    assert not list(seen.glob("*.zip"))  # train.zip would name the held-out images' classes
    assert (competition.public_dir / "train.zip").is_file()  # the run's full view keeps them
    assert {f"{i}.jpg" for i in holdout.ids} <= {p.name for p in (seen / "test").iterdir()}
    assert len(list((seen / "train").iterdir())) == 30
