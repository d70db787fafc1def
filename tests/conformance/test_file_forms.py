"""Input files in the forms real competitions name and place them: upper-case extensions (`.PNG`, `.JPG`, ids
that are file names upper-cased in the tables too) on every miniature with media files, and files batched into
subfolders (`train/part0/x.png`) on every miniature whose files are found by their names. Each variant must
load, split into the layout its census row names, and pass the offline coder's preflight. (Spaces, accents and
CJK in file names come with the id forms, tests/conformance/test_id_forms.py, wherever ids name files.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.checks import build_miniature, layout_found, split_variant
from tests.conformance.ids import Unrepresentable
from tests.conformance.variants import nest_files, upper_extensions
from tests.evaluation.census_miniatures import MINIATURES
from tests.layouts.test_registry import census_layouts

FOLDERS = "its folders are the layout ({}): a subfolder there is another example, not a batch"
# Miniatures whose folder structure is what their layout reads, and why batching their files is not the form.
NEST_SKIPS = {
    "alaska2-image-steganalysis": FOLDERS.format("a folder per version of each image"),
    "denoising-dirty-documents": FOLDERS.format("train/ beside train_cleaned/, file for file"),
    "google-research-identify-contrails-reduce-global-warming": FOLDERS.format("a folder per record"),
    "tensorflow-speech-recognition-challenge": FOLDERS.format("a folder per class label"),
    "vesuvius-challenge-ink-detection": FOLDERS.format("a folder per fragment"),
}


def check_file_form(tmp_path: Path, competition_id: str, form) -> None:
    root = build_miniature(competition_id, tmp_path)
    try:
        form(root)
    except Unrepresentable as exc:
        pytest.skip(f"{competition_id}: {exc}")
    split = split_variant(root, tmp_path, competition_id=competition_id)
    assert layout_found(split, tmp_path) == census_layouts()[competition_id]


@pytest.mark.parametrize("competition_id", sorted(MINIATURES))
def test_upper_case_extensions_split_as_lower_case_ones(tmp_path: Path, competition_id: str) -> None:
    check_file_form(tmp_path, competition_id, upper_extensions)


@pytest.mark.parametrize("competition_id", sorted(set(MINIATURES) - set(NEST_SKIPS)))
def test_files_batched_into_subfolders_split_as_side_by_side_ones(
    tmp_path: Path, competition_id: str
) -> None:
    check_file_form(tmp_path, competition_id, nest_files)


@pytest.mark.parametrize("competition_id", sorted(NEST_SKIPS))
def test_miniatures_whose_folders_are_their_layout_say_why(competition_id: str) -> None:
    assert competition_id in MINIATURES
    pytest.skip(f"{competition_id}: {NEST_SKIPS[competition_id]}")
