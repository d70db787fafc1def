"""Is a written submission usable? Checked against the competition's public sample_submission.csv only.

`check_submission(submission, sample)` returns None when the submission has the sample's columns, exactly its
ids (as many rows, none missing, none extra, none repeated) and a value in every target cell; otherwise a
reason a user can read. `constant_predictions` says when every row got the same prediction (a valid file,
but a model that learned nothing: it scores like the sample submission). It needs no answers, so it runs right after a solution, before any grading.
Prefect-free and side-effect free.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.validation import InvalidSubmission, read_submission

MAX_SHOWN = 5
MIN_ROWS_FOR_CONSTANT = 10
# Cells that mean "no value": what the grader treats as missing in label columns, plus the usual spellings
# of a missing number in numeric ones.
MISSING_LABELS = frozenset({"", "nan"})
MISSING_NUMBERS = frozenset({"", "nan", "na", "n/a", "null", "none", "<na>"})


class SampleSubmissionError(ValueError):
    """The sample submission itself cannot be read: the competition's problem, not the solution's."""


def check_submission(
    submission_path: str | Path, sample_submission_path: str | Path, id_column: str | None = None
) -> str | None:
    """Why the submission is invalid, in words a user can read; None when it matches the sample's format.

    `id_column` defaults to the sample's first column. Raises SampleSubmissionError if the sample is unusable.
    """
    sample = read_sample(Path(sample_submission_path))
    id_col = id_column or str(sample.columns[0])
    if id_col not in sample.columns:
        raise SampleSubmissionError(f"the sample submission has no id column {id_col!r}")
    try:
        frame = read_submission(Path(submission_path))
    except InvalidSubmission as exc:
        return str(exc)
    repeated = _repeated_header_names(Path(submission_path))
    if repeated:
        return f"duplicate column(s) {_shown(repeated)}"
    for check in (_columns_problem, _rows_problem, _ids_problem, _values_problem):
        problem = check(frame, sample, id_col)
        if problem:
            return problem
    return None


def read_sample(path: Path) -> pd.DataFrame:
    """The sample submission as strings; SampleSubmissionError when it is missing or unreadable."""
    try:
        sample = read_submission(path)
    except InvalidSubmission as exc:
        raise SampleSubmissionError(f"the sample submission is unusable: {exc}") from None
    if sample.shape[1] < 2:
        raise SampleSubmissionError(f"the sample submission {path} needs an id column and a target column")
    return sample


def _shown(values: list) -> str:
    text = ", ".join(repr(v) for v in values[:MAX_SHOWN])
    return text + (f" and {len(values) - MAX_SHOWN} more" if len(values) > MAX_SHOWN else "")


def _repeated_header_names(path: Path) -> list[str]:
    """Column names the header repeats (pandas would rename them `name.1`, hiding the repeat)."""
    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        header = next(csv.reader(handle), [])
    return sorted({name for name in header if header.count(name) > 1})


def _columns_problem(frame: pd.DataFrame, sample: pd.DataFrame, id_col: str) -> str | None:
    columns = [str(c) for c in frame.columns]
    expected = [str(c) for c in sample.columns]
    missing = [c for c in expected if c not in columns]
    extra = [c for c in columns if c not in expected]
    if not missing and not extra:
        return None
    parts = [f"missing column(s) {_shown(missing)}"] if missing else []
    parts += [f"unexpected column(s) {_shown(extra)}"] if extra else []
    return "; ".join(parts) + f"; the sample submission has exactly {_shown(expected)}"


def _rows_problem(frame: pd.DataFrame, sample: pd.DataFrame, id_col: str) -> str | None:
    if len(frame) == 0:
        return f"it has a header but no rows; the sample submission has {len(sample)}"
    if len(frame) != len(sample):
        return f"it has {len(frame)} rows but the sample submission has {len(sample)}"
    return None


def _ids_problem(frame: pd.DataFrame, sample: pd.DataFrame, id_col: str) -> str | None:
    ids = frame[id_col].str.strip()
    repeated = ids[ids.duplicated()].unique().tolist()
    if repeated:
        return f"duplicate id(s) in {id_col!r}: {_shown(repeated)}"
    expected = sample[id_col].str.strip()
    known, present = set(expected), set(ids)
    unknown = [i for i in ids if i not in known]
    absent = [i for i in expected if i not in present]
    if not unknown and not absent:
        return None
    parts = [f"{len(absent)} id(s) of the sample are missing, e.g. {_shown(absent)}"] if absent else []
    parts += [f"{len(unknown)} id(s) are not in the sample, e.g. {_shown(unknown)}"] if unknown else []
    return f"its {id_col!r} values differ from the sample submission's: " + "; ".join(parts)


def _values_problem(frame: pd.DataFrame, sample: pd.DataFrame, id_col: str) -> str | None:
    for column in (str(c) for c in sample.columns if str(c) != id_col):
        problem = _column_problem(frame[column], column, numeric=_all_numbers(sample[column]))
        if problem:
            return problem
    return None


def _column_problem(values: pd.Series, column: str, numeric: bool) -> str | None:
    """Missing cells in any target column; non-numbers and infinities where the sample holds numbers."""
    cells = values.str.strip()
    missing = cells.str.lower().isin(MISSING_NUMBERS if numeric else MISSING_LABELS)
    if missing.any():
        return f"column {column!r} has {int(missing.sum())} missing/NaN value(s) of {len(cells)}"
    if not numeric:
        return None
    numbers = pd.to_numeric(cells, errors="coerce")
    bad = cells[numbers.isna()].unique().tolist()
    if bad:
        return f"column {column!r} must hold numbers like the sample submission's; found {_shown(bad)}"
    infinite = int(np.isinf(numbers.to_numpy(dtype=float)).sum())
    if infinite:
        return f"column {column!r} has {infinite} infinite value(s)"
    return None


def _all_numbers(values: pd.Series) -> bool:
    cells = values.str.strip()
    return bool(len(cells)) and bool(pd.to_numeric(cells, errors="coerce").notna().all())


def constant_predictions(
    submission_path: str | Path, sample_submission_path: str | Path, id_column: str | None = None
) -> str | None:
    """A sentence when every target column of a (valid) submission holds one value in all its rows (at least
    MIN_ROWS_FOR_CONSTANT rows); None otherwise or when the file cannot be read."""
    try:
        frame = read_submission(Path(submission_path))
        sample = read_sample(Path(sample_submission_path))
    except (InvalidSubmission, SampleSubmissionError):
        return None
    id_col = id_column or str(sample.columns[0])
    targets = [str(c) for c in frame.columns if str(c) != id_col]
    if len(frame) < MIN_ROWS_FOR_CONSTANT or not targets:
        return None
    values = {c: frame[c].str.strip().unique() for c in targets}
    if any(len(v) > 1 for v in values.values()):
        return None
    shown = ", ".join(f"{c}={v[0]!r}" for c, v in list(values.items())[:MAX_SHOWN])
    return (
        f"every one of its {len(frame)} rows has the same prediction ({shown}): the model learned nothing "
        "from the features and scores like a constant guess"
    )
