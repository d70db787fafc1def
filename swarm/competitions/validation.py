"""Checking a submission against the sample submission and the answers before it is scored.

Every check that fails raises `InvalidSubmission` with a reason a person can act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics import Metric, get_metric, label_key

MAX_LISTED = 5
MAX_LABELS = 10
MISSING = ("", "nan", "NaN")
BINARY_LABELS = ("0", "1")


class InvalidSubmission(Exception):
    """The submission cannot be scored; `str(exc)` is the reason."""


@dataclass(frozen=True)
class AlignedColumns:
    """Answers and predictions of one target column, in the same id order."""

    column: str
    y_true: np.ndarray
    y_pred: np.ndarray


def _listed(values: list) -> str:
    shown = ", ".join(repr(v) for v in values[:MAX_LISTED])
    return shown + (f" and {len(values) - MAX_LISTED} more" if len(values) > MAX_LISTED else "")


def read_submission(path: Path) -> pd.DataFrame:
    """The submission as a frame of strings; a missing or unreadable file is invalid."""
    if not path.exists():
        raise InvalidSubmission(f"submission file {path} does not exist")
    if not path.is_file():
        raise InvalidSubmission(f"submission {path} is not a file")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError as exc:
        raise InvalidSubmission(f"submission {path} is empty") from exc
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InvalidSubmission(f"submission {path} is not a readable CSV: {exc}") from exc
    return frame


def as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with text column names and text cells, missing cells as "" (as `read_submission` gives)."""
    is_text = all(pd.api.types.is_string_dtype(frame.iloc[:, i]) for i in range(frame.shape[1]))
    is_text = is_text and not frame.isna().to_numpy().any()
    text = frame.copy() if is_text else frame.astype(object).where(frame.notna(), "").astype(str)
    text.columns = [str(c) for c in frame.columns]
    return text


def read_answers(path: Path, spec: MetricSpec) -> pd.DataFrame:
    """The answers (id and target columns) as strings; a problem here is the competition's, not the agent's."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CompetitionError(f"answers {path} are not a readable CSV: {exc}") from exc
    return answer_table(frame, spec, source=f"answers {path}")


def answer_table(frame: pd.DataFrame, spec: MetricSpec, source: str = "the answers") -> pd.DataFrame:
    """The id and target columns of the answers `frame`; a problem is a CompetitionError naming `source`.

    For a metric whose target columns are classes (multiclass_logloss), answers may instead hold one label
    column (metric param `label_column`, else the one column besides the id): they are made one-hot here.
    """
    metric = get_metric(spec.name)
    params = metric.resolve_params(spec.params)
    frame = as_text(frame)
    if spec.id_column not in frame.columns:
        raise CompetitionError(f"{source} lack the id column {spec.id_column!r}")
    if frame[spec.id_column].str.strip().duplicated().any():
        raise CompetitionError(f"{source} hold duplicate ids in {spec.id_column!r}")
    missing = [c for c in spec.target_columns if c not in frame.columns]
    if missing and metric.class_columns:
        return _one_hot_answers(frame, spec, params.get("label_column") or "", source)
    if missing:
        raise CompetitionError(f"{source} lack column(s) {_listed(missing)}")
    return frame[[spec.id_column, *spec.target_columns]]


def _one_hot_answers(frame: pd.DataFrame, spec: MetricSpec, label_column: str, source: str) -> pd.DataFrame:
    """Class-label answers (one label column) as one-hot answers in the class columns `spec.target_columns`."""
    if not label_column:
        others = [c for c in frame.columns if c != spec.id_column and c not in spec.target_columns]
        if len(others) != 1:
            raise CompetitionError(
                f"{source} hold neither the class columns {_listed(list(spec.target_columns))} nor a single "
                f"label column (found {_listed(others)}); name it with the metric param `label_column`"
            )
        label_column = others[0]
    if label_column not in frame.columns:
        raise CompetitionError(f"{source} lack the label column {label_column!r}")
    labels = frame[label_column].str.strip()
    unknown = sorted(set(labels) - set(spec.target_columns))
    if unknown:
        raise CompetitionError(
            f"{source} hold label(s) {_listed(unknown)} in {label_column!r} that are not class columns of the "
            f"submission ({_listed(list(spec.target_columns))})"
        )
    one_hot = {c: np.where(labels == c, "1", "0") for c in spec.target_columns}
    return pd.DataFrame({spec.id_column: frame[spec.id_column].to_numpy(), **one_hot}, index=frame.index)


def _check_columns(frame: pd.DataFrame, expected: list[str]) -> None:
    columns = [str(c) for c in frame.columns]
    duplicated = sorted({c for c in columns if columns.count(c) > 1})
    if duplicated:
        raise InvalidSubmission(f"duplicate column(s) {_listed(duplicated)}")
    missing = [c for c in expected if c not in columns]
    extra = [c for c in columns if c not in expected]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing column(s) {_listed(missing)}")
        if extra:
            parts.append(f"unexpected column(s) {_listed(extra)}")
        raise InvalidSubmission("; ".join(parts) + f"; expected exactly {_listed(expected)}")


def _check_ids(submitted: pd.Series, answers: pd.Series, id_column: str) -> None:
    ids = submitted.str.strip()
    if (ids == "").any():
        raise InvalidSubmission(f"{int((ids == '').sum())} row(s) have an empty {id_column!r}")
    dup = ids[ids.duplicated()].unique().tolist()
    if dup:
        raise InvalidSubmission(f"duplicate id(s) in {id_column!r}: {_listed(dup)}")
    expected = set(answers.str.strip())
    unknown = [i for i in ids if i not in expected]
    if unknown:
        raise InvalidSubmission(f"unknown id(s) in {id_column!r}: {_listed(unknown)}")
    present = set(ids)
    absent = [i for i in answers.str.strip() if i not in present]
    if absent:
        raise InvalidSubmission(f"missing id(s) in {id_column!r}: {_listed(absent)}")


def _as_numbers(values: pd.Series, column: str) -> np.ndarray:
    numbers = pd.to_numeric(values.str.strip(), errors="coerce")
    bad = values[numbers.isna() & ~values.str.strip().str.lower().isin(["nan", "", "na", "null"])]
    if not bad.empty:
        raise InvalidSubmission(f"column {column!r} must be numeric; found {_listed(bad.unique().tolist())}")
    array = numbers.to_numpy(dtype=float, na_value=np.nan)
    if np.isnan(array).any():
        raise InvalidSubmission(f"column {column!r} has {int(np.isnan(array).sum())} missing/NaN value(s)")
    if np.isinf(array).any():
        raise InvalidSubmission(f"column {column!r} has {int(np.isinf(array).sum())} infinite value(s)")
    return array


def _check_range(array: np.ndarray, column: str, metric: Metric) -> None:
    if metric.probability and ((array < 0).any() or (array > 1).any()):
        outside = array[(array < 0) | (array > 1)]
        raise InvalidSubmission(
            f"column {column!r} must hold probabilities in [0, 1] for {metric.name}; "
            f"{len(outside)} value(s) outside, e.g. {outside[0]:g}"
        )
    if metric.min_prediction is not None:
        low = metric.min_prediction
        bad = array < low if metric.min_inclusive else array <= low
        if bad.any():
            sign = ">=" if metric.min_inclusive else ">"
            raise InvalidSubmission(
                f"column {column!r} must be {sign} {low:g} for {metric.name}; "
                f"{int(bad.sum())} value(s) are not, e.g. {array[bad][0]:g}"
            )


def _check_labels(y_pred: np.ndarray, allowed: tuple[str, ...], column: str) -> None:
    """Every prediction must be one of the allowed class labels (compared by `label_key`: 1 == 1.0)."""
    keys = {label_key(a) for a in allowed}
    bad = [str(v) for v in pd.unique(y_pred) if label_key(v) not in keys]
    if bad:
        shown = ", ".join(str(a) for a in allowed[:MAX_LABELS])
        more = f" (and {len(allowed) - MAX_LABELS} more)" if len(allowed) > MAX_LABELS else ""
        raise InvalidSubmission(f"column {column!r} must be one of {shown}{more}; found {_listed(bad)}")


def _text_column(raw: pd.Series, column: str) -> np.ndarray:
    """The stripped text of a label column; an empty or NaN cell is invalid."""
    values = raw.str.strip()
    empty = values.isin(MISSING)
    if empty.any():
        raise InvalidSubmission(f"column {column!r} has {int(empty.sum())} missing/NaN value(s)")
    return values.to_numpy()


def align(
    submission: pd.DataFrame, answers: pd.DataFrame, spec: MetricSpec, metric: Metric
) -> list[AlignedColumns]:
    """Validate `submission` against `answers` and pair them up column by column."""
    _check_columns(submission, [spec.id_column, *spec.target_columns])
    if len(submission) != len(answers):
        raise InvalidSubmission(f"submission has {len(submission)} rows, expected {len(answers)}")
    _check_ids(submission[spec.id_column], answers[spec.id_column], spec.id_column)
    sub = submission.assign(**{spec.id_column: submission[spec.id_column].str.strip()}).set_index(
        spec.id_column
    )
    ans = answers.assign(**{spec.id_column: answers[spec.id_column].str.strip()}).set_index(spec.id_column)
    sub = sub.loc[ans.index]
    aligned = []
    for column in spec.target_columns:
        raw = sub[column]
        if metric.numeric:
            y_pred = _as_numbers(raw, column)
            _check_range(y_pred, column, metric)
            try:
                y_true = _as_numbers(ans[column], column)
            except InvalidSubmission as exc:
                raise CompetitionError(f"the answers are unusable: {exc}") from exc
        else:
            y_pred, y_true = _text_column(raw, column), ans[column].str.strip().to_numpy()
            declared = spec.labels.get(column)
            if metric.labels:
                allowed = BINARY_LABELS if metric.binary_truth else declared or tuple(pd.unique(y_true))
                _check_labels(y_pred, allowed, column)
            elif metric.ranked and declared:
                _check_labels(np.array([t for cell in y_pred for t in cell.split()]), declared, column)
        aligned.append(AlignedColumns(column=column, y_true=y_true, y_pred=y_pred))
    return aligned
