"""The harness split of labels in COCO-style JSON objects (swarm/layouts/coco/reader.py: herbarium, iwildcam-2020,
inaturalist-2019): whole labelled images are held out at random. In the view, the training object loses their
image records and annotations; the test object (or list) gains their records with the test records' fields only.
Every test and held-out image gets a fresh id in the test ids' format (`swarm.evaluation.fresh_ids`) and the file
name a test image with that id would have (`swarm.evaluation.name_templates`), its file copied there with a test
file's mtime; where ids are kept (they carry meaning, or the test file names follow no rule), the held-out images
get new ids in the test ids' format and their files are linked beside the first test image's. Their image files
leave the training folders (whose paths can name the category); the sample lists the view's ids; labels.csv keeps
their categories. Other JSON files whose records name the images (iwildcam-2020's megadetector detections) name
them by their ids in the view.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.atomic import PUBLIC
from swarm.competitions.competition import Competition
from swarm.evaluation.fresh_files import copy_under_names
from swarm.evaluation.fresh_ids import FreshIds, draw_fresh_ids, keep_ids_reason, kept_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.labelled_data import MIN_LABELLED_ROWS
from swarm.evaluation.labels import closed_classes
from swarm.evaluation.name_templates import name_template
from swarm.evaluation.new_ids import new_ids
from swarm.evaluation.split import whole_examples
from swarm.evaluation.table_io import write_public_csv
from swarm.evaluation.view_files import extracted_archives, fresh_view, link, mirror
from swarm.layouts.coco.reader import coco_images, coco_labels, image_key, read_coco_json

LABEL_FIELD = "category_id"  # a COCO record's label


def build_coco_holdout(request: SplitRequest, fields: dict) -> SplitParts:
    """build_holdout for COCO-style labels (see the module docstring): whole images, at random."""
    competition, seed = request.competition, request.seed
    public = competition.public_dir
    data = _read_coco(public, fields)
    what = ("COCO-style labels", "images")
    positions = whole_examples(request.split, len(data.labelled), request.fraction, seed, *what)
    held = [data.labelled[k] for k in positions]
    rng = np.random.default_rng(seed + 2)  # the order of the view's test records and sample rows
    test_ids = [str(i[data.test_key]) for i in data.test_images]
    taken = {str(i[data.key]) for i in data.images} | set(test_ids)
    ids = new_ids(len(held), test_ids, taken, np.random.default_rng(seed + 1))
    skip = {public / fields["train_json"], public / fields["test_json"], competition.sample_submission}
    view = _CocoView(public, fresh_view(request.root), fields, skip | {*extracted_archives(public)}, rng)
    # the view's test records: test and held-out, shuffled
    order = rng.permutation(len(data.test_images) + len(held))
    train_frame = pd.DataFrame({data.key: [str(i[data.key]) for i in data.images]})
    fresh, name_of = _fresh_images(
        competition, train_frame, data.key, data.test_images, len(held), order, seed
    )
    held_ids = [str(i[data.key]) for i in held]
    test_images, moved, fresh, ids = _place_images(view, data.test_images, held, ids, fresh, name_of)
    renamed = _write_view_records(view, data, (held_ids, ids), fresh, test_ids, test_images + moved, order)
    _write_sample(request, view, test_ids, fresh, (held_ids, ids))
    target = request.spec.target_columns[0]
    answers = [str(data.labels[str(i[data.key])]) for i in held]
    every = pd.DataFrame({target: [str(data.labels[str(i[data.key])]) for i in data.labelled]})
    return SplitParts(
        pd.DataFrame({target: answers}),
        pd.DataFrame(index=range(len(ids))),
        ids,
        ("random", "whole images of a COCO-style object, at random"),
        n_train=len(data.labelled) - len(held),
        classes=closed_classes(every, True),
        table=f"{fields['train_json']} (COCO-style annotations, category_id as {target})",
        hidden=[fields["train_json"], *(f"{name} (held-out images' records re-keyed)" for name in renamed)],
        file_dirs=sorted({fields["train_folder"], fields["test_folder"]}),
        rekeyed=True,
        fresh=fresh,
    )


@dataclass(frozen=True)
class _CocoData:
    """The COCO-style objects as read: the training one and the test one (an object or a list of image records),
    each labelled image's category, the training and the test images' records and the fields naming them, and the
    labelled images' records."""

    train: dict
    test: dict | list
    labels: dict
    images: list[dict]
    test_images: list[dict]
    key: str
    test_key: str
    labelled: list[dict]


def _read_coco(public: Path, fields: dict) -> _CocoData:
    """The training and test objects (`swarm.layouts.coco.reader.find_coco`'s fields); NoHoldout where fewer than
    MIN_LABELLED_ROWS images are labelled."""
    train = read_coco_json(str(public / fields["train_json"]))
    test = read_coco_json(str(public / fields["test_json"]))
    labels = coco_labels(train) or {}
    images, test_images = coco_images(train) or [], coco_images(test) or []
    key, test_key = image_key(images), image_key(test_images)
    labelled = [i for i in images if str(i[key]) in labels]
    if len(labelled) < MIN_LABELLED_ROWS:
        raise NoHoldout(f"{fields['train_json']} has only {len(labelled)} labelled images")
    return _CocoData(train, test, labels, images, test_images, key, test_key, labelled)


@dataclass(frozen=True)
class _CocoView:
    """The view being built: the public dir, the view's root (`dest`), the layout's fields, the public files the
    view leaves out or writes itself (`skip`, which grows), and the generator of its order and its copies."""

    public: Path
    dest: Path
    fields: dict
    skip: set[Path]
    rng: np.random.Generator


def _place_images(
    view: _CocoView,
    test_images: list[dict],
    held: list[dict],
    ids: list[str],
    fresh: FreshIds,
    name_of: Callable[[str], str],
) -> tuple[list[dict], list[dict], FreshIds, list[str]]:
    """The view's image files: where ids are fresh, every test and held-out image copied under its fresh id's
    file name (`name_of`) with a test file's mtime, the test images' records renamed alike; else each held-out
    image linked beside the first test image under its new id. Returns the test images' records, the held-out
    images' (the test records' fields only), the view's ids (with a note on the copies) and the held-out ids."""
    fields, public, dest = view.fields, view.public, view.dest
    test_key = image_key(test_images)
    beside = os.path.dirname(str(test_images[0]["file_name"]))
    test_keys = list(dict.fromkeys(k for i in test_images for k in i))
    as_id = _id_typed_as(test_images[0][test_key])
    sources: list[Path] = []
    if (
        fresh.fresh
    ):  # every test and held-out image copied under its fresh id's name, its record renamed alike
        ids, test_names = fresh.held, [name_of(f) for f in fresh.test]
        sources = [public / fields["test_folder"] / str(i["file_name"]) for i in test_images]
        test_images = [
            {**i, test_key: as_id(f), "file_name": n}
            for i, f, n in zip(test_images, fresh.test, test_names, strict=True)
        ]
    moved, placed = [], []
    for image, new in zip(held, ids, strict=True):
        source = public / fields["train_folder"] / str(image["file_name"])
        name = name_of(new) if fresh.fresh else os.path.join(beside, new + source.suffix)
        placed.append((source, dest / fields["test_folder"] / name))
        view.skip.add(source)
        record = {k: image.get(k) for k in test_keys}
        moved.append({**record, test_key: as_id(new), "file_name": name})
    if not fresh.fresh:
        for source, target in placed:
            link(source, target)
        return test_images, moved, fresh, ids
    targets = [dest / fields["test_folder"] / str(i["file_name"]) for i in test_images]
    view.skip.update(sources)
    note = copy_under_names([*zip(sources, targets, strict=True), *placed], sources, view.rng)
    return test_images, moved, replace(fresh, note=note), ids


def _id_typed_as(example: object) -> Callable[[str], int | str]:
    """How a new id is written in a record: a whole number where the test images' ids are (`example`: one)."""
    numeric = isinstance(example, int)

    def as_id(new: str) -> int | str:
        return int(new) if numeric and new.isdigit() else new

    return as_id


def _write_view_records(
    view: _CocoView,
    data: _CocoData,
    held: tuple[list[str], list[str]],
    fresh: FreshIds,
    test_ids: list[str],
    listed: list[dict],
    order: np.ndarray,
) -> list[str]:
    """The view's JSON: the training object without the held-out images, other JSON files naming them under
    their ids in the view (`_rekey_side_records`, whose names are returned), and the test object with `listed`
    (the test images' records, then the held-out ones') in `order`; the rest of the public dir linked."""
    held_ids, ids = held
    fields, dest = view.fields, view.dest
    _write_json(dest / fields["train_json"], _without(data.train, set(held_ids), data.key))
    renamed_ids = dict(zip(held_ids, ids, strict=True))
    if fresh.fresh:
        renamed_ids.update(zip([str(i) for i in test_ids], fresh.test, strict=True))
    renamed = _rekey_side_records(view.public, dest, view.skip, renamed_ids)
    listed = [listed[k] for k in order]
    test = data.test
    _write_json(dest / fields["test_json"], {**test, "images": listed} if isinstance(test, dict) else listed)
    mirror(view.public, dest, view.skip)
    return renamed


def _write_sample(
    request: SplitRequest,
    view: _CocoView,
    test_ids: list[str],
    fresh: FreshIds,
    held: tuple[list[str], list[str]],
) -> None:
    """The view's sample: the test rows (under their fresh ids where ids are fresh: view_ids.csv saved) and the
    held-out images' (`held`: their own ids and their ids in the view) with the sample's first target, shuffled."""
    spec, sample = request.spec, request.sample
    held_ids, ids = held
    id_col, target = spec.id_column, spec.target_columns[0]
    filler = sample[target].iloc[0] if len(sample) else "0"
    if fresh.fresh:
        own_sample = sample[id_col].astype(str).str.strip().tolist()
        test_of = dict(zip(test_ids, fresh.test, strict=True))
        sample = sample.assign(**{id_col: [test_of[i] for i in own_sample]})
        write_view_ids(
            request.root,
            {"test": sample[id_col].tolist(), "held": ids},
            {"test": own_sample, "held": held_ids},
        )
    rows = pd.concat([sample, pd.DataFrame({id_col: ids, target: filler})], ignore_index=True)
    path = view.dest / request.competition.sample_submission.name
    write_public_csv(rows.iloc[view.rng.permutation(len(rows))], path)


def _fresh_images(
    competition: Competition,
    train: pd.DataFrame,
    key: str,
    test_images: list[dict],
    n_held: int,
    order: np.ndarray,
    seed: int,
) -> tuple[FreshIds, Callable[[str], str]]:
    """Fresh ids for the test images and the held-out ones (`order`: the view's records, test images first) and
    the rule naming an image's file after its id (`swarm.evaluation.name_templates`); or why ids are kept: they
    carry meaning, their format, or test file names that do not follow the ids."""
    test_key = image_key(test_images)
    test_ids = [str(i[test_key]) for i in test_images]
    reason = keep_ids_reason(competition, train, None, key)
    rule = name_template(test_ids, [str(i["file_name"]) for i in test_images])
    if reason is None and rule is None:
        reason = (
            f"the test images' file names ({test_images[0]['file_name']}) do not follow their ids by a rule"
        )
    if reason is not None:
        return kept_ids(reason), str
    rng = np.random.default_rng(seed + 3)
    return draw_fresh_ids(order, test_ids, set(train[key]), n_held, rng), rule


def _rekey_side_records(public: Path, dest: Path, skip: set[Path], new_id: dict[str, str]) -> list[str]:
    """Other top-level JSON files whose records name the held-out images (iwildcam-2020's megadetector results:
    `images` of `id`, `detections`) are written to the view with those records under the images' new ids, so a
    held-out image keeps the inputs a test image has; records that carry a `category_id` (labels in another file)
    lose the held-out images' records instead. Returns the files' names. A field names the images when its values
    name at least half of them."""
    renamed = []
    for path in sorted(p for p in public.glob("*.json") if p.is_file() and p not in skip):
        try:
            content = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        changed = False
        for records in content.values() if isinstance(content, dict) else [content]:
            if not (isinstance(records, list) and records and all(isinstance(r, dict) for r in records)):
                continue
            fields = {f for r in records for f in r}
            for field in fields:
                named = {str(r.get(field)) for r in records} & set(new_id)
                if len(named) * 2 < len(new_id):
                    continue
                if LABEL_FIELD in fields:  # records that name a category are labels: the held-out ones go
                    records[:] = [r for r in records if str(r.get(field)) not in new_id]
                    changed = True
                    break
                for record in records:
                    if str(record.get(field)) in new_id:
                        old = record[field]
                        new = new_id[str(old)]
                        record[field] = int(new) if isinstance(old, int) and new.isdigit() else new
                changed = True
        if changed:
            _write_json(dest / path.name, content)
            skip.add(path)
            renamed.append(path.name)
    return renamed


def _without(content: dict, held_ids: set, key: str) -> dict:
    """The training object without the held-out images' records (named by `key`) and annotations."""
    return {
        **content,
        "images": [i for i in content["images"] if str(i[key]) not in held_ids],
        "annotations": [a for a in content["annotations"] if str(a["image_id"]) not in held_ids],
    }


def _write_json(path: Path, content) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content), encoding="utf-8")
    path.chmod(PUBLIC)
