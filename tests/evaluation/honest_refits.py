"""Honest refits on a bundled competition, made in seconds with one sklearn model instead of a run: the "scored
run" fits it on a seeded 80% of train.csv (the harness's view) and is scored on the other 20%, the "refit" fits the
same model on every row; both predict test.csv. What the refit check must accept, and what broken refits are made
from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from swarm.competitions.competition import Competition, MetricSpec
from swarm.competitions.grading import score_frame
from swarm.competitions.metrics import get_metric

HELD_SHARE = 0.2
TOP_VALUES = 15  # the most frequent values of a category column, one-hot
TEXT_LENGTH = 40  # a column whose cells are longer on average is free text, hashed into words
TEXT_FEATURES = 256
IMAGE_SIDE = (14, 14)  # images shrunk to this many pixels, for a support vector classifier


@dataclass(frozen=True)
class HonestRuns:
    """A scored run's and its honest refit's test predictions (frames of strings), with the scored run's score on
    the held-out rows."""

    spec: MetricSpec
    scored: pd.DataFrame
    refit: pd.DataFrame
    harness_score: float


def honest_runs(competition: Competition, seed: int = 0) -> HonestRuns:
    """The scored run and the refit of one model on `competition`'s public files (see the module docstring); on
    one thread, which on a busy machine is many times faster than OpenMP's threads waiting on each other."""
    with threadpool_limits(limits=1):
        return _runs(competition, seed)


def _runs(competition: Competition, seed: int) -> HonestRuns:
    spec = competition.metric
    assert spec is not None and len(spec.target_columns) == 1
    public = competition.public_dir
    train, test = (
        pd.read_csv(public / f"{n}.csv", dtype=str, keep_default_na=False) for n in ("train", "test")
    )
    x_train, x_test = features(train, test, spec, public)
    target = spec.target_columns[0]
    held = np.random.default_rng(seed).random(len(train)) < HELD_SHARE
    scored_model = fitted(spec, x_train[~held], train[target][~held])
    refit_model = fitted(spec, x_train, train[target])
    answers = train.loc[held, [spec.id_column, target]]
    harness = score_frame(
        predictions(spec, scored_model, x_train[held], answers[spec.id_column]), answers, spec
    )
    return HonestRuns(
        spec,
        predictions(spec, scored_model, x_test, test[spec.id_column]),
        predictions(spec, refit_model, x_test, test[spec.id_column]),
        harness,
    )


def features(
    train: pd.DataFrame, test: pd.DataFrame, spec: MetricSpec, public: Path
) -> tuple[np.ndarray, np.ndarray]:
    """Numbers as they are, dates as day, month and weekday, free text as hashed words, other columns as their
    most frequent values one-hot; image ids (`*.png`) as their pixels."""
    both = pd.concat([train, test], keys=["train", "test"])
    if both[spec.id_column].str.endswith(".png").all():
        pixels = [
            np.asarray(Image.open(public / part / name).resize(IMAGE_SIDE), dtype=float).ravel() / 255
            for part, name in zip(both.index.get_level_values(0), both[spec.id_column], strict=True)
        ]
        table = np.vstack(pixels)
    else:
        columns = [c for c in both.columns if c not in (spec.id_column, *spec.target_columns)]
        table = np.column_stack([_encoded(both[c]) for c in columns])
    return table[: len(train)], table[len(train) :]


def _encoded(column: pd.Series) -> np.ndarray:
    """One column as numeric features (see `features`)."""
    numbers = pd.to_numeric(column.replace("", np.nan), errors="coerce")
    if numbers.notna().sum() == (column != "").sum():
        return numbers.fillna(numbers.median()).to_numpy()[:, None]
    dates = pd.to_datetime(column, errors="coerce", format="%Y-%m-%d")
    if dates.notna().all():
        return np.column_stack([(dates - dates.min()).dt.days, dates.dt.month, dates.dt.day_of_week])
    if column.str.len().mean() > TEXT_LENGTH:
        words = HashingVectorizer(n_features=TEXT_FEATURES, alternate_sign=False)
        return words.transform(column).toarray()
    top = column.value_counts().index[:TOP_VALUES]
    return np.column_stack([(column == value).to_numpy(dtype=float) for value in top])


def fitted(spec: MetricSpec, x: np.ndarray, y: pd.Series) -> object:
    """The model for the metric: a classifier of labels (accuracy; of pixels, a support vector machine) or of 0/1
    (AUC), else a regressor: of log1p for a target never negative (counts, prices; predicting at least 1), of the
    values as they are for one that may be (a standardised score)."""
    metric = get_metric(spec.name)
    if metric.labels and x.shape[1] == IMAGE_SIDE[0] * IMAGE_SIDE[1]:
        return SVC(random_state=0).fit(x, y.to_numpy())
    if metric.labels:
        return HistGradientBoostingClassifier(max_iter=60, random_state=0).fit(x, y.to_numpy())
    if metric.binary_truth:
        return HistGradientBoostingClassifier(max_iter=60, random_state=0).fit(x, y.astype(int).to_numpy())
    values = y.astype(float).to_numpy()
    regressor = HistGradientBoostingRegressor(max_iter=60, random_state=0)
    if (values < 0).any():
        return regressor.fit(x, values)
    logged = TransformedTargetRegressor(
        regressor, func=np.log1p, inverse_func=_at_least_one, check_inverse=False
    )
    return logged.fit(x, values)


def _at_least_one(logged: np.ndarray) -> np.ndarray:
    return np.maximum(np.expm1(logged), 1.0)


def predictions(spec: MetricSpec, model: object, x: np.ndarray, ids: pd.Series) -> pd.DataFrame:
    """The model's predictions for `x` as a submission frame of strings, in the metric's form."""
    metric = get_metric(spec.name)
    if metric.labels:
        values = model.predict(x)
    elif metric.binary_truth:
        values = model.predict_proba(x)[:, 1]
    else:
        values = model.predict(x)
    return pd.DataFrame(
        {spec.id_column: ids.to_numpy(), spec.target_columns[0]: [str(v) for v in values]}
    ).reset_index(drop=True)
