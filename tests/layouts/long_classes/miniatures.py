"""A miniature of rsna-2022-cervical-spine-fracture-detection as MLE-bench prepares it (prepare.py @783b15a): a wide
`train.csv` (`StudyInstanceUID`, `patient_overall`, `C1`..`C7`), a long `test.csv` (`StudyInstanceUID`,
`prediction_type`, `row_id` = `<StudyInstanceUID>_<type>`, melted a class at a time), `sample_submission.csv`
(`row_id`, `fractured` 0.5), a folder of DICOM files per study (`train_images/<study>/<n>.dcm`,
`test_images/<study>/<n>.dcm`), `train_bounding_boxes.csv` for some fractured training studies and
`segmentations/<study>.nii` for some training studies; the answers in private/ as prepare.py writes them
(`StudyInstanceUID`, `prediction_type`, `fractured`, `row_id`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

CLASSES = ("patient_overall", "C1", "C2", "C3", "C4", "C5", "C6", "C7")
VERTEBRAE = CLASSES[1:]
UID = "1.2.826.0.1.3680043."  # the studies' UID prefix; a study is UID + a number
# The Evaluation section of the real description.md (mlebench/competitions/<id>/description.md), shortened.
EVALUATION = (
    "Submissions are evaluated using a weighted multi-label logarithmic loss. Each fracture sub-type is its own "
    "row for every exam, and you are expected to predict a probability for a fracture at each of the seven "
    "cervical vertebrae designated as C1, C2, C3, C4, C5, C6 and C7. There is also an any label, "
    "`patient_overall`, which indicates that a fracture of ANY kind described before exists in the examination. "
    "Fractures in the skull base, thoracic spine, ribs, and clavicles are ignored. The any label is weighted more "
    "highly than specific fracture level sub-types.\n\n"
    "For each exam Id, you must submit a set of predicted probabilities (a separate row for each cervical level "
    "subtype). We then take the log loss for each predicted probability versus its true label.\n\n"
    "The binary weighted log loss function for label j on exam i is specified as:\n\n"
    "$$\nL_{i j}=-w_j *\\left[y_{i j} * \\log \\left(p_{i j}\\right)+\\left(1-y_{i j}\\right) * \\log "
    "\\left(1-p_{i j}\\right)\\right]\n$$\n\nFinally, loss is averaged across all rows."
)


def dicom(study: str, slice_number: int) -> bytes:
    """A tiny stand-in for a DICOM file: the 128-byte preamble, `DICM`, and the study and slice as text."""
    return b"\0" * 128 + b"DICM" + f"{study}/{slice_number}".encode()


def studies(numbers: range, rng: np.random.Generator) -> pd.DataFrame:
    """A wide row per study: C1..C7 fractured at random (one in ten), patient_overall any of them."""
    uids = [f"{UID}{n}" for n in numbers]
    vertebrae = (rng.random((len(uids), len(VERTEBRAE))) < 0.1).astype(int)
    frame = pd.DataFrame(vertebrae, columns=list(VERTEBRAE))
    frame.insert(0, "patient_overall", vertebrae.max(axis=1))
    frame.insert(0, "StudyInstanceUID", uids)
    return frame


def melted(wide: pd.DataFrame) -> pd.DataFrame:
    """prepare.py's answers: `melt` a class at a time, then `row_id` = `<StudyInstanceUID>_<prediction_type>`."""
    long = wide.melt(id_vars="StudyInstanceUID", var_name="prediction_type", value_name="fractured")
    long["row_id"] = long["StudyInstanceUID"] + "_" + long["prediction_type"]
    return long


def spine_competition(
    root: Path, n_train: int = 12, n_test: int = 4, *, metric: str | None = None, test_numbers: int = 2001
) -> Path:
    """The miniature under `root` (see the module docstring); returns `root`. `metric`: named in
    competition.json (None: the run finds it in description.md). `test_numbers`: the first test study's number
    (the training studies are 10001..): 10001 makes the test's studies the training ones' UIDs."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    rng = np.random.default_rng(2022)
    train = studies(range(10001, 10001 + n_train), rng)
    test = studies(range(test_numbers, test_numbers + n_test), rng)
    train.to_csv(public / "train.csv", index=False)
    answers = melted(test)
    answers.to_csv(private / "answers.csv", index=False)
    answers[["StudyInstanceUID", "prediction_type", "row_id"]].to_csv(public / "test.csv", index=False)
    answers[["row_id"]].assign(fractured=0.5).to_csv(public / "sample_submission.csv", index=False)
    # Boxes of the fractured training studies' slices, and segmentations of every third training study.
    fractured = train[train["patient_overall"] == 1]["StudyInstanceUID"]
    boxes = pd.DataFrame(
        {"StudyInstanceUID": fractured, "x": 10.5, "y": 20.25, "width": 5.0, "height": 6.0, "slice_number": 2}
    )
    boxes.to_csv(public / "train_bounding_boxes.csv", index=False)
    (public / "segmentations").mkdir()
    for study in train["StudyInstanceUID"].iloc[::3]:
        (public / "segmentations" / f"{study}.nii").write_bytes(b"nii " + study.encode())
    for folder, frame in (("train_images", train), ("test_images", test)):
        for study in frame["StudyInstanceUID"]:
            (public / folder / study).mkdir(parents=True)
            for slice_number in (1, 2, 3):
                (public / folder / study / f"{slice_number}.dcm").write_bytes(dicom(study, slice_number))
    (public / "description.md").write_text(
        "# RSNA 2022 Cervical Spine Fracture Detection\n\n## Description\n\nFind the fractured vertebrae in CT "
        f"scans.\n\n## Evaluation\n\n{EVALUATION}\n\n## Data\n\nOne folder of DICOM files per study.\n"
    )
    if metric is not None:
        (root / "competition.json").write_text(json.dumps({"metric": {"name": metric}}))
    return root


def long_classes_competition(root: Path) -> Path:
    """rsna-2022-cervical-spine-fracture-detection's layout (spine_competition): a study per row of train.csv
    with a column per class, a row per (study, class) in test.csv and the sample."""
    return spine_competition(root, n_train=60, n_test=16)


# The classes of the list-labels miniature (plant-pathology-2021-fgvc8's, less `healthy` and `complex`), and the
# stripes each draws in an image: horizontal, vertical, the two diagonals.
LEAF_CLASSES = ("scab", "rust", "frog_eye_leaf_spot", "powdery_mildew")
_STRIPES = ((1, 0), (0, 1), (1, 1), (1, -1))


def leaf_image(path: Path, present: list[bool], rng: np.random.Generator) -> None:
    """A 32x32 grey PNG at `path`: stripes of each present class's direction (`_STRIPES`) over grey noise."""
    from PIL import Image

    y, x = np.mgrid[0:32, 0:32]
    pixels = 128 + rng.normal(0, 12, size=(32, 32))
    for (dy, dx), shown in zip(_STRIPES, present, strict=True):
        pixels += 45 * np.sin(2 * np.pi * (dy * y + dx * x) / 6) if shown else 0
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), mode="L").save(path)


def list_labels_competition(
    root: Path, *, separator: str = " ", n_train: int = 90, n_test: int = 30, wide: bool = False
) -> Path:
    """plant-pathology-2021-fgvc8's layout with a long sample: `train.csv` (`image` = `<16 hex>.png`, `labels`
    the classes of `LEAF_CLASSES` each image shows, joined with `separator`, at least one), `train_images/`,
    `test_images/`, no test.csv, `sample_submission.csv` a row per (image, class), `Id` = `<image>_<class>`,
    `Probability` 0.5, scored by ROC AUC over all rows; the answers' 0/1 in private/answers.csv. Each class draws
    stripes of its own direction in the image (`leaf_image`), about half the images each, so a model of the
    pixels tells them apart where a class's own rate scores 0.5. `wide`: the sample has a column per class
    instead (`image` and the classes), scored by the mean column-wise ROC AUC."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    rng = np.random.default_rng(2021)
    images = [f"{''.join(rng.choice(list('0123456789abcdef'), 16))}.png" for _ in range(n_train + n_test)]
    present = rng.random((len(images), len(LEAF_CLASSES))) < 0.5
    present[~present.any(axis=1), 0] = True  # every image has a label
    for k, image in enumerate(images):
        leaf_image(public / ("train_images" if k < n_train else "test_images") / image, list(present[k]), rng)
    labels = [
        separator.join(c for c, shown in zip(LEAF_CLASSES, row, strict=True) if shown) for row in present
    ]
    pd.DataFrame({"image": images[:n_train], "labels": labels[:n_train]}).to_csv(
        public / "train.csv", index=False
    )
    tested = present[n_train:].astype(int)
    if wide:
        answers = pd.DataFrame(tested, columns=list(LEAF_CLASSES)).assign(image=images[n_train:])
        answers = answers[["image", *LEAF_CLASSES]]
        answers.assign(**dict.fromkeys(LEAF_CLASSES, 0.5)).to_csv(
            public / "sample_submission.csv", index=False
        )
    else:
        ids = [f"{image}_{c}" for image in images[n_train:] for c in LEAF_CLASSES]
        answers = pd.DataFrame({"Id": ids, "Probability": tested.ravel()})
        answers.assign(Probability=0.5).to_csv(public / "sample_submission.csv", index=False)
    answers.to_csv(private / "answers.csv", index=False)
    (public / "description.md").write_text(
        "# Plant Pathology 2021\n\n## Description\n\nTell the diseases each apple leaf shows.\n\n## Evaluation\n\n"
        "Submissions are evaluated on area under the ROC curve.\n"
    )
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "auc"}}))
    return root
