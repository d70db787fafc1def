"""Miniatures of plain-table competitions whose inputs are numbers, signals or sounds, as the census copies
them (leaf-classification's wide classes, nomad, tabular-playground, the taxi fares over
evaluation.max_train_mb, freesound's label sets), hms's vote counts, and the no-key runs' versions of them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, hexes, write_files

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


def large_table_competition(root: Path) -> Path:
    """new-york-city-taxi-fare-prediction's layout (nyc_taxi): `labels.csv` of labelled rows beside
    `test.csv`, here 3,000 rows whose fare is the trip's length; the run's evaluation.max_train_mb and the
    offline coder's large-table size are set low in the test, so the harness streams the table and the
    solution reads a seeded draw of its rows, as on Kaggle's 55 million."""
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


def label_sets_competition(root: Path) -> Path:
    """freesound-audio-tagging-2019's layout (freesound): label sets in `train_curated.csv` and
    `train_noisy.csv`, the clips in zips, a 0/1 column per class in the submission; clips are held out of the
    table not named as weaker labels."""
    return freesound(root, n_curated=120, n_noisy=60, n_test=30)


HMS_VOTES = ["seizure_vote", "lpd_vote", "gpd_vote", "lrda_vote", "grda_vote", "other_vote"]


def hms(root: Path, n_train: int = 60, n_test: int = 12) -> Path:
    public = root / "prepared" / "public"
    public.mkdir(parents=True)
    rng = np.random.default_rng(4)
    train = pd.DataFrame({"eeg_id": range(1000, 1000 + n_train), "patient_id": rng.integers(0, 9, n_train)})
    votes = rng.integers(0, 4, size=(n_train, len(HMS_VOTES)))
    votes[:, 0] += 1  # no row without a vote
    for k, column in enumerate(HMS_VOTES):
        train[column] = votes[:, k]
    train.to_csv(public / "train.csv", index=False)
    test_ids = range(5000, 5000 + n_test)
    pd.DataFrame({"eeg_id": test_ids, "patient_id": 1}).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"eeg_id": test_ids, **{c: 1 / 6 for c in HMS_VOTES}}).to_csv(
        public / "sample_submission.csv", index=False
    )
    (public / "description.md").write_text("# HMS\n\nScored by the KL divergence of the vote shares.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "kl_divergence"}}))
    return root
