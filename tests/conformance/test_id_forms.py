"""Ids in the forms real competitions give them, in each layout's census miniature: 38-digit UID tails, integers
past int64, leading zeros, ids that read as decimals, hex, uuid4, `_`, `-`, `.`, a space, accents, CJK, and test
ids that restart at 1 beside training ids 1..n. Each variant (tests/conformance/ids.py rewrites the built
miniature) must load, split on the harness into the layout its census row names, and pass the offline coder's
preflight on the sandbox's view; the held-out rows' own ids must be the rewritten ones, kept exactly as text.

The forms that break numbers (the first four) run over every miniature whose ids can be rewritten; the others
over a spread of where ids live (table cells, file stems, file names with their extension, folders, shard
folders, zip members, masks, boxes, a log, versions in folders, JSON files named by id, sound clips); restarted
ids over every plain table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.checks import build_miniature, layout_found, miniatures_of, split_variant
from tests.conformance.ids import RESTART, Unrepresentable, rewrite_ids
from tests.evaluation.census_miniatures import METRICS, MINIATURES
from tests.layouts.test_registry import census_layouts

JSON = "its ids live inside JSON files ({}), which the rewrite does not open"
INSIDE = "its sample's ids join other values ({}), so renaming them whole is not the form"
# Miniatures whose ids the rewrite cannot put in another form, and why.
ID_SKIPS = {
    "3d-object-detection-for-autonomous-vehicles": JSON.format("test_data/sample.json's tokens"),
    "herbarium-2020-fgvc7": JSON.format("COCO metadata.json"),
    "herbarium-2022-fgvc9": JSON.format("COCO test_metadata.json"),
    "iwildcam-2020-fgvc7": JSON.format("COCO annotations and megadetector results"),
    "hubmap-kidney-segmentation": JSON.format("each image's anatomical-structure.json"),
    "random-acts-of-pizza": JSON.format("train.json and test.json records"),
    "stanford-covid-vaccine": JSON.format("train.json records, ids <id>_<seqpos>"),
    "tensorflow2-question-answering": JSON.format("JSONL records, ids <example>_long and _short"),
    "cassava-leaf-disease-classification": "its ids live inside TFRecords too (train_tfrecords/)",
    "siim-isic-melanoma-classification": "its ids live inside TFRecords too (tfrecords/)",
    "cdiscount-image-classification-challenge": "its ids live inside BSON documents (train.bson, test.bson)",
    "icecube-neutrinos-in-deep-ice": "its ids live inside parquet tables (test_meta.parquet, batches)",
    "billion-word-imputation": "its ids are the line numbers of test_v2.txt, which stands for the sample",
    "text-normalization-challenge-english-language": INSIDE.format("<sentence_id>_<token_id>, zipped"),
    "denoising-dirty-documents": INSIDE.format("<image>_<row>_<column>"),
    "osic-pulmonary-fibrosis-progression": INSIDE.format("<Patient>_<Weeks>"),
    "rsna-2022-cervical-spine-fracture-detection": INSIDE.format("<StudyInstanceUID>_<vertebra>"),
    "rsna-breast-cancer-detection": INSIDE.format("<patient_id>_<laterality>"),
    "siim-covid19-detection": INSIDE.format("<study>_study and <image>_image"),
    "mlsp-2013-birds": INSIDE.format("<rec_id> * 100 + <species>"),
    "nfl-player-contact-detection": INSIDE.format("<game_play>_<step>_<player>_<player>"),
    "smartphone-decimeter-2022": INSIDE.format(
        "tripId, the <drive>/<phone> folders, keyed with UnixTimeMillis"
    ),
    "uw-madison-gi-tract-image-segmentation": INSIDE.format("case<n>_day<d>_slice_<k>, keyed with class"),
}
NUMERIC_FORMS = ("int-beyond-int64", "dotted-uid", "leading-zeros", "decimal-looking")
TEXT_FORMS = ("hex", "uuid4", "underscore", "dash", "dot", "space", "non-ascii", "cjk")
# Where ids live, one miniature each, for the forms that break text rather than numbers.
SPREAD = (
    "spooky-author-identification",  # table cells only
    "aptos2019-blindness-detection",  # file stems in train_images/ and test_images/
    "hotel-id-2021-fgvc8",  # ids that are file names, extension and all
    "seti-breakthrough-listen",  # files in shard folders named by the id's first character
    "rsna-miccai-brain-tumor-radiogenomic-classification",  # a folder per id
    "kuzushiji-recognition",  # members of zips
    "google-research-identify-contrails-reduce-global-warming",  # masks: a folder per record
    "vinbigdata-chest-xray-abnormalities-detection",  # boxes
    "h-and-m-personalized-fashion-recommendations",  # a log's customers
    "alaska2-image-steganalysis",  # versions in folders
    "AI4Code",  # a JSON file named by each id
    "the-icml-2013-whale-challenge-right-whale-redux",  # sound clips in zips
)


def rewritable() -> list[str]:
    return [c for c in sorted(MINIATURES) if c not in ID_SKIPS]


def id_cases() -> list[tuple[str, str]]:
    numeric = [(c, form) for form in NUMERIC_FORMS for c in rewritable()]
    text = [(c, form) for form in TEXT_FORMS for c in SPREAD]
    restart = [(c, RESTART) for c in miniatures_of("table") if c not in ID_SKIPS]
    return numeric + text + restart


@pytest.mark.parametrize(("competition_id", "form"), id_cases())
def test_ids_of_each_form_split_and_read(tmp_path: Path, competition_id: str, form: str) -> None:
    root = build_miniature(competition_id, tmp_path)
    try:
        ids = rewrite_ids(root, form, METRICS.get(competition_id))
    except Unrepresentable as exc:
        pytest.skip(f"{competition_id} under {form} ids: {exc}")
    split = split_variant(root, tmp_path, competition_id=competition_id)
    assert layout_found(split, tmp_path) == census_layouts()[competition_id]
    new = {*ids.train.values(), *ids.test.values()}
    own = split.holdout.own_ids("held")
    if own and ids.train:  # fresh ids in the view: each held-out row's own id is a rewritten one, as written
        assert set(own.values()) <= new, sorted(set(own.values()) - new)[:3]
    held = {*own} if own else set(split.holdout.ids)
    view_sample = split.holdout.public_dir / split.competition.sample_submission.name
    if view_sample.is_file():
        text = view_sample.read_text(encoding="utf-8")
        assert all(i in text for i in held), "a held-out id is not in the view's sample as written"


@pytest.mark.parametrize("competition_id", sorted(ID_SKIPS))
def test_miniatures_whose_ids_cannot_be_rewritten_say_why(competition_id: str) -> None:
    assert competition_id in MINIATURES
    pytest.skip(f"{competition_id}: {ID_SKIPS[competition_id]}")
