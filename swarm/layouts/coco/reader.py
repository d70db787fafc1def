"""Labels in COCO-style JSON objects (the FGVC competitions: herbarium-2020/2021/2022, iwildcam-2020,
inaturalist-2019): a training object holds `images` (`id`, or `image_id`, and `file_name`) and `annotations` (`image_id`,
`category_id`), a test object (or a bare list) holds the test `images`, whose ids are the sample submission's, and
each `file_name` is relative to a folder of images.

`coco_fields(data_dir, sample_ids, targets)` finds the two files and their images' folders;
`coco_examples(...)` reads the labelled images as a table (the image file's path, relative to data_dir, and the
category as the target); `coco_test_files(...)` gives the test images' paths, by id. The offline coder then models
the images like any image files.

Shared by the harness (swarm/layouts/coco/split.py) and the offline coder; the solutions the offline coder
writes embed this module's source, so it uses only os, json and pandas.
"""

import json
import os

import pandas as pd

from swarm.layouts.file_labels.reader import FILE_COLUMN

COCO_NAME_WORDS = ("train", "test", "metadata")  # JSON files named so are read as candidates
COCO_MAX_BYTES = 1_500_000_000
COCO_DEPTH = 3
COCO_CHECKED_IMAGES = 3  # images whose files must exist under a folder for it to be the images' folder


def coco_json_files(data_dir: str) -> list:
    """The JSON files under `data_dir` (at most COCO_DEPTH folders down) whose names hold a word of
    COCO_NAME_WORDS and that are small enough to read, relative paths, sorted."""
    found = []
    for parent, subdirs, files in os.walk(data_dir):
        if os.path.relpath(parent, data_dir).count(os.sep) + (parent != data_dir) >= COCO_DEPTH:
            subdirs[:] = []
        for name in files:
            path = os.path.join(parent, name)
            lower = name.lower()
            named = lower.endswith(".json") and any(w in lower for w in COCO_NAME_WORDS)
            if named and os.path.getsize(path) <= COCO_MAX_BYTES:
                found.append(os.path.relpath(path, data_dir))
    return sorted(found)


def read_coco_json(path: str):
    """The JSON content of `path`, or None when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def coco_images(content) -> list | None:
    """The image records (dicts with an id field, image_key's, and `file_name`) of a COCO object's `images`, or
    of a bare list."""
    images = content.get("images") if isinstance(content, dict) else content
    if not isinstance(images, list) or not images or not all(isinstance(i, dict) for i in images):
        return None
    if image_key(images) is None or not all("file_name" in i for i in images):
        return None
    return images


def image_key(images: list) -> str | None:
    """The field naming each image record: `image_id` where every record has one (herbarium-2022), else `id`
    where every record has one, else None."""
    for key in ("image_id", "id"):
        if all(key in i for i in images):
            return key
    return None


def coco_labels(content) -> dict | None:
    """{image id as text: category} of a COCO object's annotations; None when there are none, or an image has
    two different categories."""
    annotations = content.get("annotations") if isinstance(content, dict) else None
    if not isinstance(annotations, list) or not annotations:
        return None
    labels: dict = {}
    for note in annotations:
        if not isinstance(note, dict) or "image_id" not in note or "category_id" not in note:
            return None
        key = str(note["image_id"])
        if labels.get(key, note["category_id"]) != note["category_id"]:
            return None
        labels[key] = note["category_id"]
    return labels


def image_folder(data_dir: str, json_file: str, images: list) -> str | None:
    """The folder (relative to data_dir; "" for data_dir itself) under which the first images' `file_name`s
    exist: the JSON file's own folder or one above it, else a folder at data_dir's top."""
    folder, candidates = os.path.dirname(json_file), []
    while True:
        candidates.append(folder)
        if not folder:
            break
        folder = os.path.dirname(folder)
    tops = sorted(d for d in os.listdir(data_dir) if os.path.isdir(os.path.join(data_dir, d)))
    for candidate in candidates + [t for t in tops if t not in candidates]:
        checked = images[:COCO_CHECKED_IMAGES]
        if all(os.path.isfile(os.path.join(data_dir, candidate, str(i["file_name"]))) for i in checked):
            return candidate
    return None


def coco_fields(data_dir: str, sample_ids: list, targets: list) -> dict | None:
    """{"train_json", "test_json", "train_folder", "test_folder"} where the sample has one target, a JSON file's
    images have exactly the sample's ids (the test), and another's images have annotations with a category each
    and none of the sample's ids (the labelled examples), both with their image files found; else None."""
    wanted = {str(i).strip() for i in sample_ids}
    if len(targets) != 1 or not wanted:
        return None
    test = train = None
    for name in coco_json_files(data_dir):
        content = read_coco_json(os.path.join(data_dir, name))
        images = coco_images(content)
        if images is None:
            continue
        ids = {str(i[image_key(images)]) for i in images}
        if test is None and ids == wanted:
            test = (name, image_folder(data_dir, name, images))
        elif train is None and not ids & wanted and coco_labels(content):
            train = (name, image_folder(data_dir, name, images))
    if test is None or train is None or test[1] is None or train[1] is None:
        return None
    return {"train_json": train[0], "test_json": test[0], "train_folder": train[1], "test_folder": test[1]}


def coco_examples(data_dir: str, fields: dict, id_col: str, target: str, file_column: str) -> pd.DataFrame:
    """The labelled images: their id (as text) in `id_col`, their file's path relative to data_dir in
    `file_column`, and their category in `target`."""
    content = read_coco_json(os.path.join(data_dir, fields["train_json"]))
    labels, images = coco_labels(content) or {}, coco_images(content) or []
    key = image_key(images)
    rows = [
        (str(i[key]), os.path.join(fields["train_folder"], str(i["file_name"])), labels[str(i[key])])
        for i in images
        if str(i[key]) in labels
    ]
    return pd.DataFrame(rows, columns=[id_col, file_column, target])


def coco_test_files(data_dir: str, fields: dict) -> dict:
    """{test image id as text: its file's path relative to data_dir}."""
    images = coco_images(read_coco_json(os.path.join(data_dir, fields["test_json"]))) or []
    key = image_key(images)
    return {str(i[key]): os.path.join(fields["test_folder"], str(i["file_name"])) for i in images}


def find_coco(probe) -> dict | None:
    """The COCO-style JSON labels (see `coco_fields`) where no labelled table is named, else None."""
    if probe.labelled_table:
        return None
    return coco_fields(probe.data_dir, probe.ids, probe.targets)


def read_coco_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the labelled images with their categories; the sample's ids with their files."""
    id_col, target = sample.columns[0], sample.columns[1]
    train = coco_examples(data_dir, fields, id_col, target, FILE_COLUMN).head(max_rows)
    test = sample[[id_col]].copy()
    test[FILE_COLUMN] = test[id_col].astype(str).str.strip().map(coco_test_files(data_dir, fields))
    return train, test
