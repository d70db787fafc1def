"""Metrics over space-separated labels or words in text cells: Kaggle's MAP@k of ranked labels, the micro F1
of label sets and the Jaccard index of word sets. An empty cell (None, NaN) holds no label.
"""

from __future__ import annotations

import numpy as np

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics.base import Metric, cell_text

DEFAULT_MAP_K = 5


def _map_at_k(y_true: np.ndarray, y_pred: np.ndarray, k: int = DEFAULT_MAP_K) -> float:
    """Kaggle's MAP@k: per row, sum of precision@i at each new hit in the first k, over min(|truth|, k)."""
    scores = []
    for truth, ranked in zip(np.ravel(y_true), np.ravel(y_pred), strict=True):
        actual = set(str(truth).split())
        if not actual:
            raise CompetitionError("map_at_k: an answer is empty")
        predicted = str(ranked).split()[:k]
        hits, total = 0, 0.0
        for i, label in enumerate(predicted):
            if label in actual and label not in predicted[:i]:
                hits += 1
                total += hits / (i + 1)
        scores.append(total / min(len(actual), k))
    return float(np.mean(scores))


def _label_sets(values: np.ndarray) -> list[set[str]]:
    return [set(cell_text(cell).split()) for cell in np.ravel(values)]


def _multilabel_f1_micro(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Micro F1 over (row, label) pairs of space-separated label sets, as MLE-bench grades it (sklearn's
    MultiLabelBinarizer whose classes are the answers' labels): a predicted label that no answer holds is
    dropped, not counted as a false positive; repeats in a cell count once."""
    truth, pred = _label_sets(y_true), _label_sets(y_pred)
    classes = set().union(*truth)
    if not classes:
        raise CompetitionError("multilabel_f1_micro: the answers hold no label at all, so F1 is undefined")
    tp = fp = fn = 0
    for actual, predicted in zip(truth, pred, strict=True):
        predicted &= classes
        hits = len(actual & predicted)
        tp, fp, fn = tp + hits, fp + len(predicted) - hits, fn + len(actual) - hits
    return 2 * tp / (2 * tp + fp + fn)


def _word_jaccard(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over rows of |A & B| / |A | B| of the rows' lower-cased word sets (words split on whitespace); a
    row where both are empty counts 0 (sklearn's jaccard_score, as chaii-hindi-and-tamil-question-answering
    grades; tweet-sentiment-extraction's grade.py divides by zero there)."""
    scores = []
    for truth, pred in zip(np.ravel(y_true), np.ravel(y_pred), strict=True):
        a, b = set(cell_text(pred).lower().split()), set(cell_text(truth).lower().split())
        union = len(a | b)
        scores.append(len(a & b) / union if union else 0.0)
    return float(np.mean(scores))


# ---- the library's entries -----------------------------------------------------------------------------------

ENTRIES: tuple[Metric, ...] = (
    Metric(
        "map_at_k",
        False,
        _map_at_k,
        "MAP@k = (1/N) * sum_i (1/min(|y_i|, k)) * sum_{j<=k} precision@j * [p_ij is a new hit]",
        numeric=False,
        ranked=True,
        params={"k": DEFAULT_MAP_K},
        aliases=("map", "mapk", "map@k", "mean_average_precision", "mean_average_precision_at_k"),
    ),
    Metric(
        "multilabel_f1_micro",
        False,
        _multilabel_f1_micro,
        "micro F1 = 2 TP / (2 TP + FP + FN) over all (row, label) pairs of space-separated label sets; a "
        "predicted label no answer holds is ignored",
        numeric=False,
        empty_ok=True,
        aliases=(
            "f1_micro_multilabel",
            "micro_f1_multilabel",
            "multilabel_micro_f1",
            "multilabel_f1",
            "multi_label_f1",
            "multi_label_f1_micro",
            "f1_micro_label_sets",
            "label_set_f1",
        ),
    ),
    Metric(
        "word_jaccard",
        False,
        _word_jaccard,
        "Jaccard = (1/N) * sum_i |A_i & B_i| / |A_i | B_i| of the lower-cased word sets of prediction and "
        "answer (0 where both are empty)",
        numeric=False,
        empty_ok=True,
        aliases=(
            "jaccard",
            "word_level_jaccard",
            "word_level_jaccard_score",
            "word_jaccard_score",
            "jaccard_score",
            "mean_jaccard",
            "jaccard_similarity",
        ),
    ),
)
