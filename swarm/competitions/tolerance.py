"""The forms of a submission that MLE-bench's graders read past, read as they read them, with a note saying so.

MLE-bench reads a submission with pandas' defaults, and nearly every grader takes the columns it scores by name and
sorts both sides by the id before comparing them. So it scores a file that also holds columns it does not read (a
model's confidence beside its label; a repeated header, which pandas renames `name.1`, the first copy scored),
rows in another order, and numeric ids spelled another way ('1.0' or '007' for 1: pandas reads both id columns as
numbers and compares values). The grader (`swarm.competitions.grading`), the search's check
(`swarm.competitions.submission_check`) and the harness read those forms the same way: the extra columns are
dropped and the ids respelled as the answers (or the sample) spell them, the blank cells a grader fills filled as
it fills them (osic's `Confidence`: 0, `Metric.blank_fills`), and each tolerated form gets a sentence. What the
graders refuse (a missing column, a missing or unknown id, any other missing number) stays refused.

The few graders that refuse extra columns (spooky's shape check, whale's and h-and-m's exact column set) or read
the columns in the file's order (freesound, jigsaw-toxic) never see them: what the run delivers is written in the
sample's columns, order and id spelling (`delivered_form`), rows of class probabilities renormalised as the
multi-class log loss reads them (`renormalised_rows`: several graders refuse rows not summing to 1).
deployments/GRADER_TOLERANCE.md has the survey.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from swarm.competitions.metrics.base import LOGLOSS_EPS, Metric
from swarm.competitions.submission_rules import MISSING_NUMBERS, empty_cells, listed
from swarm.formats.csv_tables import NA_TOKENS

# pandas names the n-th repeat of a header `name.n`.
_REPEAT = re.compile(r"^(?P<name>.+)\.(?P<n>[1-9][0-9]*)$")
# What MLE-bench's text graders make of a cell pandas reads as missing (`astype(str)` of NaN).
MISSING_TEXT = "nan"


@dataclass(frozen=True)
class Tolerated:
    """A submission as the graders read it, and a sentence for each form of it they read past."""

    frame: pd.DataFrame
    notes: tuple[str, ...] = ()


def extra_columns(columns: Sequence[str], expected: Sequence[str], optional: Sequence[str] = ()) -> list[str]:
    """The `columns` that are neither `expected` nor `optional`, in their order."""
    known = {*expected, *optional}
    return [c for c in columns if c not in known]


def extra_columns_note(extra: Sequence[str], columns: Sequence[str]) -> str:
    """The sentence saying that the `extra` columns (of the submission's `columns`) were dropped unread."""
    repeats = [c for c in extra if (m := _REPEAT.match(c)) and m.group("name") in columns]
    why = (
        f" ({listed(repeats)}: a repeated header as pandas reads it, the first copy scored)"
        if repeats
        else ""
    )
    return f"extra column(s) {listed(list(extra))} were ignored, not refused{why}; the grader reads its own"


def numeric_respellings(ids: pd.Series, known: Iterable[str]) -> dict[str, str]:
    """Each id of `ids` (stripped) that is not one of the `known` ids but equals one as a number -> that known id,
    where every id of both reads as a number (pandas then reads both columns as numbers and compares values:
    '1.0' is 1, '007' is 7); {} otherwise, or where two known ids are one number."""
    cells = ids.astype(str).str.strip()
    taken = {str(k).strip() for k in known}
    if cells.isin(taken).all():
        return {}
    spelled = pd.Series(sorted(taken), dtype=object)
    values, known_values = _numbers(cells), _numbers(spelled)
    if values is None or known_values is None or known_values.duplicated().any():
        return {}
    by_value = dict(zip(known_values.tolist(), spelled.tolist(), strict=True))
    pairs = zip(cells.tolist(), values.tolist(), strict=True)
    return {cell: by_value[value] for cell, value in pairs if cell not in taken and value in by_value}


def _numbers(cells: pd.Series) -> pd.Series | None:
    """The cells as floats where every one is a finite number; None otherwise (or where there are none)."""
    if cells.empty:
        return None
    numbers = pd.to_numeric(cells, errors="coerce").astype(float)
    return numbers if bool(np.isfinite(numbers.to_numpy()).all()) else None


def respelled_ids_note(respelled: dict[str, str], id_column: str) -> str:
    """The sentence saying which ids were matched to the known ids they equal as numbers."""
    shown = [f"{cell!r} as {known!r}" for cell, known in respelled.items()]
    return (
        f"{len(respelled)} id(s) in {id_column!r} spelled as other numbers were read as the ids they equal "
        f"({', '.join(shown[:3])}{' ...' if len(shown) > 3 else ''}), as the grader reads both as numbers"
    )


def tolerate(
    frame: pd.DataFrame,
    id_column: str,
    expected: Sequence[str],
    optional: Sequence[str] = (),
    known_ids: Iterable[str] | None = None,
    blank_fills: Mapping[str, str] | None = None,
) -> Tolerated:
    """`frame` (text cells) as the graders read it: without its extra columns where it has every `expected` one
    (else they are left for the column rule to name beside the missing ones), with its numeric ids respelled
    as `known_ids` spell them, and the blank cells of `blank_fills`' columns filled as the grader fills them
    (osic's `Confidence`: 0); with a note for each."""
    notes: list[str] = []
    columns = [str(c) for c in frame.columns]
    extra = extra_columns(columns, expected, optional)
    if extra and all(c in columns for c in expected):
        frame = frame.drop(columns=extra)
        notes.append(extra_columns_note(extra, columns))
    if known_ids is not None and id_column in frame.columns:
        respelled = numeric_respellings(frame[id_column], known_ids)
        if respelled:
            stripped = frame[id_column].astype(str).str.strip()
            frame = frame.assign(**{id_column: stripped.map(lambda c: respelled.get(c, c))})
            notes.append(respelled_ids_note(respelled, id_column))
    for column, value in (blank_fills or {}).items():
        blank = (
            frame[column].astype(str).str.strip().str.lower().isin(MISSING_NUMBERS)
            if column in frame
            else None
        )
        if blank is not None and blank.any():
            frame = frame.assign(**{column: frame[column].where(~blank, value)})
            notes.append(
                f"{int(blank.sum())} blank cell(s) of {column!r} were read as {value}, as the grader fills them"
            )
    return Tolerated(frame, tuple(notes))


def row_keys(frame: pd.DataFrame, columns: Sequence[str]) -> pd.Series:
    """Each row's key: its cells of `columns` (the id, then any key columns) stripped and joined by '|'."""
    cells = frame[list(columns)].astype(str).apply(lambda column: column.str.strip())
    return cells.agg("|".join, axis=1) if len(columns) > 1 else cells.iloc[:, 0]


def in_order(frame: pd.DataFrame, keys: pd.Series, order: Sequence[str]) -> pd.DataFrame:
    """The rows of `frame` (whose keys are `keys`) in the `order` of keys, where they are exactly those keys;
    `frame` as it is otherwise (for the id rules to report). For the graders that pair rows by position
    (nomad2018's; uw-madison's and smartphone-decimeter's within the answers' order)."""
    if not keys.is_unique or set(keys) != set(order):
        return frame
    position = pd.Series(range(len(keys)), index=keys.to_numpy())
    return frame.iloc[position.loc[list(order)].to_numpy()]


def delivered_form(
    frame: pd.DataFrame, sample: pd.DataFrame, id_column: str, key_columns: Sequence[str] = ()
) -> pd.DataFrame:
    """A valid submission `frame` (text) as it is delivered: the sample's columns in the sample's order (for the
    graders that refuse other columns or read them in the file's order), its ids stripped, and its rows in the
    sample's order of keys (the id, and `key_columns` where the id repeats) where it holds exactly the
    sample's; `frame` as it is where it lacks one of the sample's columns."""
    columns = [str(c) for c in sample.columns]
    if not all(c in frame.columns for c in columns):
        return frame
    shaped = frame[columns].assign(**{id_column: frame[id_column].astype(str).str.strip()})
    keyed_by = [id_column, *key_columns]
    ordered = in_order(shaped, row_keys(shaped, keyed_by), row_keys(sample, keyed_by).tolist())
    return ordered.reset_index(drop=True)


ROW_SUM_TOLERANCE = 1e-6  # a probability row summing to 1 within this is left as written
RENORMALISING_METRICS = ("multiclass_logloss",)  # metrics that clip and renormalise each row of probabilities


def renormalised_rows(
    frame: pd.DataFrame, metric: Metric, targets: Sequence[str]
) -> tuple[pd.DataFrame, str]:
    """`frame` (text) with each row of class probabilities that does not sum to 1 clipped and renormalised as
    the metric itself reads it (Kaggle's rule), and a sentence saying how many, or "" when none was: the graders
    of spooky, dog-breed, leaf and lmsys refuse such rows, which ours scores, so the delivered file carries what
    was scored."""
    columns = [c for c in targets if c in frame.columns]
    if metric.name not in RENORMALISING_METRICS or len(columns) < 2:
        return frame, ""
    values = frame[columns].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    if np.isnan(values).any():
        return frame, ""  # not numbers: the check says so
    off = np.abs(values.sum(axis=1) - 1.0) > ROW_SUM_TOLERANCE
    if not off.any():
        return frame, ""
    clipped = np.clip(values[off], LOGLOSS_EPS, 1 - LOGLOSS_EPS)
    fixed = frame.copy()
    fixed.loc[off, columns] = (clipped / clipped.sum(axis=1, keepdims=True)).astype(str)
    return fixed, (
        f"{int(off.sum())} row(s) of probabilities not summing to 1 were renormalised as {metric.name} reads "
        "them, since some graders refuse such rows"
    )


def missing_alike(cells: np.ndarray) -> np.ndarray:
    """Text cells with each one pandas reads as missing ("", "NA", "None", "null", ...) made one value, as
    MLE-bench's text graders see them (both sides read with pandas' defaults, then `astype(str)`: every one is
    'nan'): a blank prediction is right where the answer is such a token, wrong elsewhere."""
    return np.asarray([MISSING_TEXT if c in NA_TOKENS else c for c in cells], dtype=object)


def blank_predictions_note(rows: pd.DataFrame, metric: Metric, targets: Sequence[str]) -> str | None:
    """A sentence on the blank predictions of text columns that were scored (as a missing value: right only where
    the answer is one too) rather than refused, or None when there were none or blanks are predictions."""
    if metric.numeric or metric.empty_ok:  # a blank number is refused; a blank mask is a prediction
        return None
    counts = {c: empty_cells(rows[c]) for c in targets if c in rows.columns}
    shown = ", ".join(f"{n} in {c!r}" for c, n in counts.items() if n)
    if not shown:
        return None
    return (
        f"blank predictions ({shown}, of {len(rows)} scored rows) were scored, not refused: as a missing value, "
        "wrong unless the answer is one too ('NA', 'None', ... as pandas reads them)"
    )


def joined(notes: Iterable[str]) -> str | None:
    """The notes as one sentence, or None when there are none."""
    text = "; ".join(n for n in notes if n)
    return text or None
