"""Checking a submission against the answers before it is scored: the grader's adapter of the shared rules.

The rules themselves (columns, rows, ids, missing and non-numeric values, ranges, labels) live in
`swarm.competitions.submission_rules`, which the search's check applies too. Every check that fails raises
`InvalidSubmission` with a reason a person can act on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics import Metric, get_metric
from swarm.competitions.submission_rules import (
    BINARY_LABELS,
    allowed_labels_problem,
    as_numbers,
    columns_problem,
    grader_scores_missing,
    ids_problem,
    known_cells,
    labels_problem,
    listed,
    numbers_problem,
    range_problem,
    rows_problem,
)
from swarm.competitions.tolerance import missing_alike
from swarm.layouts.qa.reader import answer_frame

CLOSED_LABEL_SET = 200
"""At most this many distinct answers are a closed set of classes a prediction must be one of; more are free text
(text normalization's spelled-out tokens), where an answer no row has is simply wrong, not malformed."""


# MLE-bench's stanford-covid-vaccine answers list every position of each test sequence, `keep` false where it is
# not scored (past `seq_scored`): a submission must hold those rows too, which are not scored (its grade.py).
KEEP_COLUMN = "keep"
_KEEP_TRUE, _KEEP_FALSE = {"true", "1", "1.0"}, {"false", "0", "0.0"}


class InvalidSubmission(Exception):
    """The submission cannot be scored; `str(exc)` is the reason."""


@dataclass(frozen=True)
class AlignedColumns:
    """Answers and predictions of one target column, in the same id order."""

    column: str
    y_true: np.ndarray
    y_pred: np.ndarray


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
    # A repeated header is read as pandas reads it (`name.1`, an extra column), as MLE-bench reads it.
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
    # Annotated records (tensorflow2-QA's test.jsonl) are read as their answers.
    if path.suffix.lower() == ".jsonl":
        try:
            frame = answer_frame(str(path), spec.id_column, spec.target_columns[0])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CompetitionError(f"answers {path} are not annotated JSON records: {exc}") from exc
        return answer_table(frame, spec, source=f"answers {path}")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CompetitionError(f"answers {path} are not a readable CSV: {exc}") from exc
    return answer_table(frame, spec, source=f"answers {path}")


def keyed(frame: pd.DataFrame, spec: MetricSpec) -> tuple[pd.DataFrame, MetricSpec]:
    """Where the id and `key_columns` together key each row (the id repeats), the frame (as text) with one column
    of the joined keys (`<id>|<key>`) and the spec reading that column as the id, the key's parts then carried
    along, not scored; else both as they are. InvalidSubmission where the frame lacks a part of the key."""
    if not spec.key_columns:
        return frame, spec
    parts = [spec.id_column, *spec.key_columns]
    name = "+".join(parts)
    if name not in frame.columns:
        missing = [c for c in parts if c not in frame.columns]
        if missing:
            raise InvalidSubmission(
                f"missing column(s) {', '.join(map(repr, missing))}: each row is keyed by {' and '.join(parts)}"
            )
        text = as_text(frame[parts]).apply(lambda column: column.str.strip())
        frame = frame.assign(**{name: text.agg("|".join, axis=1)})
    carried = (*spec.passthrough_columns, *parts)
    return frame, replace(spec, id_column=name, key_columns=(), passthrough_columns=carried)


def answer_table(frame: pd.DataFrame, spec: MetricSpec, source: str = "the answers") -> pd.DataFrame:
    """The id and target columns of the answers `frame`; a problem is a CompetitionError naming `source`.

    For a metric whose target columns are classes (multiclass_logloss), answers may instead hold one label
    column (metric param `label_column`, else the one column besides the id): they are made one-hot here.
    For a grouped metric (`log_mae`) whose param `group_column` (or `identity_columns`) names columns the answers
    have, they are kept last (`answer_groups` reads them); answers lacking them are left for the metric to
    refuse. A true/false
    `keep` column (MLE-bench's stanford-covid-vaccine: the rows scored) is kept after it (`scored_rows`).
    """
    metric = get_metric(spec.name)
    params = metric.resolve_params(spec.params)
    frame = as_text(frame)
    if spec.key_columns:  # rows keyed by the id and other columns: their joined key is the id
        try:
            frame, spec = keyed(frame, spec)
        except InvalidSubmission as exc:
            raise CompetitionError(f"{source}: {exc}") from exc
    if spec.id_column not in frame.columns:
        raise CompetitionError(f"{source} lack the id column {spec.id_column!r}")
    if frame[spec.id_column].str.strip().duplicated().any():
        raise CompetitionError(f"{source} hold duplicate ids in {spec.id_column!r}")
    named = (spec.id_column, *spec.target_columns)
    grouping = [c for c in group_columns(spec) if c in frame.columns and c not in named]
    missing = [c for c in spec.target_columns if c not in frame.columns]
    if missing and metric.class_columns:
        table = _one_hot_answers(frame, spec, params.get("label_column") or "", source)
        return table.assign(**{c: frame[c] for c in grouping})
    if missing:
        raise CompetitionError(f"{source} lack column(s) {listed(missing)}")
    keep = [KEEP_COLUMN] if _is_keep_column(frame, (*named, *grouping)) else []
    return frame[[spec.id_column, *spec.target_columns, *grouping, *keep]]


def _is_keep_column(frame: pd.DataFrame, named: tuple[str, ...]) -> bool:
    """Whether the answers mark their scored rows in a true/false `keep` column (none the spec names)."""
    if KEEP_COLUMN not in frame.columns or KEEP_COLUMN in named:
        return False
    return set(frame[KEEP_COLUMN].str.strip().str.lower()) <= _KEEP_TRUE | _KEEP_FALSE


def scored_rows(
    submission: pd.DataFrame, answers: pd.DataFrame, spec: MetricSpec
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(submission, answers) without the rows the grader does not score, once the submission is known to hold
    every answer's id (as grade.py checks before it masks them): those the answers' `keep` column marks not
    scored (`answer_table` keeps it), or those the metric's own `scored_rows` leaves out (osic's weeks without an
    FVC); both as they are otherwise."""
    select = get_metric(spec.name).scored_rows
    has_keep = KEEP_COLUMN in answers.columns
    if not (has_keep or select) or spec.id_column not in submission.columns:
        return submission, answers
    _reject(rows_problem(len(submission), len(answers)))
    _reject(ids_problem(submission[spec.id_column], answers[spec.id_column], spec.id_column))
    if has_keep:
        keep = answers[KEEP_COLUMN].str.strip().str.lower().isin(_KEEP_TRUE).to_numpy()
        answers = answers.drop(columns=KEEP_COLUMN)
    else:
        keep = np.asarray(select(answers, spec.id_column, spec.target_columns), dtype=bool)  # type: ignore[misc]
    scored = set(answers.loc[keep, spec.id_column].str.strip())
    rows = submission[spec.id_column].str.strip().isin(scored)
    return submission[rows], answers.loc[keep]


def group_columns(spec: MetricSpec) -> list[str]:
    """The answers' columns a grouped metric reads beside the targets: its param `group_column` (the rows'
    groups, or a mask), else its `identity_columns` (jigsaw's identities, a column each) or `row_columns`
    (uw-madison's slice id and image size); [] when the metric is not grouped or names none."""
    metric = get_metric(spec.name)
    if not metric.grouped:
        return []
    params = metric.resolve_params(spec.params)
    single = str(params.get("group_column") or "").strip()
    several = params.get("identity_columns") or params.get("row_columns") or ()
    return [single] if single else [str(c).strip() for c in several]


def answer_groups(answers: pd.DataFrame, spec: MetricSpec) -> np.ndarray | None:
    """Each answer row's group, in the answers' row order (the order `align` gives the scored rows), for a
    grouped metric whose group columns the answers hold (a row of values where it reads several); None
    otherwise (then a metric that names group columns refuses to score without them, saying which)."""
    columns = group_columns(spec)
    if not columns or not set(columns) <= set(answers.columns):
        return None
    values = answers[columns].astype(str).apply(lambda column: column.str.strip())
    values = values.where(values != "", None)  # a blank cell is a missing group
    cells = values.to_numpy(dtype=object)
    return cells[:, 0] if len(columns) == 1 else cells


def scored_target_columns(spec: MetricSpec) -> list[str]:
    """The target columns the metric scores: those its param `scored_columns` names (stanford-covid-vaccine's
    submission holds 5 targets, of which 3 are scored; the other 2 must be there but are not read), else all.
    CompetitionError when it names a column that is not a target (the spec is at fault)."""
    named = get_metric(spec.name).resolve_params(spec.params).get("scored_columns") or ()
    unknown = [c for c in named if c not in spec.target_columns]
    if unknown:
        raise CompetitionError(
            f"the metric's scored_columns name {listed(unknown)}, which are not target columns of the "
            f"submission ({listed(list(spec.target_columns))})"
        )
    return [c for c in spec.target_columns if c in named] if named else list(spec.target_columns)


def _one_hot_answers(frame: pd.DataFrame, spec: MetricSpec, label_column: str, source: str) -> pd.DataFrame:
    """Class-label answers (one label column) as one-hot answers in the class columns `spec.target_columns`."""
    if not label_column:
        others = [c for c in frame.columns if c != spec.id_column and c not in spec.target_columns]
        if len(others) != 1:
            raise CompetitionError(
                f"{source} hold neither the class columns {listed(list(spec.target_columns))} nor a single "
                f"label column (found {listed(others)}); name it with the metric param `label_column`"
            )
        label_column = others[0]
    if label_column not in frame.columns:
        raise CompetitionError(f"{source} lack the label column {label_column!r}")
    labels = frame[label_column].str.strip()
    unknown = sorted(set(labels) - set(spec.target_columns))
    if unknown:
        raise CompetitionError(
            f"{source} hold label(s) {listed(unknown)} in {label_column!r} that are not class columns of the "
            f"submission ({listed(list(spec.target_columns))})"
        )
    one_hot = {c: np.where(labels == c, "1", "0") for c in spec.target_columns}
    return pd.DataFrame({spec.id_column: frame[spec.id_column].to_numpy(), **one_hot}, index=frame.index)


def _reject(problem: str | None) -> None:
    if problem:
        raise InvalidSubmission(problem)


def _as_numbers(values: pd.Series, column: str) -> np.ndarray:
    _reject(numbers_problem(values, column))
    return as_numbers(values)


def align(
    submission: pd.DataFrame, answers: pd.DataFrame, spec: MetricSpec, metric: Metric
) -> list[AlignedColumns]:
    """Validate `submission` against `answers` and pair them up column by column (the scored ones,
    `scored_target_columns`)."""
    _reject(
        columns_problem(
            [str(c) for c in submission.columns],
            [spec.id_column, *spec.target_columns],
            spec.passthrough_columns,
        )
    )
    _reject(rows_problem(len(submission), len(answers)))
    _reject(ids_problem(submission[spec.id_column], answers[spec.id_column], spec.id_column))
    sub = submission.assign(**{spec.id_column: submission[spec.id_column].str.strip()}).set_index(
        spec.id_column
    )
    ans = answers.assign(**{spec.id_column: answers[spec.id_column].str.strip()}).set_index(spec.id_column)
    sub = sub.loc[ans.index]
    aligned = []
    for column in scored_target_columns(spec):
        raw = sub[column]
        if metric.numeric:
            y_pred = _as_numbers(raw, column)
            _reject(range_problem(y_pred, column, metric))
            try:
                y_true = _as_numbers(ans[column], column)
            except InvalidSubmission as exc:
                raise CompetitionError(f"the answers are unusable: {exc}") from exc
        else:
            y_pred, y_true = raw.str.strip().to_numpy(), ans[column].str.strip().to_numpy()
            declared = spec.labels.get(column)
            allowed = BINARY_LABELS if metric.binary_truth else declared or tuple(pd.unique(y_true))
            small = len(allowed) <= CLOSED_LABEL_SET and column not in spec.free_text
            closed = bool(metric.binary_truth or declared) or small
            # An empty cell is a prediction where the metric says so (no labels, no words, an empty mask); for free
            # text, a wrong one; where the answers or labels hold cells pandas reads as missing (text
            # normalization's "NA" tokens: `grader_scores_missing`), a missing one, equal to every such token as
            # the grader reads them (`missing_alike`); never a reason to refuse the file.
            read_as_missing = grader_scores_missing(allowed, ans[column])
            missing_ok = (metric.labels and not closed) or read_as_missing
            if not metric.empty_ok and not missing_ok:
                _reject(labels_problem(raw, column))
            if metric.labels and closed:
                _reject(
                    allowed_labels_problem(known_cells(y_pred) if missing_ok else y_pred, allowed, column)
                )
            elif metric.ranked and declared:
                ranked = np.array([t for cell in y_pred for t in cell.split()])
                _reject(allowed_labels_problem(ranked, declared, column))
            if read_as_missing and metric.labels and not metric.ranked:  # whole cells, as pandas reads them
                y_pred, y_true = missing_alike(y_pred), missing_alike(y_true)
        aligned.append(AlignedColumns(column=column, y_true=y_true, y_pred=y_pred))
    return aligned
