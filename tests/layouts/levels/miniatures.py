"""Miniatures of siim-covid19-detection's examples at two levels (studies and their images), with minimal
DICOM files written byte by byte: the census's (`siim_covid`) and a larger one for the no-key run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, hexes

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


def levels_competition(root: Path) -> Path:
    """siim-covid19-detection's layout (siim_covid): a study table of 0/1 classes and an image table of box
    strings naming their study, a folder per study of DICOM files, and the sample a row per test study and per
    test image."""
    return siim_covid(root, n_train=60, n_test=15)
