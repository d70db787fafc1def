"""Miniatures of MLE-bench competitions' public dirs for the census test (tests/evaluation/test_census_rows.py,
issue 29, point 6). Each copies what MLE-bench's `mlebench/competitions/<id>/prepare.py` (openai/mle-bench at
783b15af) writes to `prepared/public/`: file and folder names, column names and order, how ids look, archives and
the sample submission's name and shape; the data are a few seeded bytes a file and tens of rows. Each writes a
`competition.json` naming the library metric the census names, or a proxy where the census says it is missing."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

from swarm.competitions.metrics.numeric import JIGSAW_IDENTITIES
from swarm.formats import tfrecords
from swarm.layouts.bson import reader as bson_records
from swarm.layouts.sentences.reader import remove_inner_word

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

# mlebench/competitions/leaf-classification/classes.py: the sample's 99 species columns, in its order.
LEAVES = (
    "Acer_Capillipes", "Acer_Circinatum", "Acer_Mono", "Acer_Opalus", "Acer_Palmatum", "Acer_Pictum",
    "Acer_Platanoids", "Acer_Rubrum", "Acer_Rufinerve", "Acer_Saccharinum", "Alnus_Cordata",
    "Alnus_Maximowiczii", "Alnus_Rubra", "Alnus_Sieboldiana", "Alnus_Viridis", "Arundinaria_Simonii",
    "Betula_Austrosinensis", "Betula_Pendula", "Callicarpa_Bodinieri", "Castanea_Sativa",
    "Celtis_Koraiensis", "Cercis_Siliquastrum", "Cornus_Chinensis", "Cornus_Controversa",
    "Cornus_Macrophylla", "Cotinus_Coggygria", "Crataegus_Monogyna", "Cytisus_Battandieri",
    "Eucalyptus_Glaucescens", "Eucalyptus_Neglecta", "Eucalyptus_Urnigera", "Fagus_Sylvatica",
    "Ginkgo_Biloba", "Ilex_Aquifolium", "Ilex_Cornuta", "Liquidambar_Styraciflua",
    "Liriodendron_Tulipifera", "Lithocarpus_Cleistocarpus", "Lithocarpus_Edulis", "Magnolia_Heptapeta",
    "Magnolia_Salicifolia", "Morus_Nigra", "Olea_Europaea", "Phildelphus", "Populus_Adenopoda",
    "Populus_Grandidentata", "Populus_Nigra", "Prunus_Avium", "Prunus_X_Shmittii", "Pterocarya_Stenoptera",
    "Quercus_Afares", "Quercus_Agrifolia", "Quercus_Alnifolia", "Quercus_Brantii", "Quercus_Canariensis",
    "Quercus_Castaneifolia", "Quercus_Cerris", "Quercus_Chrysolepis", "Quercus_Coccifera",
    "Quercus_Coccinea", "Quercus_Crassifolia", "Quercus_Crassipes", "Quercus_Dolicholepis",
    "Quercus_Ellipsoidalis", "Quercus_Greggii", "Quercus_Hartwissiana", "Quercus_Ilex",
    "Quercus_Imbricaria", "Quercus_Infectoria_sub", "Quercus_Kewensis", "Quercus_Nigra",
    "Quercus_Palustris", "Quercus_Phellos", "Quercus_Phillyraeoides", "Quercus_Pontica",
    "Quercus_Pubescens", "Quercus_Pyrenaica", "Quercus_Rhysophylla", "Quercus_Rubra",
    "Quercus_Semecarpifolia", "Quercus_Shumardii", "Quercus_Suber", "Quercus_Texana", "Quercus_Trojana",
    "Quercus_Variabilis", "Quercus_Vulcanica", "Quercus_x_Hispanica", "Quercus_x_Turneri",
    "Rhododendron_x_Russellianum", "Salix_Fragilis", "Salix_Intergra", "Sorbus_Aria", "Tilia_Oliveri",
    "Tilia_Platyphyllos", "Tilia_Tomentosa", "Ulmus_Bergmanniana", "Viburnum_Tinus",
    "Viburnum_x_Rhytidophylloides", "Zelkova_Serrata"
)  # fmt: skip

WORDS = ("dark", "night", "house", "door", "old", "light", "heart", "sea", "cold", "friend", "love", "fear")


def dirs(root: Path, metric: str, description: str, params: dict | None = None) -> tuple[Path, Path]:
    """`prepared/public/` with `description.md`, `prepared/private/`, and `competition.json` naming `metric`."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text(description)
    spec: dict = {"name": metric, **({"params": params} if params else {})}
    (root / "competition.json").write_text(json.dumps({"metric": spec}))
    return public, private


def hexes(rng: np.random.Generator, count: int, width: int) -> list[str]:
    """`count` distinct lowercase hex ids of `width` digits."""
    ids: dict[str, None] = {}
    while len(ids) < count:
        ids["".join(rng.choice(list("0123456789abcdef"), width))] = None
    return list(ids)


def write_files(folder: Path, names: list[str], content: str = "") -> None:
    """A few bytes a file: `folder/<name>` for each name (folders made as needed)."""
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"{content}{folder.name}/{name}".encode())


def sentence(rng: np.random.Generator, length: int = 6) -> str:
    return " ".join(rng.choice(WORDS, length))


# Lite: tables beside image folders, one-hot classes, text.


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


def leaves(root: Path, n_train: int = 45, n_test: int = 10) -> Path:
    """leaf-classification: `train.csv` (`id`, `species`, then the margin, shape and texture features: here 2 of
    each of Kaggle's 64), `test.csv` without `species`, `images/<id>.jpg` for train and test alike (ids 1..N
    shuffled between them), `sample_submission.csv` `id` + the 99 species of `classes.py` (1/99 each)."""
    public, _ = dirs(root, "multiclass_logloss", "# Leaves\n\nScored by the multi-class log loss.\n")
    rng = np.random.default_rng(103)
    ids = list(rng.permutation(np.arange(1, n_train + n_test + 1)))
    species = [LEAVES[k] for k in rng.choice(len(LEAVES), 5, replace=False)]
    features = {f"{kind}{n}": rng.random(n_train + n_test).round(6) for kind in ("margin", "shape", "texture")
                for n in (1, 2)}  # fmt: skip
    table = pd.DataFrame(
        {"id": ids, "species": [species[k % 5] for k in range(n_train + n_test)], **features}
    )
    table[:n_train].to_csv(public / "train.csv", index=False)
    table[n_train:].drop(columns=["species"]).to_csv(public / "test.csv", index=False)
    sample = pd.DataFrame(1 / 99, index=range(n_test), columns=list(LEAVES))
    sample.insert(0, "id", ids[n_train:])
    sample.to_csv(public / "sample_submission.csv", index=False)
    write_files(public / "images", [f"{i}.jpg" for i in ids])
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


def spooky(root: Path, n_train: int = 45, n_test: int = 12) -> Path:
    """spooky-author-identification: `train.csv` (`id` = `id<5 digits>`, `text`, `author` EAP/HPL/MWS),
    `test.csv` (`id`, `text`), `sample_submission.csv` `id`, `EAP`, `HPL`, `MWS` (Kaggle's constants)."""
    public, _ = dirs(root, "multiclass_logloss", "# Spooky authors\n\nScored by the multi-class log loss.\n")
    rng = np.random.default_rng(105)
    ids = [f"id{v:05d}" for v in rng.choice(100_000, n_train + n_test, replace=False)]
    texts = [sentence(rng) + "." for _ in ids]
    authors = [("EAP", "HPL", "MWS")[k % 3] for k in range(n_train)]
    pd.DataFrame({"id": ids[:n_train], "text": texts[:n_train], "author": authors}).to_csv(
        public / "train.csv", index=False
    )
    pd.DataFrame({"id": ids[n_train:], "text": texts[n_train:]}).to_csv(public / "test.csv", index=False)
    sample = {
        "id": ids[n_train:],
        "EAP": 0.403493538995863,
        "HPL": 0.287808366106543,
        "MWS": 0.308698094897594,
    }
    pd.DataFrame(sample).to_csv(public / "sample_submission.csv", index=False)
    return root


def jigsaw_toxic(root: Path, n_train: int = 60, n_test: int = 12) -> Path:
    """jigsaw-toxic-comment-classification-challenge: `train.csv` (`id` 16 hex digits, `comment_text`, then
    `toxic`, `severe_toxic`, `obscene`, `threat`, `insult`, `identity_hate`), `test.csv` (`id`,
    `comment_text`), `sample_submission.csv` `id` + the six columns at 0.5."""
    public, _ = dirs(root, "auc", "# Toxic comments\n\nScored by the mean column-wise ROC AUC.\n")
    rng = np.random.default_rng(106)
    classes = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]
    ids = hexes(rng, n_train + n_test, 16)
    train = pd.DataFrame({"id": ids[:n_train], "comment_text": [sentence(rng) for _ in range(n_train)]})
    for k, column in enumerate(classes):  # every column has positives in a fifth of the rows or more
        train[column] = ((np.arange(n_train) + k) % (2 + k % 3) == 0).astype(int)
    train.to_csv(public / "train.csv", index=False)
    test = pd.DataFrame({"id": ids[n_train:], "comment_text": [sentence(rng) for _ in range(n_test)]})
    test.to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": test["id"], **dict.fromkeys(classes, 0.5)}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


NOMAD_FEATURES = ["spacegroup", "number_of_total_atoms", "percent_atom_al", "percent_atom_ga", "percent_atom_in",
                  "lattice_vector_1_ang", "lattice_vector_2_ang", "lattice_vector_3_ang", "lattice_angle_alpha_degree",
                  "lattice_angle_beta_degree", "lattice_angle_gamma_degree"]  # fmt: skip
NOMAD_TARGETS = ["formation_energy_ev_natom", "bandgap_energy_ev"]


def nomad(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """nomad2018-predict-transparent-conductors: `train.csv` (`id` 1..N, 11 features, the two targets),
    `test.csv` (`id` 1..M, the features), `train/<id>/geometry.xyz`, `test/<id>/geometry.xyz`,
    `sample_submission.csv` `id`, `formation_energy_ev_natom` = 0.1779, `bandgap_energy_ev` = 1.8892."""
    public, _ = dirs(root, "rmsle", "# Nomad 2018\n\nScored by the mean column-wise RMSLE.\n")
    rng = np.random.default_rng(107)

    def table(count: int) -> pd.DataFrame:
        frame = pd.DataFrame({"id": range(1, count + 1)})
        for column in NOMAD_FEATURES:
            frame[column] = (
                rng.integers(12, 228, count) if column == "spacegroup" else rng.random(count).round(4)
            )
        return frame

    train = table(n_train)
    train[NOMAD_TARGETS[0]] = rng.uniform(0, 0.6, n_train).round(4)
    train[NOMAD_TARGETS[1]] = rng.uniform(0.5, 5, n_train).round(4)
    train.to_csv(public / "train.csv", index=False)
    table(n_test).to_csv(public / "test.csv", index=False)
    sample = {"id": range(1, n_test + 1), NOMAD_TARGETS[0]: 0.1779, NOMAD_TARGETS[1]: 1.8892}
    pd.DataFrame(sample).to_csv(public / "sample_submission.csv", index=False)
    write_files(public / "train", [f"{i}/geometry.xyz" for i in range(1, n_train + 1)], "lattice_vector ")
    write_files(public / "test", [f"{i}/geometry.xyz" for i in range(1, n_test + 1)], "lattice_vector ")
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
    uids = [f"1.2.826.0.1.3680043.8.498.{v}" for v in rng.choice(10**15, n_train + n_test, replace=False)]
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


def tabular_may_2022(root: Path, n_train: int = 50, n_test: int = 12) -> Path:
    """tabular-playground-series-may-2022: `train.csv` (`id` 0..N-1, `f_00`..`f_30` with `f_27` a 10-letter
    string, `target` 0/1), `test.csv` (`id` N..N+M-1, the features), `sample_submission.csv` `id`, `target` =
    0.5."""
    public, _ = dirs(root, "auc", "# Tabular Playground May 2022\n\nScored by ROC AUC.\n")
    rng = np.random.default_rng(110)
    count = n_train + n_test
    table = pd.DataFrame({"id": range(count)})
    for n in range(31):
        if n == 27:
            table["f_27"] = ["".join(rng.choice(list("ABCDEFGHIJKLMNOPQRST"), 10)) for _ in range(count)]
        elif 7 <= n <= 18 or n == 29 or n == 30:
            table[f"f_{n:02d}"] = rng.integers(0, 10, count)
        else:
            table[f"f_{n:02d}"] = rng.normal(size=count).round(6)
    table["target"] = rng.integers(0, 2, count)
    table[:n_train].to_csv(public / "train.csv", index=False)
    table[n_train:].drop(columns=["target"]).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": table["id"][n_train:], "target": 0.5}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def _make_archive(public: Path, folder: str) -> None:
    """`shutil.make_archive(public / folder, "zip", public, folder)`, as MLE-bench does: the members sit under
    `<folder>/`; the folder itself removed."""
    shutil.make_archive(str(public / folder), "zip", public, folder)
    shutil.rmtree(public / folder)


def right_whale(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """the-icml-2013-whale-challenge-right-whale-redux: `train2.zip` of `train2/<YYYYMMDD>_<HHMMSS>_<sec>_
    TRAIN<i>_<0|1>.aif` (two recording days), `test2.zip` of `test2/<date>_<time>_<sec>_Test<i>.aif` (two later
    days), `sampleSubmission.csv` `clip` (a test file name), `probability` = 0."""
    public, _ = dirs(root, "auc", "# Right whale redux\n\nScored by ROC AUC.\n")
    rng = np.random.default_rng(111)

    def stamp(day: str, k: int) -> str:
        seconds = int(rng.integers(0, 86_400))
        return (
            f"{day}_{seconds // 3600:02d}{seconds % 3600 // 60:02d}{seconds % 60:02d}_{k % 60:03d}s{k % 10}ms"
        )

    train = [f"{stamp(('20090328', '20090329')[k % 2], k)}_TRAIN{k}_{int(rng.integers(0, 2))}.aif"
             for k in range(n_train)]  # fmt: skip
    test = [f"{stamp(('20090330', '20090331')[k % 2], k)}_Test{k}.aif" for k in range(n_test)]
    write_files(public / "train2", train)
    write_files(public / "test2", test)
    _make_archive(public, "train2")
    _make_archive(public, "test2")
    pd.DataFrame({"clip": test, "probability": 0}).to_csv(public / "sampleSubmission.csv", index=False)
    return root


# Medium and high: class folders, 7z, masks, label sets, nested folders, archives, refusals.


def speech_commands(root: Path, per_label: int = 8, n_test: int = 12) -> Path:
    """tensorflow-speech-recognition-challenge: `train/audio/<label>/<8 hex>_nohash_<n>.wav` (a folder per label,
    `_background_noise_` among them), `test/audio/clip_<8 digits>.wav`, no table, `sample_submission.csv`
    `fname`, `label` = `silence`."""
    public, _ = dirs(root, "accuracy", "# Speech commands\n\nScored by accuracy.\n")
    rng = np.random.default_rng(112)
    for label in ("yes", "no", "up", "bed", "_background_noise_"):
        speakers = hexes(rng, per_label, 8)
        write_files(
            public / "train" / "audio" / label, [f"{s}_nohash_{k % 3}.wav" for k, s in enumerate(speakers)]
        )
    clips = [f"clip_{k:08d}.wav" for k in range(n_test)]
    write_files(public / "test" / "audio", clips)
    pd.DataFrame({"fname": clips, "label": "silence"}).to_csv(public / "sample_submission.csv", index=False)
    return root


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


def tweet_sentiment(root: Path, n_train: int = 45, n_test: int = 12) -> Path:
    """tweet-sentiment-extraction: `train.csv` (`textID` 10 hex digits, `text`, `selected_text`, `sentiment`),
    `test.csv` without `selected_text`, `sample_submission.csv` `textID`, `selected_text` empty in every row."""
    public, _ = dirs(root, "word_jaccard", "# Tweet sentiment\n\nScored by the word-level Jaccard score.\n")
    rng = np.random.default_rng(115)
    ids = hexes(rng, n_train + n_test, 10)
    texts = [sentence(rng, 5) for _ in ids]
    sentiment = [("positive", "negative", "neutral")[k % 3] for k in range(len(ids))]
    selected = [
        t if s == "neutral" else " ".join(t.split()[1:3]) for t, s in zip(texts, sentiment, strict=True)
    ]
    table = pd.DataFrame({"textID": ids, "text": texts, "selected_text": selected, "sentiment": sentiment})
    table[:n_train].to_csv(public / "train.csv", index=False)
    table[n_train:].drop(columns=["selected_text"]).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"textID": ids[n_train:], "selected_text": ""}).to_csv(
        public / "sample_submission.csv", index=False
    )
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


def ai4code(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """AI4Code: `train/<id>.json` and `test/<id>.json` notebooks (`cell_type`, `source`, keyed by 8-hex cell
    ids, markdown after code: the order hidden), `train_orders.csv` (`id` 14 hex digits, `cell_order`),
    `train_ancestors.csv` (`id`, `ancestor_id`, `parent_id`; train notebooks only), `sample_submission.csv`
    `id`, `cell_order` (the test notebook's cells as listed). The metric: Kendall tau over cell orders,
    `kendall_tau`."""
    public, _ = dirs(root, "kendall_tau", "# Google AI4Code\n\nScored by Kendall tau over cell orders.\n")
    rng = np.random.default_rng(120)
    ids = hexes(rng, n_train + n_test, 14)
    orders, listed = [], []
    for k, notebook in enumerate(ids):
        cells = hexes(rng, 4, 8)
        kinds = ["code", "code", "markdown", "markdown"]
        order = [cells[i] for i in rng.permutation(4)]
        content = {"cell_type": dict(zip(cells, kinds, strict=True)), "source": {c: f"# {c}" for c in cells}}
        folder = "train" if k < n_train else "test"
        (public / folder).mkdir(exist_ok=True)
        (public / folder / f"{notebook}.json").write_text(json.dumps(content))
        orders.append(" ".join(order))
        listed.append(" ".join(cells))
    pd.DataFrame({"id": ids[:n_train], "cell_order": orders[:n_train]}).to_csv(
        public / "train_orders.csv", index=False
    )
    ancestors = pd.DataFrame(
        {"id": ids[:n_train], "ancestor_id": [a[:8] for a in ids[:n_train]], "parent_id": ""}
    )
    ancestors.to_csv(public / "train_ancestors.csv", index=False)
    pd.DataFrame({"id": ids[n_train:], "cell_order": listed[n_train:]}).to_csv(
        public / "sample_submission.csv", index=False
    )
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


# Refused: no labelled table, or one too large.


def mlsp_birds(root: Path, n_recordings: int = 30) -> Path:
    """mlsp-2013-birds: `essential_data/` (`CVfolds_2.txt` `rec_id,fold`, `rec_id2filename.txt`,
    `rec_labels_test_hidden.txt` with `?` for test recordings, `species_list.txt`, `src_wavs/<file>.wav`),
    `supplemental_data/` (`histogram_of_segments.txt`, `spectrograms/<file>.bmp`), `sample_submission.csv`
    long: `Id` = rec_id * 100 + species (19 rows a test recording), `Probability` = 0."""
    public, _ = dirs(root, "auc", "# MLSP 2013 birds\n\nScored by ROC AUC over all rows.\n")
    rng = np.random.default_rng(124)
    essential, supplemental = public / "essential_data", public / "supplemental_data"
    essential.mkdir()
    supplemental.mkdir()
    folds = np.where(np.arange(n_recordings) % 5 == 0, 1, 0)
    pd.DataFrame({"rec_id": range(n_recordings), "fold": folds}).to_csv(
        essential / "CVfolds_2.txt", index=False
    )
    files = [f"PC{1 + k % 4}_2009{6 + k % 2:02d}{1 + k:02d}_0500{k:02d}_0010" for k in range(n_recordings)]
    pd.DataFrame({"rec_id": range(n_recordings), "filename": files}).to_csv(
        essential / "rec_id2filename.txt", index=False
    )
    lines = ["rec_id,[labels]"]
    for rec_id in range(n_recordings):
        species = sorted(int(s) for s in rng.choice(19, int(rng.integers(0, 3)), replace=False))
        labels = "?" if folds[rec_id] else ",".join(map(str, species))
        lines.append(f"{rec_id},{labels}" if labels else str(rec_id))
    (essential / "rec_labels_test_hidden.txt").write_text("\n".join(lines) + "\n")
    species_lines = ["class_id,code,species"] + [f"{k},SP{k:02d},Species {k}" for k in range(19)]
    (essential / "species_list.txt").write_text("\n".join(species_lines) + "\n")
    write_files(essential / "src_wavs", [f"{f}.wav" for f in files])
    write_files(supplemental / "spectrograms", [f"{f}.bmp" for f in files])
    histogram = ["rec_id,[histogram of segment features]"] + [f"{k},0.1,0.0,0.3" for k in range(n_recordings)]
    (supplemental / "histogram_of_segments.txt").write_text("\n".join(histogram) + "\n")
    test_ids = [r for r in range(n_recordings) if folds[r]]
    sample = {"Id": [r * 100 + s for r in test_ids for s in range(19)], "Probability": 0}
    pd.DataFrame(sample).to_csv(public / "sample_submission.csv", index=False)
    return root


def denoising(root: Path, n_train: int = 12, n_test: int = 3) -> Path:
    """denoising-dirty-documents: `train/<n>.png` (noisy) and `train_cleaned/<n>.png` (the labels: clean
    images), `test/<n>.png` (numbered as Kaggle's train images, from 2: no `1.png`), `sampleSubmission.csv`
    long: `id` = `<image>_<row>_<col>` per pixel, `value` = 1 (here 3x4-pixel images)."""
    public, _ = dirs(root, "rmse", "# Denoising dirty documents\n\nScored by the RMSE over pixels.\n")
    rng = np.random.default_rng(125)
    numbers = sorted(int(n) for n in rng.choice(np.arange(2, 200), n_train + n_test, replace=False))
    test_numbers = [numbers[k] for k in rng.choice(len(numbers), n_test, replace=False)]
    for folder in ("train", "train_cleaned", "test"):
        (public / folder).mkdir()
    for n in numbers:
        pixels = rng.integers(0, 256, size=(3, 4), dtype=np.uint8)
        if n in test_numbers:
            Image.fromarray(pixels, mode="L").save(public / "test" / f"{n}.png")
        else:
            Image.fromarray(pixels, mode="L").save(public / "train" / f"{n}.png")
            Image.fromarray(np.where(pixels > 100, 255, pixels).astype(np.uint8), mode="L").save(
                public / "train_cleaned" / f"{n}.png"
            )
    ids = [f"{n}_{r}_{c}" for n in sorted(test_numbers) for r in range(1, 4) for c in range(1, 5)]
    pd.DataFrame({"id": ids, "value": 1}).to_csv(public / "sampleSubmission.csv", index=False)
    return root


def cdiscount(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """cdiscount-image-classification-challenge: `train.bson` (`_id`, `category_id`, `imgs`: a list of
    `{picture: <bytes>}`), `test.bson` (`_id`, `imgs`), `train_example.bson` (the first train records),
    `category_names.csv` (`category_id`, `category_level1`-`3`), `sample_submission.csv` `_id`, `category_id` =
    1000010653; `private/answers.csv` the test's categories. Here a product's pictures are larger the later its
    category in `categories`."""
    public, private = dirs(root, "accuracy", "# Cdiscount\n\nScored by accuracy.\n")
    rng = np.random.default_rng(126)
    ids = sorted(int(v) for v in rng.choice(10**6, n_train + n_test, replace=False))
    categories = [1000010653, 1000010667, 1000004079]

    def product(k: int, i: int, labelled: bool) -> dict:
        pictures = [
            {"picture": bytes(int(rng.integers(1, 30)) + 100 * (k % 3))}
            for _ in range(int(rng.integers(1, 3)))
        ]
        return {"_id": i, **({"category_id": categories[k % 3]} if labelled else {}), "imgs": pictures}

    train = [product(k, i, True) for k, i in enumerate(ids[:n_train])]
    test = [product(k, i, False) for k, i in enumerate(ids[n_train:], start=n_train)]
    (public / "train.bson").write_bytes(b"".join(map(bson_records.encode, train)))
    (public / "test.bson").write_bytes(b"".join(map(bson_records.encode, test)))
    (public / "train_example.bson").write_bytes(b"".join(map(bson_records.encode, train[:5])))
    names = {"category_id": categories, "category_level1": "ABONNEMENT / SERVICES",
             "category_level2": "CARTE PREPAYEE", "category_level3": ["CARTE A", "CARTE B", "CARTE C"]}  # fmt: skip
    pd.DataFrame(names).to_csv(public / "category_names.csv", index=False)
    pd.DataFrame({"_id": ids[n_train:], "category_id": 1000010653}).to_csv(
        public / "sample_submission.csv", index=False
    )
    answers = [categories[k % 3] for k in range(n_train, n_train + n_test)]
    pd.DataFrame({"_id": ids[n_train:], "category_id": answers}).to_csv(private / "answers.csv", index=False)
    return root


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


def nyc_taxi(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """new-york-city-taxi-fare-prediction: `labels.csv` (the train rows: `key` a timestamp, `fare_amount`,
    `pickup_datetime`, the coordinates, `passenger_count`), `test.csv` (`key` and the 6 inputs),
    `GCP-Coupons-Instructions.rtf`, `sample_submission.csv` `key`, `fare_amount` = 11.35. Kaggle's 55M rows
    are over `max_train_mb`; the census test passes a small `max_train_mb` instead."""
    public, _ = dirs(root, "rmse", "# NYC taxi fares\n\nScored by RMSE.\n")
    rng = np.random.default_rng(128)
    count = n_train + n_test
    times = [f"2012-{1 + k % 12:02d}-{1 + k % 28:02d} {k % 24:02d}:{k % 60:02d}:21" for k in range(count)]
    table = pd.DataFrame(
        {
            "key": [f"{t}.{k:07d}" for k, t in enumerate(times)],
            "fare_amount": rng.uniform(3, 40, count).round(2),
            "pickup_datetime": [f"{t} UTC" for t in times],
            "pickup_longitude": rng.uniform(-74.02, -73.95, count).round(6),
            "pickup_latitude": rng.uniform(40.70, 40.80, count).round(6),
            "dropoff_longitude": rng.uniform(-74.02, -73.95, count).round(6),
            "dropoff_latitude": rng.uniform(40.70, 40.80, count).round(6),
            "passenger_count": rng.integers(1, 6, count),
        }
    )
    table[:n_train].to_csv(public / "labels.csv", index=False)
    table[n_train:].drop(columns=["fare_amount"]).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"key": table["key"][n_train:], "fare_amount": 11.35}).to_csv(
        public / "sample_submission.csv", index=False
    )
    (public / "GCP-Coupons-Instructions.rtf").write_text("{\\rtf1 coupons}")
    return root


UW_CLASSES = ("large_bowel", "small_bowel", "stomach")


def uw_madison_images(root: Path, n_cases: int = 8, days: int = 2, slices: int = 4, size: int = 20) -> Path:
    """uw-madison-gi-tract-image-segmentation's layout as `uw_madison`, with real images and the real metric: each
    slice a `size` x `size` 16-bit PNG named with its width and height as MLE-bench's files are, each organ a disc
    brighter than the background by its own amount where the organ is present (about two slices in three), its mask
    run-length encoded down each column (empty where absent); `private/test.csv` the answers with each slice's
    `image_height`, `image_width`. competition.json names `dice_hausdorff`."""
    public, private = dirs(
        root, "dice_hausdorff", "# UW-Madison GI tract\n\nScored by 0.4 Dice + 0.6 (1 - 3D Hausdorff).\n"
    )
    rng = np.random.default_rng(131)
    cases = sorted(int(c) for c in rng.choice(160, n_cases + 2, replace=False))
    rows, cols = np.mgrid[0:size, 0:size]
    centres = {"large_bowel": (0.3, 0.3), "small_bowel": (0.65, 0.35), "stomach": (0.5, 0.7)}
    brightness = {"large_bowel": 300, "small_bowel": 600, "stomach": 900}
    tables: dict[str, list] = {"train": [], "test": []}
    for k, case in enumerate(cases):
        folder = "test" if k >= n_cases else "train"
        for day in sorted(int(v) for v in rng.choice(40, days, replace=False)):
            scans = public / folder / f"case{case}" / f"case{case}_day{day}" / "scans"
            scans.mkdir(parents=True)
            for s in range(1, slices + 1):
                slice_id = f"case{case}_day{day}_slice_{s:04d}"
                image = 100 + 20 * rng.standard_normal((size, size))
                for organ in UW_CLASSES:
                    mask = np.zeros((size, size), dtype=bool)
                    if rng.random() < 0.67:
                        cy, cx = (size * (c + rng.uniform(-0.08, 0.08)) for c in centres[organ])
                        mask = (rows - cy) ** 2 + (cols - cx) ** 2 <= (size * rng.uniform(0.1, 0.16)) ** 2
                        image[mask] += brightness[organ]
                    encoded = rle(mask)
                    tables[folder].append((slice_id, organ, "" if encoded == "-" else encoded))
                name = f"slice_{s:04d}_{size}_{size}_1.50_1.50.png"
                Image.fromarray(np.clip(image, 0, 65535).astype(np.uint16)).save(scans / name)
    train = pd.DataFrame(tables["train"], columns=["id", "class", "segmentation"])
    test = pd.DataFrame(tables["test"], columns=["id", "class", "segmentation"])
    train.to_csv(public / "train.csv", index=False)
    test[["id", "class"]].to_csv(public / "test.csv", index=False)
    test[["id", "class"]].assign(predicted="1 1 5 2").to_csv(public / "sample_submission.csv", index=False)
    answers = test.rename(columns={"segmentation": "predicted"}).assign(image_height=size, image_width=size)
    answers.to_csv(private / "test.csv", index=False)
    return root


def uw_madison(root: Path, n_cases: int = 4, days: int = 2, slices: int = 3) -> Path:
    """uw-madison-gi-tract-image-segmentation: `train.csv` (`id` = `case<c>_day<d>_slice_<ssss>`, `class`,
    `segmentation` RLE, empty where the organ is absent; 3 rows a slice), `test.csv` (`id`, `class`),
    `train/case<c>/case<c>_day<d>/scans/slice_<ssss>_266_266_1.50_1.50.png`, the test cases' in `test/`,
    `sample_submission.csv` `id`, `class`, `predicted` = `1 1 5 2`; `private/test.csv` the test rows'
    `predicted` with `image_height`, `image_width`. competition.json names `rle_dice` (the Dice part of the
    metric, `dice_hausdorff`)."""
    public, _ = dirs(
        root, "rle_dice", "# UW-Madison GI tract\n\nScored by 0.4 Dice + 0.6 (1 - 3D Hausdorff).\n"
    )
    rng = np.random.default_rng(129)
    cases = sorted(int(c) for c in rng.choice(160, n_cases + 1, replace=False))

    def rows(case_ids: list[int]) -> pd.DataFrame:
        table = []
        for c in case_ids:
            for d in sorted(int(v) for v in rng.choice(40, days, replace=False)):
                for s in range(1, slices + 1):
                    for organ in UW_CLASSES:
                        mask = (
                            ""
                            if rng.random() < 0.5
                            else f"{int(rng.integers(1, 9000))} {int(rng.integers(2, 9))}"
                        )
                        table.append((f"case{c}_day{d}_slice_{s:04d}", organ, mask))
        return pd.DataFrame(table, columns=["id", "class", "segmentation"])

    train, test = rows(cases[:n_cases]), rows(cases[n_cases:])
    train.to_csv(public / "train.csv", index=False)
    test[["id", "class"]].to_csv(public / "test.csv", index=False)
    test[["id", "class"]].assign(predicted="1 1 5 2").to_csv(public / "sample_submission.csv", index=False)
    answers = test.rename(columns={"segmentation": "predicted"}).assign(image_height=266, image_width=266)
    answers.to_csv(root / "prepared" / "private" / "test.csv", index=False)  # as prepare.py, with each size
    for folder, table in (("train", train), ("test", test)):
        names = []
        for slice_id in table["id"].unique():
            case_day, s = slice_id.split("_slice_")
            names.append(f"{case_day.split('_')[0]}/{case_day}/scans/slice_{s}_266_266_1.50_1.50.png")
        write_files(public / folder, names)
    return root


JIGSAW_SUBTYPES = ["severe_toxicity", "obscene", "identity_attack", "insult", "threat"]


def jigsaw_bias(root: Path, n_train: int = 600, n_test: int = 12) -> Path:
    """jigsaw-unintended-bias-in-toxicity-classification: `train.csv` as Kaggle's (`id`, `target` a fraction of
    raters, `comment_text`, the toxicity subtypes, identity columns (here the 9 grade.py scores of 24, blank where
    a comment was not rated for identities), metadata (here `created_date`, `rating`, `toxicity_annotator_count`)),
    `test.csv` (`id`, `comment_text`), `sample_submission.csv` `id`, `prediction` = 0.0; metric `jigsaw_bias_auc`,
    which reads the held-out rows' identity columns."""
    public, _ = dirs(
        root, "jigsaw_bias_auc", "# Jigsaw unintended bias\n\nScored by AUC with bias AUCs per identity.\n"
    )
    rng = np.random.default_rng(130)
    ids = [int(v) for v in sorted(rng.choice(10**7, n_train + n_test, replace=False))]
    raters = rng.integers(4, 10, n_train)
    train = pd.DataFrame(
        {
            "id": ids[:n_train],
            "target": (rng.integers(0, raters + 1) / raters).round(6),
            "comment_text": [sentence(rng) for _ in range(n_train)],
        }
    )
    for column in JIGSAW_SUBTYPES:
        train[column] = (rng.integers(0, raters + 1) / raters / 2).round(6)
    rated = np.arange(n_train) % 4 != 0  # a quarter of the comments were not rated for identities
    for column in JIGSAW_IDENTITIES:
        shares = (rng.random(n_train) * (rng.random(n_train) < 0.4)).round(6)
        train[column] = np.where(rated, shares.astype(str), "")
    train["created_date"] = [f"2016-{1 + k % 12:02d}-01 13:26:11.111+00" for k in range(n_train)]
    train["rating"] = rng.choice(["approved", "rejected"], n_train)
    train["toxicity_annotator_count"] = raters
    train.to_csv(public / "train.csv", index=False)
    test = pd.DataFrame({"id": ids[n_train:], "comment_text": [sentence(rng) for _ in range(n_test)]})
    test.to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": test["id"], "prediction": 0.0}).to_csv(public / "sample_submission.csv", index=False)
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


def rsna_breast(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """rsna-breast-cancer-detection: `train.csv` a row per image (`site_id`, `patient_id`, `image_id`, `laterality`
    L/R, `view` CC/MLO, `age`, `cancer` (the same on a breast's images), `biopsy`, `invasive`, `BIRADS`, `implant`,
    `density`, `machine_id`, `difficult_negative_case`), `test.csv` a row per image (`site_id`, `patient_id`,
    `image_id`, `laterality`, `view`, `age`, `implant`, `machine_id`, `prediction_id` = `<patient_id>_<laterality>`),
    `sample_submission.csv` a row per prediction_id in sorted order (`prediction_id`, `cancer` = train's mean),
    images `train_images/<patient_id>/<image_id>.dcm` and `test_images/...` (patients disjoint), and the answers
    in `private/answers.csv`. Here a left breast of a patient aged 66 or more has cancer."""
    public, _ = dirs(
        root, "probabilistic_f1", "# RSNA Screening Mammography\n\nScored by probabilistic F1.\n"
    )
    rng = np.random.default_rng(131)
    patients = [int(v) for v in rng.choice(65000, n_train + n_test, replace=False)]
    rows = []
    for k, patient in enumerate(patients):
        age = float(rng.integers(40, 80))
        for side in ("L", "R"):
            cancer = int(age >= 66 and side == "L")  # learnable from the rows' own columns
            for view in ("CC", "MLO"):
                rows.append(
                    {
                        "site_id": 1 + k % 2,
                        "patient_id": patient,
                        "image_id": int(rng.integers(10**8, 2 * 10**9)),
                        "laterality": side,
                        "view": view,
                        "age": age,
                        "cancer": cancer,
                        "biopsy": cancer,
                        "invasive": cancer,
                        "BIRADS": "" if cancer else 1,
                        "implant": 0,
                        "density": rng.choice(["A", "B", "C", "D"]),
                        "machine_id": int(rng.choice([29, 49, 210])),
                        "difficult_negative_case": False,
                    }
                )
    table = pd.DataFrame(rows)
    in_train = table["patient_id"].isin(patients[:n_train])
    train, answers = table[in_train], table[~in_train].copy()
    train.to_csv(public / "train.csv", index=False)
    answers["prediction_id"] = answers["patient_id"].astype(str) + "_" + answers["laterality"]
    test_columns = ["site_id", "patient_id", "image_id", "laterality", "view", "age", "implant", "machine_id"]
    answers[[*test_columns, "prediction_id"]].to_csv(public / "test.csv", index=False)
    truth = answers[["prediction_id", "cancer"]].groupby("prediction_id").first().reset_index()
    truth.to_csv(root / "prepared" / "private" / "answers.csv", index=False)
    truth.assign(cancer=train["cancer"].mean()).to_csv(public / "sample_submission.csv", index=False)
    for folder, part in (("train_images", train), ("test_images", answers)):
        write_files(
            public / folder,
            [f"{p}/{i}.dcm" for p, i in zip(part["patient_id"], part["image_id"], strict=True)],
        )
    return root


FREESOUND_CLASSES = ("Accordion", "Bark", "Bass_drum", "Bicycle_bell", "Walk_and_footsteps", "Writing")


def freesound(root: Path, n_curated: int = 40, n_noisy: int = 60, n_test: int = 10) -> Path:
    """freesound-audio-tagging-2019 (prepare.py copies Kaggle's files): `train_curated.csv` and `train_noisy.csv`
    (`fname` = `<8 hex>.wav`, `labels` one class or several joined with ","), `train_curated.zip`,
    `train_noisy.zip` and `test.zip` of loose `.wav` files, `sample_submission.csv` `fname` + a column per class
    (here 6 of the 80) = 0, and the test clips' labels as 0/1 columns in `private/test.csv` (prepare.py's
    answers). Every third clip has two labels; a clip's size grows with its first label (a learnable input)."""
    public, private = dirs(root, "lwlrap", "# Freesound Audio Tagging 2019\n\nScored by lwlrap.\n")
    rng = np.random.default_rng(137)
    names = [f"{h}.wav" for h in hexes(rng, n_curated + n_noisy + n_test, 8)]
    parts = {
        "train_curated": names[:n_curated],
        "train_noisy": names[n_curated : n_curated + n_noisy],
        "test": names[n_curated + n_noisy :],
    }
    for k, (part, files) in enumerate(parts.items()):
        labels, firsts = [], []
        for j in range(len(files)):
            first = (j + k) % len(FREESOUND_CLASSES)
            second = FREESOUND_CLASSES[(first + 2) % len(FREESOUND_CLASSES)]
            firsts.append(first)
            labels.append(f"{FREESOUND_CLASSES[first]},{second}" if j % 3 == 0 else FREESOUND_CLASSES[first])
        with zipfile.ZipFile(public / f"{part}.zip", "w") as archive:
            for name, first in zip(files, firsts, strict=True):
                archive.writestr(name, f"{part}/{name}" + "x" * (500 * first))
        table = pd.DataFrame({"fname": files, "labels": labels})
        if part == "test":
            truth = {c: [int(c in s.split(",")) for s in labels] for c in FREESOUND_CLASSES}
            pd.DataFrame({"fname": files, **truth}).to_csv(private / "test.csv", index=False)
        else:
            table.to_csv(public / f"{part}.csv", index=False)
    sample = pd.DataFrame({"fname": parts["test"], **{c: 0 for c in FREESOUND_CLASSES}})
    sample.to_csv(public / "sample_submission.csv", index=False)
    return root


BILLION_WORD_DESCRIPTION = """# Billion Word Imputation

For each sentence in the test set, we have removed exactly one word. Participants must create a model capable of
inserting back the correct missing word at the correct location in the sentence.

## Evaluation

Submissions are evaluated on the mean Levenshtein distance between the sentences you submit and the original
sentences in the test set.

#### Submission File

Your submission file should contain the sentence id and a predicted sentence. Note that test.csv is a valid
submission file itself.

The file should contain a header and have the following format:

```
id,"sentence"
1,"Former Dodgers manager , the team 's undisputed top ambassador , is going strong at 83 ."
etc...
```
"""


def billion_word(root: Path, n_train: int = 40, n_test: int = 10, phrased: bool = False) -> Path:
    """billion-word-imputation: `train_v2.txt.zip` (a sentence a line, no header) and `test_v2.txt.zip`
    (`"id","sentence"`, a word taken out of each sentence), no sample submission; the description's Submission
    File section shows the test table's header ("test.csv is a valid submission file itself"). The sentences
    are words drawn at random, or `phrased`: "the <adjective> <noun> <verb> the <noun> at night ."."""
    public, private = dirs(root, "mean_levenshtein", BILLION_WORD_DESCRIPTION)
    rng = np.random.default_rng(139)
    if phrased:
        sentences = [
            f"the {rng.choice(WORDS[:3])} {rng.choice(WORDS[3:8])} {rng.choice(['sees', 'finds', 'keeps'])} the "
            f"{rng.choice(WORDS[3:8])} at night ."
            for _ in range(n_train + n_test)
        ]
    else:
        sentences = [sentence(rng, 8) + " ." for _ in range(n_train + n_test)]
    with zipfile.ZipFile(public / "train_v2.txt.zip", "w") as archive:
        archive.writestr("train_v2.txt", "\n".join(sentences[:n_train]) + "\n")
    test = pd.DataFrame({"id": range(1, n_test + 1), "sentence": sentences[n_train:]})
    answers = test.assign(sentence=test["sentence"])
    test["sentence"] = [remove_inner_word(s, rng) for s in test["sentence"]]  # as prepare.py
    with zipfile.ZipFile(public / "test_v2.txt.zip", "w") as archive:
        archive.writestr("test_v2.txt", test.to_csv(index=False, quoting=1))
    answers.to_csv(private / "test.csv", index=False, quoting=1)
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


def nfl_contact(root: Path, n_plays: int = 10, n_test: int = 2, steps: int = 4) -> Path:
    """nfl-player-contact-detection: `train_labels.csv` (`contact_id` = `<game_play>_<step>_<p1>_<p2>`,
    `game_play` itself `<game>_<play>`, `datetime`, `step`, `nfl_player_id_1`, `nfl_player_id_2` (`G`: the
    ground), `contact`), the game plays' twin tables `train_`/`test_` `baseline_helmets.csv`,
    `player_tracking.csv`, `video_metadata.csv` (rows of the split's game plays, keyed by `game_play`), videos
    `train/<game_play>_<view>.mp4` and `test/` (views All29, Endzone, Sideline), `sample_submission.csv`
    `contact_id`, `contact` (0): the test's labels rows, no test table of contacts."""
    public, private = dirs(root, "mcc", "# NFL contact\n\nScored by the Matthews correlation coefficient.\n")
    rng = np.random.default_rng(151)
    plays = [f"{58000 + 10 * k}_{int(rng.integers(1000, 4000)):06d}" for k in range(n_plays)]
    players = [str(p) for p in rng.integers(30000, 50000, 4)]
    labels, helmets, tracking, videos = [], [], [], []
    for play in plays:
        for step in range(steps):
            when = f"2021-09-{10 + step:02d}T00:00:00.000Z"
            for i, first in enumerate(players):
                tracking.append(
                    (play, first, step, when, float(rng.uniform(0, 100)), float(rng.uniform(0, 50)))
                )
                helmets.append((play, step, first, int(rng.integers(0, 1000)), int(rng.integers(0, 600))))
                for second in [*players[i + 1 :], "G"]:
                    contact = int(rng.random() < 0.3)
                    labels.append(
                        (f"{play}_{step}_{first}_{second}", play, when, step, first, second, contact)
                    )
        for view in ("Endzone", "Sideline"):
            videos.append((play, view, "2021-09-10T00:00:00.000Z", "2021-09-10T00:00:10.000Z"))
    frames = {
        "labels": pd.DataFrame(
            labels,
            columns=[
                "contact_id",
                "game_play",
                "datetime",
                "step",
                "nfl_player_id_1",
                "nfl_player_id_2",
                "contact",
            ],
        ),
        "baseline_helmets": pd.DataFrame(
            helmets, columns=["game_play", "frame", "nfl_player_id", "left", "top"]
        ),
        "player_tracking": pd.DataFrame(
            tracking, columns=["game_play", "nfl_player_id", "step", "datetime", "x_position", "y_position"]
        ),
        "video_metadata": pd.DataFrame(videos, columns=["game_play", "view", "start_time", "end_time"]),
    }
    test_plays = plays[-n_test:]
    for name, frame in frames.items():
        held = frame["game_play"].isin(test_plays)
        frame[~held].to_csv(public / f"train_{name}.csv", index=False)
        if name == "labels":
            frame[held].to_csv(private / "test.csv", index=False)
            frame[held][["contact_id"]].assign(contact=0).to_csv(
                public / "sample_submission.csv", index=False
            )
        else:
            frame[held].to_csv(public / f"test_{name}.csv", index=False)
    for play in plays:
        folder = "test" if play in test_plays else "train"
        write_files(public / folder, [f"{play}_{view}.mp4" for view in ("All29", "Endzone", "Sideline")])
    return root


ALASKA_ALGORITHMS = ("JMiPOD", "JUNIWARD", "UERD")


def alaska2(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """alaska2-image-steganalysis: `Cover/<nnnnn>.jpg` (originals, 5 digits from 00001), the same names in
    `JMiPOD/`, `JUNIWARD/`, `UERD/` (the images with a hidden message), `Test/<nnnn>.jpg` (4 digits from 0001,
    each the original or one altered version of an unseen image, half and half), `sample_submission.csv` `Id`,
    `Label` = 0; scored by the weighted AUC."""
    public, private = dirs(root, "tpr_weighted_auc", ALASKA_DESCRIPTION)
    rng = np.random.default_rng(157)
    names = [f"{k:05d}.jpg" for k in range(1, n_train + 1)]
    for folder in ("Cover", *ALASKA_ALGORITHMS):
        for name in names:
            path = public / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(f"{folder}/{name}".encode() + bytes([int(folder != "Cover")]) * 40)
    ids, labels = [f"{k:04d}.jpg" for k in range(1, n_test + 1)], []
    for test_id in ids:
        altered = bool(rng.random() < 0.5)
        labels.append(int(altered))
        folder = str(rng.choice(ALASKA_ALGORITHMS)) if altered else "Cover"
        path = public / "Test" / test_id
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"{folder}/test {test_id}".encode() + bytes([int(altered)]) * 40)
    pd.DataFrame({"Id": ids, "Label": 0}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"Id": ids, "Label": labels}).to_csv(private / "test.csv", index=False)
    return root


ALASKA_DESCRIPTION = """# ALASKA2 Image Steganalysis

Detect secret data hidden within digital images.

## Evaluation

Submissions are evaluated on the weighted AUC. [...] tpr_thresholds = [0.0, 0.4, 1.0], weights = [2, 1]

## Data

`Cover/` holds the unaltered images, `JMiPOD/`, `JUNIWARD/` and `UERD/` the same images with a hidden message.
Predict for each image in `Test/` the probability (`Label`) that it holds one.
"""


def icecube(root: Path, n_batches: int = 8, n_test: int = 2, per_batch: int = 6) -> Path:
    """icecube-neutrinos-in-deep-ice: `train_meta.parquet` (`batch_id`, `event_id`, `first_pulse_index`,
    `last_pulse_index`, `azimuth`, `zenith`; written with fastparquet, whole batches drawn for the test),
    `test_meta.parquet` (the same without the two angles), the pulses `train/batch_<n>.parquet` and
    `test/batch_<n>.parquet` (a row per pulse, indexed by `event_id`: `sensor_id`, `time`, `charge`,
    `auxiliary`), `sensor_geometry.csv`, `sample_submission.csv` `event_id`, `azimuth`, `zenith` (1, 1)."""
    public, private = dirs(
        root,
        "mean_angular_error",
        "# IceCube\n\nScored by the mean angular error of the predicted direction.\n",
    )
    rng = np.random.default_rng(661)
    meta, event = [], 24
    for batch in range(1, n_batches + 1):
        pulses, first = [], 0
        for _ in range(per_batch):
            count = int(rng.integers(3, 7))
            meta.append(
                (
                    batch,
                    event,
                    first,
                    first + count - 1,
                    float(rng.uniform(0, 2 * np.pi)),
                    float(rng.uniform(0, np.pi)),
                )
            )
            for _ in range(count):
                pulses.append((event, int(rng.integers(0, 5160)), int(rng.integers(6000, 20000)),
                               float(rng.uniform(0.2, 3)), bool(rng.random() < 0.5)))  # fmt: skip
            first += count
            event += int(rng.integers(1, 40))
        folder = public / ("test" if batch > n_batches - n_test else "train")
        folder.mkdir(exist_ok=True)
        frame = pd.DataFrame(pulses, columns=["event_id", "sensor_id", "time", "charge", "auxiliary"])
        frame.set_index("event_id").to_parquet(folder / f"batch_{batch}.parquet")
    columns = ["batch_id", "event_id", "first_pulse_index", "last_pulse_index", "azimuth", "zenith"]
    table = pd.DataFrame(meta, columns=columns)
    test = table["batch_id"] > n_batches - n_test
    table[~test].to_parquet(public / "train_meta.parquet", index=False)
    table[test].drop(columns=["azimuth", "zenith"]).to_parquet(public / "test_meta.parquet", index=False)
    table[test][["event_id", "azimuth", "zenith"]].to_csv(private / "test.csv", index=False)
    table[test][["event_id"]].assign(azimuth=1, zenith=1).to_csv(
        public / "sample_submission.csv", index=False
    )
    sensors = pd.DataFrame({"sensor_id": range(5160), "x": 0.0, "y": 0.0, "z": 0.0})
    sensors.to_csv(public / "sensor_geometry.csv", index=False)
    return root


VINBIG_CLASSES = ("Aortic enlargement", "Atelectasis", "Calcification", "Cardiomegaly")  # class_id 0..3
VINBIG_READERS = ("R8", "R9", "R10", "R11")


def vinbigdata(root: Path, n_train: int = 30, n_test: int = 8) -> Path:
    """vinbigdata-chest-xray-abnormalities-detection: `train.csv` a row per box (`image_id` 32 hex digits,
    `class_name`, `class_id`, `rad_id`, `x_min`, `y_min`, `x_max`, `y_max`; three radiologists an image, "No
    finding" rows class 14 without corners), `train/<image_id>.dicom`, `test/<image_id>.dicom`, no test.csv,
    `sample_submission.csv` `image_id`, `PredictionString` = `14 1 0 0 1 1`; `private/answers.csv` the test's box
    rows (the first of each (image, class)) and `private/gold_submission.csv` their strings, as `prepare.py`
    writes them. Here images whose id starts with a digit show findings, and their files are larger. The metric:
    `coco_box_map`."""
    public, private = dirs(root, "coco_box_map", "# VinBigData Chest X-ray\n\nScored by mAP at IoU 0.4.\n")
    rng = np.random.default_rng(141)
    ids = hexes(rng, n_train + n_test, 32)
    rows = []
    for image in ids:
        readers = rng.choice(VINBIG_READERS, 3, replace=False)
        found = image[0].isdigit()
        for reader in readers:
            if not found:
                rows.append([image, "No finding", 14, reader, None, None, None, None])
                continue
            for class_id in sorted(rng.choice(len(VINBIG_CLASSES), 2, replace=False)):
                x, y = float(rng.integers(100, 2000)), float(rng.integers(100, 2000))
                box = [x, y, x + float(rng.integers(50, 600)), y + float(rng.integers(50, 600))]
                rows.append([image, VINBIG_CLASSES[class_id], int(class_id), reader, *box])
    columns = ["image_id", "class_name", "class_id", "rad_id", "x_min", "y_min", "x_max", "y_max"]
    table = pd.DataFrame(rows, columns=columns)
    train, answers = (
        table[table["image_id"].isin(ids[:n_train])],
        table[table["image_id"].isin(ids[n_train:])],
    )
    train.to_csv(public / "train.csv", index=False)
    answers = answers.groupby(["image_id", "class_id"]).first().reset_index().fillna(0)
    answers.loc[answers["class_id"] == 14, ["x_max", "y_max"]] = 1.0
    answers.to_csv(private / "answers.csv", index=False)
    gold = answers.assign(
        PredictionString=[
            f"{r.class_id} 1.0 {r.x_min} {r.y_min} {r.x_max} {r.y_max}" for r in answers.itertuples()
        ]
    )
    gold.groupby("image_id")["PredictionString"].agg(" ".join).reset_index().to_csv(
        private / "gold_submission.csv", index=False
    )
    pd.DataFrame({"image_id": ids[n_train:], "PredictionString": "14 1 0 0 1 1"}).to_csv(
        public / "sample_submission.csv", index=False
    )
    for folder, group in (("train", ids[:n_train]), ("test", ids[n_train:])):
        (public / folder).mkdir()
        for image in group:  # an image with findings is a larger file: a feature that tells them
            (public / folder / f"{image}.dicom").write_bytes(
                b"DICM" + bytes(400 if image[0].isdigit() else 40)
            )
    return root


SIIM_CLASSES = (
    "Negative for Pneumonia",
    "Typical Appearance",
    "Indeterminate Appearance",
    "Atypical Appearance",
)


SOP_UID, STUDY_UID, SERIES_UID, MEDIA_SOP_UID = (8, 0x18), (0x20, 0xD), (0x20, 0xE), (2, 3)
IMPLICIT_LE, EXPLICIT_LE = "1.2.840.10008.1.2", "1.2.840.10008.1.2.1"
CR_IMAGE = (
    "1.2.840.10008.5.1.4.1.1.1"  # Computed Radiography Image Storage: the SOP class of siim-covid's files
)
LONG_VRS = {"OB", "OW", "OF", "SQ", "UT", "UN", "UC", "UR", "OD", "OL", "OV", "SV", "UV"}


def dicom_element(tag: tuple[int, int], vr: str, value: bytes, explicit: bool = True) -> bytes:
    """One DICOM element, little endian: tag, VR (explicit) and length, then the value, padded to even length
    (`\\0` for UIDs and bytes, a space for text); a value of length 0xFFFFFFFF (undefined) is given whole, its
    delimiters included."""
    if len(value) % 2:
        value += b"\0" if vr in ("UI", "OB", "UN") else b" "
    head = tag[0].to_bytes(2, "little") + tag[1].to_bytes(2, "little")
    if not explicit:
        return head + len(value).to_bytes(4, "little") + value
    if vr in LONG_VRS:
        return head + vr.encode() + bytes(2) + len(value).to_bytes(4, "little") + value
    return head + vr.encode() + len(value).to_bytes(2, "little") + value


def dicom_bytes(
    uids: dict[tuple[int, int], str], pixels: bytes, syntax: str = EXPLICIT_LE, extra: bytes = b""
) -> bytes:
    """A minimal DICOM file: the 128-byte preamble and `DICM`, the file meta group (explicit VR little endian:
    its group length, version, SOP class, MediaStorageSOPInstanceUID = the SOPInstanceUID, the transfer syntax
    `syntax`), then the dataset in that syntax: SOP class, the `uids` (SOPInstanceUID, StudyInstanceUID,
    SeriesInstanceUID: tag -> value) in tag order with the elements `extra` holds (encoded already) before
    them, rows and columns, and `pixels` as the pixel data (OW)."""
    explicit = syntax != IMPLICIT_LE
    meta = b"".join(
        [
            dicom_element((2, 1), "OB", b"\0\1"),
            dicom_element((2, 2), "UI", CR_IMAGE.encode()),
            dicom_element(MEDIA_SOP_UID, "UI", uids[SOP_UID].encode()),
            dicom_element((2, 0x10), "UI", syntax.encode()),
            dicom_element((2, 0x12), "UI", b"1.2.826.0.1.3680043.9.7433"),
        ]
    )
    group_length = dicom_element((2, 0), "UL", len(meta).to_bytes(4, "little"))
    elements = [dicom_element((8, 0x16), "UI", CR_IMAGE.encode(), explicit), extra]
    elements += [dicom_element(tag, "UI", uids[tag].encode(), explicit) for tag in sorted(uids)]
    elements += [
        dicom_element((0x28, 0x10), "US", (1).to_bytes(2, "little"), explicit),
        dicom_element((0x28, 0x11), "US", (len(pixels) // 2).to_bytes(2, "little"), explicit),
        dicom_element((0x7FE0, 0x10), "OW", pixels, explicit),
    ]
    return bytes(128) + b"DICM" + group_length + meta + b"".join(elements)


def siim_covid(root: Path, n_train: int = 24, n_test: int = 6) -> Path:
    """siim-covid19-detection: `train_study_level.csv` (`id` = `<study>_study`, a 0/1 column per class of
    SIIM_CLASSES), `train_image_level.csv` (`id` = `<image>_image`, `boxes`, `label` = `opacity 1 <x_min> <y_min>
    <x_max> <y_max> ...` or `none 1 0 0 1 1`, `StudyInstanceUID`), `train/<study>/<series>/<image>.dcm`,
    `test/<study>/...`, `sample_submission.csv` `id`, `PredictionString` (`negative 1 0 0 1 1` for each test
    study, `none 1 0 0 1 1` for each of its images, studies first); `private/test.csv` the answers as prepare.py
    writes them. One or two images a study; a typical study's images show an opacity, and its files are larger.
    Each file is a minimal DICOM (`dicom_bytes`) naming its image, study and series UIDs in its header, in explicit
    or (every fourth image) implicit VR little endian. The metric: `voc_box_map`."""
    public, private = dirs(root, "voc_box_map", "# SIIM COVID-19\n\nScored by mAP at IoU 0.5.\n")
    rng = np.random.default_rng(161)
    studies = hexes(rng, n_train + n_test, 12)
    study_rows, image_rows = [], []
    for k, study in enumerate(studies):
        kind = int(rng.integers(0, 4)) if k % 3 else 1
        study_rows.append({"id": f"{study}_study", **{c: int(j == kind) for j, c in enumerate(SIIM_CLASSES)}})
        folder = "train" if k < n_train else "test"
        series = hexes(rng, 1, 12)[0]
        for image in hexes(rng, int(rng.integers(1, 3)), 12):
            if kind == 1:
                x, y = float(rng.integers(100, 1500)), float(rng.integers(100, 1500))
                boxes, label = f"[{{'x': {x}, 'y': {y}}}]", f"opacity 1 {x} {y} {x + 500} {y + 700}"
            else:
                boxes, label = "", "none 1 0 0 1 1"
            image_rows.append(
                {"id": f"{image}_image", "boxes": boxes, "label": label, "StudyInstanceUID": study}
            )
            path = public / folder / study / series / f"{image}.dcm"
            path.parent.mkdir(parents=True, exist_ok=True)
            uids = {SOP_UID: image, STUDY_UID: study, SERIES_UID: series}
            syntax = IMPLICIT_LE if len(image_rows) % 4 == 0 else EXPLICIT_LE  # both encodings, as real files
            path.write_bytes(dicom_bytes(uids, bytes(400 if kind == 1 else 40), syntax))
    study_table, image_table = pd.DataFrame(study_rows), pd.DataFrame(image_rows)
    train_studies = set(studies[:n_train])
    in_train = image_table["StudyInstanceUID"].isin(train_studies)
    study_table.iloc[:n_train].to_csv(public / "train_study_level.csv", index=False)
    image_table[in_train].to_csv(public / "train_image_level.csv", index=False)
    words = [c.split()[0].lower() for c in SIIM_CLASSES]
    answers = [
        {"id": r["id"], "PredictionString": f"{words[[r[c] for c in SIIM_CLASSES].index(1)]} 1 0 0 1 1"}
        for r in study_rows[n_train:]
    ] + [
        {"id": r["id"], "PredictionString": r["label"]}
        for r in image_rows
        if r["StudyInstanceUID"] not in train_studies
    ]
    pd.DataFrame(answers).to_csv(private / "test.csv", index=False)
    sample = pd.DataFrame(answers).assign(
        PredictionString=lambda f: np.where(
            f["id"].str.endswith("_study"), "negative 1 0 0 1 1", "none 1 0 0 1 1"
        )
    )
    sample.to_csv(public / "sample_submission.csv", index=False)
    return root


def tensorflow2_qa(root: Path, n_train: int = 40, n_test: int = 10) -> Path:
    """tensorflow2-question-answering: `simplified-nq-train.jsonl` (a record a line: `example_id` as text,
    `question_text`, `document_text`, `long_answer_candidates`, `annotations` with one item: `long_answer`,
    `short_answers`, `yes_no_answer`), `simplified-nq-test.jsonl` without `annotations`, `sample_submission.csv`
    `example_id` (`<id>_short`, `<id>_long` a record), `PredictionString` blank; `private/test.jsonl` the test
    records whole and `private/gold_submission.csv` their first answers, as prepare.py writes them. A question
    that starts with "who" has its answer in the document's first paragraph (tokens 0:10, the short answer
    2:4); one that starts with "is" is answered YES at paragraph 1; the rest have none. The metric:
    `answer_span_f1`."""
    public, private = dirs(
        root, "answer_span_f1", "# TensorFlow 2.0 Question Answering\n\nScored by micro F1.\n"
    )
    rng = np.random.default_rng(171)
    records = []
    for k in range(n_train + n_test):
        kind = ("who", "is", "what")[k % 3]
        first, rest = " ".join(rng.choice(WORDS, 8)), " ".join(rng.choice(WORDS, 300))  # a document is long
        document = f"<P> {first} </P> <P> {rest} </P>"
        candidates = [
            {"start_token": 0, "end_token": 10, "top_level": True},
            {"start_token": 10, "end_token": 312, "top_level": True},
        ]
        long_answer = {"start_token": -1, "end_token": -1, "candidate_index": -1}
        short, yes_no = [], "NONE"
        if kind == "who":
            long_answer, short = (
                {"start_token": 0, "end_token": 10, "candidate_index": 0},
                [{"start_token": 2, "end_token": 4}],
            )
        elif kind == "is":
            long_answer, yes_no = {"start_token": 0, "end_token": 10, "candidate_index": 0}, "YES"
        records.append(
            {
                "example_id": str(-(10**18) + int(rng.integers(0, 10**18))),
                "question_text": f"{kind} {sentence(rng, 4)}",
                "document_text": document,
                "long_answer_candidates": candidates,
                "annotations": [
                    {
                        "annotation_id": k,
                        "long_answer": long_answer,
                        "short_answers": short,
                        "yes_no_answer": yes_no,
                    }
                ],
            }
        )
    train, test = records[:n_train], records[n_train:]
    keep = ("example_id", "question_text", "document_text", "long_answer_candidates")
    for path, group in (
        (public / "simplified-nq-train.jsonl", train),
        (public / "simplified-nq-test.jsonl", [{k: r[k] for k in keep} for r in test]),
        (private / "test.jsonl", test),
    ):
        path.write_text("".join(json.dumps(r) + "\n" for r in group))
    gold = []
    for record in test:
        annotation = record["annotations"][0]
        short = annotation["short_answers"]
        answer = (
            annotation["yes_no_answer"]
            if annotation["yes_no_answer"] != "NONE"
            else (f"{short[0]['start_token']}:{short[0]['end_token']}" if short else "")
        )
        span = annotation["long_answer"]
        long_answer = f"{span['start_token']}:{span['end_token']}" if span["start_token"] != -1 else ""
        gold += [
            {"example_id": f"{record['example_id']}_short", "PredictionString": answer},
            {"example_id": f"{record['example_id']}_long", "PredictionString": long_answer},
        ]
    pd.DataFrame(gold).to_csv(private / "gold_submission.csv", index=False)
    pd.DataFrame(gold).assign(PredictionString="").to_csv(public / "sample_submission.csv", index=False)
    return root


def contrails(root: Path, n_train: int = 12, n_test: int = 3, size: int = 16) -> Path:
    """google-research-identify-contrails-reduce-global-warming: `train/<record_id>/band_08.npy` .. `band_16.npy`
    (size x size x 8 frames, float32 temperatures), `human_pixel_masks.npy` (size x size x 1, int32),
    `human_individual_masks.npy` (size x size x 1 x 3 annotators); `test/<record_id>/` the bands only; `validation/`
    as train; `train_metadata.json`, `validation_metadata.json` (a record per `record_id`); `sample_submission.csv`
    `record_id`, `encoded_pixels` ("1 3 10 5" or "-"), `height`, `width`. The metric: `rle_dice_global`. A contrail
    is a line two pixels wide across most records, colder in band 15 than in band 14 at the labelled frame (4)."""
    public, private = dirs(root, "rle_dice_global", "# Contrails\n\nScored by the global Dice coefficient.\n")
    rng = np.random.default_rng(151)
    ids = [str(10**18 + int(v)) for v in rng.choice(10**18, n_train + n_test + 2, replace=False)]
    train, test, valid = ids[:n_train], ids[n_train : n_train + n_test], ids[n_train + n_test :]
    rows, cols = np.mgrid[0:size, 0:size]
    answers = []
    for folder, group in (("train", train), ("test", test), ("validation", valid)):
        for k, record in enumerate(group):
            out = public / folder / record
            out.mkdir(parents=True)
            angle, offset = rng.uniform(0, np.pi), rng.uniform(-size / 4, size / 4)
            distance = (cols - size / 2) * np.sin(angle) - (rows - size / 2) * np.cos(angle) - offset
            mask = (np.abs(distance) < 1.0) & (k % 4 != 3)  # every fourth record has no contrail
            for band in range(8, 17):
                values = 250 + 5 * rng.standard_normal((size, size, 8))
                if band == 15:
                    values[..., 4] -= 12 * mask
                np.save(out / f"band_{band:02d}.npy", values.astype(np.float32))
            if folder == "test":
                answers.append(
                    {"record_id": record, "encoded_pixels": rle(mask), "height": size, "width": size}
                )
            else:
                np.save(out / "human_pixel_masks.npy", mask[..., None].astype(np.int32))
                np.save(
                    out / "human_individual_masks.npy",
                    np.stack([mask] * 3, -1)[:, :, None, :].astype(np.int32),
                )
    for name, group in (("train_metadata.json", train), ("validation_metadata.json", valid)):
        (public / name).write_text(json.dumps([{"record_id": i, "row_min": 0.0} for i in group]))
    pd.DataFrame(answers).to_csv(private / "answers.csv", index=False)
    placeholders = (["1 3 10 5", "-"] * n_test)[:n_test]
    pd.DataFrame({"record_id": test, "encoded_pixels": placeholders, "height": size, "width": size}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def rle(mask: np.ndarray) -> str:
    """A mask run-length encoded as MLE-bench's rle_encode: pixels numbered down each column, "-" if empty."""
    flat = mask.T.ravel()
    runs, start = [], None
    for k, value in enumerate([*flat, False]):
        if value and start is None:
            start = k
        elif not value and start is not None:
            runs.append(f"{start + 1} {k - start}")
            start = None
    return " ".join(runs) or "-"


def vesuvius(root: Path) -> Path:
    """vesuvius-challenge-ink-detection: `train/1/`, `train/2/` (`inklabels.png`, `inklabels_rle.csv`, `ir.png`,
    `mask.png`, `surface_volume/00.tif` ..), `test/a/` (`mask.png`, `surface_volume/`), `sample_submission.csv`
    `Id` = `a`, `Predicted` = "1 1 5 1": `vesuvius_fragments` at its smallest. The metric: `rle_fbeta` (F0.5)."""
    return vesuvius_fragments(root, layers=6, scale=0.5)


def vesuvius_fragments(root: Path, layers: int = 20, scale: float = 1.0) -> Path:
    """vesuvius-challenge-ink-detection's layout with data: two training fragments (`train/1/`, `train/2/`) and a
    test one (`test/a/`) of about 48 x 64 to 64 x 80 pixels (times `scale`), each with `mask.png` (the fragment's
    pixels: an ellipse), `surface_volume/00.tif` .. (`layers` 16-bit slices; ink strokes brighter in the middle
    third of them); the training ones also `inklabels.png` (0/255), `inklabels_rle.csv` (`Id`, `Predicted`: pixels
    numbered along each row) and `ir.png` (the photo the labels were drawn on: ink dark). `sample_submission.csv`
    `Id` = `a`, `Predicted` = "1 1 5 1"; `private/answers.csv` the test fragment's ink. The metric: `rle_fbeta`."""
    public, private = dirs(root, "rle_fbeta", "# Vesuvius\n\nScored by F0.5 on ink pixels.\n", {"beta": 0.5})
    rng = np.random.default_rng(1677)
    for side, fragment, (height, width) in (
        ("train", "1", (48, 64)),
        ("train", "2", (64, 80)),
        ("test", "a", (40, 56)),
    ):
        height, width = max(8, int(height * scale)), max(8, int(width * scale))
        rows, cols = np.mgrid[0:height, 0:width]
        inside = ((rows - height / 2) / (height / 2)) ** 2 + ((cols - width / 2) / (width / 2)) ** 2 < 1
        ink = np.zeros((height, width), dtype=bool)
        for _ in range(max(2, height * width // 300)):  # strokes: short bars two or three pixels wide
            top, left = rng.integers(0, height - 3), rng.integers(0, width - 8)
            if rng.random() < 0.5:
                ink[top : top + rng.integers(2, 4), left : left + rng.integers(4, 9)] = True
            else:
                ink[max(0, top - 4) : top + 3, left : left + rng.integers(2, 4)] = True
        ink &= inside
        out = public / side / fragment
        (out / "surface_volume").mkdir(parents=True)
        Image.fromarray((inside * 255).astype(np.uint8)).save(out / "mask.png")
        for layer in range(layers):
            values = 20_000 + 1_500 * rng.standard_normal((height, width))
            if layers // 3 <= layer < 2 * layers // 3:
                values += 4_000 * ink
            values = np.where(inside, values, 0).clip(0, 65_535).astype(np.uint16)
            Image.fromarray(values).save(out / "surface_volume" / f"{layer:02d}.tif")
        encoded = rle(ink.T)  # along each row: the transposed mask down each column
        if side == "train":
            Image.fromarray((ink * 255).astype(np.uint8)).save(out / "inklabels.png")
            pd.DataFrame({"Id": [fragment], "Predicted": [encoded]}).to_csv(
                out / "inklabels_rle.csv", index=False
            )
            photo = 200 - 120 * ink + 10 * rng.standard_normal((height, width))
            Image.fromarray(photo.clip(0, 255).astype(np.uint8)).save(out / "ir.png")
        else:
            pd.DataFrame({"Id": [fragment], "Predicted": [encoded]}).to_csv(
                private / "answers.csv", index=False
            )
    pd.DataFrame({"Id": ["a"], "Predicted": ["1 1 5 1"]}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def smartphone(root: Path, n_drives: int = 6, n_test: int = 2) -> Path:
    """smartphone-decimeter-2022: `train/<drive>/<phone>/` (`device_gnss.csv`, `device_imu.csv`,
    `ground_truth.csv`), `test/<drive>/<phone>/` without `ground_truth.csv`, `metadata/`, `sample_submission.csv`
    `tripId` = `<drive>-<phone>`, `UnixTimeMillis`, `LatitudeDegrees`, `LongitudeDegrees` (many rows a trip):
    `smartphone_tracks` at 5 seconds a trip. The metric: `trip_distance_error` grouped by `tripId`."""
    return smartphone_tracks(root, n_drives, n_test, seconds=5)


def ecef(latitude: np.ndarray, longitude: np.ndarray, height: float = 10.0) -> tuple:
    """WGS84 earth-centred coordinates (metres) of points given in degrees."""
    a, e2 = 6378137.0, 6.69437999014e-3
    phi, lam = np.radians(latitude), np.radians(longitude)
    n = a / np.sqrt(1 - e2 * np.sin(phi) ** 2)
    return (
        (n + height) * np.cos(phi) * np.cos(lam),
        (n + height) * np.cos(phi) * np.sin(lam),
        (n * (1 - e2) + height) * np.sin(phi),
    )


def smartphone_tracks(root: Path, n_drives: int = 10, n_test: int = 2, seconds: int = 40) -> Path:
    """smartphone-decimeter-2022's layout, with tracks: each drive a straight run from its own start within about
    300 m of (37.4, -122.1), so that drives cross the same streets, for `seconds` seconds, each phone's `ground_truth.csv` (`MessageType`, `Provider`,
    `LatitudeDegrees`, `LongitudeDegrees`, `AltitudeMeters`, `UnixTimeMillis`) a row a second, its
    `device_gnss.csv` four rows a second (a satellite each: `utcTimeMillis`, `Svid`, `Cn0DbHz`, and the epoch's
    `WlsPositionXEcefMeters`, `...Y...`, `...Z...`, the true position a few metres off) and `device_imu.csv` ten
    rows a second; `private/test.csv` the test phones' rows. The metric: `trip_distance_error` by `tripId`."""
    public, private = dirs(
        root,
        "trip_distance_error",
        "# Smartphone Decimeter\n\nScored by distance errors.\n",
        {"group_column": "tripId"},
    )
    rng = np.random.default_rng(167)
    answers = []
    for k in range(n_drives):
        drive = f"2021-{k % 12 + 1:02d}-{10 + k}-US-SJC-{k}"
        side = "test" if k >= n_drives - n_test else "train"
        start = 1_600_000_000_000 + k * 10_000_000
        lat0, lon0 = 37.4 + rng.uniform(-0.003, 0.003), -122.1 + rng.uniform(-0.003, 0.003)
        heading = rng.uniform(0, 2 * np.pi)
        for phone in ("GooglePixel4", "SamsungS20Ultra"):
            folder = public / side / drive / phone
            folder.mkdir(parents=True)
            times = start + 1000 * np.arange(seconds)
            lat = lat0 + 1e-4 * np.arange(seconds) * np.cos(heading)
            lon = lon0 + 1e-4 * np.arange(seconds) * np.sin(heading)
            truth = pd.DataFrame(
                {"MessageType": "Fix", "Provider": "GT", "LatitudeDegrees": lat, "LongitudeDegrees": lon,
                 "AltitudeMeters": 10.0, "UnixTimeMillis": times}
            )  # fmt: skip
            x, y, z = ecef(lat, lon)
            gnss = pd.DataFrame(
                {
                    "utcTimeMillis": np.repeat(times, 4),
                    "Svid": np.tile([3, 7, 12, 21], seconds),
                    "Cn0DbHz": rng.uniform(20, 45, 4 * seconds),
                    **{
                        f"WlsPosition{axis}EcefMeters": np.repeat(v + 3 * rng.standard_normal(seconds), 4)
                        for axis, v in (("X", x), ("Y", y), ("Z", z))
                    },
                }
            )
            gnss.to_csv(folder / "device_gnss.csv", index=False)
            imu_times = start + 100 * np.arange(10 * seconds)
            pd.DataFrame(
                {
                    "utcTimeMillis": imu_times,
                    "MessageType": "UncalAccel",
                    "MeasurementX": rng.standard_normal(10 * seconds),
                }
            ).to_csv(folder / "device_imu.csv", index=False)
            if side == "train":
                truth.to_csv(folder / "ground_truth.csv", index=False)
            else:
                answers.append(truth.assign(tripId=f"{drive}-{phone}"))
    write_files(public / "metadata", ["accumulated_delta_range_error.csv"])
    columns = ["tripId", "UnixTimeMillis", "LatitudeDegrees", "LongitudeDegrees"]
    test = pd.concat(answers, ignore_index=True)[columns]
    test.to_csv(private / "test.csv", index=False)
    test.assign(LatitudeDegrees=37.904611315634504, LongitudeDegrees=-86.48107806249548).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def lyft_3d(root: Path, n_scenes: int = 5, n_test: int = 1, samples: int = 4) -> Path:
    """3d-object-detection-for-autonomous-vehicles: `train.csv` (`Id` a sample token of 64 hex digits,
    `PredictionString` of 8 tokens an object: `x y z width length height yaw class`), `train_data/` and `test_data/`
    of nuScenes-style JSON tables (`log.json`, `scene.json`, `sample.json` keyed by `token`, `sample_data.json`
    naming each sample's lidar file by `sample_token`; `sample_annotation.json` in train only), the lidar files in
    `train_lidar/` and `test_lidar/`, `sample_submission.csv` `Id`, `PredictionString` (empty); the answers with a
    confidence of 1.0 before each object. The metric: `lyft_3d_map`."""
    public, private = dirs(
        root, "lyft_3d_map", "# Lyft 3D\n\nScored by the mean average precision over 3D IoU.\n"
    )
    rng = np.random.default_rng(173)
    rows: dict[str, list] = {"train": [], "test": []}
    for k in range(n_scenes):
        side = "test" if k >= n_scenes - n_test else "train"
        tables = rows[side]
        log, scene = f"{k:064x}"[::-1], f"{k + 100:064x}"[::-1]
        tables.append(("log", {"token": log}))
        tables.append(("scene", {"token": scene, "log_token": log, "nbr_samples": samples}))
        for s in range(samples):
            token = f"{k * 1000 + s + 7:064x}"
            objects = " ".join(
                " ".join(
                    f"{v:.3f}" for v in (*rng.uniform(0, 50, 3), *rng.uniform(1, 4, 3), rng.uniform(-3, 3))
                )
                + f" {name}"
                for name in rng.choice(["car", "pedestrian"], 2)
            )
            tables.append(("sample", {"token": token, "scene_token": scene, "timestamp": s}))
            lidar = f"lidar/host-{k}_lidar_{s}.bin"
            tables.append(
                ("sample_data", {"token": f"d{token[1:]}", "sample_token": token, "filename": lidar})
            )
            write_files(public / f"{side}_lidar", [Path(lidar).name])
            tables.append(("boxes", {"Id": token, "PredictionString": objects}))
            if side == "train":
                tables.append(("sample_annotation", {"token": f"a{token[1:]}", "sample_token": token}))
    for side, tables in rows.items():
        for name in ("log", "scene", "sample", "sample_data", "sample_annotation"):
            records = [record for table, record in tables if table == name]
            if records:
                (public / f"{side}_data").mkdir(exist_ok=True)
                (public / f"{side}_data" / f"{name}.json").write_text(json.dumps(records))
    train = pd.DataFrame([record for table, record in rows["train"] if table == "boxes"])
    test = pd.DataFrame([record for table, record in rows["test"] if table == "boxes"])
    train.to_csv(public / "train.csv", index=False)
    with_confidence = test["PredictionString"].map(
        lambda cell: " ".join(
            f"1.0 {' '.join(cell.split()[i : i + 8])}" for i in range(0, len(cell.split()), 8)
        )
    )
    test.assign(PredictionString=with_confidence).to_csv(private / "test.csv", index=False)
    test.assign(PredictionString="").to_csv(public / "sample_submission.csv", index=False)
    return root


def h_and_m(root: Path) -> Path:
    """h-and-m-personalized-fashion-recommendations: `transactions_train.csv` (`t_dat`, `customer_id` 64 hex
    digits, `article_id` 10 digits, `price`, `sales_channel_id`), `customers.csv`, `articles.csv`,
    `images/<3 digits>/<article_id>.jpg`, `sample_submission.csv` `customer_id`, `prediction` (12 article ids)
    for every customer: `h_and_m_purchases` at its smallest. The metric: `map_at_k` (k=12)."""
    return h_and_m_purchases(root, n_customers=20, n_articles=20, days=15)


def h_and_m_purchases(root: Path, n_customers: int = 150, n_articles: int = 40, days: int = 35) -> Path:
    """h-and-m's layout with purchases to learn from: `days` days of `transactions_train.csv` ending 2020-09-15,
    each customer buying on about one day in four, mostly (70%) one of their own two or three favourite
    articles, else one of the week's eight best sellers (which change each week); `private/answers.csv` each
    customer's purchases of the 7 days after (`customer_id`, `prediction`; `keep` false for those who bought
    nothing, whom grade.py does not score). The description says the span ("the 7-day period immediately after the training data ends");
    the sample gives every customer the same 12 articles, which none of them favours. The metric: `map_at_k`
    (k=12)."""
    description = (
        "# H&M\n\nPredict the articles each customer will purchase in the 7-day period immediately after the "
        "training data ends. Scored by MAP@12.\n"
    )
    public, private = dirs(root, "map_at_k", description, {"k": 12})
    rng = np.random.default_rng(161)
    customers = hexes(rng, n_customers, 64)
    articles = [f"0{v}" for v in rng.choice(10**8, n_articles, replace=False) + 10**8]
    rare, common = articles[:12], articles[12:]  # the sample's 12: bought by no one
    favourites = {c: list(rng.choice(common, int(rng.integers(2, 4)), replace=False)) for c in customers}
    first = pd.Timestamp("2020-09-15") - pd.Timedelta(days=days - 1)
    rows, answers = [], {}
    for day in range(days + 7):
        date = first + pd.Timedelta(days=day)
        week = np.random.default_rng(day // 7).choice(common, 8, replace=False)
        for customer in customers:
            if rng.random() >= 0.25:
                continue
            for _ in range(int(rng.integers(1, 3))):
                article = rng.choice(favourites[customer]) if rng.random() < 0.7 else rng.choice(week)
                if day < days:
                    rows.append([date.strftime("%Y-%m-%d"), customer, article, 0.03, int(rng.integers(1, 3))])
                else:
                    answers.setdefault(customer, []).append(article)
    columns = ["t_dat", "customer_id", "article_id", "price", "sales_channel_id"]
    pd.DataFrame(rows, columns=columns).to_csv(public / "transactions_train.csv", index=False)
    # Every customer, those who bought nothing marked not scored (`keep`), as grade.py scores only the buyers.
    bought = [" ".join(answers.get(c, [])) for c in customers]
    pd.DataFrame(
        {"customer_id": customers, "prediction": bought, "keep": [c in answers for c in customers]}
    ).to_csv(private / "answers.csv", index=False)
    pd.DataFrame({"customer_id": customers, "age": 30}).to_csv(public / "customers.csv", index=False)
    pd.DataFrame({"article_id": articles, "prod_name": "dress"}).to_csv(public / "articles.csv", index=False)
    write_files(public / "images", [f"{a[1:4]}/{a}.jpg" for a in articles])
    pd.DataFrame({"customer_id": customers, "prediction": " ".join(rare)}).to_csv(
        public / "sample_submission.csv", index=False
    )
    return root


def osic(root: Path, n_train: int = 24, n_test: int = 6) -> Path:
    """osic-pulmonary-fibrosis-progression: `train.csv` a row per (patient, visit) (`Patient` = "ID" and 21
    digits, `Weeks`, `FVC`, `Percent`, `Age`, `Sex`, `SmokingStatus`), `test.csv` each test patient's first
    visit in the same columns, `sample_submission.csv` `Patient_Week` for every test patient and every week from
    the test visits' first to their last, `FVC` = 2000, `Confidence` = 100; `train/<Patient>/<n>.dcm`,
    `test/<Patient>/<n>.dcm`; `private/test.csv` the answers (the weeks without a visit have no FVC), as
    `prepare.py` writes them. Here FVC falls 5 ml a week from a baseline that grows with the patient's age. The
    metric: `laplace_log_likelihood`."""
    public, private = dirs(
        root, "laplace_log_likelihood", "# OSIC\n\nScored by the Laplace log likelihood.\n"
    )
    rng = np.random.default_rng(171)
    patients = [f"ID{v:021d}" for v in rng.choice(10**12, n_train + n_test, replace=False)]
    rows = []
    for patient in patients:
        age, first = int(rng.integers(50, 85)), int(rng.integers(-5, 10))
        sex, smoking = rng.choice(["Male", "Female"]), rng.choice(["Ex-smoker", "Never smoked"])
        for week in sorted({first, *rng.integers(first + 1, first + 60, 6).tolist()}):
            fvc = 1500 + 30 * (age - 50) - 5 * (week - first) + int(rng.integers(-40, 40))
            rows.append([patient, week, fvc, round(fvc / 40, 3), age, sex, smoking])
    columns = ["Patient", "Weeks", "FVC", "Percent", "Age", "Sex", "SmokingStatus"]
    table = pd.DataFrame(rows, columns=columns)
    train, test = (
        table[table["Patient"].isin(patients[:n_train])],
        table[table["Patient"].isin(patients[n_train:])],
    )
    train.to_csv(public / "train.csv", index=False)
    test.sort_values("Weeks").groupby("Patient").first().reset_index().to_csv(
        public / "test.csv", index=False
    )
    weeks = range(int(test["Weeks"].min()), int(test["Weeks"].max()) + 1)
    grid = pd.DataFrame(
        [(p, w) for p in test["Patient"].unique() for w in weeks], columns=["Patient", "Weeks"]
    )
    answers = grid.merge(test, on=["Patient", "Weeks"], how="left")
    answers["Patient_Week"] = answers["Patient"] + "_" + answers["Weeks"].astype(str)
    answers["Confidence"] = 100
    answers.to_csv(private / "test.csv", index=False)
    answers[["Patient_Week"]].assign(FVC=2000, Confidence=100).to_csv(
        public / "sample_submission.csv", index=False
    )
    for folder, group in (("train", patients[:n_train]), ("test", patients[n_train:])):
        write_files(public / folder, [f"{p}/{k}.dcm" for p in group for k in range(1, 3)])
    return root
