"""The MODEL section of the blend: boosted trees and a linear model voting (their estimators:
estimators.py)."""

from sklearn.ensemble import VotingClassifier, VotingRegressor

MODEL_FAMILY = CHOSEN_FAMILY


def build_model(task, seed):
    """A fresh estimator for `task` ("binary", "multiclass" or "regression"): CHOSEN_FAMILY_DOC."""
    members = [("boosted", _boosted(task, seed)), ("linear", _linear(task, seed))]
    if task == "regression":
        return VotingRegressor(members)
    return VotingClassifier(members, voting="soft")


def _boosted(task, seed):
    """The gradient-boosted member: LightGBM, or sklearn's HistGradientBoosting without it."""
    # <insert: boosted>


def _linear(task, seed):
    """The scaled linear member."""
    # <insert: linear>
