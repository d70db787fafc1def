"""A long submission with a row per (example, class) over a column of class lists: plant-pathology-2021-fgvc8's
`train.csv` (`image`, `labels` = `scab frog_eye_leaf_spot`) behind a sample that alone lists the test's rows,
`Id` = `<image>_<class>`, `Probability`. The classes are those the sample's ids end with; the offline coder reads
the lists into a 0/1 target per (image, class), and the harness holds out whole images, each joining the sample as
a row per class under a fresh key, its image linked where the test's are. Lists joined with "," read alike, and
lists behind a wide sample (a column per class) are spread into its columns. What the harness cannot split it
refuses in one sentence naming the file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import Holdout, NoHoldout, build_holdout
from swarm.layouts.long_classes import reader
from swarm.layouts.long_classes.reader import long_list_fields
from swarm.offline_coder.task import find_data_files, infer_task_from_dir, read_examples
from tests.layouts.long_classes.miniatures import LEAF_CLASSES, list_labels_competition

ID, TARGET = "Id", "Probability"


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def image_of(row_id: str) -> str:
    return row_id.split(".png_", 1)[0] + ".png"


def small(root: Path, **kwargs) -> Path:
    """The miniature with 24 training images and 8 test images."""
    return list_labels_competition(root, n_train=24, n_test=8, **kwargs)


# ---- reading -------------------------------------------------------------------------------------------------

TABLE = pd.DataFrame(
    {"image": ["a1.jpg", "b2.jpg", "c3.jpg"], "labels": ["scab frog_eye_leaf_spot", "rust", "scab"]}
)
CLASSES = ["scab", "rust", "frog_eye_leaf_spot"]
IDS = [f"{image}_{c}" for image in ("d4.jpg", "e5.jpg") for c in CLASSES]


@pytest.mark.parametrize("separator", [" ", ","])
def test_the_sample_ids_name_the_classes_of_a_column_of_lists(separator: str) -> None:
    table = TABLE.assign(labels=TABLE["labels"].str.replace(" ", separator))
    fields = long_list_fields(table, IDS, ID, [TARGET])
    assert fields == {"key": "image", "labels": "labels", "classes": CLASSES, "class_column": "class"}
    # a table with a column named `class` gets another name for the melted rows' class
    assert long_list_fields(table.assign(**{"class": "x"}), IDS, ID, [TARGET])["class_column"] == "class_"


@pytest.mark.parametrize(
    ("table", "ids", "targets"),
    [
        (TABLE, IDS[:-1], [TARGET]),  # an image without one of the classes: no grid of (image, class)
        (TABLE.assign(labels=["scab healthy", "rust", "scab"]), IDS, [TARGET]),  # a class the ids lack
        (TABLE.assign(Probability="1"), IDS, [TARGET]),  # the target is in the labelled table
        (TABLE, [i.replace("_", "-", 1) for i in IDS], [TARGET]),  # ids that end with no class after a "_"
        (TABLE, IDS, [TARGET, "other"]),  # two targets
    ],
    ids=["no grid", "other class", "target in table", "no class suffix", "two targets"],
)
def test_other_tables_are_no_column_of_lists(table: pd.DataFrame, ids: list[str], targets: list[str]) -> None:
    assert long_list_fields(table, ids, ID, targets) is None


@pytest.mark.parametrize("separator", [" ", ","])
def test_the_coder_reads_a_0_1_target_per_image_and_class(tmp_path: Path, separator: str) -> None:
    public = small(tmp_path / "c", separator=separator) / "prepared" / "public"
    files = find_data_files(str(public))
    assert files["long_classes"] == {
        "train": "train.csv",
        "test": None,
        "key": "image",
        "labels": "labels",
        "classes": list(LEAF_CLASSES),
        "class_column": "class",
    }
    sample = pd.read_csv(public / "sample_submission.csv")
    train, test = read_examples(str(public), files, sample)
    lists = dict(zip(*read(public / "train.csv").to_dict("list").values(), strict=True))
    assert len(train) == 24 * len(LEAF_CLASSES) and list(train.columns) == [ID, "image", "class", TARGET]
    assert (train[ID] == train["image"] + "_" + train["class"]).all()
    truth = [
        int(c in lists[image].split(separator))
        for image, c in zip(train["image"], train["class"], strict=True)
    ]
    assert train[TARGET].tolist() == truth and 0 < train[TARGET].mean() < 1
    # the test rows: the sample's, in its order, with the image and the class its id joins
    assert test[ID].tolist() == sample[ID].tolist() and list(test.columns) == [ID, "image", "class"]
    assert (test[ID] == test["image"] + "_" + test["class"]).all()
    task = infer_task_from_dir(str(public), metric="auc")
    assert task["id_col"] == ID and task["metric"] == "auc"
    assert [(t["name"], t["task"], t["output"]) for t in task["targets"]] == [(TARGET, "binary", "proba")]
    assert task["columns"]["image"]["kind"] == "file"


def test_a_test_table_listing_the_images_a_row_each_joins_the_test_rows_by_image(tmp_path: Path) -> None:
    public = small(tmp_path / "c") / "prepared" / "public"
    sample = pd.read_csv(public / "sample_submission.csv")
    images = list(dict.fromkeys(image_of(i) for i in sample[ID]))
    pd.DataFrame({"image": images, "width": range(len(images))}).to_csv(public / "test.csv", index=False)
    files = find_data_files(str(public))
    assert files["long_classes"]["test"] == "test.csv"
    _, test = read_examples(str(public), files, sample)
    assert test[ID].tolist() == sample[ID].tolist() and list(test.columns) == [ID, "image", "class", "width"]
    assert test["width"].tolist() == [images.index(image) for image in test["image"]]
    # without the key, the test table is no listing of the images: the layout is not found
    pd.DataFrame({"name": images}).to_csv(public / "test.csv", index=False)
    assert "long_classes" not in find_data_files(str(public))


def test_lists_joined_with_blanks_behind_a_wide_sample_are_spread_into_its_columns(tmp_path: Path) -> None:
    root = small(tmp_path / "c", wide=True)
    public = root / "prepared" / "public"
    task = infer_task_from_dir(str(public), metric="auc")
    assert task["files"]["label_sets"] == "labels"
    assert [t["name"] for t in task["targets"]] == list(LEAF_CLASSES)
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)
    labels = read(holdout.labels_path)
    lists = read(public / "train.csv").set_index("image")["labels"]
    own = holdout.own_ids("held")
    assert list(labels.columns) == ["image", *LEAF_CLASSES] and len(labels) == 6
    for _, row in labels.iterrows():
        assert [int(row[c]) for c in LEAF_CLASSES] == [
            int(c in lists[own[row["image"]]].split()) for c in LEAF_CLASSES
        ]


# ---- the harness's split -------------------------------------------------------------------------------------


def split(tmp_path: Path, **kwargs) -> tuple[Path, Holdout]:
    root = small(tmp_path / "c", **kwargs)
    return root, build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)


@pytest.mark.parametrize("separator", [" ", ","])
def test_whole_images_join_the_sample_as_a_row_per_class(tmp_path: Path, separator: str) -> None:
    root, holdout = split(tmp_path, separator=separator)
    public, view = root / "prepared" / "public", holdout.public_dir
    original = read(public / "train.csv").set_index("image")["labels"]
    own = holdout.own_ids("held")
    fresh = list(dict.fromkeys(image_of(i) for i in holdout.ids))
    held = [image_of(own[f"{image}_{LEAF_CLASSES[0]}"]) for image in fresh]
    assert len(held) == 6 and holdout.fresh_ids
    assert holdout.ids == [f"{image}_{c}" for image in fresh for c in LEAF_CLASSES]
    assert "train.csv's lists of 4 classes in labels (6 images, a row per class) (ids <image>_<class>)" in (
        holdout.describe()
    )
    # train.csv: the other images, as they were; no test table is written
    train = read(view / "train.csv")
    assert (
        list(train.columns) == ["image", "labels"]
        and len(train) == 18
        and not set(held) & set(train["image"])
    )
    assert not (view / "test.csv").exists()
    # the sample: the test's rows and the held-out images', each image's rows together in class order
    sample = read(view / "sample_submission.csv")
    assert len(sample) == (8 + 6) * len(LEAF_CLASSES) and set(holdout.ids) <= set(sample[ID])
    assert sample[ID].tolist() == [
        f"{image_of(i)}_{c}" for i in sample[ID][:: len(LEAF_CLASSES)] for c in LEAF_CLASSES
    ]
    assert set(sample[TARGET]) == {"0.5"}
    # labels.csv: 1 where the held-out image's own list names the class
    labels = read(holdout.labels_path)
    assert labels[ID].tolist() == holdout.ids
    truth = [
        str(int(i.rsplit(".png_", 1)[1] in original[image_of(own[i])].split(separator))) for i in labels[ID]
    ]
    assert labels[TARGET].tolist() == truth
    # images: each held-out one under its fresh name where the test's are, none left among the training ones
    assert {p.name for p in (view / "train_images").iterdir()} == set(train["image"])
    assert {p.name for p in (view / "test_images").iterdir()} == {image_of(i) for i in sample[ID]}
    for image, own_image in zip(fresh, held, strict=True):
        assert (view / "test_images" / image).read_bytes() == (
            public / "train_images" / own_image
        ).read_bytes()


def test_a_perfect_submission_scores_1(tmp_path: Path) -> None:
    root, holdout = split(tmp_path)
    competition = load_competition_dir(root)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    truth = dict(read(holdout.labels_path).to_numpy())
    sample = read(holdout.public_dir / "sample_submission.csv")
    path = tmp_path / "submission.csv"
    sample.assign(Probability=[truth.get(i, "0.5") for i in sample[ID]]).to_csv(path, index=False)
    scored = harness.evaluate(path, tmp_path / "test_rows.csv")
    assert scored.score == 1.0, scored.problem


def _two_rows(public: Path) -> None:
    train = read(public / "train.csv")
    pd.concat([train, train.iloc[[0]]]).to_csv(public / "train.csv", index=False)


def _test_table(public: Path) -> None:
    images = sorted({image_of(i) for i in read(public / "sample_submission.csv")[ID]})
    pd.DataFrame({"image": images}).to_csv(public / "test.csv", index=False)


def _late_class(public: Path) -> None:
    train = read(public / "train.csv")
    train.loc[len(train) - 1, "labels"] = "scab healthy"  # past the rows the detector reads
    train.to_csv(public / "train.csv", index=False)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            _two_rows,
            "train.csv has a 'image' on several rows (or none), so which class values belong to a held-out",
        ),
        (
            _test_table,
            "test.csv lists the test's images a row each beside a sample with a row per (image, class), a",
        ),
        (
            _late_class,
            "train.csv's labels names classes besides the 4 the sample's ids end with (scab, rust, frog_",
        ),
    ],
    ids=["image on two rows", "test table", "class beyond the sample's"],
)
def test_what_the_harness_cannot_split_is_refused_in_one_sentence_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change, reason: str
) -> None:
    monkeypatch.setattr(reader, "LIST_SCAN_ROWS", 20)
    root = small(tmp_path / "c")
    change(root / "prepared" / "public")
    with pytest.raises(NoHoldout) as refused:
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)
    assert str(refused.value).startswith(reason) and ". " not in str(refused.value), str(refused.value)
