"""Labels kept apart from the inputs (issue 29, points 2 and 6 in part): `train_labels.csv` beside `train/` and
`test/` image folders, as histopathologic-cancer-detection lays them out (ids are file stems), and `labels.csv`
with ids that are file names, as aerial-cactus-like layouts do. The harness holds out rows of that table, moves
their files where the test files are, and scores them; where the ids name no files (the images in an archive),
it refuses in one sentence rather than hold out examples with no input."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.tables.miniatures import image_competition, make_competition


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


@pytest.mark.parametrize(("table", "suffix"), [("train_labels.csv", ""), ("labels.csv", ".tif")])
def test_a_labels_table_beside_image_folders_is_split_with_its_files(tmp_path: Path, table, suffix) -> None:
    root = image_competition(tmp_path / "c", table, suffix)
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25, seed=1)

    assert holdout.table == table and "labelled rows of " + table in holdout.describe()
    assert sorted(holdout.file_dirs) == ["test", "train"]
    view = holdout.public_dir
    original = read(root / "prepared" / "public" / table)
    kept = read(view / table)
    held = set(holdout.ids)
    assert len(held) == 10 and len(kept) == 30 and not held & set(kept["id"])
    stem = (lambda i: i[: -len(suffix)]) if suffix else (lambda i: i)
    # The train folder keeps only the kept rows' images; the held-out ones sit among the test images.
    assert {p.stem for p in (view / "train").iterdir()} == {stem(i) for i in kept["id"]}
    test_files = {p.stem: p for p in (view / "test").iterdir()}
    # every test and held-out image under its row's fresh id
    assert set(test_files) == {stem(i) for i in read(view / "sample_submission.csv")["id"]}
    own = holdout.own_ids("held")
    assert all(test_files[stem(i)].read_bytes() == f"train/{stem(own[i])}".encode() for i in held)
    # The sample submission lists them; their labels stay private, in the harness's own file.
    assert held <= set(read(view / "sample_submission.csv")["id"])
    labels = read(holdout.labels_path)
    truth = dict(zip(original["id"], original["label"], strict=True))
    assert dict(zip(labels["id"], labels["label"], strict=True)) == {i: truth[own[i]] for i in held}
    truth = {i: truth[own[i]] for i in held}
    assert oct(holdout.labels_path.stat().st_mode & 0o777) == "0o600"

    # The harness scores a submission's held-out rows against those labels.
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    perfect = read(view / "sample_submission.csv").assign(label=lambda f: f["id"].map(truth).fillna("0.5"))
    submitted = tmp_path / "perfect.csv"
    perfect.to_csv(submitted, index=False)
    result = harness.evaluate(submitted, tmp_path / "test_rows.csv")
    assert result.problem is None and result.score == 1.0
    flipped = perfect.assign(label=lambda f: f["label"].map({"0": "1", "1": "0"}).fillna("0.5"))
    flipped.to_csv(submitted, index=False)
    assert harness.evaluate(submitted, tmp_path / "test_rows.csv").score == 0.0


def test_images_only_in_an_archive_are_refused_in_one_sentence(tmp_path: Path) -> None:
    root = image_competition(tmp_path / "c")
    public = root / "prepared" / "public"
    with zipfile.ZipFile(public / "train.zip", "w") as archive:
        for path in sorted((public / "train").iterdir()):
            archive.write(path, f"train/{path.name}")
            path.unlink()
    (public / "train").rmdir()
    with pytest.raises(NoHoldout) as refused:
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25)
    message = str(refused.value)
    assert "\n" not in message
    assert "train_labels.csv name no files in a folder" in message and "no input in the sandbox" in message
    assert not (tmp_path / "h").exists()  # refused before anything was written


def test_two_tables_that_could_hold_the_labels_are_refused(tmp_path: Path) -> None:
    root = image_competition(tmp_path / "c")
    public = root / "prepared" / "public"
    (public / "train_labels.csv").rename(public / "labels.csv")
    read(public / "labels.csv").to_csv(public / "train_labels_v2.csv", index=False)
    with pytest.raises(
        NoHoldout, match=r"several tables hold the labels \(labels.csv, train_labels_v2.csv\)"
    ):
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25)


def test_no_labelled_table_at_all_says_what_was_looked_for(tmp_path: Path) -> None:
    root = image_competition(tmp_path / "c")
    (root / "prepared" / "public" / "train_labels.csv").unlink()
    with pytest.raises(NoHoldout, match=r"no train.csv of labelled rows .* nor a labels table .*id, label"):
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25)


def test_side_files_keyed_by_held_out_ids_never_reach_the_sandbox(tmp_path: Path) -> None:
    """Masks named by the examples' ids (tgs-salt's train/masks/) and an annotations table keyed by the id
    column (ranzcr's train_annotations.csv) carry the labels: the held-out ids' masks are left out of the view
    and their annotation rows dropped; the kept examples' stay, and the test files are untouched."""
    root = image_competition(tmp_path / "c")
    public = root / "prepared" / "public"
    train_ids = list(read(public / "train_labels.csv")["id"])
    (public / "masks").mkdir()
    for name in train_ids:
        (public / "masks" / f"{name}.png").write_bytes(f"mask of {name}".encode())
    annotations = pd.DataFrame({"id": train_ids * 2, "box": [f"{i} {i}" for i in range(2 * len(train_ids))]})
    annotations.to_csv(public / "train_annotations.csv", index=False)
    test_files = sorted(p.name for p in (public / "test").iterdir())

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=2)
    view, held = holdout.public_dir, set(holdout.ids)
    kept = set(read(view / "train_labels.csv")["id"])
    assert {p.stem for p in (view / "masks").iterdir()} == kept
    seen = read(view / "train_annotations.csv")
    assert set(seen["id"]) == kept and len(seen) == 2 * len(kept)
    own = holdout.own_ids("held")
    assert not set(own.values()) & set(seen["id"])
    # Every test image is there under its fresh id, with its own bytes.
    own_test = holdout.own_ids("test")
    assert test_files and sorted(own_test.values()) == [name.removesuffix(".tif") for name in test_files]
    for name, test_name in own_test.items():
        assert (view / "test" / f"{name}.tif").read_bytes() == f"test/{test_name}".encode()
    # The held-out examples' inputs in test/ are their images, not their masks (named alike, listed first).
    assert held and set(own) == held
    for name in held:
        assert (view / "test" / f"{name}.tif").read_bytes() == f"train/{own[name]}".encode()
    assert "train_annotations.csv" in holdout.hidden_side_files
    assert sum(name.startswith("masks/") for name in holdout.hidden_side_files) == len(held)


def test_a_side_table_with_a_row_per_example_but_no_id_column_is_cleaned(tmp_path: Path) -> None:
    """champs-scalar-coupling: scalar_coupling_contributions.csv has no id column, but one row per train row
    keyed by (molecule, atom pair, type), and its terms add up to the target; structures.csv has many rows per
    molecule (no row names one example) and stays as it is."""
    rng = np.random.default_rng(3)
    rows = [(f"m{m:03d}", a, a + 1, "1JHC") for m in range(30) for a in range(3)]
    train = pd.DataFrame(rows, columns=["molecule_name", "atom_index_0", "atom_index_1", "type"])
    train.insert(0, "id", range(len(train)))
    train["scalar_coupling_constant"] = rng.normal(size=len(train)).round(4)
    test = pd.DataFrame(
        [(1000 + k, f"t{k:03d}", 0, 1, "1JHC") for k in range(12)],
        columns=["id", "molecule_name", "atom_index_0", "atom_index_1", "type"],
    )
    sample = pd.DataFrame({"id": test["id"], "scalar_coupling_constant": 0.0})
    root = make_competition(tmp_path / "champs", train, test, sample, "mae")
    public = root / "prepared" / "public"
    contributions = train.drop(columns=["id"]).rename(columns={"scalar_coupling_constant": "fc"})
    contributions.to_csv(public / "scalar_coupling_contributions.csv", index=False)
    structures = pd.DataFrame([(f"m{m:03d}", a, 0.5 * a) for m in range(30) for a in range(4)])
    structures.columns = ["molecule_name", "atom_index", "x"]
    structures.to_csv(public / "structures.csv", index=False)

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2, split="random", seed=4)
    view = holdout.public_dir
    kept = read(view / "train.csv")
    key = ["molecule_name", "atom_index_0", "atom_index_1", "type"]
    seen = read(view / "scalar_coupling_contributions.csv")
    assert len(seen) == len(kept) == len(train) - len(holdout.ids)
    assert set(map(tuple, seen[key].to_numpy())) == set(map(tuple, kept[key].to_numpy()))
    assert holdout.hidden_side_files == ["scalar_coupling_contributions.csv"]
    assert read(view / "structures.csv").equals(read(public / "structures.csv"))


def test_a_labels_table_with_one_class_column_for_a_wide_submission(tmp_path: Path) -> None:
    """dog-breed-identification: `labels.csv` is `id,breed`, the submission has a probability column per breed;
    the harness reads the breeds as the classes and writes the held-out labels one-hot in those columns."""
    root = image_competition(tmp_path / "c", "labels.csv", n_train=40, n_test=10)
    public = root / "prepared" / "public"
    breeds = ["beagle", "collie", "pug"]
    labels = read(public / "labels.csv")
    labels = labels.drop(columns=["label"]).assign(breed=[breeds[k % 3] for k in range(len(labels))])
    labels.to_csv(public / "labels.csv", index=False)
    sample = read(public / "sample_submission.csv")[["id"]].assign(**{b: "0.333" for b in breeds})
    sample.to_csv(public / "sample_submission.csv", index=False)
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "multiclass_logloss"}}))

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)
    assert holdout.table == "labels.csv" and holdout.split == "stratified"
    held = read(holdout.labels_path)
    assert list(held.columns) == ["id", *breeds] and len(held) == 10
    truth = dict(zip(labels["id"], labels["breed"], strict=True))
    own = holdout.own_ids("held")
    for _, row in held.iterrows():
        assert [row[b] for b in breeds] == ["1" if truth[own[row["id"]]] == b else "0" for b in breeds]
    assert set(read(holdout.public_dir / "labels.csv")["id"]).isdisjoint(held["id"])


def test_training_tfrecords_are_left_out_of_the_view(tmp_path: Path) -> None:
    """cassava and siim-isic ship every training image again in TFRecords (`train_tfrecords/ld_train00-1338.tfrec`)
    with its label inside and no id in the file name: where their records cannot be split (here the files are not
    TFRecords at all; tests/layouts/tables/test_tfrecord_split.py splits real ones), the training ones are left out
    whole, the test ones stay."""
    root = image_competition(tmp_path / "c")
    public = root / "prepared" / "public"
    for folder, name in (
        ("train_tfrecords", "ld_train00-30.tfrec"),
        ("test_tfrecords", "ld_test00-10.tfrec"),
    ):
        (public / folder).mkdir()
        (public / folder / name).write_bytes(b"records with labels")
    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=2)
    view = holdout.public_dir
    assert not (view / "train_tfrecords").exists() or not any((view / "train_tfrecords").iterdir())
    assert (view / "test_tfrecords" / "ld_test00-10.tfrec").is_file()
    assert "train_tfrecords/ld_train00-30.tfrec" in holdout.hidden_side_files


def test_a_folder_per_example_moves_whole_under_the_new_id(tmp_path: Path) -> None:
    """nomad2018: `train/<id>/geometry.xyz` and `test/<id>/geometry.xyz`, ids 1..N in both (so held-out rows
    are re-keyed): each held-out example's folder moves to test/ under its new id, and leaves train/."""
    root = tmp_path / "nomad"
    public = root / "prepared" / "public"
    for folder, count in (("train", 40), ("test", 10)):
        for i in range(1, count + 1):
            (public / folder / str(i)).mkdir(parents=True)
            (public / folder / str(i) / "geometry.xyz").write_text(f"{folder} {i}\n")
    pd.DataFrame({"id": range(1, 41), "spacegroup": 12, "bandgap": np.linspace(0, 4, 40)}).to_csv(
        public / "train.csv", index=False
    )
    pd.DataFrame({"id": range(1, 11), "spacegroup": 12}).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": range(1, 11), "bandgap": 1.0}).to_csv(public / "sample_submission.csv", index=False)
    (public / "description.md").write_text("# Nomad\n\nScored by RMSE.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "rmse"}}))

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=0)
    view = holdout.public_dir
    assert holdout.rekeyed and all(int(i) > 40 for i in holdout.ids)
    assert sorted(holdout.file_dirs) == ["test", "train"]
    moved = {i: (view / "test" / i / "geometry.xyz").read_text() for i in holdout.ids}
    assert all(text.startswith("train ") for text in moved.values())
    left = {p.name for p in (view / "train").iterdir()}
    assert len(left) == 30 and not {t.split()[1] for t in moved.values()} & left
    assert len(list((view / "test").iterdir())) == 20


def test_json_side_records_lose_the_held_out_examples_records(tmp_path: Path) -> None:
    """3d-object-detection: `train_data/sample_annotation.json` holds each sample token's boxes (its labels),
    and other records refer to tokens too: records keyed by a held-out id are dropped from the view; a count
    that equals an id by chance is no key; test-side records stay."""
    root = image_competition(tmp_path / "c")
    public = root / "prepared" / "public"
    train_ids = list(read(public / "train_labels.csv")["id"])
    (public / "train_data").mkdir()
    boxes = [{"token": f"a{k}", "sample_token": i, "size": 3} for k, i in enumerate(train_ids)]
    (public / "train_data" / "sample_annotation.json").write_text(json.dumps(boxes))
    other = [{"token": f"c{k}", "count": i} for k, i in enumerate(train_ids[:2])]  # 2 of 40: not a key
    (public / "train_data" / "calibration.json").write_text(json.dumps(other))
    # sample.json: a record per sample, keyed by `token`; `prev`/`next` name its neighbours, which may stay.
    chain = [
        {
            "token": i,
            "prev": train_ids[k - 1] if k else "",
            "next": train_ids[k + 1] if k + 1 < len(train_ids) else "",
        }
        for k, i in enumerate(train_ids)
    ]
    (public / "train_data" / "sample.json").write_text(json.dumps(chain))
    (public / "test_data").mkdir()
    (public / "test_data" / "sample_annotation.json").write_text(json.dumps(boxes[:3]))

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=2)
    view, held = holdout.public_dir, set(holdout.ids)
    seen = json.loads((view / "train_data" / "sample_annotation.json").read_text())
    assert {r["sample_token"] for r in seen} == set(train_ids) - held and len(seen) == 30
    assert "train_data/sample_annotation.json" in holdout.hidden_side_files
    assert json.loads((view / "train_data" / "calibration.json").read_text()) == other
    samples = json.loads((view / "train_data" / "sample.json").read_text())
    assert {r["token"] for r in samples} == set(train_ids) - held  # every kept sample keeps its record
    assert json.loads((view / "test_data" / "sample_annotation.json").read_text()) == boxes[:3]


@pytest.mark.parametrize("depth", [1, 3])
def test_files_filed_by_their_first_characters_move_to_the_same_filing(tmp_path: Path, depth: int) -> None:
    """seti-breakthrough-listen files `train/<c>/<id>.npy` and bms-molecular-translation `train/<a>/<b>/<c>/<id>.png`
    (the first characters of the id): the held-out files are found there and filed the same way among the test
    files, under their ids' own first characters."""
    root = image_competition(tmp_path / "c")
    public = root / "prepared" / "public"
    for folder in ("train", "test"):
        for path in list((public / folder).iterdir()):
            target = public / folder / Path(*path.stem[:depth]) / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            path.rename(target)

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=1)
    view = holdout.public_dir
    assert sorted(holdout.file_dirs) == ["test", "train"] and len(holdout.ids) == 10
    own = holdout.own_ids("held")  # fresh ids, filed by their own first characters
    for i in holdout.ids:
        moved = view / "test" / Path(*i[:depth]) / f"{i}.tif"
        assert moved.read_bytes() == f"train/{own[i]}".encode()
    assert sum(1 for p in (view / "train").rglob("*.tif")) == 30
    assert sum(1 for p in (view / "test").rglob("*.tif")) == 20


def test_training_files_filed_by_class_move_flat_among_flat_test_files(tmp_path: Path) -> None:
    """hotel-id-2021-fgvc8 files `train_images/<chain>/<image>` and `test_images/<image>` flat, the ids being
    file names: each held-out image leaves its chain's folder and lies among the test images, as they do."""
    public = tmp_path / "c" / "prepared" / "public"
    (public / "test_images").mkdir(parents=True)
    rng = np.random.default_rng(5)
    images = [f"{rng.integers(16**12):012x}.jpg" for _ in range(48)]
    chains = [str(k % 4) for k in range(40)]
    for image, chain in zip(images[:40], chains, strict=True):
        (public / "train_images" / chain).mkdir(parents=True, exist_ok=True)
        (public / "train_images" / chain / image).write_bytes(f"train/{image}".encode())
    for image in images[40:]:
        (public / "test_images" / image).write_bytes(f"test/{image}".encode())
    hotels = [f"{100 + k % 5}" for k in range(40)]
    pd.DataFrame({"image": images[:40], "chain": chains, "hotel_id": hotels}).to_csv(
        public / "train.csv", index=False
    )
    pd.DataFrame({"image": images[40:], "hotel_id": "100 101 102 103 104"}).to_csv(
        public / "sample_submission.csv", index=False
    )
    (public / "description.md").write_text("# Hotels\n\nScored by MAP@5.\n")
    (tmp_path / "c" / "competition.json").write_text(json.dumps({"metric": {"name": "map@5"}}))

    holdout = build_holdout(load_competition_dir(tmp_path / "c"), tmp_path / "h", fraction=0.25, seed=3)
    view, held = holdout.public_dir, set(holdout.ids)
    assert sorted(holdout.file_dirs) == ["test_images", "train_images"] and len(held) == 10
    own = holdout.own_ids("held")  # fresh names in the test's format; each row's own is the harness's
    assert set(own.values()) <= set(images[:40])
    for image in held:
        assert (view / "test_images" / image).read_bytes() == f"train/{own[image]}".encode()
    left = {p.name for p in (view / "train_images").rglob("*.jpg")}
    assert len(left) == 30 and not left & set(own.values())
    assert len(list((view / "test_images").iterdir())) == 18


def test_an_examples_files_of_one_stem_move_together(tmp_path: Path) -> None:
    """hubmap-kidney-segmentation keeps `<id>.tiff` beside `<id>.json` and `<id>-anatomical-structure.json` in
    train/ and in test/: a held-out example takes all three where the test examples have them; a kind of file
    only training examples have (here `<id>.npy`, `<id>_mask.png`) is left out of the view for a held-out
    example, and stays for a kept one."""
    root = image_competition(tmp_path / "c")
    public = root / "prepared" / "public"
    for folder in ("train", "test"):
        for path in list((public / folder).glob("*.tif")):
            path.with_suffix(".json").write_text(f"{folder} json {path.stem}")
            (path.parent / f"{path.stem}-anatomical-structure.json").write_text(
                f"{folder} anatomy {path.stem}"
            )
            if folder == "train":
                path.with_suffix(".npy").write_bytes(b"train only")
                (path.parent / f"{path.stem}_mask.png").write_bytes(b"train only")

    holdout = build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.25, seed=1)
    view, held = holdout.public_dir, set(holdout.ids)
    assert len(held) == 10
    own = holdout.own_ids("held")
    for i in held:
        assert (view / "test" / f"{i}.tif").read_bytes() == f"train/{own[i]}".encode()
        assert (view / "test" / f"{i}.json").read_text() == f"train json {own[i]}"
        assert (view / "test" / f"{i}-anatomical-structure.json").read_text() == f"train anatomy {own[i]}"
        assert not (view / "test" / f"{i}.npy").exists() and not (view / "test" / f"{i}_mask.png").exists()
    train_files = {p.name for p in (view / "train").iterdir()}
    assert not {n for n in train_files if n.split(".")[0].split("-")[0].split("_")[0] in set(own.values())}
    assert len(train_files) == 30 * 5
