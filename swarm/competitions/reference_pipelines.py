"""A seeded population of reference pipelines ("teams") used to build the bundled leaderboards.

Each pipeline is a model family, a feature subset and hyperparameters, from constant baselines to tuned
gradient boosting. They train on the public train.csv only and predict test.csv. Columns of a special kind
(`kinds`: free text, dates, high-cardinality codes, image files) get a per-team encoding on top: TF-IDF word or
char n-grams or nothing for text, date parts, a day number, the raw string or nothing for dates, one-hot,
frequency or nothing for codes, and the pixels of the image downscaled to one of a few sizes.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.decomposition import TruncatedSVD
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler
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

# How a team may use a column of each special kind, with the chance of each choice.
ENCODINGS: dict[str, dict[str, float]] = {
    "text": {"word": 0.45, "char": 0.3, "drop": 0.25},
    "datetime": {"parts": 0.55, "ordinal": 0.2, "raw": 0.1, "drop": 0.15},
    "code": {"onehot": 0.5, "frequency": 0.3, "drop": 0.2},
    # The image downscaled to a side of N pixels as it is (pixelsN) or centred on its ink first (centeredN).
    "image": {"pixels7": 0.2, "pixels10": 0.2, "pixels14": 0.2, "centered10": 0.2, "centered14": 0.2},
}
# Families given text as dense SVD components of the TF-IDF (trees on 20000 sparse columns are very slow).
DENSE_ONLY = ("naive_bayes", "hist_gb", "lightgbm", "decision_tree", "random_forest", "extra_trees")
TEXT_COMPONENTS = 64


@dataclass(frozen=True)
class PipelineSpec:
    """One reference team: what it trains and on which columns (and how, for columns of a special kind)."""

    family: str
    features: tuple[str, ...]
    params: dict = field(default_factory=dict)
    log_target: bool = False
    encodings: dict = field(default_factory=dict)  # column -> choice in ENCODINGS[its kind]

    def describe(self) -> str:
        extra = {"encodings": self.encodings} if self.encodings else {}
        return json.dumps(self.params | extra, sort_keys=True)


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


def sample_population(
    features: list[str],
    task: str,
    n_teams: int,
    seed: int,
    kinds: dict[str, str] | None = None,
    log_targets: bool = True,
) -> list[PipelineSpec]:
    """`n_teams` pipelines for `task` ("classification" or "regression"), reproducible from `seed`.

    `kinds` names the columns of a special kind (see ENCODINGS): every team gets them among its features and
    draws an encoding for each (after its other draws, so populations without such columns are unchanged).
    `log_targets=False` (a target that may be zero or negative) keeps every team on the target as it is; the
    draw is still made, so the teams are otherwise those of `log_targets=True`.
    """
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
            # The special columns are the competition's main signal: every team has them, and may drop them.
            picked = set(picked.tolist()) | {i for i, c in enumerate(features) if kinds and c in kinds}
            chosen = tuple(features[i] for i in sorted(picked))
        log_target = task == "regression" and bool(rng.random() < 0.7) and log_targets
        params = _sample_params(family, rng)
        encodings = {c: _draw(ENCODINGS[kinds[c]], rng) for c in chosen if kinds and c in kinds}
        if encodings and all(encodings.get(c) == "drop" for c in chosen):
            family, params = "constant", {}  # a team that drops every column it picked predicts a constant
        population.append(PipelineSpec(family, chosen, params, log_target, encodings))
    return population


def _draw(choices: dict[str, float], rng: np.random.Generator) -> str:
    names = list(choices)
    weights = np.array([choices[n] for n in names])
    return str(rng.choice(names, p=weights / weights.sum()))


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
    """Imputation + scaling of numbers, one-hot encoding of categories, the special encodings, then the model."""
    plain = [c for c in spec.features if c not in spec.encodings or spec.encodings[c] in ("onehot", "raw")]
    numeric = [c for c in plain if pd.api.types.is_numeric_dtype(frame[c])]
    categorical = [c for c in plain if c not in numeric]
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
            *_special_encoders(spec),
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


# -- encodings of the special column kinds ---------------------------------------------------------------------


def _special_encoders(spec: PipelineSpec) -> list[tuple]:
    """ColumnTransformer entries for the columns with an encoding (none for `drop`, `onehot`, `raw`)."""
    entries: list[tuple] = []
    for column, choice in spec.encodings.items():
        if choice in ("word", "char"):
            entries.append((f"text_{column}", _text_encoder(choice, spec.family), column))
        elif choice in ("parts", "ordinal"):
            dates = FunctionTransformer(_date_parts if choice == "parts" else _day_number)
            scaled = make_pipeline(dates, SimpleImputer(strategy="median"), StandardScaler())
            entries.append((f"date_{column}", scaled, [column]))
        elif choice == "frequency":
            entries.append((f"freq_{column}", FrequencyEncoder(), [column]))
        elif choice.startswith(("pixels", "centered")):
            side = int(choice.removeprefix("pixels").removeprefix("centered"))
            kwargs = {"side": side, "centered": choice.startswith("centered")}
            pixels = FunctionTransformer(_pixels, kw_args=kwargs)
            entries.append((f"image_{column}", make_pipeline(pixels, StandardScaler()), column))
    return entries


def _text_encoder(choice: str, family: str) -> Pipeline:
    """TF-IDF of word (1-2)-grams or char (2-4)-grams; reduced to dense components for DENSE_ONLY models."""
    if choice == "word":
        tfidf = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=20000, sublinear_tf=True)
    else:
        tfidf = TfidfVectorizer(
            analyzer="char_wb", ngram_range=(2, 4), min_df=3, max_features=20000, sublinear_tf=True
        )
    steps = [FunctionTransformer(_as_text), tfidf]
    if family in DENSE_ONLY:
        steps.append(TruncatedSVD(n_components=TEXT_COMPONENTS, random_state=0))
    return make_pipeline(*steps)


def _as_text(column: pd.Series) -> np.ndarray:
    return pd.Series(column).fillna("").astype(str).to_numpy()


def _date_parts(frame: pd.DataFrame) -> np.ndarray:
    """year, month, day, weekday, day of year and hour of every date column."""
    parts = []
    for column in frame.columns:
        when = pd.to_datetime(frame[column], errors="coerce", format="mixed")
        parts += [when.dt.year, when.dt.month, when.dt.day, when.dt.weekday, when.dt.dayofyear, when.dt.hour]
    return np.column_stack([p.to_numpy(dtype=float, na_value=np.nan) for p in parts])


def _day_number(frame: pd.DataFrame) -> np.ndarray:
    """Days since 1970-01-01 (fractional) of every date column."""
    days = []
    for column in frame.columns:
        when = pd.to_datetime(frame[column], errors="coerce", format="mixed")
        days.append((when - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy() / 86400)
    return np.column_stack(days)


class FrequencyEncoder(TransformerMixin, BaseEstimator):
    """Each value replaced by its share of the training rows (0 for values never seen)."""

    def fit(self, frame: pd.DataFrame, y: object = None) -> FrequencyEncoder:
        self.shares_ = [frame[c].astype(str).value_counts(normalize=True) for c in frame.columns]
        return self

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        columns = [
            frame[c].astype(str).map(shares).fillna(0.0).to_numpy(dtype=float)
            for c, shares in zip(frame.columns, self.shares_, strict=True)
        ]
        return np.column_stack(columns)


def _pixels(paths: pd.Series, side: int, centered: bool) -> np.ndarray:
    """Grayscale pixels (0-1) of each image file, downscaled to side x side (after centring, if asked)."""
    return np.stack([_image_pixels(str(p), side, centered) for p in paths])


@lru_cache(maxsize=50000)
def _image_pixels(path: str, side: int, centered: bool) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as image:
        pixels = np.asarray(image.convert("L"), dtype=float)
    if centered:
        pixels = _centre_ink(pixels)
    small = Image.fromarray(pixels.astype(np.uint8)).resize((side, side), Image.Resampling.BILINEAR)
    return np.asarray(small, dtype=float).ravel() / 255.0


def _centre_ink(pixels: np.ndarray) -> np.ndarray:
    """The image less its median background, moved so that its centre of mass is the image's centre."""
    ink = np.clip(pixels - np.median(pixels), 0, 255)
    height, width = ink.shape
    mass = ink.sum() or 1.0
    rows, cols = np.indices(ink.shape)
    top, left = int(round((rows * ink).sum() / mass)), int(round((cols * ink).sum() / mass))
    padded = np.pad(ink, ((height // 2, height - height // 2), (width // 2, width - width // 2)))
    return padded[top : top + height, left : left + width]
