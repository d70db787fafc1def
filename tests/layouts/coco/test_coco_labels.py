"""Labels in COCO-style JSON objects (issue 29): herbarium-2020 keeps `nybg2020/train/metadata.json` (`images`,
`annotations` with each image's `category_id`, ...) beside image files filed by category
(`images/<ccc>/<cc>/<id>.jpg`), and `nybg2020/test/metadata.json` lists the test images, whose ids are the sample's.
The harness holds out whole images: their records and annotations leave the training object, their records join
the test object with the test records' fields, every test and held-out image under a fresh id in the test ids'
format, its file copied under the name a test image with that id has (no path names a category any more), and
labels.csv keeps their categories."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.evaluation.harness import Harness
from swarm.layouts.coco.reader import coco_examples, coco_fields, coco_test_files
from swarm.layouts.holdout import NoHoldout, build_holdout
from tests.layouts.coco.miniatures import herbarium_2020, herbarium_2022, iwildcam_2020

TRAIN_JSON, TEST_JSON = "nybg2020/train/metadata.json", "nybg2020/test/metadata.json"


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def split(tmp_path: Path, **options):
    root = herbarium_2020(tmp_path / "herb")
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", **{"fraction": 0.2, "seed": 0, **options})
    return root / "prepared" / "public", competition, holdout


def test_held_out_images_move_to_the_test_object_under_new_ids(tmp_path: Path) -> None:
    public, competition, holdout = split(tmp_path)
    view = holdout.public_dir
    before = json.loads((public / TRAIN_JSON).read_text())
    train, test = json.loads((view / TRAIN_JSON).read_text()), json.loads((view / TEST_JSON).read_text())
    assert len(holdout.ids) == 6 and len(train["images"]) == 24 and len(train["annotations"]) == 24
    assert {k for k in train if k not in ("images", "annotations")} == {
        "categories",
        "info",
        "licenses",
        "regions",
    }
    moved = [i for i in test["images"] if i["id"] in holdout.ids]
    assert len(moved) == 6 and len(test["images"]) == 8 + 6
    assert all(set(i) == {"file_name", "id"} for i in test["images"])  # the test records' fields only
    for image in moved:
        assert image["file_name"] == f"images/000/{image['id']}.jpg"
        assert (view / "nybg2020" / "test" / image["file_name"]).is_file()
    # Every test and held-out image has a fresh id, named as the test's are, copied (no inode shared with a
    # training file) with a test file's mtime: nothing in the files tells the held-out ones apart.
    own_test = holdout.own_ids("test")
    assert holdout.fresh_ids and sorted(own_test.values()) == [str(k) for k in range(8)]
    assert not {str(i["id"]) for i in test["images"]} & {str(i["id"]) for i in before["images"]}
    files = [view / "nybg2020" / "test" / i["file_name"] for i in test["images"]]
    assert sorted(p for p in (view / "nybg2020" / "test").rglob("*.jpg")) == sorted(files)
    assert all(f"/{i['id']}.jpg" in i["file_name"] for i in test["images"])
    assert all(f.stat().st_nlink == 1 for f in files)
    test_mtimes = {f.stat().st_mtime_ns for f in (public / "nybg2020" / "test").rglob("*.jpg")}
    assert {f.stat().st_mtime_ns for f in files} <= test_mtimes
    # the held-out images leave the training side: no training record, annotation or file of theirs remains
    kept = {i["id"] for i in train["images"]}
    held = [i for i in before["images"] if i["id"] not in kept]
    assert len(held) == 6
    for image in held:
        assert not (view / "nybg2020" / "train" / image["file_name"]).exists()
    assert {a["image_id"] for a in train["annotations"]} == kept
    sample = read(view / "sample_submission.csv")
    assert sorted(sample["Id"]) == sorted(str(i["id"]) for i in test["images"])
    labels = read(holdout.labels_path)
    categories = {a["image_id"]: str(a["category_id"]) for a in before["annotations"]}
    truth = dict(zip(labels["Id"], labels["Predicted"], strict=True))
    assert sorted(truth.values()) == sorted(categories[i["id"]] for i in held)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    sample.assign(Predicted=[truth.get(i, "15601") for i in sample["Id"]]).to_csv(
        tmp_path / "s.csv", index=False
    )
    assert harness.evaluate(tmp_path / "s.csv", tmp_path / "t.csv").score == 1.0


def test_the_offline_coder_reads_the_view_as_image_files_with_categories(tmp_path: Path) -> None:
    _, _, holdout = split(tmp_path)
    view = holdout.public_dir
    sample = read(view / "sample_submission.csv")
    fields = coco_fields(str(view), sample["Id"].tolist(), ["Predicted"])
    assert fields == {
        "train_json": TRAIN_JSON,
        "test_json": TEST_JSON,
        "train_folder": "nybg2020/train",
        "test_folder": "nybg2020/test",
    }
    examples = coco_examples(str(view), fields, "Id", "Predicted", "input_file")
    assert len(examples) == 24 and all((view / p).is_file() for p in examples["input_file"])
    files = coco_test_files(str(view), fields)
    assert set(files) == set(sample["Id"]) and all((view / p).is_file() for p in files.values())


def test_a_split_other_than_random_is_refused_in_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(NoHoldout, match="whole images are held out at random"):
        split(tmp_path, split="stratified")


def test_records_named_by_image_id_and_a_bare_test_list_as_herbarium_2022(tmp_path: Path) -> None:
    root = herbarium_2022(tmp_path / "h22")
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.2, seed=0)
    view = holdout.public_dir
    tests = json.loads((view / "test_metadata.json").read_text())
    assert isinstance(tests, list) and len(tests) == 5 + 4
    moved = [t for t in tests if t["image_id"] in holdout.ids]
    assert len(moved) == 4 and all(set(t) == {"file_name", "image_id", "license"} for t in moved)
    assert all((view / "test_images" / t["file_name"]).is_file() for t in moved)
    # fresh ids for all 9, each named as herbarium-2022 names a test image: `<id // 1000:03d>/test-<id:06d>.jpg`
    assert holdout.fresh_ids and len({t["image_id"] for t in tests}) == 9
    assert all(
        t["file_name"] == f"{int(t['image_id']) // 1000:03d}/test-{int(t['image_id']):06d}.jpg" for t in tests
    )
    assert sorted(
        p.relative_to(view / "test_images").as_posix() for p in (view / "test_images").rglob("*.jpg")
    ) == sorted(t["file_name"] for t in tests)
    train = json.loads((view / "train_metadata.json").read_text())
    assert len(train["images"]) == len(train["annotations"]) == 16
    assert len(read(holdout.labels_path)) == 4


def test_iwildcam_2020s_detections_follow_the_held_out_images_to_their_new_ids(tmp_path: Path) -> None:
    """iwildcam-2020's megadetector results list every image's detections, train and test, by image id: in the
    view a held-out image's detections are under its new id (an input the test images have), and no record
    names its old id; the test images' records are as they were."""
    root = iwildcam_2020(tmp_path / "iw")
    public = root / "prepared" / "public"
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.25, seed=0)
    name = "iwildcam2020_megadetector_results.json"
    before = {r["id"]: r for r in json.loads((public / name).read_text())["images"]}
    after = {r["id"]: r for r in json.loads((holdout.public_dir / name).read_text())["images"]}
    train = json.loads((public / "iwildcam2020_train_annotations.json").read_text())["images"]
    kept = {
        i["id"]
        for i in json.loads((holdout.public_dir / "iwildcam2020_train_annotations.json").read_text())[
            "images"
        ]
    }
    held_old = [i["id"] for i in train if i["id"] not in kept]
    assert len(held_old) == len(holdout.ids) > 0
    assert set(holdout.ids) <= set(after) and not set(held_old) & set(after)
    assert sorted(str(after[i]["detections"]) for i in holdout.ids) == sorted(
        str(before[i]["detections"]) for i in held_old
    )
    own_test = holdout.own_ids("test")  # the test images' records follow their fresh ids too
    assert sorted(own_test.values()) == sorted(read(public / "sample_submission.csv")["Id"])
    assert all(after[fresh] == {**before[own], "id": fresh} for fresh, own in own_test.items())
    assert not set(own_test.values()) & set(after)
    uuid = r"[0-9a-f]{8}-[0-9a-f]{4}-11ea-[0-9a-f]{4}-[0-9a-f]{12}"  # the new ids look like the test ids
    assert all(re.fullmatch(uuid, i) for i in [*own_test, *holdout.ids])
    view_files = sorted(p.name for p in (holdout.public_dir / "test").iterdir())
    assert view_files == sorted(f"{i}.jpg" for i in [*own_test, *holdout.ids])
    assert any(name in hidden for hidden in holdout.hidden_side_files)


def test_side_records_that_name_a_category_lose_the_held_out_images_rather_than_follow_them(
    tmp_path: Path,
) -> None:
    """A second file of annotations (records with a `category_id` per image) holds labels: re-keyed, it would tell
    a solution the held-out images' categories under their new ids; instead their records leave it."""
    root = iwildcam_2020(tmp_path / "iw")
    public = root / "prepared" / "public"
    train = json.loads((public / "iwildcam2020_train_annotations.json").read_text())
    (public / "extra_annotations.json").write_text(json.dumps({"annotations": train["annotations"]}))
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.25, seed=0)
    kept = {
        i["id"]
        for i in json.loads((holdout.public_dir / "iwildcam2020_train_annotations.json").read_text())[
            "images"
        ]
    }
    extra = json.loads((holdout.public_dir / "extra_annotations.json").read_text())["annotations"]
    assert {a["image_id"] for a in extra} == kept  # no held-out image's category, under either id
    assert not {a["image_id"] for a in extra} & set(holdout.ids)
