"""Miniatures of COCO-style JSON labels beside image folders: herbarium-2020, herbarium-2022 and iwildcam-2020
as the census copies them, and herbarium-2020's with real images for the no-key run (`coco_competition`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.images import bright_or_dark_image
from tests.layouts.kit import dirs, hexes, write_files


def herbarium_2020(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """herbarium-2020-fgvc7: `nybg2020/train/metadata.json` (one COCO-style object: `annotations`, `categories`,
    `images`, `info`, `licenses`, `regions`), `nybg2020/train/images/<ccc>/<cc>/<image id>.jpg` (by category),
    `nybg2020/test/metadata.json` (`images`, `info`, `licenses`), `nybg2020/test/images/<idx // 1000>/<idx>.jpg`,
    `sample_submission.csv` `Id` (the test index), `Predicted` = 0."""
    public, _ = dirs(root, "f1_macro", "# Herbarium 2020\n\nScored by the macro F1.\n")
    rng = np.random.default_rng(127)
    train, test = public / "nybg2020" / "train", public / "nybg2020" / "test"
    categories = [15601, 15672, 23001]
    image_ids = sorted(int(v) for v in rng.choice(10**6, n_train, replace=False))
    images, annotations = [], []
    for k, image_id in enumerate(image_ids):
        category = categories[k % 3]
        name = f"images/{category // 100:03d}/{category % 100:02d}/{image_id}.jpg"
        images.append({"file_name": name, "height": 1000, "id": image_id, "license": 0, "width": 661})
        annotations.append({"category_id": category, "id": image_id, "image_id": image_id, "region_id": 1})
    write_files(train, [i["file_name"] for i in images])
    info = {"year": 2020, "version": "1.0"}
    metadata = {"annotations": annotations, "categories": [{"id": c, "name": f"plant {c}"} for c in categories],
                "images": images, "info": info, "licenses": [{"id": 0}], "regions": [{"id": 1, "name": "NY"}]}  # fmt: skip
    (train / "metadata.json").write_text(json.dumps(metadata, indent=4, sort_keys=True))
    test_images = [{"file_name": f"images/{k // 1000:03d}/{k}.jpg", "id": str(k)} for k in range(n_test)]
    write_files(test, [i["file_name"] for i in test_images])
    test_metadata = {"images": test_images, "info": info, "licenses": [{"id": 0}]}
    (test / "metadata.json").write_text(json.dumps(test_metadata, indent=4, sort_keys=True))
    pd.DataFrame({"Id": range(n_test), "Predicted": 0}).to_csv(public / "sample_submission.csv", index=False)
    return root


def herbarium_2022(root: Path, n_train: int = 20, n_test: int = 5) -> Path:
    """herbarium-2022-fgvc9's variant: `train_metadata.json` whose image records are named by `image_id`, files
    `train_images/<ccc>/<cc>/<image_id>.jpg`; `test_metadata.json` a bare list of `image_id`, `file_name`
    (`<idx // 1000>/test-<idx>.jpg` under `test_images/`); the sample `Id`, `Predicted`."""
    public = root / "prepared" / "public"
    (root / "prepared" / "private").mkdir(parents=True)
    images, annotations = [], []
    for k in range(n_train):
        category = (3, 12)[k % 2]
        name = f"{category // 100:03d}/{category % 100:02d}/{k:05d}__{k:03d}.jpg"
        images.append({"file_name": name, "image_id": f"{k:05d}__{k:03d}", "license": 0})
        annotations.append({"category_id": category, "genus_id": 1, "image_id": f"{k:05d}__{k:03d}"})
        (public / "train_images" / name).parent.mkdir(parents=True, exist_ok=True)
        (public / "train_images" / name).write_bytes(b"jpeg")
    metadata = {
        "annotations": annotations,
        "categories": [{"category_id": 3}, {"category_id": 12}],
        "images": images,
    }
    (public / "train_metadata.json").write_text(json.dumps(metadata))
    tests = [
        {"file_name": f"{k // 1000:03d}/test-{k:06d}.jpg", "image_id": str(k), "license": 0}
        for k in range(n_test)
    ]
    for image in tests:
        (public / "test_images" / image["file_name"]).parent.mkdir(parents=True, exist_ok=True)
        (public / "test_images" / image["file_name"]).write_bytes(b"jpeg")
    (public / "test_metadata.json").write_text(json.dumps(tests))
    pd.DataFrame({"Id": range(n_test), "Predicted": 0}).to_csv(public / "sample_submission.csv", index=False)
    (public / "description.md").write_text("# Herbarium 2022\n\nScored by the macro F1 score.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "f1_macro"}}))
    return root


def iwildcam_2020(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """iwildcam-2020-fgvc7: `iwildcam2020_train_annotations.json` (COCO-style: `annotations`, `images` with `id`
    a UUID, `file_name` `<id>.jpg`, `location`, `seq_id`; `categories`, `info`), `iwildcam2020_test_information.json`
    (`images`, `categories`, `info`), `iwildcam2020_megadetector_results.json` (every image's detections, train
    and test: `images` of `id`, `detections`, `max_detection_conf`; `detection_categories`, `info`), `train/<id>.jpg`,
    `test/<id>.jpg`, `sample_submission.csv` `Id`, `Category` (random)."""
    public, _ = dirs(root, "accuracy", "# iWildCam 2020\n\nScored by accuracy.\n")
    rng = np.random.default_rng(141)

    def uuid() -> str:
        parts = hexes(rng, 5, 4)
        return f"{parts[0]}{parts[1]}-{parts[2]}-11ea-{parts[3]}-{parts[4]}{hexes(rng, 1, 8)[0]}"

    ids = [uuid() for _ in range(n_train + n_test)]
    categories = [0, 3, 372]

    def image(i: str, k: int) -> dict:
        return {"id": i, "file_name": f"{i}.jpg", "location": k % 5, "seq_id": f"s{k // 3}", "width": 2048}

    train = [image(i, k) for k, i in enumerate(ids[:n_train])]
    annotations = [
        {"id": f"a{k}", "image_id": i["id"], "category_id": categories[k % 3]} for k, i in enumerate(train)
    ]
    named = [{"id": c, "name": f"animal {c}"} for c in categories]
    info = {"version": "1.0"}
    (public / "iwildcam2020_train_annotations.json").write_text(
        json.dumps({"annotations": annotations, "images": train, "categories": named, "info": info})
    )
    test = [image(i, k) for k, i in enumerate(ids[n_train:])]
    (public / "iwildcam2020_test_information.json").write_text(
        json.dumps({"images": test, "categories": named, "info": info})
    )
    detections = [
        {
            "id": i,
            "detections": [{"category": "1", "bbox": [0.1, 0.2, 0.3, 0.4], "conf": 0.9}],
            "max_detection_conf": 0.9,
        }
        for i in ids
    ]
    (public / "iwildcam2020_megadetector_results.json").write_text(
        json.dumps({"info": info, "images": detections, "detection_categories": {"1": "animal"}})
    )
    write_files(public / "train", [i["file_name"] for i in train])
    write_files(public / "test", [i["file_name"] for i in test])
    sample = pd.DataFrame({"Id": ids[n_train:], "Category": rng.integers(0, 676, n_test)})
    sample.to_csv(public / "sample_submission.csv", index=False)
    return root


def coco_competition(root: Path, n_train: int = 80, n_test: int = 24) -> Path:
    """herbarium-2020's layout (herbarium_2020): COCO-style `nybg2020/train/metadata.json` with images filed
    by category, `nybg2020/test/metadata.json`, the sample's `Id` the test images' ids; here two categories,
    bright and dark images, scored by macro F1."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    private.mkdir(parents=True)
    rng = np.random.default_rng(2020)
    train, test = public / "nybg2020" / "train", public / "nybg2020" / "test"
    images, annotations = [], []
    for k, image_id in enumerate(int(v) for v in rng.choice(10**6, n_train, replace=False)):
        category = (15601, 23001)[k % 2]
        name = f"images/{category // 100:03d}/{category % 100:02d}/{image_id}.jpg"
        bright_or_dark_image(train / name, category == 23001, rng)
        images.append({"file_name": name, "id": image_id})
        annotations.append({"category_id": category, "id": image_id, "image_id": image_id})
    metadata = {"annotations": annotations, "categories": [{"id": 15601}, {"id": 23001}], "images": images}
    (train / "metadata.json").write_text(json.dumps(metadata))
    answers = [(15601, 23001)[int(b)] for b in rng.integers(0, 2, n_test)]
    tests = [{"file_name": f"images/000/{k}.jpg", "id": k} for k in range(n_test)]
    for image, category in zip(tests, answers, strict=True):
        bright_or_dark_image(test / image["file_name"], category == 23001, rng)
    (test / "metadata.json").write_text(json.dumps({"images": tests}))
    pd.DataFrame({"Id": range(n_test), "Predicted": 0}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"Id": range(n_test), "Predicted": answers}).to_csv(private / "answers.csv", index=False)
    (public / "description.md").write_text(
        "# Herbarium\n\nName each test image's category; scored by macro F1.\n"
    )
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "f1_macro"}}))
    return root
