"""The MODEL section of every family but the blend: build_model's body is the family's estimators
(estimators.py)."""

MODEL_FAMILY = CHOSEN_FAMILY


def build_model(task, seed):
    """A fresh estimator for `task` ("binary", "multiclass" or "regression"): CHOSEN_FAMILY_DOC."""
    # <insert: estimator>
