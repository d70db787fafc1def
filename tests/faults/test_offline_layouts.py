"""The main job with no API key on layouts beyond train.csv (issue 29, points 6 and 7 in part).

- Labels in `train_labels.csv` beside `train/` and `test/` image folders, no test.csv (histopathologic-cancer-
  detection's layout), in the training files' names (`train/bright.3.png`, dogs-vs-cats-redux's) or in their
  folders (`train/<class>/<file>.png`, plant-seedlings'): the offline coder reads them, the harness holds out
  examples, and the run delivers a graded submission. So do JSON records (`train.json` and `test.json`, as
  random-acts-of-pizza), the file-names layout with its folders only in `train.zip` and `test.zip`, and tokens
  whose submission ids join two test columns (`<sentence_id>_<token_id>`, text-normalization's zipped tables),
  a target the submission names otherwise (chaii's `PredictionString` for train.csv's `answer_text`), and free
  text (over 200 distinct `after` answers, looked up from `before` rather than classified), target images (a row
  per pixel, denoising-dirty-documents), a row per (study, class) over a wide table (rsna-2022's cervical
  spine), label sets in text lines with the test examples marked `?` (mlsp-2013-birds), a table over
  evaluation.max_train_mb (streamed; new-york-city-taxi), COCO-style JSON labels (herbarium) and test rows
  grouped under one submission id (an image per row, a submission row per breast: rsna-breast-cancer-detection),
  label sets in one column of two tables (freesound-audio-tagging-2019; rows held out of train_curated.csv), a
  target of shares scored as classes (jigsaw-unintended-bias's share of raters, its bias AUC), contacts whose
  inputs are train_/test_ table pairs of game plays, listed by the sample alone (nfl-player-contact-detection),
  and versions of one image in folders, the originals one of them (alaska2-image-steganalysis).
- Labels in text lines in a subfolder that mark no test example (a layout the offline coder cannot read): the run
  stops before its first step, with exit 2 and one sentence naming the competition's files and what is missing,
  instead of failing every step alike and ending "no good node".

Each layout's run is the core the competition flow calls, on the plain runner (`plain_competition_run`); two
layouts go through the flow itself (`FLOW_LAYOUTS`).
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from flows.competition import CompetitionParams, competition_flow
from flows.run_competition import main
from swarm.offline_coder import render_data
from tests.competitions.insults_builder import insults
from tests.evaluation.composite_builders import free_text_normalization_layout, text_normalization_layout
from tests.evaluation.records_builders import pizza_competition
from tests.evaluation.spine_builders import spine_competition
from tests.evaluation.test_renamed_targets import question_answering
from tests.pipeline.plain_runs import plain_competition_run

KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")


def labels_table_competition(root: Path, n_train: int = 80, n_test: int = 24) -> Path:
    """Bright and dark 16x16 PNGs named `<hex id>.png` in train/ and test/; labels in train_labels.csv with ids
    that are the files' stems; the sample submission lists the test ids; answers in private/."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    for folder in (public / "train", public / "test", private):
        folder.mkdir(parents=True)
    rng = np.random.default_rng(11)
    ids = [f"{value:012x}" for value in rng.choice(16**10, size=n_train + n_test, replace=False)]
    labels = rng.integers(0, 2, size=n_train + n_test)
    for k, (name, label) in enumerate(zip(ids, labels, strict=True)):
        base = 170 if label else 70
        pixels = np.clip(rng.normal(base, 30, size=(16, 16)), 0, 255).astype(np.uint8)
        Image.fromarray(pixels, mode="L").save(public / ("train" if k < n_train else "test") / f"{name}.png")
    pd.DataFrame({"id": ids[:n_train], "label": labels[:n_train]}).to_csv(
        public / "train_labels.csv", index=False
    )
    pd.DataFrame({"id": ids[n_train:], "label": 0}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"id": ids[n_train:], "label": labels[n_train:]}).to_csv(
        private / "answers.csv", index=False
    )
    (public / "description.md").write_text("# Bright or dark\n\nPredict `label` for each image in test/.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "accuracy"}}))
    return root


def _image(path: Path, bright: bool, rng: np.random.Generator) -> None:
    pixels = np.clip(rng.normal(170 if bright else 70, 30, size=(16, 16)), 0, 255).astype(np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels, mode="L").save(path)


def file_names_competition(root: Path, n_train: int = 80, n_test: int = 24) -> Path:
    """dogs-vs-cats-redux's layout: `train/<dark|bright>.<n>.png`, `test/<n>.png`, a probability of `bright`
    per id (1 = bright), scored by log loss."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    private.mkdir(parents=True)
    rng = np.random.default_rng(12)
    for n in range(n_train):
        bright = bool(rng.integers(0, 2))
        _image(public / "train" / f"{'bright' if bright else 'dark'}.{n}.png", bright, rng)
    answers = rng.integers(0, 2, size=n_test)
    for n, bright in enumerate(answers, start=1):
        _image(public / "test" / f"{n}.png", bool(bright), rng)
    ids = list(range(1, n_test + 1))
    pd.DataFrame({"id": ids, "label": 0.5}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"id": ids, "label": answers}).to_csv(private / "answers.csv", index=False)
    (public / "description.md").write_text(
        "# Bright or dark\n\n## Evaluation\n\nPredict the probability that each test image is bright "
        "(1 = bright, 0 = dark); scored by log loss.\n"
    )
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "logloss"}}))
    return root


def class_folders_competition(root: Path, n_train: int = 81, n_test: int = 24) -> Path:
    """plant-seedlings' layout: `train/<class>/<hash>.png`, `test/<hash>.png`, a class name per file."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    private.mkdir(parents=True)
    rng = np.random.default_rng(13)
    classes = ["Dark Leaf", "Bright Leaf"]
    for n in range(n_train):
        bright = n % 2
        _image(public / "train" / classes[bright] / f"{n:08x}.png", bool(bright), rng)
    files = [f"{n + 4096:08x}.png" for n in range(n_test)]
    answers = rng.integers(0, 2, size=n_test)
    for name, bright in zip(files, answers, strict=True):
        _image(public / "test" / name, bool(bright), rng)
    pd.DataFrame({"file": files, "species": classes[0]}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"file": files, "species": [classes[a] for a in answers]}).to_csv(
        private / "answers.csv", index=False
    )
    (public / "description.md").write_text(
        "# Leaves\n\nName the class of each test image; scored by accuracy.\n"
    )
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "accuracy"}}))
    return root


def archived_competition(root: Path) -> Path:
    """dogs-vs-cats-redux as MLE-bench ships it: the file-names layout with train/ and test/ only in train.zip
    and test.zip."""
    file_names_competition(root)
    public = root / "prepared" / "public"
    for folder in ("train", "test"):
        with zipfile.ZipFile(public / f"{folder}.zip", "w") as archive:
            for path in sorted((public / folder).iterdir()):
                archive.write(path, f"{folder}/{path.name}")
        shutil.rmtree(public / folder)
    return root


def insults_competition(root: Path) -> Path:
    """detecting-insults' layout: the sample copies test.csv's Date and Comment beside the target Insult."""
    return insults(root, n_train=120, n_test=40)


def renamed_target_competition(root: Path) -> Path:
    """chaii's layout: the sample's `PredictionString` is train.csv's `answer_text`, which test.csv lacks."""
    return question_answering(root, n_train=120, n_test=30)


def denoising_competition(root: Path, n_train: int = 16, n_test: int = 4) -> Path:
    """denoising-dirty-documents' layout: `train/<n>.png` (stained, noisy pages), `train_cleaned/<n>.png` (the
    labels: the same pages clean, dark strokes on white), `test/<n>.png`, `sampleSubmission.csv` a row per pixel
    `<n>_<row>_<col>` (1-based), `value` 1; the answers each test pixel's clean grey / 255, scored by RMSE."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    for folder in ("train", "train_cleaned", "test"):
        (public / folder).mkdir(parents=True)
    private.mkdir(parents=True)
    rng = np.random.default_rng(29)
    numbers = [int(n) for n in rng.choice(np.arange(2, 300), n_train + n_test, replace=False)]
    answers = []
    for k, n in enumerate(numbers):
        clean = np.full((24, 32), 255.0)
        for _ in range(6):  # dark strokes: short bars of "text"
            r, c = int(rng.integers(1, 22)), int(rng.integers(0, 26))
            clean[r : r + 2, c : c + int(rng.integers(3, 7))] = rng.uniform(10, 60)
        stain = np.linspace(rng.uniform(0.55, 0.8), rng.uniform(0.85, 1.0), 32)[None, :]
        dirty = np.clip(clean * stain + rng.normal(0, 8, size=clean.shape), 0, 255).astype(np.uint8)
        test = k >= n_train
        Image.fromarray(dirty, mode="L").save(public / ("test" if test else "train") / f"{n}.png")
        if test:
            rows, cols = np.indices(clean.shape)
            ids = [f"{n}_{r + 1}_{c + 1}" for r, c in zip(rows.ravel(), cols.ravel(), strict=True)]
            answers.append(pd.DataFrame({"id": ids, "value": clean.astype(np.uint8).ravel() / 255.0}))
        else:
            Image.fromarray(clean.astype(np.uint8), mode="L").save(public / "train_cleaned" / f"{n}.png")
    truth = pd.concat(answers, ignore_index=True)
    truth.to_csv(private / "answers.csv", index=False)
    truth.assign(value=1).to_csv(public / "sampleSubmission.csv", index=False)
    (public / "description.md").write_text(
        "# Denoising dirty documents\n\n## Evaluation\n\nSubmissions are evaluated on the root mean squared "
        "error between the cleaned pixel intensities and the actual grayscale pixel intensities.\n"
    )
    return root


def birds_competition(root: Path, n_recordings: int = 80) -> Path:
    """mlsp-2013-birds' layout (tests/evaluation/census_builders.py's mlsp_birds): label sets in
    `essential_data/rec_labels_test_hidden.txt` (`?` for test recordings), `CVfolds_2.txt` (fold 1 = test), a
    histogram of segment features per recording in `supplemental_data/histogram_of_segments.txt` (each species
    raises its own bins), and a sample row per (recording, species) `Id` = rec_id * 100 + species; the answers
    0/1 per row, scored by ROC AUC over all rows."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    essential, supplemental = public / "essential_data", public / "supplemental_data"
    for folder in (essential, supplemental, private):
        folder.mkdir(parents=True)
    rng = np.random.default_rng(2013)
    n_species, n_bins = 6, 12
    signature = rng.random((n_species, n_bins)) * (rng.random((n_species, n_bins)) < 0.3)
    folds = (rng.random(n_recordings) < 0.25).astype(int)
    pd.DataFrame({"rec_id": range(n_recordings), "fold": folds}).to_csv(
        essential / "CVfolds_2.txt", index=False
    )
    lines, histogram, answers = ["rec_id,[labels]"], ["rec_id,[histogram of segment features]"], []
    for rec_id in range(n_recordings):
        species = sorted(int(s) for s in rng.choice(n_species, int(rng.integers(0, 3)), replace=False))
        bins = signature[species].sum(axis=0) + rng.random(n_bins) * 0.1
        histogram.append(f"{rec_id}," + ",".join(f"{v:.6f}" for v in bins))
        if folds[rec_id]:
            lines.append(f"{rec_id},?")
            answers += [(rec_id * 100 + s, int(s in species)) for s in range(n_species)]
        else:
            lines.append(f"{rec_id}," + ",".join(map(str, species)) if species else str(rec_id))
    (essential / "rec_labels_test_hidden.txt").write_text("\n".join(lines) + "\n")
    (supplemental / "histogram_of_segments.txt").write_text("\n".join(histogram) + "\n")
    truth = pd.DataFrame(answers, columns=["Id", "Probability"])
    truth.to_csv(private / "answers.csv", index=False)
    truth.assign(Probability=0).to_csv(public / "sample_submission.csv", index=False)
    (public / "description.md").write_text(
        "# MLSP 2013 bird classification\n\n## Evaluation\n\nSubmissions are judged on area under the ROC "
        "curve over all (recording, species) rows.\n"
    )
    return root


def large_table_competition(root: Path) -> Path:
    """new-york-city-taxi-fare-prediction's layout (tests/evaluation/census_builders.py's nyc_taxi): `labels.csv`
    of labelled rows beside `test.csv`, here 3,000 rows whose fare is the trip's length; the run's
    evaluation.max_train_mb and the offline coder's large-table size are set low in the test, so the harness
    streams the table and the solution reads a seeded draw of its rows, as on Kaggle's 55 million."""
    from tests.evaluation.census_builders import nyc_taxi

    nyc_taxi(root, n_train=3000, n_test=200)
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    private.mkdir(exist_ok=True)
    for name in ("labels.csv", "test.csv"):
        table = pd.read_csv(public / name)
        distance = (table["dropoff_longitude"] - table["pickup_longitude"]).abs() * 300
        table["fare_amount"] = (2.5 + distance).round(2)
        if name == "test.csv":
            table[["key", "fare_amount"]].to_csv(private / "answers.csv", index=False)
            table = table.drop(columns="fare_amount")
        table.to_csv(public / name, index=False)
    return root


def coco_competition(root: Path, n_train: int = 80, n_test: int = 24) -> Path:
    """herbarium-2020's layout (tests/evaluation/census_builders.py's herbarium_2020): COCO-style
    `nybg2020/train/metadata.json` with images filed by category, `nybg2020/test/metadata.json`, the sample's `Id`
    the test images' ids; here two categories, bright and dark images, scored by macro F1."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    private.mkdir(parents=True)
    rng = np.random.default_rng(2020)
    train, test = public / "nybg2020" / "train", public / "nybg2020" / "test"
    images, annotations = [], []
    for k, image_id in enumerate(int(v) for v in rng.choice(10**6, n_train, replace=False)):
        category = (15601, 23001)[k % 2]
        name = f"images/{category // 100:03d}/{category % 100:02d}/{image_id}.jpg"
        _image(train / name, category == 23001, rng)
        images.append({"file_name": name, "id": image_id})
        annotations.append({"category_id": category, "id": image_id, "image_id": image_id})
    metadata = {"annotations": annotations, "categories": [{"id": 15601}, {"id": 23001}], "images": images}
    (train / "metadata.json").write_text(json.dumps(metadata))
    answers = [(15601, 23001)[int(b)] for b in rng.integers(0, 2, n_test)]
    tests = [{"file_name": f"images/000/{k}.jpg", "id": k} for k in range(n_test)]
    for image, category in zip(tests, answers, strict=True):
        _image(test / image["file_name"], category == 23001, rng)
    (test / "metadata.json").write_text(json.dumps({"images": tests}))
    pd.DataFrame({"Id": range(n_test), "Predicted": 0}).to_csv(public / "sample_submission.csv", index=False)
    pd.DataFrame({"Id": range(n_test), "Predicted": answers}).to_csv(private / "answers.csv", index=False)
    (public / "description.md").write_text(
        "# Herbarium\n\nName each test image's category; scored by macro F1.\n"
    )
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "f1_macro"}}))
    return root


def long_classes_competition(root: Path) -> Path:
    """rsna-2022-cervical-spine-fracture-detection's layout (tests/evaluation/spine_builders.py): a study per row
    of train.csv with a column per class, a row per (study, class) in test.csv and the sample."""
    return spine_competition(root, n_train=60, n_test=16)


def grouped_rows_competition(root: Path) -> Path:
    """rsna-breast-cancer-detection's layout (tests/evaluation/census_builders.py's rsna_breast): an image per row
    of train.csv and test.csv, a submission row per breast (`prediction_id` = `<patient_id>_<laterality>`)."""
    from tests.evaluation.census_builders import rsna_breast

    return rsna_breast(root, n_train=120, n_test=30)


def label_sets_competition(root: Path) -> Path:
    """freesound-audio-tagging-2019's layout (tests/evaluation/census_builders.py's freesound): label sets in
    `train_curated.csv` and `train_noisy.csv`, the clips in zips, a 0/1 column per class in the submission; clips
    are held out of the table not named as weaker labels."""
    from tests.evaluation.census_builders import freesound

    return freesound(root, n_curated=120, n_noisy=60, n_test=30)


def shares_competition(root: Path) -> Path:
    """jigsaw-unintended-bias's layout (tests/evaluation/census_builders.py's jigsaw_bias): `target` is the share
    of raters who found a comment toxic, the submission's `prediction`, scored by the bias AUC (made 0/1 at 0.5)
    with each comment's identity columns; here a comment holding "dark" is toxic to most raters."""
    from swarm.competitions.metrics.numeric import JIGSAW_IDENTITIES
    from tests.evaluation.census_builders import jigsaw_bias

    jigsaw_bias(root, n_train=900, n_test=300)
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    rng = np.random.default_rng(5)

    def shares(comments: pd.Series) -> np.ndarray:
        toxic = comments.str.contains("dark").to_numpy()
        return np.where(
            toxic, rng.uniform(0.5, 1.0, len(comments)), rng.uniform(0.0, 0.45, len(comments))
        ).round(3)

    train = pd.read_csv(public / "train.csv", dtype=str, keep_default_na=False)
    train["target"] = shares(train["comment_text"])
    train.to_csv(public / "train.csv", index=False)
    test = pd.read_csv(public / "test.csv", dtype=str, keep_default_na=False)
    answers = test[["id"]].assign(prediction=shares(test["comment_text"]))
    for k, column in enumerate(JIGSAW_IDENTITIES):  # each identity named by a third of the comments, offset
        answers[column] = ((np.arange(len(test)) + k) % 3 == 0).astype(int)
    answers.to_csv(private / "test.csv", index=False)
    return root


def twin_tables_competition(root: Path) -> Path:
    """nfl-player-contact-detection's layout (tests/evaluation/census_builders.py's nfl_contact): contacts in
    `train_labels.csv`, the game plays' inputs in `train_`/`test_` table pairs and videos, the test's contacts
    listed by the sample alone; here a player touches the ground (`G`) at odd steps and no other player."""
    from tests.evaluation.census_builders import nfl_contact

    nfl_contact(root, n_plays=24, n_test=6, steps=6)
    public, private = root / "prepared" / "public", root / "prepared" / "private"

    def contact(table: pd.DataFrame) -> pd.Series:
        odd = table["step"].astype(int) % 2 == 1
        return ((table["nfl_player_id_2"] == "G") & odd).astype(int)

    train = pd.read_csv(public / "train_labels.csv", dtype=str, keep_default_na=False)
    train.assign(contact=contact(train)).to_csv(public / "train_labels.csv", index=False)
    answers = pd.read_csv(private / "test.csv", dtype=str, keep_default_na=False)
    answers.assign(contact=contact(answers)).to_csv(private / "test.csv", index=False)
    return root


def variant_folders_competition(root: Path, n_train: int = 60, n_test: int = 30) -> Path:
    """alaska2-image-steganalysis's layout (tests/evaluation/census_builders.py's alaska2) with real images: each
    original in `Cover/` is dark, its versions in `JMiPOD/`, `JUNIWARD/`, `UERD/` bright (the "hidden message"
    shows), each test image the original or one version, half and half."""
    from tests.evaluation.census_builders import ALASKA_ALGORITHMS, alaska2

    alaska2(root, n_train=n_train, n_test=n_test)
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    rng = np.random.default_rng(11)
    for folder in ("Cover", *ALASKA_ALGORITHMS):
        for path in sorted((public / folder).iterdir()):
            _image(path, folder != "Cover", rng)
    answers = pd.read_csv(private / "test.csv", dtype=str)
    for test_id, label in zip(answers["Id"], answers["Label"], strict=True):
        _image(public / "Test" / test_id, label == "1", rng)
    return root


def parquet_batches_competition(root: Path) -> Path:
    """icecube-neutrinos-in-deep-ice's layout (tests/evaluation/census_builders.py's icecube): the labels in
    `train_meta.parquet`, the test events in `test_meta.parquet`, the pulses in `train/batch_<n>.parquet` and
    `test/`, whole batches on each side; here an event's zenith grows with the index of its first pulse in its
    batch and its azimuth is near 1."""
    from tests.evaluation.census_builders import icecube

    icecube(root, n_batches=12, n_test=3, per_batch=15)
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    rng = np.random.default_rng(5)

    def angles(table: pd.DataFrame) -> pd.DataFrame:
        noise = rng.normal(0, 0.05, (2, len(table)))
        return table.assign(azimuth=1.0 + noise[0], zenith=0.3 + 0.03 * table["first_pulse_index"] + noise[1])

    angles(pd.read_parquet(public / "train_meta.parquet")).to_parquet(
        public / "train_meta.parquet", index=False
    )
    test = angles(pd.read_parquet(public / "test_meta.parquet"))
    test[["event_id", "azimuth", "zenith"]].to_csv(private / "test.csv", index=False)
    return root


def box_rows_competition(root: Path) -> Path:
    """vinbigdata-chest-xray-abnormalities-detection's layout (tests/evaluation/census_builders.py's
    vinbigdata): a row per box in train.csv (three readers an image, "No finding" without corners), DICOM files
    named by the image ids, no test table, and a string of boxes per image in the sample."""
    from tests.evaluation.census_builders import vinbigdata

    return vinbigdata(root, n_train=80, n_test=24)


def sentence_lines_competition(root: Path) -> Path:
    """billion-word-imputation's layout (tests/evaluation/census_builders.py's billion_word): training sentences a
    line in `train_v2.txt.zip`, the test table `test_v2.txt.zip` (a word taken out of each sentence) standing for
    the sample, which the description shows."""
    from tests.evaluation.census_builders import billion_word

    return billion_word(root, n_train=400, n_test=40, phrased=True)


def first_visits_competition(root: Path) -> Path:
    """osic-pulmonary-fibrosis-progression's layout (tests/evaluation/census_builders.py's osic): a row per visit
    in train.csv, each test patient's first visit in test.csv, a sample row per test patient and week
    (`Patient_Week`) with `FVC` and `Confidence`, which no table holds."""
    from tests.evaluation.census_builders import osic

    return osic(root, n_train=80, n_test=16)


def mask_folders_competition(root: Path) -> Path:
    """google-research-identify-contrails-reduce-global-warming's layout (tests/evaluation/census_builders.py's
    contrails): a folder per record of band arrays, its mask file beside them in train/ only, and the sample's
    masks run-length encoded beside the image's height and width."""
    from tests.evaluation.census_builders import contrails

    return contrails(root, n_train=25, n_test=12, size=16)


def ink_fragments_competition(root: Path) -> Path:
    """vesuvius-challenge-ink-detection's layout (tests/evaluation/census_builders.py's vesuvius_fragments): two
    training fragments, each a folder of 16-bit slices (more than the offline coder reads) beside its ink labels
    as an image and as run-length encodings numbered along each row, and one test fragment."""
    from tests.evaluation.census_builders import vesuvius_fragments

    return vesuvius_fragments(root, layers=20)


def later_events_competition(root: Path) -> Path:
    """h-and-m-personalized-fashion-recommendations' layout (tests/evaluation/census_builders.py's
    h_and_m_purchases): a log of purchases by day, the sample every customer with 12 article ids, the answers the
    purchases of the week after the log ends."""
    from tests.evaluation.census_builders import h_and_m_purchases

    return h_and_m_purchases(root)


def levels_competition(root: Path) -> Path:
    """siim-covid19-detection's layout (tests/evaluation/census_builders.py's siim_covid): a study table of 0/1
    classes and an image table of box strings naming their study, a folder per study of DICOM files, and the
    sample a row per test study and per test image."""
    from tests.evaluation.census_builders import siim_covid

    return siim_covid(root, n_train=60, n_test=15)


def qa_records_competition(root: Path) -> Path:
    """tensorflow2-question-answering's layout (tests/evaluation/census_builders.py's tensorflow2_qa): a JSON-lines
    training file of questions with annotations, a test file without them, and the sample a row per test question
    and kind of answer (`<id>_long`, `<id>_short`)."""
    from tests.evaluation.census_builders import tensorflow2_qa

    return tensorflow2_qa(root, n_train=90, n_test=30)


def bson_documents_competition(root: Path) -> Path:
    """cdiscount-image-classification-challenge's layout (tests/evaluation/census_builders.py's cdiscount): a BSON
    document per product (its pictures as bytes) in train.bson with its category, in test.bson without."""
    from tests.evaluation.census_builders import cdiscount

    return cdiscount(root, n_train=120, n_test=30)


def keyed_slices_competition(root: Path) -> Path:
    """uw-madison-gi-tract-image-segmentation's layout (tests/evaluation/census_builders.py's uw_madison_images): a
    row per (slice, organ) keyed by `id` and `class`, each slice a PNG in its scan's folder, whose name begins the
    id; the organ's mask run-length encoded in train.csv, the sample's `predicted`, scored by Dice and Hausdorff."""
    from tests.evaluation.census_builders import uw_madison_images

    return uw_madison_images(root)


def folder_rows_competition(root: Path) -> Path:
    """smartphone-decimeter-2022's layout (tests/evaluation/census_builders.py's smartphone_tracks): a folder per
    drive and phone, its `ground_truth.csv` (a row per second) in train/ only beside the GNSS and IMU tables, and
    the sample a row per test trip and second."""
    from tests.evaluation.census_builders import smartphone_tracks

    return smartphone_tracks(root, n_drives=14, n_test=3)


def token_tables_competition(root: Path) -> Path:
    """3d-object-detection-for-autonomous-vehicles' layout (tests/evaluation/census_builders.py's lyft_3d):
    train.csv of sample tokens and their objects, the inputs nuScenes-style JSON tables linked by tokens and lidar
    files, the sample's strings empty."""
    from tests.evaluation.census_builders import lyft_3d

    return lyft_3d(root, n_scenes=8, n_test=1, samples=6)


LAYOUTS = {
    "copied-columns": (insults_competition, "labelled rows of train.csv"),
    "archived-file-names": (
        archived_competition,
        "labelled rows of train/ (labels in file names, bright = 1)",
    ),
    "json-records": (pizza_competition, "labelled rows of train.json"),
    "composite-ids": (
        text_normalization_layout,
        "labelled rows of en_train.csv (ids <sentence_id>_<token_id>)",
    ),
    "free-text": (
        free_text_normalization_layout,
        "labelled rows of en_train.csv (ids <sentence_id>_<token_id>)",
    ),
    "labels-table": (labels_table_competition, "labelled rows of train_labels.csv"),
    "file-names": (file_names_competition, "labelled rows of train/ (labels in file names, bright = 1)"),
    "class-folders": (class_folders_competition, "labelled rows of train/ (labels in folder names)"),
    "renamed-target": (
        renamed_target_competition,
        "labelled rows of train.csv (answer_text as PredictionString)",
    ),
    "target-images": (denoising_competition, "train/ with train_cleaned/ ("),
    "long-classes": (long_classes_competition, "labelled rows of train.csv"),
    "label-lines": (birds_competition, "essential_data/rec_labels_test_hidden.txt ("),
    "coco-labels": (coco_competition, "nybg2020/train/metadata.json (COCO-style annotations"),
    "large-table": (large_table_competition, "labelled rows of labels.csv (20%, split random: labels.csv is"),
    "grouped-rows": (grouped_rows_competition, "train.csv ("),
    "label-sets": (label_sets_competition, "labelled rows of train_curated.csv"),
    "shares": (shares_competition, "labelled rows of train.csv (target as prediction)"),
    "twin-tables": (twin_tables_competition, "labelled rows of train_labels.csv ("),
    "variant-folders": (variant_folders_competition, "Cover, JMiPOD, JUNIWARD, UERD (versions of 60 images"),
    "parquet-batches": (
        parquet_batches_competition,
        "split group:batch_id: train_meta.parquet: streamed, whole",
    ),
    "large-parquet-batches": (parquet_batches_competition, "streamed, whole batch_ids held out"),
    "box-rows": (box_rows_competition, "of train.csv ("),
    "sentence-lines": (
        sentence_lines_competition,
        "of train_v2.txt (80 sentences, a word taken out of each)",
    ),
    "first-visits": (first_visits_competition, "visits of 15 Patients, a row per Patient and Weeks"),
    "levels": (levels_competition, "train_study_level.csv (12 rows) and train_image_level.csv (their "),
    "qa-records": (
        qa_records_competition,
        "simplified-nq-train.jsonl (18 records, a long and a short answer each)",
    ),
    "bson-documents": (bson_documents_competition, "train.bson ("),
    "folder-rows": (folder_rows_competition, "ground_truth.csv of 22 example folders of train/ ("),
    "token-tables": (token_tables_competition, "train.csv (42 samples in 7 groups, their inputs records of"),
    "keyed-slices": (keyed_slices_competition, "train.csv (192 rows of 16 folders, keyed by id and class"),
    "ink-fragments": (
        ink_fragments_competition,
        "train/ (2 example folders, the mask of each in inklabels.png) (20%, split random: whole example folders",
    ),
    "later-events": (
        later_events_competition,
        "the end of transactions_train.csv (2045 rows to 2020-09-15, a row per article_id) (split time:t_dat",
    ),
    "mask-folders": (
        mask_folders_competition,
        "train/ (25 example folders, the mask of each in human_pixel_masks.npy)",
    ),
}
# What any working model reaches: bright vs dark, grateful vs hungry, a token's spoken form from the token, clean
# pages from stained ones (the dirty pixels themselves score about 0.2), the classes' own fracture rates (about 0.6
# on this miniature, whose scans are not images; the sample's 0.5 everywhere scores log 2 = 0.693).
GOOD_ENOUGH = {
    "archived-file-names": lambda score: score < 0.4,
    "file-names": lambda score: score < 0.4,
    "target-images": lambda score: score < 0.1,
    "long-classes": lambda score: score < 0.66,
    "large-table": lambda score: score < 3.0,  # fares 2.5 to about 23: a constant scores about 5.5
    # "dark" tells toxic from not; a constant scores 0.5, and grade.py makes each prediction 0/1 at 0.5 first
    "shares": lambda score: score > 0.7,
    # each clip's size tells its first label; equal scores for every class (a constant) give about 0.2-0.3
    "label-sets": lambda score: score > 0.6,
    # mean angular error (radians): each angle's mean scores about 0.5, the offline coder about 0.07
    "parquet-batches": lambda score: score < 0.25,
    "large-parquet-batches": lambda score: score < 0.25,
    # mAP at IoU 0.4: the sample's "14 1 0 0 1 1" everywhere scores 0.083; "No finding" told by the file's size,
    # each other class at its mean box, about 0.2
    "box-rows": lambda score: score > 0.15,
    # mean edit distance: each test sentence as it is (the sample) misses a word and a space, 4.8 here; word pairs
    # put most words back in these phrased sentences (2.2)
    "sentence-lines": lambda score: score < 3.0,
    # the modified Laplace log likelihood: the sample's FVC 2000 everywhere scores -8.5, the offline coder -5.4
    "first-visits": lambda score: score > -6.5,
    # mAP at IoU 0.5 over six classes: the sample's "negative" and "none" everywhere score 0.23 here; each class at
    # its level's rate and mean box (the level is the one feature), 0.30
    "levels": lambda score: score > 0.26,
    # micro F1 of answered rows: the sample's blanks score 0.33 here (the "what" questions, unanswered); the
    # question's first word tells each answer of this miniature, 1.0
    "qa-records": lambda score: score > 0.5,
    # accuracy: the sample's one category scores a third; the size of a product's pictures tells its category
    "bson-documents": lambda score: score > 0.6,
    # global Dice: the sample's "1 3 10 5" or "-" scores 0.01 here, the true masks shuffled among the test records
    # 0.1; band 15's cold line at frame 4 gives it away (0.71)
    "mask-folders": lambda score: score > 0.5,
    # MAP@12 of the customers who bought in the week after the log: the sample's 12 articles (which no one buys)
    # score 0; each customer's own recent articles, then the last week's best sellers, about 0.5
    "later-events": lambda score: score > 0.3,
    # F0.5 of ink pixels: the sample's "1 1 5 1" scores 0.0; ink is brighter in the middle slices, which a
    # classifier of pixels over them finds
    "ink-fragments": lambda score: score > 0.5,
    # 0.4 Dice + 0.6 (1 - 3-D Hausdorff): the sample's "1 1 5 2" everywhere scores 0.29 here, empty masks 0.0; each
    # organ is a disc brighter than the background by its own amount, which a classifier of pixels finds (1.0)
    "keyed-slices": lambda score: score > 0.6,
    # metres, the mean of each trip's 50th and 95th percentile errors: the sample's point in Tennessee scores 3.1
    # million, the training rows' mean position 404; the GNSS tables' positions at each second give about 110
    "folder-rows": lambda score: score < 250,
    # 3-D mAP: nothing in the tables names an object's place (the miniature's lidar files are a few bytes), so the
    # offline coder writes the sample's empty strings (a target no column names gets the sample's values), a valid
    # submission that scores exactly what the sample scores, 0. No bar here tells it from a constant: it is one.
    # What the layout's run shows is the split, the run and a valid delivery; a coder that predicts boxes scores
    # above 0 and fails this, and should raise it.
    "token-tables": lambda score: score == 0.0,
}


# The layouts whose no-key run goes through the real Prefect flow (the plain table, and files beside a labels
# table); every other layout's through the same core without Prefect (`plain_competition_run`): what the
# competition flow adds (task runs, caching, artifacts) does not depend on the layout.
FLOW_LAYOUTS = ("copied-columns", "labels-table")
RUN_LIMITS = ["agent.max_steps=3", "search.num_drafts=2", "search.parallel=2"]


def layout_request(
    layout: str, tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, list[str]]:
    """`layout`'s miniature built under `tmp_path`, and the overrides of its no-key run (no API key set)."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    build, _ = LAYOUTS[layout]
    competition = build(tmp_path / "bright-or-dark")
    overrides = [o for o in base_overrides if not o.startswith("data.competition=")]
    if layout == "large-table":  # streamed by the harness, a draw of its rows read by the solution
        overrides.append("evaluation.max_train_mb=0.05")
        monkeypatch.setattr(render_data, "LARGE_TABLE_BYTES", 50_000)
        monkeypatch.setattr(render_data, "MAX_TRAIN_ROWS", 1500)
    if layout == "large-parquet-batches":  # streamed by the harness, the first 100 rows read by the solution
        overrides.append("evaluation.max_train_mb=0.001")
        monkeypatch.setattr(render_data, "MAX_TRAIN_ROWS", 100)
    return competition, [*overrides, *RUN_LIMITS]


def check_delivered(layout: str, summary: dict, run_dir: Path) -> None:
    """The run scored its nodes on held-out rows of the layout (as described), had a good node, and delivered a
    valid submission whose grade is good enough for the layout."""
    assert summary["validation_source"] == "harness", summary
    evaluation = json.loads((run_dir / "evaluation.json").read_text())
    assert LAYOUTS[layout][1] in evaluation["holdout"]
    assert summary["good_nodes"] >= 1
    grade = summary["grade"]
    assert grade["valid"], grade
    assert GOOD_ENOUGH.get(layout, lambda score: score > 0.8)(grade["score"]), grade


@pytest.mark.slow
@pytest.mark.parametrize("layout", sorted(set(LAYOUTS) - set(FLOW_LAYOUTS)))
def test_no_key_on_each_layout_delivers_a_graded_submission(
    tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    competition, overrides = layout_request(layout, tmp_path, base_overrides, monkeypatch)
    summary = plain_competition_run(overrides, tmp_path / "run", competition)
    check_delivered(layout, summary, tmp_path / "run")


@pytest.mark.slow
@pytest.mark.parametrize("layout", FLOW_LAYOUTS)
def test_no_key_competition_flow_on_a_layout_delivers_a_graded_submission(
    tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    competition, overrides = layout_request(layout, tmp_path, base_overrides, monkeypatch)
    params = CompetitionParams(data_dir=str(competition), run_dir=str(tmp_path / "run"), overrides=overrides)
    summary = competition_flow(params)
    check_delivered(layout, summary, tmp_path / "run")


def test_no_key_on_a_layout_the_offline_coder_cannot_read_stops_before_the_first_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Labels in text lines in a subfolder, but with no test example marked `?` there (as mlsp-2013-birds marks
    them) and ids that are not `<example> * 100 + <class>`: a layout the offline coder cannot read."""
    competition = tmp_path / "lines-mini"
    public = competition / "prepared" / "public"
    (competition / "prepared" / "private").mkdir(parents=True)
    (public / "essential_data").mkdir(parents=True)
    lines = "".join(f"{i},{i % 2}\n" for i in range(20))
    (public / "essential_data" / "rec_labels_test_hidden.txt").write_text("rec_id,[labels]\n" + lines)
    (public / "sample_submission.csv").write_text("id,label\n" + "".join(f"{i},0\n" for i in range(20, 26)))
    (competition / "prepared" / "private" / "answers.csv").write_text(
        "id,label\n" + "".join(f"{i},{i % 2}\n" for i in range(20, 26))
    )
    (public / "description.md").write_text("# Birds\n\nPredict `label`; scored by accuracy.\n")
    message = refusal_without_key(competition, tmp_path, monkeypatch, capsys)
    assert "offline coder" in message and "no API key" in message
    assert (
        "has no train.csv (or train_labels.csv, labels.csv, train.json records, a train parquet table, training files labelled by their "
        "names or folders, target images, label sets in text lines, COCO-style JSON labels, training sentences a line "
        "where a word was taken out of each test sentence, a mask file in each example folder, a labels table in "
        "each example folder, or a log of events whose later ones the sample asks for)" in message
    )
    for held in ("essential_data", "sample_submission.csv", "description.md"):
        assert held in message
    assert "OPENAI_API_KEY" in message


def test_no_key_on_tables_the_offline_coder_cannot_read_stops_before_the_first_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """train.csv is there, but the sample's target is neither its column, nor its class values, nor one column
    known only for labelled rows under another name (two such numbers, neither named like labels): the offline
    coder cannot tell what to predict, so the run stops with exit 2 and the coder's reason, before any step."""
    competition = tmp_path / "unreadable"
    public = competition / "prepared" / "public"
    public.mkdir(parents=True)
    rows = range(30)
    pd.DataFrame(
        {"id": rows, "text": "t", "insult": [i % 3 for i in rows], "obscene": [i % 5 for i in rows]}
    ).to_csv(public / "train.csv", index=False)
    pd.DataFrame({"id": range(100, 106), "text": "t"}).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"id": range(100, 106), "prediction": 0.5}).to_csv(
        public / "sample_submission.csv", index=False
    )
    (public / "description.md").write_text("# Toxicity\n\nScored by RMSE.\n")
    message = refusal_without_key(competition, tmp_path, monkeypatch, capsys)
    assert "offline coder" in message and "no API key" in message and "cannot read" in message
    assert "submission columns ['prediction'] are neither train.csv columns nor its class labels" in message
    assert "OPENAI_API_KEY" in message


def refusal_without_key(
    competition: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """The one error line of the main job (`flows/run_competition.py`'s `main`, called here as the script calls
    it) run with no API key on `competition`, which must refuse (exit 2, nothing on stdout, no traceback) before
    writing a run dir. Its checks run before Prefect is imported, so no flow or server is involved."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the checkout's: the run has no key
    runs = tmp_path / "runs"
    args = ["--no-live", "--data-dir", str(competition), "--set", f"project.runs_dir={runs}"]
    code = main([*args, "--set", "execution.sandbox=unsafe-local"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err, err[-3000:]
    error = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(error) == 1, err
    assert not runs.exists() or not any(runs.iterdir())  # nothing written: no run dir
    return error[0]


@pytest.mark.slow
@pytest.mark.parametrize("builder", ["leaves"])
def test_no_key_delivers_a_harness_scored_node_on_wide_class_miniatures(
    tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch, builder: str
) -> None:
    """leaf-classification's and dog-breed-identification's wide samples have a column per class (99 species,
    120 breeds), more than their miniatures' training rows show: the offline coder had stopped there; a class
    no training row has is now a column of zeros. (dog-breed's census miniature is left out: its "images" are
    not images, so every solution predicts a constant and is rightly rejected. The census miniatures have no
    hidden answers, so nothing is graded.)"""
    from tests.evaluation import census_builders

    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    competition = getattr(census_builders, builder)(tmp_path / "c")
    overrides = [o for o in base_overrides if not o.startswith("data.competition=")]
    limits = ["agent.max_steps=2", "search.num_drafts=2", "search.parallel=2"]
    summary = plain_competition_run([*overrides, *limits], tmp_path / "run", competition)
    assert summary["validation_source"] == "harness", summary
    assert summary["good_nodes"] >= 1, summary


def test_no_key_on_a_dir_whose_test_table_is_the_sample_stops_naming_the_missing_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """billion-word-imputation's layout (tests/evaluation/census_builders.py's billion_word) with a description
    that does not say a word was taken out of each test sentence: it loads, its test table standing for the sample,
    but nothing says how the training sentences label anything, so the no-key run stops before its first step,
    naming the labelled table the offline coder lacks."""
    from tests.evaluation.census_builders import billion_word

    competition = billion_word(tmp_path / "bw")
    description = competition / "prepared" / "public" / "description.md"
    text = description.read_text()
    description.write_text(text.replace("we have removed exactly one word", "we have changed the sentence"))
    assert text != description.read_text()
    message = refusal_without_key(competition, tmp_path, monkeypatch, capsys)
    assert "offline coder" in message and "has no train.csv" in message and "test_v2.txt" in message
