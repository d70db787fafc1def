"""Labels in file or folder names (issue 29, point 2): dogs-vs-cats-redux's `train/cat.0.jpg` beside `test/1.jpg`
with a probability per id, the whale challenge's `..._Train3_1.aif` (the label last), and class folders
`train/<class>/<file>.png` with a class name per test file (plant-seedlings). The harness reads the examples from
the file names, holds some out, moves their files where the test files are under new ids in the test ids'
format, keeps their labels private and scores them."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.layouts.file_labels.reader import file_label_frame, find_file_labels, positive_class
from swarm.layouts.holdout import NoHoldout, build_holdout


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def write_competition(root: Path, description: str, metric: str) -> tuple[Path, Path]:
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text(description)
    (root / "competition.json").write_text(json.dumps({"metric": {"name": metric}}))
    return public, private


def cats_and_dogs(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """dogs-vs-cats-redux: train/<cat|dog>.<n>.jpg, test/<n>.jpg, sample id,label (probability of a dog)."""
    public, private = write_competition(
        root,
        "# Dogs vs. Cats\n\n## Evaluation\n\nFor each image in the test set, predict a probability that the image "
        "is a dog (1 = dog, 0 = cat). Submissions are scored on the log loss.\n",
        "logloss",
    )
    (public / "train").mkdir()
    (public / "test").mkdir()
    for n in range(n_train):
        animal = "dog" if n % 2 else "cat"
        (public / "train" / f"{animal}.{n}.jpg").write_bytes(f"train {animal} {n}".encode())
    for n in range(1, n_test + 1):
        (public / "test" / f"{n}.jpg").write_bytes(f"test {n}".encode())
    ids = [str(n) for n in range(1, n_test + 1)]
    pd.DataFrame({"id": ids, "label": 0.5}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"id": ids, "label": [n % 2 for n in range(n_test)]}).to_csv(
        private / "answers.csv", index=False
    )
    return root


def seedlings(root: Path, per_class: int = 12, n_test: int = 9) -> Path:
    """plant-seedlings: train/<Class Name>/<hash>.png, test/<hash>.png, sample file,species."""
    public, private = write_competition(
        root, "# Seedlings\n\n## Evaluation\n\nSubmissions are scored on the micro-averaged F1.\n", "accuracy"
    )
    classes = ["Black-grass", "Charlock", "Common Chickweed"]
    for c, name in enumerate(classes):
        (public / "train" / name).mkdir(parents=True)
        for n in range(per_class):
            (public / "train" / name / f"{c:02x}{n:06x}.png").write_bytes(f"train {name} {n}".encode())
    (public / "test").mkdir()
    files = [f"ff{n:06x}.png" for n in range(n_test)]
    for name in files:
        (public / "test" / name).write_bytes(b"test")
    pd.DataFrame({"file": files, "species": "Charlock"}).to_csv(public / "sample_submission.csv", index=False)
    answers = [classes[n % 3] for n in range(n_test)]
    pd.DataFrame({"file": files, "species": answers}).to_csv(private / "answers.csv", index=False)
    return root


def test_file_name_labels_are_split_with_the_files_moved_to_the_test_side(tmp_path: Path) -> None:
    root = cats_and_dogs(tmp_path / "c")
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=3)

    assert "train/ (labels in file names, dog = 1)" in holdout.describe()
    view, public = holdout.public_dir, root / "prepared" / "public"
    held = holdout.ids
    # Every test and held-out image has a fresh id in the test ids' format and range: 1-20 for 10 and 10.
    assert len(held) == 10 and holdout.fresh_ids
    assert sorted(int(i) for i in read(view / "sample_submission.csv")["id"]) == list(range(1, 21))
    # The held-out images are gone from train/ and sit in test/ under their new ids, looking like test images.
    train_files = {p.name for p in (view / "train").iterdir()}
    assert len(train_files) == 30
    test_files = {p.name: p for p in (view / "test").iterdir()}
    assert set(test_files) == {f"{n}.jpg" for n in range(1, 21)}
    moved = {i: test_files[f"{i}.jpg"].read_bytes().decode().split() for i in held}
    own_test = holdout.own_ids("test")
    assert len(own_test) == 10 and not set(own_test) & set(held)
    for view_id, own in own_test.items():  # a test image under its fresh id
        assert test_files[f"{view_id}.jpg"].read_bytes() == f"test {own}".encode()
    assert all(words[0] == "train" for words in moved.values())
    assert not {f"{w[1]}.{w[2]}.jpg" for w in moved.values()} & train_files
    # The sample lists them; their labels (1 for a dog) are the harness's own, never in the view.
    assert set(held) <= set(read(view / "sample_submission.csv")["id"])
    labels = dict(zip(*read(holdout.labels_path)[["id", "label"]].to_numpy().T, strict=True))
    assert labels == {i: "1" if words[1] == "dog" else "0" for i, words in moved.items()}
    assert not any("dog" in p.name or "cat" in p.name for p in (view / "test").iterdir())
    assert not (view / "labels.csv").exists() and oct(holdout.labels_path.stat().st_mode & 0o777) == "0o600"
    assert {p.name for p in public.joinpath("train").iterdir()} >= train_files  # the public dir is untouched

    harness = Harness(holdout, competition.metric, competition.sample_submission)
    submitted = tmp_path / "submission.csv"
    perfect = read(view / "sample_submission.csv")
    perfect["label"] = [labels.get(i, "0.5") for i in perfect["id"]]
    perfect.to_csv(submitted, index=False)
    assert harness.evaluate(submitted, tmp_path / "test_rows.csv").score < 0.01
    wrong = perfect.assign(
        label=[f"{0.98 - 0.96 * float(labels[i]):.2f}" if i in labels else "0.5" for i in perfect["id"]]
    )
    wrong.to_csv(submitted, index=False)
    assert harness.evaluate(submitted, tmp_path / "test_rows.csv").score > 1.0


def test_the_label_last_in_the_name_and_its_number(tmp_path: Path) -> None:
    """The whale challenge: `<date>_<time>_Train<n>_<0|1>.aif`; the label is the last part, already a number."""
    public, _ = write_competition(
        tmp_path / "w", "# Whales\n\nScored by the area under the ROC curve.\n", "auc"
    )
    (public / "train2").mkdir()
    (public / "test2").mkdir()
    for n in range(30):
        day = 28 + n % 2
        (public / "train2" / f"200903{day}_000000_00{n % 7}s3ms_Train{n}_{n % 3 % 2}.aif").write_bytes(b"x")
    clips = [f"20090404_000000_0{n:02d}s0ms_Test{n}.aif" for n in range(8)]
    for clip in clips:
        (public / "test2" / clip).write_bytes(b"y")
    pd.DataFrame({"clip": clips, "probability": 0}).to_csv(public / "sampleSubmission.csv", index=False)

    layout = find_file_labels(str(public), clips, "probability", ["0"] * 8, "")
    assert layout is not None and layout["kind"] == "names" and layout["position"] == -1
    assert layout["classes"] == ["0", "1"] and layout["positive"] is None and layout["test_match"] == "name"
    frame = file_label_frame(str(public), layout)
    assert len(frame) == 30 and set(frame["probability"]) == {"0", "1"}

    holdout = build_holdout(load_competition_dir(tmp_path / "w"), tmp_path / "h", fraction=0.2, seed=0)
    moved = [holdout.public_dir / "test2" / i for i in holdout.ids]
    assert all(p.is_file() and p.read_bytes() == b"x" and p.name.endswith(".aif") for p in moved)
    assert all("_Test" in p.name for p in moved)  # named as the test clips are
    assert len(list((holdout.public_dir / "train2").iterdir())) == 24


def test_class_folders_are_split_and_their_labels_are_class_names(tmp_path: Path) -> None:
    root = seedlings(tmp_path / "s")
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=0)
    assert "train/ (labels in folder names)" in holdout.describe() and holdout.split == "stratified"
    view = holdout.public_dir
    labels = read(holdout.labels_path)
    assert len(labels) == 9 and set(labels["species"]) == {"Black-grass", "Charlock", "Common Chickweed"}
    assert {p.name for p in (view / "test").iterdir()} >= set(holdout.ids)
    assert all(i.endswith(".png") for i in holdout.ids)
    remaining = sum(1 for _ in (view / "train").rglob("*.png"))
    assert remaining == 27


def test_no_split_when_the_names_carry_no_label(tmp_path: Path) -> None:
    """Training files named like the test files (no label part), and no labels table: refused, saying why."""
    public, _ = write_competition(tmp_path / "n", "# X\n\nScored by AUC.\n", "auc")
    for folder in ("train", "test"):
        (public / folder).mkdir()
        for n in range(20):
            (public / folder / f"{folder}_{n}.jpg").write_bytes(b"z")
    pd.DataFrame({"id": [f"test_{n}" for n in range(20)], "label": 0.5}).to_csv(
        public / "sample_submission.csv", index=False
    )
    with pytest.raises(NoHoldout, match="no train.csv of labelled rows"):
        build_holdout(load_competition_dir(tmp_path / "n"), tmp_path / "h", fraction=0.2)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("predict a probability that the image is a dog (1 = dog, 0 = cat)", "dog"),
        ("the probability that the image is a cat", "cat"),
        ("cat = 1 and dog = 0", "cat"),
        ("no hint at all", "dog"),
    ],
)
def test_the_positive_class_is_read_from_the_description(text: str, expected: str) -> None:
    assert positive_class(text, ["cat", "dog"]) == expected
