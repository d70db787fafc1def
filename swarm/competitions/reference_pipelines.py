"""A seeded population of reference pipelines ("teams") used to build the bundled leaderboards.

Each pipeline is a model family, a feature subset and hyperparameters, from constant baselines to tuned
gradient boosting. They train on the public train.csv only and predict test.csv.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from threadpoolctl import threadpool_limits

CLASSIFIER_FAMILIES = {
    "constant": 0.04,
    "logistic": 0.14,
    "naive_bayes": 0.06,
    "knn": 0.12,
    "decision_tree": 0.14,
    "random_forest": 0.14,
    "extra_trees": 0.1,
    "hist_gb": 0.12,
    "lightgbm": 0.14,
}
REGRESSOR_FAMILIES = {
    "constant": 0.04,
    "ridge": 0.16,
    "knn": 0.12,
    "decision_tree": 0.14,
    "random_forest": 0.14,
    "extra_trees": 0.1,
    "hist_gb": 0.14,
    "lightgbm": 0.16,
}


@dataclass(frozen=True)
class PipelineSpec:
    """One reference team: what it trains and on which columns."""

    family: str
    features: tuple[str, ...]
    params: dict = field(default_factory=dict)
    log_target: bool = False

    def describe(self) -> str:
        return json.dumps(self.params, sort_keys=True)


def _sample_params(family: str, rng: np.random.Generator) -> dict:
    if family == "constant":
        return {}
    if family in ("logistic", "ridge"):
        key = "C" if family == "logistic" else "alpha"
        return {key: float(round(10 ** rng.uniform(-3, 2), 4))}
    if family == "naive_bayes":
        return {}
    if family == "knn":
        return {
            "n_neighbors": int(rng.choice([1, 3, 5, 9, 15, 25, 41])),
            "weights": str(rng.choice(["uniform", "distance"])),
        }
    if family == "decision_tree":
        return {
            "max_depth": int(rng.choice([1, 2, 3, 4, 6, 8, 12])),
            "min_samples_leaf": int(rng.choice([1, 5, 20])),
        }
    if family in ("random_forest", "extra_trees"):
        return {
            "n_estimators": int(rng.choice([25, 50, 100])),
            "max_depth": int(rng.choice([3, 6, 10, 16])),
            "min_samples_leaf": int(rng.choice([1, 3, 10])),
        }
    if family == "hist_gb":
        return {
            "learning_rate": float(rng.choice([0.03, 0.05, 0.1, 0.2])),
            "max_iter": int(rng.choice([50, 100, 200, 400])),
            "max_leaf_nodes": int(rng.choice([7, 15, 31])),
        }
    if family == "lightgbm":
        return {
            "learning_rate": float(rng.choice([0.02, 0.05, 0.1])),
            "n_estimators": int(rng.choice([100, 200, 400, 800])),
            "num_leaves": int(rng.choice([7, 15, 31])),
            "min_child_samples": int(rng.choice([5, 10, 20, 40])),
            "subsample": float(rng.choice([0.7, 0.9, 1.0])),
            "colsample_bytree": float(rng.choice([0.5, 0.8, 1.0])),
        }
    raise ValueError(f"unknown model family {family!r}")


def sample_population(features: list[str], task: str, n_teams: int, seed: int) -> list[PipelineSpec]:
    """`n_teams` pipelines for `task` ("classification" or "regression"), reproducible from `seed`."""
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
    families = CLASSIFIER_FAMILIES if task == "classification" else REGRESSOR_FAMILIES
    names = list(families)
    weights = np.array([families[n] for n in names])
    rng = np.random.default_rng(seed)
    population = []
    for _ in range(n_teams):
        family = str(rng.choice(names, p=weights / weights.sum()))
        if rng.random() < 0.35 or len(features) <= 2:
            chosen = tuple(features)
        else:
            k = max(1, int(round(len(features) * rng.uniform(0.1, 0.9))))
            picked = rng.choice(len(features), size=k, replace=False)
            chosen = tuple(features[i] for i in sorted(picked.tolist()))
        log_target = task == "regression" and bool(rng.random() < 0.7)
        population.append(PipelineSpec(family, chosen, _sample_params(family, rng), log_target))
    return population


def _estimator(spec: PipelineSpec, task: str, seed: int) -> BaseEstimator:
    p = spec.params
    classification = task == "classification"
    if spec.family == "constant":
        return DummyClassifier(strategy="prior") if classification else DummyRegressor(strategy="median")
    if spec.family == "logistic":
        return LogisticRegression(C=p["C"], max_iter=2000)
    if spec.family == "ridge":
        return Ridge(alpha=p["alpha"])
    if spec.family == "naive_bayes":
        return GaussianNB()
    if spec.family == "knn":
        return (KNeighborsClassifier if classification else KNeighborsRegressor)(**p)
    if spec.family == "decision_tree":
        return (DecisionTreeClassifier if classification else DecisionTreeRegressor)(random_state=seed, **p)
    if spec.family == "random_forest":
        cls = RandomForestClassifier if classification else RandomForestRegressor
        return cls(random_state=seed, n_jobs=1, **p)
    if spec.family == "extra_trees":
        cls = ExtraTreesClassifier if classification else ExtraTreesRegressor
        return cls(random_state=seed, n_jobs=1, **p)
    if spec.family == "hist_gb":
        cls = HistGradientBoostingClassifier if classification else HistGradientBoostingRegressor
        return cls(random_state=seed, **p)
    if spec.family == "lightgbm":
        from lightgbm import LGBMClassifier, LGBMRegressor

        cls = LGBMClassifier if classification else LGBMRegressor
        return cls(random_state=seed, subsample_freq=1, n_jobs=1, verbose=-1, **p)
    raise ValueError(f"unknown model family {spec.family!r}")


def build_pipeline(spec: PipelineSpec, frame: pd.DataFrame, task: str, seed: int) -> Pipeline:
    """Imputation + scaling of numbers, one-hot encoding of categories, then the model."""
    numeric = [c for c in spec.features if pd.api.types.is_numeric_dtype(frame[c])]
    categorical = [c for c in spec.features if c not in numeric]
    prep = ColumnTransformer(
        [
            ("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), numeric),
            (
                "cat",
                make_pipeline(
                    SimpleImputer(strategy="constant", fill_value="missing"),
                    OneHotEncoder(handle_unknown="ignore", min_frequency=5, sparse_output=False),
                ),
                categorical,
            ),
        ]
    )
    model = _estimator(spec, task, seed)
    if task == "regression" and spec.log_target:
        model = TransformedTargetRegressor(regressor=model, func=np.log, inverse_func=np.exp)
    return Pipeline([("prep", prep), ("model", model)])


def fit_predict(
    spec: PipelineSpec,
    train: pd.DataFrame,
    target: pd.Series,
    test: pd.DataFrame,
    task: str,
    output: str,
    seed: int,
) -> np.ndarray:
    """Train on `train` and predict `test`: labels (`output="label"`), P(class 1) ("proba") or values."""
    cols = list(spec.features)
    x_train = _categories_as_text(train[cols])
    x_test = _categories_as_text(test[cols])
    pipeline = build_pipeline(spec, x_train, task, seed)
    # One thread: OpenMP spin-waiting with 2 threads on a busy 2-core machine is ~50x slower.
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore")
        pipeline.fit(x_train, target)
        if output == "proba":
            return pipeline.predict_proba(x_test)[:, 1]
        return pipeline.predict(x_test)


def _categories_as_text(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in out.columns:
        if not pd.api.types.is_numeric_dtype(out[column]):
            out[column] = out[column].astype(object).where(out[column].notna(), np.nan)
    return out
