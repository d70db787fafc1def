"""Metrics over sequences and point sets written in text cells, as MLE-bench's graders score them.

- `kendall_tau` (AI4Code): each cell orders a row's ids (space-separated); the swaps of adjacent ids that sort
  the predicted order into the true one, summed over all rows, against the worst case n(n-1)/2 a row.
- `mean_levenshtein` (bms-molecular-translation, billion-word-imputation): the mean over rows of the edit
  distance between the predicted and the true text.
- `token_error_rate` (multi-modal-gesture-recognition): edit distances between sequences of whole-number
  labels, summed over rows and divided by the number of true labels.
- `answer_span_f1` (tensorflow2-question-answering): a prediction per row, a span `<start>:<end>` of token
  indices, `YES`, `NO` or blank, right where it is one of the row's true answers (a blank right where there is
  none); micro F1 of the grader's 0/1 pairs over all rows.
- `point_in_box_f1` (kuzushiji-recognition): true boxes `<label> x y w h` against predicted centre points
  `<label> x y`, each box taking the first unused point of its label strictly inside it; F1 over all rows.

Each function takes the answers and the predictions as 1-D arrays of cells (text; None or NaN is an empty cell)
and returns a float. A problem of the answers is a `CompetitionError`; a problem of the predictions alone an
`InvalidPrediction`, which grading reports as an invalid submission.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from swarm.competitions.metrics.base import Metric, cell_text, fault, shown, text_rows

# ---- edit distance -------------------------------------------------------------------------------------------


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """The Levenshtein distance between two sequences (strings: of characters; lists: of their items): the
    fewest insertions, deletions and substitutions of one item that turn one into the other.

    Myers' bit-vector algorithm (in Hyyrö's form for the global distance): the dynamic programme's column over
    the shorter sequence is kept as bits of two Python integers (its +1 and -1 steps), updated once per item of
    the longer one. That is the O(n * m) table at a machine word's worth of cells per operation, in O(n + m)
    bits of memory.
    """
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    matches: dict[Hashable, int] = {}  # item -> the bits of its positions in b
    for i, item in enumerate(b):
        matches[item] = matches.get(item, 0) | (1 << i)
    full, last = (1 << m) - 1, 1 << (m - 1)
    plus, minus, distance = full, 0, m  # the column's steps down: all +1 (D[i][0] = i)
    for item in a:
        eq = matches.get(item, 0)
        xv = eq | minus
        xh = (((eq & plus) + plus) ^ plus) | eq
        h_plus = minus | ~(xh | plus)
        h_minus = plus & xh
        if h_plus & last:
            distance += 1
        elif h_minus & last:
            distance -= 1
        h_plus = (h_plus << 1) | 1  # the top row D[0][j] = j steps +1
        h_minus <<= 1
        plus = (h_minus | ~(xv | h_plus)) & full
        minus = h_plus & xv & full
    return distance


def mean_levenshtein(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean over rows of the Levenshtein distance between the predicted and the true text, character by
    character, the texts as they are (case and inner spaces count); an empty cell is the empty text."""
    return float(np.mean([levenshtein(truth, pred) for truth, pred in text_rows(y_true, y_pred)]))


def _labels(name: str, cell: str, *, answers: bool) -> list[int]:
    """The whole-number labels of a cell "3 1 20" (as multi-modal-gesture-recognition's grade.py reads them,
    by int(): "01" is 1); an empty cell is refused, as that grade.py refuses it."""
    tokens = cell.split()
    if not tokens:
        raise fault(
            name, answers, "hold an empty cell; each must be a space-separated list of whole-number labels"
        )
    try:
        return [int(token) for token in tokens]
    except ValueError:
        raise fault(
            name, answers, f"must be space-separated whole-number labels, found {shown(cell)!r}"
        ) from None


def token_error_rate(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """The Levenshtein distances between the predicted and the true sequences of whole-number labels (an edit
    is one whole label), summed over rows, divided by the number of true labels in all rows; can exceed 1."""
    name = "token_error_rate"
    edits = labels = 0
    for truth, pred in text_rows(y_true, y_pred):
        true_labels = _labels(name, truth, answers=True)
        edits += levenshtein(true_labels, _labels(name, pred, answers=False))
        labels += len(true_labels)
    return edits / labels


# ---- orders --------------------------------------------------------------------------------------------------


def _inversions(ranks: list[int]) -> int:
    """The pairs out of order in `ranks` (a permutation of 0..n-1): the swaps of adjacent entries that sort
    it. A Fenwick tree of the ranks seen so far: O(n log n)."""
    n = len(ranks)
    tree = [0] * (n + 1)
    inverted = 0
    for seen, rank in enumerate(ranks):
        i, below = rank + 1, 0  # how many seen so far rank below this one
        while i > 0:
            below += tree[i]
            i -= i & -i
        inverted += seen - below
        i = rank + 1
        while i <= n:
            tree[i] += 1
            i += i & -i
    return inverted


def kendall_tau(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """AI4Code's Kendall tau: 1 - 4 * (swaps of adjacent ids sorting each predicted order into the true one,
    summed over rows) / (sum over rows of n(n-1)), n the ids of a row. A prediction must list exactly the ids
    of its row's answer, each once (grade.py fails on any other)."""
    name = "kendall_tau"
    inverted = pairs = 0
    for truth, pred in text_rows(y_true, y_pred):
        true_ids = truth.split()
        position = {item: i for i, item in enumerate(true_ids)}
        if not true_ids:
            raise fault(name, answers=True, problem="hold an empty order")
        if len(position) != len(true_ids):
            raise fault(name, answers=True, problem=f"repeat an id within one order: {shown(truth)!r}")
        ids = pred.split()
        given = set(ids)
        missing = [item for item in true_ids if item not in given]
        unknown = [item for item in ids if item not in position]
        if len(ids) != len(true_ids) or missing or unknown:
            problem = (
                f"must order exactly the {len(true_ids)} ids of the row's answer, each once; found {len(ids)}"
            )
            if missing:
                problem += f", missing {', '.join(map(repr, missing[:3]))}"
            if unknown:
                problem += f", unknown {', '.join(map(repr, unknown[:3]))}"
            raise fault(name, answers=False, problem=f"{problem}: {shown(pred)!r}")
        inverted += _inversions([position[item] for item in ids])
        pairs += len(true_ids) * (len(true_ids) - 1)
    if not pairs:
        raise fault(name, answers=True, problem="order at most one id a row, so Kendall tau is undefined")
    return 1 - 4 * inverted / pairs


# ---- points in boxes -----------------------------------------------------------------------------------------


def _groups(name: str, cell: str, size: int, *, answers: bool) -> tuple[list[str], np.ndarray]:
    """A cell of `<label> number ...` groups of `size` tokens: (labels, numbers as a (groups, size - 1) array);
    an empty cell holds none."""
    tokens = cell.split()
    what = "'<label> x y w h' boxes" if answers else "'<label> x y' points"
    if len(tokens) % size:
        raise fault(
            name,
            answers,
            f"must be {what} ({size} tokens each), found {len(tokens)} tokens in {shown(cell)!r}",
        )
    numbers = [token for i, token in enumerate(tokens) if i % size]
    try:
        values = np.array([float(token) for token in numbers], dtype=float).reshape(-1, size - 1)
    except ValueError:
        raise fault(name, answers, f"must be {what} with numbers after each label: {shown(cell)!r}") from None
    return tokens[::size], values


def _page(name: str, truth: str, pred: str) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) of one row: each true box, in order, takes the first
    unused predicted point of its label strictly inside it (kuzushiji's score_page)."""
    box_labels, boxes = _groups(name, truth, 5, answers=True)
    point_labels, points = _groups(name, pred, 3, answers=False)
    by_label: dict[str, list[int]] = {}
    for i, label in enumerate(point_labels):
        by_label.setdefault(label, []).append(i)
    candidates = {label: np.array(indices) for label, indices in by_label.items()}
    used = np.zeros(len(point_labels), dtype=bool)
    hits = 0
    for label, (x, y, width, height) in zip(box_labels, boxes, strict=True):
        indices = candidates.get(label)
        if indices is None:
            continue
        px, py = points[indices, 0], points[indices, 1]
        inside = (x < px) & (px < x + width) & (y < py) & (py < y + height) & ~used[indices]
        first = int(np.argmax(inside))
        if inside[first]:
            used[indices[first]] = True
            hits += 1
    return hits, len(point_labels) - hits, len(box_labels) - hits


def point_in_box_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """kuzushiji-recognition's F1: true positives, false positives and false negatives of every row (`_page`)
    summed, F1 = 2 TP / (2 TP + FP + FN), 0 without a true positive. An empty cell holds no box or no point."""
    name = "point_in_box_f1"
    tp = fp = fn = 0
    for truth, pred in text_rows(y_true, y_pred):
        hits, extra, missed = _page(name, truth, pred)
        tp, fp, fn = tp + hits, fp + extra, fn + missed
    if tp + fn == 0:
        raise fault(name, answers=True, problem="hold no box at all, so recall (and F1) is undefined")
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def box_centres(cell: Any) -> str:
    """The points a perfect kuzushiji submission gives for an answer cell of `<label> x y w h` boxes: each box's
    label and centre (`<label> x+w/2 y+h/2`), so that the harness can check the held-out boxes are scorable."""
    labels, boxes = _groups("point_in_box_f1", cell_text(cell), 5, answers=True)
    return " ".join(
        f"{label} {x + width / 2:g} {y + height / 2:g}"
        for label, (x, y, width, height) in zip(labels, boxes, strict=True)
    )


# ---- answer spans --------------------------------------------------------------------------------------------

_YES_NO = ("YES", "NO")


def _answer(name: str, token: str, *, answers: bool) -> str:
    """A span `<start>:<end>` of whole numbers (canonical: `int()` of each), `YES` or `NO`."""
    if token in _YES_NO:
        return token
    parts = token.split(":")
    try:
        if len(parts) == 2:
            return f"{int(parts[0])}:{int(parts[1])}"
    except ValueError:
        pass
    raise fault(name, answers, f"must be '<start>:<end>' token spans, YES or NO, found {shown(token)!r}")


def answer_span_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """tensorflow2-question-answering's micro F1, as its grade.py computes it: each row's answer cell lists
    the true answers (space-separated spans `<start>:<end>`, `YES`, `NO`; blank: none), its prediction is one
    of them or blank; y_pred is 1 for a prediction, y_true 1 where a prediction is a true answer or a blank
    faces one; sklearn's micro-averaged F1 of those pairs (the share of rows predicted right)."""
    name = "answer_span_f1"
    truths, preds = [], []
    for truth, pred in text_rows(y_true, y_pred):
        valid = {_answer(name, token, answers=True) for token in truth.split()}
        pred = pred.strip()
        if pred:
            truths.append(int(_answer(name, pred, answers=False) in valid))
        else:
            truths.append(int(bool(valid)))
        preds.append(int(bool(pred)))
    return float(np.mean(np.array(truths) == np.array(preds)))


def first_answer(cell: Any) -> str:
    """The prediction a perfect tensorflow2-question-answering submission makes for an answer cell: its first
    true answer, or blank where it has none (so that the harness can check held-out answers are scorable)."""
    tokens = cell_text(cell).split()
    return tokens[0] if tokens else ""


# ---- the library's entries -----------------------------------------------------------------------------------

ENTRIES: tuple[Metric, ...] = (
    Metric(
        "kendall_tau",
        False,
        kendall_tau,
        "Kendall tau = 1 - 4 * sum_i S_i / sum_i n_i (n_i - 1), S_i the swaps of adjacent ids that sort row i's "
        "predicted order of its n_i space-separated ids into the true order (each prediction lists them all once)",
        numeric=False,
        aliases=(
            "kendall",
            "kendalls_tau",
            "kendall's_tau",
            "kendall_tau_correlation",
            "kendall_rank_correlation",
            "order_kendall_tau",
        ),
    ),
    Metric(
        "mean_levenshtein",
        True,
        mean_levenshtein,
        "mean Levenshtein = (1/N) * sum_i Levenshtein(p_i, y_i), the fewest one-character insertions, deletions "
        "and substitutions turning the predicted text into the true one",
        numeric=False,
        empty_ok=True,
        aliases=(
            "levenshtein",
            "levenshtein_distance",
            "mean_levenshtein_distance",
            "average_levenshtein_distance",
            "edit_distance",
            "mean_edit_distance",
        ),
    ),
    Metric(
        "token_error_rate",
        True,
        token_error_rate,
        "token error rate = sum_i Levenshtein(P_i, Y_i) / sum_i |Y_i| over sequences of space-separated "
        "whole-number labels, an edit being one whole label (can exceed 1)",
        numeric=False,
        aliases=(
            "sequence_error_rate",
            "levenshtein_error_rate",
            "gesture_error_rate",
            "edit_distance_rate",
            "summed_levenshtein_rate",
        ),
    ),
    Metric(
        "answer_span_f1",
        False,
        answer_span_f1,
        "micro F1 = share of rows predicted right: a prediction ('<start>:<end>' token span, YES or NO) is right "
        "where it is one of the row's space-separated true answers, a blank where the row has none "
        "(tensorflow2-question-answering's grade.py)",
        numeric=False,
        empty_ok=True,
        perfect=first_answer,
        aliases=("nq_micro_f1", "natural_questions_f1", "answer_f1", "span_micro_f1", "qa_micro_f1"),
    ),
    Metric(
        "point_in_box_f1",
        False,
        point_in_box_f1,
        "F1 = 2 TP / (2 TP + FP + FN) over all rows: each true box '<label> x y w h', in order, takes the first "
        "unused predicted point '<label> x y' of its label strictly inside it (x < px < x + w, y < py < y + h)",
        numeric=False,
        empty_ok=True,
        perfect=box_centres,
        aliases=(
            "kuzushiji_f1",
            "center_point_f1",
            "centre_point_f1",
            "point_box_f1",
            "points_in_boxes_f1",
        ),
    ),
)
