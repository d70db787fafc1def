"""The registry of layouts (swarm/layouts/registry.py) against the miniatures of MLE-bench's competitions: every
registered layout has a miniature, the harness finds that layout in it and no earlier one, and where the offline
coder reads the layout itself, the coder finds the same layout in the same dir (one detector, one order)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.evaluation.holdout_record import SplitRequest
from swarm.layouts.holdout import harness_probe
from swarm.layouts.registry import LAYOUTS, READ_BY_CODER, find_layout
from swarm.offline_coder.task import find_data_files
from tests.evaluation.test_census_rows import METRICS, MINIATURES

# Each registered layout's miniature: a competition of MLE-bench that has the layout (tests/evaluation/).
MINIATURE_OF = {
    "keyed": "uw-madison-gi-tract-image-segmentation",
    "composite": "text-normalization-challenge-english-language",
    "visits": "osic-pulmonary-fibrosis-progression",
    "positions": "stanford-covid-vaccine",
    "long_classes": "rsna-2022-cervical-spine-fracture-detection",
    "grouped": "rsna-breast-cancer-detection",
    "boxes": "vinbigdata-chest-xray-abnormalities-detection",
    "sentences": "billion-word-imputation",
    "twins": "nfl-player-contact-detection",
    "folder_rows": "smartphone-decimeter-2022",
    "levels": "siim-covid19-detection",
    "bson": "cdiscount-image-classification-challenge",
    "qa": "tensorflow2-question-answering",
    "masks": "google-research-identify-contrails-reduce-global-warming",
    "later_events": "h-and-m-personalized-fashion-recommendations",
    "pixels": "denoising-dirty-documents",
    "coco": "herbarium-2020-fgvc7",
    "label_lines": "mlsp-2013-birds",
}
# Miniatures of the plain labelled table, which no registered layout claims.
PLAIN_TABLES = ("spooky-author-identification", "dogs-vs-cats-redux-kernels-edition", "random-acts-of-pizza")


def found_by_harness(tmp_path: Path, competition_id: str) -> tuple[str | None, str]:
    """(the layout the harness finds in the miniature, or None; the miniature's public dir)."""
    root = MINIATURES[competition_id](tmp_path / competition_id)
    competition = load_competition(str(root), tmp_path / "cache", metric=METRICS.get(competition_id))
    assert competition.metric is not None
    sample = pd.read_csv(competition.sample_submission, dtype=str, keep_default_na=False)
    request = SplitRequest(competition, competition.metric, tmp_path / "harness", sample, 0.2, "auto", 0)
    found = find_layout(harness_probe(request))
    return (found[0].name if found else None), str(competition.public_dir)


def test_every_registered_layout_has_a_miniature_and_names_are_unique() -> None:
    names = [layout.name for layout in LAYOUTS]
    assert len(names) == len(set(names))
    assert set(MINIATURE_OF) == set(names), "give each registered layout a miniature in MINIATURE_OF"
    assert set(MINIATURE_OF.values()) <= set(MINIATURES)


def test_every_layout_has_its_folder_and_the_coders_readers_their_functions() -> None:
    folders = Path(__file__).parents[2] / "swarm" / "layouts"
    for layout in LAYOUTS:
        assert (folders / layout.name).is_dir(), layout.name
    for layout in READ_BY_CODER:
        assert layout.reader is not None and layout.read is not None and layout.labelled is not None
        assert layout.find is getattr(layout.reader, f"find_{layout.name}")


@pytest.mark.parametrize("layout", sorted(MINIATURE_OF))
def test_the_harness_finds_each_layout_in_its_miniature(tmp_path: Path, layout: str) -> None:
    found, _ = found_by_harness(tmp_path, MINIATURE_OF[layout])
    assert found == layout


@pytest.mark.parametrize("layout", sorted(layout.name for layout in READ_BY_CODER))
def test_the_offline_coder_finds_the_layout_the_harness_splits(tmp_path: Path, layout: str) -> None:
    found, public = found_by_harness(tmp_path, MINIATURE_OF[layout])
    files = find_data_files(public)
    coder = [other.name for other in READ_BY_CODER if files.get(other.name)]
    assert found == layout and coder == [layout], json.dumps(files, default=str)


@pytest.mark.parametrize("competition_id", PLAIN_TABLES)
def test_no_layout_is_found_in_a_plain_labelled_table(tmp_path: Path, competition_id: str) -> None:
    found, public = found_by_harness(tmp_path, competition_id)
    files = find_data_files(public)
    assert found is None and not [layout for layout in READ_BY_CODER if files.get(layout.name)]
    assert files["train"] or files["train_files"]
