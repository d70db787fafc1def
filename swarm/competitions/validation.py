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
from swarm.competitions.metrics import Metric

MAX_LISTED = 5
MAX_LABELS = 10


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


def read_answers(path: Path, spec: MetricSpec) -> pd.DataFrame:
    """The answers (id and target columns) as strings; a problem here is the competition's, not the agent's."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CompetitionError(f"answers {path} are not a readable CSV: {exc}") from exc
    missing = [c for c in (spec.id_column, *spec.target_columns) if c not in frame.columns]
    if missing:
        raise CompetitionError(f"answers {path} lack column(s) {_listed(missing)}")
    if frame[spec.id_column].duplicated().any():
        raise CompetitionError(f"answers {path} hold duplicate ids in {spec.id_column!r}")
    return frame[[spec.id_column, *spec.target_columns]]


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


def _label_key(label: str) -> float | str:
    """What a label is compared by: its number when it reads as a finite one (`1`, `1.0`), else its text."""
    try:
        number = float(label)
    except ValueError:
        return label
    return number if np.isfinite(number) else label


def _check_labels(y_pred: np.ndarray, allowed: tuple[str, ...], column: str) -> None:
    """Every prediction must be one of the allowed class labels (compared as `_label_key`)."""
    keys = {_label_key(str(a)) for a in allowed}
    bad = [v for v in pd.unique(y_pred) if _label_key(str(v)) not in keys]
    if bad:
        shown = ", ".join(str(a) for a in allowed[:MAX_LABELS])
        more = f" (and {len(allowed) - MAX_LABELS} more)" if len(allowed) > MAX_LABELS else ""
        raise InvalidSubmission(f"column {column!r} must be one of {shown}{more}; found {_listed(bad)}")


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
            empty = raw.str.strip().isin(["", "nan", "NaN"])
            if empty.any():
                raise InvalidSubmission(f"column {column!r} has {int(empty.sum())} missing/NaN value(s)")
            y_pred = raw.str.strip().to_numpy()
            y_true = ans[column].str.strip().to_numpy()
            if metric.labels:
                _check_labels(y_pred, spec.labels.get(column) or tuple(pd.unique(y_true)), column)
        aligned.append(AlignedColumns(column=column, y_true=y_true, y_pred=y_pred))
    return aligned
