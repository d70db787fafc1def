"""The rules a submission must follow, shared by the search's check and the grader.

Each rule returns why a submission breaks it, in words a user (or a model) can act on, or None. The grader
(`swarm.competitions.validation`) applies them against the answers and raises `InvalidSubmission`; the search
(`swarm.competitions.submission_check`) applies them against the public sample submission and returns the
reason. One set of rules means the search never accepts a file the grader would reject for its columns, rows,
ids or values. Cells are strings, as `read_submission` gives them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from swarm.competitions.metrics.base import Metric, label_key
from swarm.formats.csv_tables import NA_TOKENS, holds_missing_tokens

MAX_LISTED = 5
MAX_LABELS = 10
BINARY_LABELS = ("0", "1")
# Cells that mean "no value" (compared stripped and lower-cased): in a label column, and in a numeric one.
MISSING_LABELS = frozenset({"", "nan"})
MISSING_NUMBERS = frozenset({"", "nan", "na", "n/a", "null", "none", "<na>"})


def listed(values: list) -> str:
    """The first few `values`, quoted, and how many more there are."""
    shown = ", ".join(repr(v) for v in values[:MAX_LISTED])
    return shown + (f" and {len(values) - MAX_LISTED} more" if len(values) > MAX_LISTED else "")


def duplicate_columns_problem(columns: list[str]) -> str | None:
    duplicated = sorted({c for c in columns if columns.count(c) > 1})
    return f"duplicate column(s) {listed(duplicated)}" if duplicated else None


def columns_problem(columns: list[str], expected: list[str], optional: tuple[str, ...] = ()) -> str | None:
    """Repeated or missing columns (any order of the expected ones is fine; `optional` ones may be there or not).
    Other columns alone are no problem: MLE-bench's graders read the columns they score by name and ignore the
    rest (`swarm.competitions.tolerance` drops them, saying so); beside a missing column they are named, since one
    of them is often the missing one misspelt."""
    repeated = duplicate_columns_problem(columns)
    if repeated:
        return repeated
    missing = [c for c in expected if c not in columns]
    if not missing:
        return None
    extra = [c for c in columns if c not in expected and c not in optional]
    parts = [f"missing column(s) {listed(missing)}"]
    parts += [f"unexpected column(s) {listed(extra)}"] if extra else []
    return "; ".join(parts) + f"; expected {listed(expected)}"


def rows_problem(rows: int, expected: int) -> str | None:
    if rows == 0 and expected:
        return f"submission has a header but no rows, expected {expected}"
    if rows != expected:
        return f"submission has {rows} rows, expected {expected}"
    return None


def ids_problem(ids: pd.Series, expected: pd.Series, id_column: str) -> str | None:
    """Empty, repeated, unknown or missing ids (compared stripped, as text: '1.0' is not '1')."""
    ids = ids.str.strip()
    empty = int((ids == "").sum())
    if empty:
        return f"{empty} row(s) have an empty {id_column!r}"
    repeated = ids[ids.duplicated()].unique().tolist()
    if repeated:
        return f"duplicate id(s) in {id_column!r}: {listed(repeated)}"
    known = expected.str.strip()
    unknown = ids[~ids.isin(set(known))].tolist()  # sets built once: a 100k-row test set stays O(n)
    absent = known[~known.isin(set(ids))].tolist()
    parts = [f"unknown id(s) in {id_column!r}: {listed(unknown)}"] if unknown else []
    parts += [f"missing id(s) in {id_column!r}: {listed(absent)}"] if absent else []
    return "; ".join(parts) or None


def labels_problem(values: pd.Series, column: str) -> str | None:
    """Missing cells in a label (text) column."""
    missing = int(values.str.strip().str.lower().isin(MISSING_LABELS).sum())
    return f"column {column!r} has {missing} missing/NaN value(s) of {len(values)}" if missing else None


def empty_cells(values: pd.Series) -> int:
    """How many cells of a text column are blank (empty once stripped)."""
    return int((values.str.strip() == "").sum())


def grader_scores_missing(*columns) -> bool:
    """Whether the grader scores a missing prediction (as a wrong one) rather than refusing the file: where a
    column of what it reads itself (its answers, its sample submission, the labels) holds a cell pandas reads as
    missing ("NA", "None", "null", a blank: text normalization's tokens), a grader that refused missing cells
    could not grade its own files (MLE-bench's text normalization grader reads both sides with pandas and
    compares them as text: a blank is one wrong token)."""
    return any(holds_missing_tokens(values) for values in columns if values is not None)


def known_cells(y_pred: np.ndarray) -> np.ndarray:
    """The predictions but those a grader reading with pandas sees as missing (scored, as wrong, elsewhere)."""
    return np.asarray([v for v in y_pred if v not in NA_TOKENS], dtype=object)


def numbers_problem(values: pd.Series, column: str) -> str | None:
    """Missing cells, non-numbers and infinities in a numeric column."""
    cells = values.str.strip()
    missing = int(cells.str.lower().isin(MISSING_NUMBERS).sum())
    if missing:
        return f"column {column!r} has {missing} missing/NaN value(s) of {len(cells)}"
    numbers = pd.to_numeric(cells, errors="coerce")
    bad = cells[numbers.isna()].unique().tolist()
    if bad:
        return f"column {column!r} must be numeric; found {listed(bad)}"
    infinite = int(np.isinf(numbers.to_numpy(dtype=float)).sum())
    return f"column {column!r} has {infinite} infinite value(s)" if infinite else None


def as_numbers(values: pd.Series) -> np.ndarray:
    """The numbers of a column that passed `numbers_problem`."""
    return pd.to_numeric(values.str.strip(), errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def range_problem(array: np.ndarray, column: str, metric: Metric) -> str | None:
    """Predictions outside what `metric` accepts: probabilities outside [0, 1], values below its minimum."""
    if metric.probability and ((array < 0).any() or (array > 1).any()):
        outside = array[(array < 0) | (array > 1)]
        return (
            f"column {column!r} must hold probabilities in [0, 1] for {metric.name}; "
            f"{len(outside)} value(s) outside, e.g. {outside[0]:g}"
        )
    if metric.min_prediction is not None:
        low = metric.min_prediction
        bad = array < low if metric.min_inclusive else array <= low
        if bad.any():
            sign = ">=" if metric.min_inclusive else ">"
            return (
                f"column {column!r} must be {sign} {low:g} for {metric.name}; "
                f"{int(bad.sum())} value(s) are not, e.g. {array[bad][0]:g}"
            )
    return None


def allowed_labels_problem(y_pred: np.ndarray, allowed: tuple[str, ...], column: str) -> str | None:
    """A prediction that is not one of the `allowed` class labels (compared by `label_key`: 1 == 1.0)."""
    keys = {label_key(a) for a in allowed}
    bad = [str(v) for v in pd.unique(y_pred) if label_key(v) not in keys]
    if not bad:
        return None
    shown = ", ".join(str(a) for a in allowed[:MAX_LABELS])
    more = f" (and {len(allowed) - MAX_LABELS} more)" if len(allowed) > MAX_LABELS else ""
    return f"column {column!r} must be one of {shown}{more}; found {listed(bad)}"


def declared_labels(metric: Metric, declared: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The labels a label metric's predictions must come from without looking at the answers, if known."""
    if not metric.labels:
        return None
    return BINARY_LABELS if metric.binary_truth else declared or None
