"""The census's miniatures (deployments/MLEBENCH_LAYOUTS.md): for each of MLE-bench's competitions a miniature
copies, its builder (tests/layouts/<layout>/miniatures.py, tests/layouts/tables/), with what a run of it needs
besides: the metric where its competition.json names none, and a program it needs on PATH. The census test
(tests/evaluation/test_census_rows.py), the registry's test (tests/layouts/test_registry.py) and the golden
solutions (tests/offline/test_rendered_solutions.py) read them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.layouts.boxes.miniatures import vinbigdata
from tests.layouts.bson.miniatures import cdiscount
from tests.layouts.coco.miniatures import herbarium_2020, herbarium_2022, iwildcam_2020
from tests.layouts.composite.miniatures import text_normalization_layout
from tests.layouts.file_labels.miniatures import archived_competition, right_whale, speech_commands
from tests.layouts.folder_rows.miniatures import smartphone
from tests.layouts.grouped.miniatures import rsna_breast
from tests.layouts.keyed.miniatures import uw_madison
from tests.layouts.label_lines.miniatures import mlsp_birds
from tests.layouts.later_events.miniatures import h_and_m
from tests.layouts.levels.miniatures import siim_covid
from tests.layouts.long_classes.miniatures import spine_competition
from tests.layouts.masks.miniatures import contrails, vesuvius
from tests.layouts.parquet_batches.miniatures import icecube
from tests.layouts.pixels.miniatures import denoising
from tests.layouts.positions.miniatures import covid_competition
from tests.layouts.qa.miniatures import tensorflow2_qa
from tests.layouts.sentences.miniatures import billion_word
from tests.layouts.tables.champs import champs_competition
from tests.layouts.tables.image_miniatures import (
    aptos,
    cassava,
    dog_breeds,
    hotel_id,
    hubmap,
    imet,
    iwildcam,
    kuzushiji,
    plant_pathology_2020,
    plant_pathology_2021,
    ranzcr,
    rsna_miccai,
    siim_isic,
    statoil,
    tgs_salt,
)
from tests.layouts.tables.miniatures import cactus, image_competition, seti
from tests.layouts.tables.records_miniatures import pizza_competition
from tests.layouts.tables.tabular_miniatures import freesound, hms, leaves, nomad, nyc_taxi, tabular_may_2022
from tests.layouts.tables.text_miniatures import (
    ai4code,
    insults,
    jigsaw_bias,
    jigsaw_toxic,
    question_answering,
    spooky,
    tweet_sentiment,
)
from tests.layouts.token_tables.miniatures import lyft_3d
from tests.layouts.twins.miniatures import nfl_contact
from tests.layouts.variants.miniatures import alaska2
from tests.layouts.visits.miniatures import osic

CENSUS = Path(__file__).parents[2] / "deployments" / "MLEBENCH_LAYOUTS.md"
MINIATURES: dict[str, Callable[[Path], Path]] = {
    "3d-object-detection-for-autonomous-vehicles": lyft_3d,
    "aerial-cactus-identification": cactus,  # its metric from the run (here: --metric auc)
    "champs-scalar-coupling": lambda root: champs_competition(
        root, metric={"name": "log_mae", "params": {"group_column": "type"}}
    ),
    "detecting-insults-in-social-commentary": insults,
    "dogs-vs-cats-redux-kernels-edition": archived_competition,
    "histopathologic-cancer-detection": image_competition,
    "hms-harmful-brain-activity-classification": hms,
    "random-acts-of-pizza": pizza_competition,
    "rsna-2022-cervical-spine-fracture-detection": spine_competition,
    "seti-breakthrough-listen": seti,
    "stanford-covid-vaccine": covid_competition,
    "text-normalization-challenge-english-language": text_normalization_layout,
    # tests/layouts/<layout>/miniatures.py and tests/layouts/tables/, copied from MLE-bench's prepare.py
    "AI4Code": ai4code,
    "alaska2-image-steganalysis": alaska2,
    "aptos2019-blindness-detection": aptos,
    "billion-word-imputation": billion_word,
    "cassava-leaf-disease-classification": cassava,
    "cdiscount-image-classification-challenge": cdiscount,
    "chaii-hindi-and-tamil-question-answering": question_answering,
    "denoising-dirty-documents": denoising,
    "dog-breed-identification": dog_breeds,
    "freesound-audio-tagging-2019": freesound,
    "google-research-identify-contrails-reduce-global-warming": contrails,
    "h-and-m-personalized-fashion-recommendations": h_and_m,
    "herbarium-2020-fgvc7": herbarium_2020,
    "herbarium-2022-fgvc9": herbarium_2022,
    "hotel-id-2021-fgvc8": hotel_id,
    "hubmap-kidney-segmentation": hubmap,
    "icecube-neutrinos-in-deep-ice": icecube,
    "imet-2020-fgvc7": imet,
    "iwildcam-2019-fgvc6": iwildcam,
    "iwildcam-2020-fgvc7": iwildcam_2020,
    "jigsaw-toxic-comment-classification-challenge": jigsaw_toxic,
    "jigsaw-unintended-bias-in-toxicity-classification": jigsaw_bias,
    "kuzushiji-recognition": kuzushiji,
    "leaf-classification": leaves,
    "mlsp-2013-birds": mlsp_birds,
    "new-york-city-taxi-fare-prediction": nyc_taxi,
    "nfl-player-contact-detection": nfl_contact,
    "nomad2018-predict-transparent-conductors": nomad,
    "osic-pulmonary-fibrosis-progression": osic,
    "plant-pathology-2020-fgvc7": plant_pathology_2020,
    "plant-pathology-2021-fgvc8": plant_pathology_2021,
    "ranzcr-clip-catheter-line-classification": ranzcr,
    "rsna-breast-cancer-detection": rsna_breast,
    "rsna-miccai-brain-tumor-radiogenomic-classification": rsna_miccai,
    "siim-covid19-detection": siim_covid,
    "siim-isic-melanoma-classification": siim_isic,
    "smartphone-decimeter-2022": smartphone,
    "spooky-author-identification": spooky,
    "statoil-iceberg-classifier-challenge": statoil,
    "tabular-playground-series-may-2022": tabular_may_2022,
    "tensorflow-speech-recognition-challenge": speech_commands,
    "tensorflow2-question-answering": tensorflow2_qa,
    "tgs-salt-identification-challenge": tgs_salt,
    "the-icml-2013-whale-challenge-right-whale-redux": right_whale,
    "tweet-sentiment-extraction": tweet_sentiment,
    "uw-madison-gi-tract-image-segmentation": uw_madison,  # metric missing: proxy rle_dice
    "vesuvius-challenge-ink-detection": vesuvius,
    "vinbigdata-chest-xray-abnormalities-detection": vinbigdata,
}

# Miniatures whose competition.json names no metric (a run finds it in description.md; here it is named).
METRICS = {
    "aerial-cactus-identification": "auc",
    "rsna-2022-cervical-spine-fracture-detection": "spine_weighted_logloss",
}
# A program the miniature needs on PATH to build its archives (without it, the row is skipped).
PROGRAMS = {"statoil-iceberg-classifier-challenge": "7z"}
