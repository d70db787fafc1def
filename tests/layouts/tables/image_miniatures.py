"""Miniatures of plain-table competitions whose inputs are images (or scans) beside the labelled table, as the
census copies them: one-hot and label-set classes, TFRecords, masks as run-length strings, 7z archives."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.formats import tfrecords
from tests.layouts.kit import WORDS, dirs, hexes, write_files


def aptos(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """aptos2019-blindness-detection: `train.csv` (`id_code`, `diagnosis` 0-4), `test.csv` (`id_code`),
    `train_images/<id_code>.png`, `test_images/`, `sample_submission.csv` (`id_code`, `diagnosis` = 0)."""
    public, _ = dirs(root, "qwk", "# APTOS 2019\n\nScored by the quadratic weighted kappa.\n")
    rng = np.random.default_rng(101)
    ids = hexes(rng, n_train + n_test, 12)
    train = pd.DataFrame({"id_code": ids[:n_train], "diagnosis": rng.integers(0, 5, n_train)})
    train.to_csv(public / "train.csv", index=False)
    pd.DataFrame({"id_code": ids[n_train:]}).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id_code": ids[n_train:], "diagnosis": 0}).to_csv(
        public / "sample_submission.csv", index=False
    )
    write_files(public / "train_images", [f"{i}.png" for i in ids[:n_train]])
    write_files(public / "test_images", [f"{i}.png" for i in ids[n_train:]])
    return root


# mlebench/competitions/dog-breed-identification/dogs.py: the sample's 120 breed columns, in its order.
DOGS = (
    "affenpinscher", "afghan_hound", "african_hunting_dog", "airedale", "american_staffordshire_terrier",
    "appenzeller", "australian_terrier", "basenji", "basset", "beagle", "bedlington_terrier",
    "bernese_mountain_dog", "black-and-tan_coonhound", "blenheim_spaniel", "bloodhound", "bluetick",
    "border_collie", "border_terrier", "borzoi", "boston_bull", "bouvier_des_flandres", "boxer",
    "brabancon_griffon", "briard", "brittany_spaniel", "bull_mastiff", "cairn", "cardigan",
    "chesapeake_bay_retriever", "chihuahua", "chow", "clumber", "cocker_spaniel", "collie",
    "curly-coated_retriever", "dandie_dinmont", "dhole", "dingo", "doberman", "english_foxhound",
    "english_setter", "english_springer", "entlebucher", "eskimo_dog", "flat-coated_retriever",
    "french_bulldog", "german_shepherd", "german_short-haired_pointer", "giant_schnauzer",
    "golden_retriever", "gordon_setter", "great_dane", "great_pyrenees", "greater_swiss_mountain_dog",
    "groenendael", "ibizan_hound", "irish_setter", "irish_terrier", "irish_water_spaniel",
    "irish_wolfhound", "italian_greyhound", "japanese_spaniel", "keeshond", "kelpie", "kerry_blue_terrier",
    "komondor", "kuvasz", "labrador_retriever", "lakeland_terrier", "leonberg", "lhasa", "malamute",
    "malinois", "maltese_dog", "mexican_hairless", "miniature_pinscher", "miniature_poodle",
    "miniature_schnauzer", "newfoundland", "norfolk_terrier", "norwegian_elkhound", "norwich_terrier",
    "old_english_sheepdog", "otterhound", "papillon", "pekinese", "pembroke", "pomeranian", "pug",
    "redbone", "rhodesian_ridgeback", "rottweiler", "saint_bernard", "saluki", "samoyed", "schipperke",
    "scotch_terrier", "scottish_deerhound", "sealyham_terrier", "shetland_sheepdog", "shih-tzu",
    "siberian_husky", "silky_terrier", "soft-coated_wheaten_terrier", "staffordshire_bullterrier",
    "standard_poodle", "standard_schnauzer", "sussex_spaniel", "tibetan_mastiff", "tibetan_terrier",
    "toy_poodle", "toy_terrier", "vizsla", "walker_hound", "weimaraner", "welsh_springer_spaniel",
    "west_highland_white_terrier", "whippet", "wire-haired_fox_terrier", "yorkshire_terrier"
)  # fmt: skip


def dog_breeds(root: Path, n_train: int = 48, n_test: int = 10) -> Path:
    """dog-breed-identification: `labels.csv` (`id`, `breed`), `train/<id>.jpg`, `test/<id>.jpg`, no test.csv,
    `sample_submission.csv` `id` + the 120 breeds of `dogs.py` (1/120 each)."""
    public, _ = dirs(root, "multiclass_logloss", "# Dog breeds\n\nScored by the multi-class log loss.\n")
    rng = np.random.default_rng(102)
    ids = hexes(rng, n_train + n_test, 32)
    breeds = [DOGS[k] for k in rng.choice(len(DOGS), 6, replace=False)]
    labels = pd.DataFrame({"id": ids[:n_train], "breed": [breeds[k % 6] for k in range(n_train)]})
    labels.to_csv(public / "labels.csv", index=False)
    sample = pd.DataFrame(1 / 120, index=range(n_test), columns=list(DOGS))
    sample.insert(0, "id", ids[n_train:])
    sample.to_csv(public / "sample_submission.csv", index=False)
    write_files(public / "train", [f"{i}.jpg" for i in ids[:n_train]])
    write_files(public / "test", [f"{i}.jpg" for i in ids[n_train:]])
    return root


def plant_pathology_2020(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """plant-pathology-2020-fgvc7: `train.csv` (`image_id` = `Train_<n>`, one-hot `healthy`,
    `multiple_diseases`, `rust`, `scab`), `test.csv` (`image_id` = `Test_<n>`), `images/` holding both,
    `sample_submission.csv` with 0.25 in the four columns."""
    public, _ = dirs(root, "auc", "# Plant pathology\n\nScored by the mean column-wise ROC AUC.\n")
    rng = np.random.default_rng(104)
    classes = ["healthy", "multiple_diseases", "rust", "scab"]
    train = pd.DataFrame({"image_id": [f"Train_{n}" for n in range(n_train)]})
    which = rng.permutation(np.arange(n_train) % 4)
    for k, column in enumerate(classes):
        train[column] = (which == k).astype(int)
    train.to_csv(public / "train.csv", index=False)
    test_ids = [f"Test_{n}" for n in range(n_test)]
    pd.DataFrame({"image_id": test_ids}).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"image_id": test_ids, **dict.fromkeys(classes, 0.25)}).to_csv(
        public / "sample_submission.csv", index=False
    )
    write_files(public / "images", [f"{i}.jpg" for i in [*train["image_id"], *test_ids]])
    return root


RANZCR_LABELS = ["ETT - Abnormal", "ETT - Borderline", "ETT - Normal", "NGT - Abnormal", "NGT - Borderline",
                 "NGT - Incompletely Imaged", "NGT - Normal", "CVC - Abnormal", "CVC - Borderline", "CVC - Normal",
                 "Swan Ganz Catheter Present"]  # fmt: skip


def ranzcr(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """ranzcr-clip-catheter-line-classification: `train.csv` (`StudyInstanceUID` dotted, the 11 label columns,
    `PatientID`), `train_annotations.csv` (`StudyInstanceUID`, `label`, `data`: the lines of each train study),
    `train/<uid>.jpg`, `test/<uid>.jpg`, no test.csv, `sample_submission.csv` `StudyInstanceUID` + the 9 columns
    of MLE-bench's `classes.py` (not `CVC - Normal`, not `Swan Ganz Catheter Present`) at 0."""
    public, _ = dirs(root, "auc", "# RANZCR CLiP\n\nScored by the mean column-wise ROC AUC.\n")
    rng = np.random.default_rng(108)
    # The real StudyInstanceUIDs end in 38-digit numbers (beyond 64 bits): `1.2.826.0.1.3680043.8.498.<38 digits>`.
    halves = rng.integers(10**18, 10**19 - 1, size=(n_train + n_test, 2), dtype=np.uint64)
    uids = [f"1.2.826.0.1.3680043.8.498.{int(a)}{int(b):019d}" for a, b in halves]
    train = pd.DataFrame({"StudyInstanceUID": uids[:n_train]})
    for k, column in enumerate(RANZCR_LABELS):
        train[column] = ((np.arange(n_train) + k) % 3 == 0).astype(int)
    train["PatientID"] = [f"ec{v:08x}" for v in rng.integers(0, 16**8, n_train)]
    train.to_csv(public / "train.csv", index=False)
    annotated = train[train["ETT - Normal"] == 1]
    annotations = pd.DataFrame(
        {
            "StudyInstanceUID": annotated["StudyInstanceUID"],
            "label": "ETT - Normal",
            "data": "[[1487, 1279], [1477, 1168]]",
        }
    )
    annotations.to_csv(public / "train_annotations.csv", index=False)
    sample = pd.DataFrame({"StudyInstanceUID": uids[n_train:], **dict.fromkeys(RANZCR_LABELS[:9], 0)})
    sample.to_csv(public / "sample_submission.csv", index=False)
    write_files(public / "train", [f"{u}.jpg" for u in uids[:n_train]])
    write_files(public / "test", [f"{u}.jpg" for u in uids[n_train:]])
    return root


def siim_isic(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """siim-isic-melanoma-classification: `train.csv` (`image_name` = `ISIC_<7 digits>`, `patient_id`, `sex`,
    `age_approx`, `anatom_site_general_challenge`, `diagnosis`, `benign_malignant`, `target`), `test.csv` (the
    first five), `train/<image_name>.dcm`, `test/`, `jpeg/train/<image_name>.jpg`, `jpeg/test/`,
    `tfrecords/train<NN>-<count>.tfrec` and `test<NN>-<count>.tfrec`, `sample_submission.csv` `image_name`,
    `target` = 0."""
    public, _ = dirs(root, "auc", "# SIIM-ISIC Melanoma\n\nScored by ROC AUC.\n")
    rng = np.random.default_rng(109)
    names = [f"ISIC_{v:07d}" for v in rng.choice(10**7, n_train + n_test, replace=False)]
    count = n_train + n_test
    table = pd.DataFrame(
        {
            "image_name": names,
            "patient_id": [f"IP_{v:07d}" for v in rng.integers(0, 10**7, count)],
            "sex": rng.choice(["male", "female"], count),
            "age_approx": rng.choice([35.0, 45.0, 60.0], count),
            "anatom_site_general_challenge": rng.choice(["torso", "head/neck", "lower extremity", ""], count),
        }
    )
    target = np.arange(count) % 4 == 0
    train = table[:n_train].assign(
        diagnosis=np.where(target[:n_train], "melanoma", "nevus"),
        benign_malignant=np.where(target[:n_train], "malignant", "benign"),
        target=target[:n_train].astype(int),
    )
    train.to_csv(public / "train.csv", index=False)
    table[n_train:].to_csv(public / "test.csv", index=False)
    pd.DataFrame({"image_name": names[n_train:], "target": 0}).to_csv(
        public / "sample_submission.csv", index=False
    )
    write_files(public / "train", [f"{n}.dcm" for n in names[:n_train]])
    write_files(public / "test", [f"{n}.dcm" for n in names[n_train:]])
    write_files(public / "jpeg" / "train", [f"{n}.jpg" for n in names[:n_train]])
    write_files(public / "jpeg" / "test", [f"{n}.jpg" for n in names[n_train:]])
    # Kaggle's TFRecords: an Example per image, its JPEG bytes, name, the table's fields and labels; MLE-bench's
    # test files are two of Kaggle's training files renamed, so the test images' records hold labels too
    tested = table[n_train:].assign(
        diagnosis=np.where(target[n_train:], "melanoma", "nevus"),
        benign_malignant=np.where(target[n_train:], "malignant", "benign"),
        target=target[n_train:].astype(int),
    )
    rows = [train[:20], train[20:n_train], tested]
    for name, part in zip(("train00-20", f"train01-{n_train - 20}", f"test00-{n_test}"), rows, strict=True):
        tf_records(public / "tfrecords" / f"{name}.tfrec", part, "image_name")
    return root


def tf_records(path: Path, rows: pd.DataFrame, id_column: str) -> None:
    """A TFRecord file of an Example per row: `image` (a few bytes), `image_name` (the id), the row's other
    fields (numbers as int64, the rest as bytes)."""
    records = []
    for row in rows.to_dict("records"):
        values: dict = {
            "image": f"jpeg of {row[id_column]}".encode(),
            "image_name": str(row[id_column]).encode(),
        }
        for key, value in row.items():
            if key != id_column:
                values[key] = int(value) if isinstance(value, int | np.integer) else str(value).encode()
        records.append(tfrecords.frame(tfrecords.example(values)))
    path.parent.mkdir(parents=True, exist_ok=True)
    tfrecords.write_records(path, records)


def statoil(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """statoil-iceberg-classifier-challenge: `train.json.7z` (`train.json`: records `id`, `band_1`, `band_2`,
    `inc_angle`, `is_iceberg`; here 4 values a band, Kaggle's 75x75), `test.json.7z` (the same without
    `is_iceberg`), and the sample only as `sample_submission.csv.7z` (`id`, `is_iceberg` = 0.5). Needs `7z`."""
    public, private = dirs(root, "logloss", "# Iceberg or ship\n\nScored by the log loss.\n")
    rng = np.random.default_rng(113)
    ids = hexes(rng, n_train + n_test, 8)

    def record(k: int) -> dict:
        angle = "na" if k % 7 == 0 else round(float(rng.uniform(30, 45)), 4)
        bands = {f"band_{b}": [round(float(v), 4) for v in rng.normal(-20, 5, 4)] for b in (1, 2)}
        return {"id": ids[k], **bands, "inc_angle": angle}

    train = [{**record(k), "is_iceberg": k % 2} for k in range(n_train)]
    test = [record(k) for k in range(n_train, n_train + n_test)]
    staging = private / "staging"
    staging.mkdir()
    (staging / "train.json").write_text(json.dumps(train))
    (staging / "test.json").write_text(json.dumps(test))
    pd.DataFrame({"id": ids[n_train:], "is_iceberg": 0.5}).to_csv(
        staging / "sample_submission.csv", index=False
    )
    for name in ("train.json", "test.json", "sample_submission.csv"):
        archive = public / f"{name}.7z"
        subprocess.run(["7z", "a", "-bd", str(archive), name], cwd=staging, check=True, capture_output=True)
    shutil.rmtree(staging)
    return root


def tgs_salt(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """tgs-salt-identification-challenge: `train.csv` (`id` 10 hex digits, `rle_mask`, empty where there is no
    salt: `prepare.py`'s `fillna("")`), `depths.csv` (`id`, `z`: train ids only), `train/images/<id>.png`,
    `train/masks/<id>.png`, `test/images/<id>.png`, `sample_submission.csv` `id`, `rle_mask` = `1 1`."""
    public, _ = dirs(root, "rle_iou_map", "# TGS salt\n\nScored by the mean precision over IoU thresholds.\n")
    rng = np.random.default_rng(114)
    ids = sorted(hexes(rng, n_train + n_test, 10))
    train_ids, test_ids = ids[:n_train], ids[n_train:]
    masks = ["" if k % 3 == 0 else f"{1 + k} {5 + k % 4} {200 + k} {3 + k % 2}" for k in range(n_train)]
    pd.DataFrame({"id": train_ids, "rle_mask": masks}).to_csv(public / "train.csv", index=False)
    pd.DataFrame({"id": train_ids, "z": rng.integers(50, 950, n_train)}).to_csv(
        public / "depths.csv", index=False
    )
    pd.DataFrame({"id": test_ids, "rle_mask": "1 1"}).to_csv(public / "sample_submission.csv", index=False)
    write_files(public / "train" / "images", [f"{i}.png" for i in train_ids])
    write_files(public / "train" / "masks", [f"{i}.png" for i in train_ids], "mask ")
    write_files(public / "test" / "images", [f"{i}.png" for i in test_ids])
    return root


def imet(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """imet-2020-fgvc7: `train.csv` (`id` 32 hex digits, `attribute_ids` space-separated), `labels.csv`
    (`attribute_id`, `attribute_name`; no `id`), `train/<id>.png`, `test/<id>.png`, no test.csv,
    `sample_submission.csv` `id`, `attribute_ids` = `0 1 2`."""
    public, _ = dirs(root, "multilabel_f1_micro", "# iMet 2020\n\nScored by the micro-averaged F1.\n")
    rng = np.random.default_rng(116)
    ids = hexes(rng, n_train + n_test, 32)
    attributes = [
        " ".join(str(a) for a in sorted(rng.choice(8, 1 + k % 3, replace=False))) for k in range(n_train)
    ]
    pd.DataFrame({"id": ids[:n_train], "attribute_ids": attributes}).to_csv(public / "train.csv", index=False)
    names = [f"culture::{w}" for w in WORDS[:4]] + [f"tag::{w}" for w in WORDS[4:8]]
    pd.DataFrame({"attribute_id": range(8), "attribute_name": names}).to_csv(
        public / "labels.csv", index=False
    )
    pd.DataFrame({"id": ids[n_train:], "attribute_ids": "0 1 2"}).to_csv(
        public / "sample_submission.csv", index=False
    )
    write_files(public / "train", [f"{i}.png" for i in ids[:n_train]])
    write_files(public / "test", [f"{i}.png" for i in ids[n_train:]])
    return root


def plant_pathology_2021(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """plant-pathology-2021-fgvc8: `train.csv` (`image` = `<16 hex>.jpg`, `labels` space-separated),
    `train_images/<image>`, `test_images/<image>`, no test.csv, `sample_submission.csv` `image`, `labels` =
    `healthy`."""
    public, _ = dirs(
        root, "multilabel_f1_micro", "# Plant pathology 2021\n\nScored by the micro-averaged F1.\n"
    )
    rng = np.random.default_rng(117)
    images = [f"{i}.jpg" for i in hexes(rng, n_train + n_test, 16)]
    choices = ["healthy", "scab", "rust", "frog_eye_leaf_spot", "scab frog_eye_leaf_spot", "complex"]
    labels = [choices[k % len(choices)] for k in range(n_train)]
    pd.DataFrame({"image": images[:n_train], "labels": labels}).to_csv(public / "train.csv", index=False)
    pd.DataFrame({"image": images[n_train:], "labels": "healthy"}).to_csv(
        public / "sample_submission.csv", index=False
    )
    write_files(public / "train_images", images[:n_train])
    write_files(public / "test_images", images[n_train:])
    return root


CASSAVA_DISEASES = {"0": "Cassava Bacterial Blight (CBB)", "1": "Cassava Brown Streak Disease (CBSD)",
                    "2": "Cassava Green Mottle (CGM)", "3": "Cassava Mosaic Disease (CMD)", "4": "Healthy"}  # fmt: skip


def cassava(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """cassava-leaf-disease-classification: `train.csv` (`image_id` = `<digits>.jpg`, `label` 0-4),
    `train_images/`, `test_images/`, `train_tfrecords/ld_train<NN>-<count>.tfrec`,
    `test_tfrecords/ld_test<NN>-<count>.tfrec`, `label_num_to_disease_map.json`, no test.csv,
    `sample_submission.csv` `image_id`, `label` = 4."""
    public, _ = dirs(root, "accuracy", "# Cassava leaf disease\n\nScored by accuracy.\n")
    rng = np.random.default_rng(118)
    images = [f"{v}.jpg" for v in rng.choice(10**10, n_train + n_test, replace=False)]
    pd.DataFrame({"image_id": images[:n_train], "label": np.arange(n_train) % 5}).to_csv(
        public / "train.csv", index=False
    )
    pd.DataFrame({"image_id": images[n_train:], "label": 4}).to_csv(
        public / "sample_submission.csv", index=False
    )
    write_files(public / "train_images", images[:n_train])
    write_files(public / "test_images", images[n_train:])
    labels = pd.DataFrame({"image_id": images[:n_train], "target": np.arange(n_train) % 5})
    tf_records(public / "train_tfrecords" / "ld_train00-20.tfrec", labels[:20], "image_id")
    tf_records(public / "train_tfrecords" / f"ld_train01-{n_train - 20}.tfrec", labels[20:], "image_id")
    # MLE-bench's test TFRecords are Kaggle's training files renamed: their records hold `target` too
    tested = pd.DataFrame({"image_id": images[n_train:], "target": np.arange(n_test) % 5})
    tf_records(public / "test_tfrecords" / f"ld_test00-{n_test}.tfrec", tested, "image_id")
    (public / "label_num_to_disease_map.json").write_text(json.dumps(CASSAVA_DISEASES))
    return root


def hotel_id(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """hotel-id-2021-fgvc8: `train.csv` (`image` = `<16 hex>.jpg`, `chain`, `hotel_id`, `timestamp`),
    `train_images/<chain>/<image>` (a folder per chain), `test_images/<image>` (flat), no test.csv,
    `sample_submission.csv` `image`, `hotel_id` = five ranked hotel ids."""
    public, _ = dirs(root, "map_at_k", "# Hotel-ID 2021\n\nScored by MAP@5.\n", {"k": 5})
    rng = np.random.default_rng(119)
    images = [f"{i}.jpg" for i in hexes(rng, n_train + n_test, 16)]
    chains = rng.choice([0, 5, 14, 70], n_train)
    hotels = [int(v) for v in rng.choice([36363, 53586, 18807, 64314, 60181, 11111], n_train)]
    stamps = [f"2018-04-{1 + k % 28:02d} 19:48:{k % 60:02d}" for k in range(n_train)]
    train = pd.DataFrame(
        {"image": images[:n_train], "chain": chains, "hotel_id": hotels, "timestamp": stamps}
    )
    train.to_csv(public / "train.csv", index=False)
    pd.DataFrame({"image": images[n_train:], "hotel_id": "36363 53586 18807 64314 60181"}).to_csv(
        public / "sample_submission.csv", index=False
    )
    write_files(public / "train_images", [f"{c}/{i}" for c, i in zip(chains, images[:n_train], strict=True)])
    write_files(public / "test_images", images[n_train:])
    return root


def rsna_miccai(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """rsna-miccai-brain-tumor-radiogenomic-classification: `train_labels.csv` (`BraTS21ID` as 5 digits,
    `MGMT_value` 0/1), `train/<id>/<FLAIR|T1w|T1wCE|T2w>/Image-<n>.dcm`, `test/<id>/...`, no test.csv,
    `sample_submission.csv` `BraTS21ID`, `MGMT_value` = 0.5."""
    public, _ = dirs(root, "auc", "# Brain tumor radiogenomics\n\nScored by ROC AUC.\n")
    rng = np.random.default_rng(121)
    ids = [f"{v:05d}" for v in sorted(rng.choice(1000, n_train + n_test, replace=False))]
    train_ids, test_ids = ids[:n_train], ids[n_train:]
    pd.DataFrame({"BraTS21ID": train_ids, "MGMT_value": np.arange(n_train) % 2}).to_csv(
        public / "train_labels.csv", index=False
    )
    pd.DataFrame({"BraTS21ID": test_ids, "MGMT_value": 0.5}).to_csv(
        public / "sample_submission.csv", index=False
    )
    scans = [f"{m}/Image-{n}.dcm" for m in ("FLAIR", "T1w", "T1wCE", "T2w") for n in (1, 2)]
    for folder, group in (("train", train_ids), ("test", test_ids)):
        write_files(public / folder, [f"{i}/{s}" for i in group for s in scans])
    return root


def kuzushiji(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """kuzushiji-recognition: `train.csv` (`image_id` = `<book>_<page>`, `labels` = `<U+XXXX> x y w h` per
    character), `train_images.zip` and `test_images.zip` of loose `<image_id>.jpg` (`shutil.make_archive` with
    the folder as root), `unicode_translation.csv` (`Unicode`, `char`), no test.csv, `sample_submission.csv`
    `image_id`, `labels` = `U+003F 1 1 U+FF2F 2 2`. The metric: F1 of centre points in boxes,
    `point_in_box_f1`."""
    public, _ = dirs(root, "point_in_box_f1", "# Kuzushiji\n\nScored by the F1 of predicted centre points.\n")
    rng = np.random.default_rng(122)
    ids = [f"{b}_{p:05d}" for b, p in zip(rng.choice(["100241706", "200003076", "umgy001"], n_train + n_test),
                                          rng.choice(100_000, n_train + n_test, replace=False), strict=True)]  # fmt: skip
    codes = ["U+306F", "U+304C", "U+3044", "U+306B"]

    def labels() -> str:
        chars = rng.choice(codes, 2)
        return " ".join(f"{c} {rng.integers(0, 3000)} {rng.integers(0, 4000)} {rng.integers(20, 140)} "
                        f"{rng.integers(20, 140)}" for c in chars)  # fmt: skip

    pd.DataFrame({"image_id": ids[:n_train], "labels": [labels() for _ in range(n_train)]}).to_csv(
        public / "train.csv", index=False
    )
    pd.DataFrame({"Unicode": codes, "char": ["は", "が", "い", "に"]}).to_csv(
        public / "unicode_translation.csv", index=False
    )
    pd.DataFrame({"image_id": ids[n_train:], "labels": "U+003F 1 1 U+FF2F 2 2"}).to_csv(
        public / "sample_submission.csv", index=False
    )
    for folder, group in (("train", ids[:n_train]), ("test", ids[n_train:])):
        write_files(public / folder, [f"{i}.jpg" for i in group])
        shutil.make_archive(str(public / f"{folder}_images"), "zip", public / folder)
        shutil.rmtree(public / folder)
    return root


def hubmap(root: Path, n_train: int = 12, n_test: int = 3) -> Path:
    """hubmap-kidney-segmentation: `train.csv` (`id` 9 hex digits, `encoding` RLE; 12 rows, as `prepare.py`'s
    `train_size=12`), `train/<id>.tiff`, `train/<id>.json` (the glomeruli polygons), `train/<id>-anatomical-
    structure.json`, the same for the 3 test ids in `test/` with a copy of the sample, `HuBMAP-20-dataset_
    information.csv` (`image_file`, sizes, segmentation files: train and test images), no test.csv,
    `sample_submission.csv` `id`, `predicted` empty."""
    public, _ = dirs(root, "rle_dice", "# HuBMAP\n\nScored by the mean Dice coefficient.\n")
    rng = np.random.default_rng(123)
    ids = hexes(rng, n_train + n_test, 9)
    encodings = [f"{100 + 7 * k} {20 + k} {900 + 5 * k} {15 + k % 4}" for k in range(n_train)]
    pd.DataFrame({"id": ids[:n_train], "encoding": encodings}).to_csv(public / "train.csv", index=False)
    info = pd.DataFrame(
        {
            "image_file": [f"{i}.tiff" for i in ids],
            "width_pixels": rng.integers(20_000, 50_000, len(ids)),
            "height_pixels": rng.integers(20_000, 50_000, len(ids)),
            "anatomical_structures_segmention_file": [f"{i}-anatomical-structure.json" for i in ids],
            "glomerulus_segmentation_file": [f"{i}.json" for i in ids],
            "patient_number": rng.integers(60_000, 70_000, len(ids)),
        }
    )
    info.to_csv(public / "HuBMAP-20-dataset_information.csv", index=False)
    sample = pd.DataFrame({"id": ids[n_train:], "predicted": ""})
    sample.to_csv(public / "sample_submission.csv", index=False)
    for folder, group in (("train", ids[:n_train]), ("test", ids[n_train:])):
        names = [n for i in group for n in (f"{i}.tiff", f"{i}.json", f"{i}-anatomical-structure.json")]
        write_files(public / folder, names)
    sample.to_csv(public / "test" / "sample_submission.csv", index=False)
    return root


def iwildcam(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """iwildcam-2019-fgvc6: `train.csv` (`category_id`, `date_captured`, `file_name`, `frame_num`, `id` (a UUID),
    `location`, `rights_holder`, `seq_id`, `seq_num_frames`, `width`, `height`), `test.csv` the same without
    `category_id`, `train_images.zip` and `test_images.zip` of loose `<id>.jpg` (`shutil.make_archive` with the
    folder as root), and `sample_submission.csv` written with its index (`to_csv(index=True)`): an unnamed
    column 0..n-1, `Id` (test.csv's `id`), `Category` = 0. Test rows are whole locations."""
    public, _ = dirs(root, "f1_macro", "# iWildCam 2019\n\nScored by the macro F1 score.\n")
    rng = np.random.default_rng(126)
    ids = [f"{h[:8]}-{h[8:12]}-11e8-a6a3-ec086b02610b" for h in hexes(rng, n_train + n_test, 12)]
    locations = np.r_[rng.choice([33, 115, 96, 20], n_train), rng.choice([7, 88], n_test)]
    table = pd.DataFrame(
        {
            "category_id": rng.choice([0, 1, 10, 19], n_train + n_test),
            "date_captured": [
                f"2012-03-{1 + k % 28:02d} 13:{k % 60:02d}:29" for k in range(n_train + n_test)
            ],
            "file_name": [f"{i}.jpg" for i in ids],
            "frame_num": 1 + np.arange(n_train + n_test) % 3,
            "id": ids,
            "location": locations,
            "rights_holder": "Justin Brown",
            "seq_id": [f"6f04895c-c0f{k % 9}-11e8-8f4b-dca9047ef277" for k in range(n_train + n_test)],
            "seq_num_frames": 3,
            "width": 1024,
            "height": 747,
        }
    )
    table.iloc[:n_train].to_csv(public / "train.csv", index=False)
    table.iloc[n_train:].drop(columns="category_id").to_csv(public / "test.csv", index=False)
    sample = pd.DataFrame({"Id": ids[n_train:], "Category": 0})
    sample.to_csv(public / "sample_submission.csv", index=True)
    for folder, names in (("train_images", ids[:n_train]), ("test_images", ids[n_train:])):
        write_files(public / folder, [f"{i}.jpg" for i in names], "jpeg ")
        shutil.make_archive(str(public / folder), "zip", public / folder)
        shutil.rmtree(public / folder)
    return root
