"""How one set of rows stands to the rows it is predicted from: the test to the training rows, and the harness's
held-out rows to the rows it keeps.

The harness's score is honest only where its held-out rows stand to the kept rows as the test rows stand to the
whole training set. This module measures that relation in the terms the data offers, so the split can be drawn
to match it and the run can print both side by side:

- a column of dates or times: each row's distance to the nearest reference time, the contiguous blocks the rows
  form in time order (how many, how long), and the share of rows after every reference row;
- a key column (store, school, patient): the share of rows whose key the reference rows lack;
- the features alone, where nothing else tells: how well a classifier tells the rows from the reference rows
  (the area under its ROC curve, out of fold; 0.5 where they look alike).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

DAY = 86_400.0
MAX_CLASSIFIER_ROWS = 20_000  # rows of each side the feature classifier reads, drawn at random beyond it
MAX_SCORED_ROWS = 200_000  # training rows scored out of fold for like-test; past it, by a model of a sample
MAX_CLASSIFIER_COLUMNS = 50
MAX_CATEGORIES = 50  # a text column with more distinct values is not a feature the classifier reads
# Training rows (and a quarter of it, test rows) for the features' relation to be measured.
MIN_FEATURE_ROWS = 200
MAX_BLANK_GAP = 0.2  # a column blank this much more often on one side than the other is not read


def parse_times(values: pd.Series) -> pd.Series:
    """A column of dates or times as timestamps (NaT where a value is not one): read as ISO 8601 at once where
    it is, else value by value in whatever form each takes (much slower)."""
    iso = pd.to_datetime(values, errors="coerce", format="ISO8601")
    if iso.notna().sum() >= values.notna().sum() - values.astype(str).str.strip().isin(["", "nan"]).sum():
        return iso
    return pd.to_datetime(values, errors="coerce", format="mixed")


def epoch_seconds(times: pd.Series) -> np.ndarray:
    """Timestamps as float seconds in the rows' order, NaN where missing."""
    return (times - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy(dtype=float)


def seconds(times: pd.Series) -> np.ndarray:
    """Timestamps as float seconds, the missing ones dropped."""
    values = epoch_seconds(times)
    return values[~np.isnan(values)]


def enough_rows(train: pd.DataFrame, test: pd.DataFrame | None) -> bool:
    """Whether train.csv and the test have rows enough (MIN_FEATURE_ROWS) for a classifier's AUC to say anything."""
    return test is not None and len(train) >= MIN_FEATURE_ROWS and len(test) >= MIN_FEATURE_ROWS // 4


def nearest_distance(points: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Each point's distance (seconds) to the nearest reference time."""
    ref = np.unique(reference)
    if len(ref) == 0:
        return np.full(len(points), np.inf)
    at = np.searchsorted(ref, points)
    before = np.abs(points - ref[np.clip(at - 1, 0, len(ref) - 1)])
    after = np.abs(ref[np.clip(at, 0, len(ref) - 1)] - points)
    return np.minimum(before, after)


def time_step(points: np.ndarray) -> float:
    """The data's usual spacing (seconds): the median gap between distinct consecutive times (0 for one time)."""
    gaps = np.diff(np.unique(points))
    return float(np.median(gaps)) if len(gaps) else 0.0


def blocks(points: np.ndarray, reference: np.ndarray) -> list[tuple[float, float]]:
    """The (first, last) times of the contiguous blocks `points` form: runs with no reference time among them
    (a reference time equal to a point's does not break its block)."""
    times = np.unique(points)
    if len(times) == 0:
        return []
    ref = np.unique(reference)
    # A break between consecutive points where a reference time lies strictly between them.
    between = np.searchsorted(ref, times[1:], side="left") - np.searchsorted(ref, times[:-1], side="right")
    cuts = np.flatnonzero(between > 0)
    starts = np.concatenate([[0], cuts + 1])
    ends = np.concatenate([cuts, [len(times) - 1]])
    return [(float(times[s]), float(times[e])) for s, e in zip(starts, ends, strict=True)]


@dataclass(frozen=True)
class TimeRelation:
    """How rows stand in time to reference rows (distances and lengths in seconds)."""

    rows: int
    distance: tuple[float, float, float]  # min, median, max distance to the nearest reference time
    block_lengths: tuple[float, float, float]  # min, median, max length of the blocks the rows form
    blocks: int
    after: float  # share of rows after every reference row

    def describe(self) -> str:
        lo, mid, hi = self.distance
        bl, bm, bh = self.block_lengths
        where = "all after the others" if self.after >= 0.999 else f"{self.after:.0%} after the others"
        lengths = span(bl) if span(bl) == span(bh) else f"{span(bl)}-{span(bh)} (median {span(bm)})"
        return (
            f"{self.rows} rows in {self.blocks} block{'s' if self.blocks != 1 else ''} of {lengths}, "
            f"{span(lo)}-{span(hi)} from the nearest other row (median {span(mid)}), {where}"
        )


def time_relation(points: np.ndarray, reference: np.ndarray) -> TimeRelation | None:
    """The relation of rows at `points` to rows at `reference` (seconds); None where either has none."""
    if len(points) == 0 or len(reference) == 0:
        return None
    step = time_step(np.concatenate([points, reference]))
    distance = nearest_distance(points, reference)
    lengths = np.array([last - first + step for first, last in blocks(points, reference)])
    return TimeRelation(
        rows=len(points),
        distance=_spread(distance),
        block_lengths=_spread(lengths),
        blocks=len(lengths),
        after=float(np.mean(points > reference.max())),
    )


def _spread(values: np.ndarray) -> tuple[float, float, float]:
    return float(values.min()), float(np.median(values)), float(values.max())


def span(value: float) -> str:
    """A duration in seconds in the unit that reads best (hours, days or years)."""
    if value < DAY:
        return f"{value / 3600:.0f} h"
    if value < 730 * DAY:
        return f"{value / DAY:.3g} d"
    return f"{value / (365.25 * DAY):.3g} y"


def key_share(rows: pd.Series, reference: pd.Series) -> float:
    """The share of `rows` whose key (as text) the reference rows lack."""
    known = set(reference.astype(str).str.strip())
    return float((~rows.astype(str).str.strip().isin(known)).mean()) if len(rows) else 0.0


def classifier_auc(
    rows: pd.DataFrame, reference: pd.DataFrame, skip: tuple[str, ...] = (), seed: int = 0
) -> float | None:
    """How well a classifier tells `rows` from `reference` on their shared feature columns (but `skip`): its
    out-of-fold area under the ROC curve (0.5: alike); None where no column can be read as a feature or either
    side is tiny. Each side is read at most MAX_CLASSIFIER_ROWS rows, drawn at random."""
    rng = np.random.default_rng(seed)
    features = feature_frame(_at_most(rows, rng), _at_most(reference, rng), skip)
    found = None if features is None else _out_of_fold(*features, seed)
    return None if found is None else found[0]


def test_likeness(
    train: pd.DataFrame, test: pd.DataFrame, skip: tuple[str, ...] = (), seed: int = 0
) -> tuple[float, np.ndarray] | None:
    """(AUC, each training row's out-of-fold chance of being a test row) of a classifier telling the test rows
    from the training rows (`classifier_auc`, every training row scored); None where it cannot be measured."""
    rng = np.random.default_rng(seed)
    features = feature_frame(_at_most(test, rng), train, skip)
    if features is None:
        return None
    x, y = features
    if len(train) <= MAX_SCORED_ROWS:
        found = _out_of_fold(x, y, seed)
        return None if found is None else (found[0], found[1][y == 0])
    # Past MAX_SCORED_ROWS, learnt on the test rows and a sample of the training rows, and every training row
    # scored by the model learnt.
    training = np.flatnonzero(y == 0)
    sample = np.concatenate(
        [np.flatnonzero(y == 1), np.sort(rng.permutation(training)[:MAX_CLASSIFIER_ROWS])]
    )
    found = _out_of_fold(x[sample], y[sample], seed)
    if found is None:
        return None
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        model = _classifier(seed).fit(x[sample], y[sample])
        return found[0], model.predict_proba(x[training])[:, 1]


def _out_of_fold(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[float, np.ndarray] | None:
    """(AUC, each row's out-of-fold score) of a classifier telling the `1` rows of `x` from the `0` ones; None
    where either side has fewer than 10 rows."""
    if min(int(y.sum()), int((1 - y).sum())) < 10:
        return None
    scores = out_of_fold_scores(x, y, seed)
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, scores)), scores


def feature_frame(
    rows: pd.DataFrame, reference: pd.DataFrame, skip: tuple[str, ...] = ()
) -> tuple[np.ndarray, np.ndarray] | None:
    """(features, 1 for `rows` / 0 for `reference`) over the shared columns (but `skip`) a classifier can read:
    numbers, and text of few distinct values as codes. A column missing far more often on one side than on the
    other is left out: a blanked column tells the sides apart, not how their rows differ."""
    both = pd.concat([rows, reference], ignore_index=True)
    side = np.concatenate([np.ones(len(rows), dtype=bool), np.zeros(len(reference), dtype=bool)])
    shared = [c for c in rows.columns if c in reference.columns and c not in skip]
    columns = []
    for name in shared[:MAX_CLASSIFIER_COLUMNS]:
        text = both[name].astype(str).str.strip()
        blank = both[name].isna().to_numpy() | text.isin(["", "nan", "NaN", "None"]).to_numpy()
        if abs(blank[side].mean() - blank[~side].mean()) > MAX_BLANK_GAP:
            continue
        numbers = pd.to_numeric(both[name], errors="coerce")
        if numbers.notna().mean() >= 0.9 * (1 - blank.mean()):
            columns.append(numbers.to_numpy(dtype=float))
        elif text.nunique() <= MAX_CATEGORIES:
            columns.append(pd.factorize(text)[0].astype(float))
    if not columns:
        return None
    return np.column_stack(columns), side.astype(float)


def _at_most(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    if len(frame) <= MAX_CLASSIFIER_ROWS:
        return frame
    return frame.iloc[np.sort(rng.permutation(len(frame))[:MAX_CLASSIFIER_ROWS])]


def out_of_fold_scores(x: np.ndarray, y: np.ndarray, seed: int) -> np.ndarray:
    """A gradient-boosted classifier's out-of-fold probabilities that each row is of the `1` side (3 folds), on one
    thread: OpenMP's threads wait spinning on a busy machine (seconds where one thread takes a fraction)."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from threadpoolctl import threadpool_limits

    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=seed)
    with threadpool_limits(limits=1):
        return cross_val_predict(_classifier(seed), x, y, cv=folds, method="predict_proba")[:, 1]


def _classifier(seed: int):  # noqa: ANN202 (scikit-learn's estimator)
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=60, max_leaf_nodes=15, random_state=seed)


def relation_lines(
    split: str,
    train: pd.DataFrame,
    test: pd.DataFrame | None,
    positions: np.ndarray,
    skip: tuple[str, ...] = (),
    kept_mask: np.ndarray | None = None,
) -> list[str]:
    """Two lines, the test beside train.csv and the held-out rows beside the kept ones (`kept_mask`; default:
    every row not held out), in the terms of the split's column (time or key) or, for a split of no column, of
    the features (`skip`: the id and target columns); [] where the test table is not at hand or nothing can be
    measured."""
    if test is None or test.empty:
        return []
    held_mask = np.zeros(len(train), dtype=bool)
    held_mask[positions] = True
    kept_mask = ~held_mask if kept_mask is None else kept_mask & ~held_mask
    held, kept = train[held_mask], train[kept_mask]
    kind, _, column = split.partition(":")
    if column and column in test.columns and kind in ("time", "day", "blocks"):
        return _time_lines(column, train, test, held_mask, kept_mask)
    if column and column in test.columns and kind == "group":
        test_new, held_new = key_share(test[column], train[column]), key_share(held[column], kept[column])
        return [
            f"test rows beside the training rows: {test_new:.0%} have a {column!r} the training rows lack",
            f"held-out rows beside the kept ones: {held_new:.0%} have a {column!r} the kept rows lack",
        ]
    return _feature_lines(train, test, held, kept, skip)


def _time_lines(
    column: str, train: pd.DataFrame, test: pd.DataFrame, held_mask: np.ndarray, kept_mask: np.ndarray
) -> list[str]:
    train_t = epoch_seconds(parse_times(train[column]))
    known = ~np.isnan(train_t)
    test_rel = time_relation(seconds(parse_times(test[column])), train_t[known])
    held_rel = time_relation(train_t[held_mask & known], train_t[kept_mask & known])
    if test_rel is None or held_rel is None:
        return []
    return [
        f"test rows beside the training rows, in {column!r}: {test_rel.describe()}",
        f"held-out rows beside the kept ones, in {column!r}: {held_rel.describe()}",
    ]


def _feature_lines(
    train: pd.DataFrame, test: pd.DataFrame, held: pd.DataFrame, kept: pd.DataFrame, skip: tuple[str, ...]
) -> list[str]:
    if not enough_rows(train, test):
        return []
    test_auc = classifier_auc(test, train, skip)
    held_auc = classifier_auc(held, kept, skip)
    if test_auc is None or held_auc is None:
        return []
    return [
        f"test rows beside the training rows: a classifier tells them apart with AUC {test_auc:.2f} (0.5: alike)",
        f"held-out rows beside the kept ones: AUC {held_auc:.2f}",
    ]
