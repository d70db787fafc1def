"""Is a written submission usable? Checked against the competition's public sample_submission.csv only.

`check_submission(submission, sample)` returns None when the submission has the sample's columns, exactly its
ids (as many rows, none missing, none extra, none repeated) and a valid value in every target cell; otherwise a
reason a user can read. It is the search's adapter of the grader's rules (`swarm.competitions.submission_rules`),
applied with the sample in place of the answers, so the search rejects what the grader would, and reads past
what it reads past (`swarm.competitions.tolerance`: columns the sample lacks, ids spelled as other numbers).
`deliver_as_sample` rewrites such a file in the sample's form, for the graders that read past less.
`constant_predictions` says when every row got the same prediction (a valid file, but a model that learned
nothing: it scores like the sample submission). Neither needs the answers, so both run right after a solution,
before any grading. Prefect-free and side-effect free.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.atomic import write_text_atomic
from swarm.competitions.competition import MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics import Metric, get_metric
from swarm.competitions.submission_rules import (
    MAX_LISTED,
    allowed_labels_problem,
    as_numbers,
    columns_problem,
    declared_labels,
    grader_scores_missing,
    ids_problem,
    known_cells,
    labels_problem,
    numbers_problem,
    range_problem,
    rows_problem,
)
from swarm.competitions.tolerance import Tolerated, delivered_form, joined, renormalised_rows, tolerate
from swarm.competitions.validation import InvalidSubmission, keyed, read_submission

MIN_ROWS_FOR_CONSTANT = 10


class SampleSubmissionError(ValueError):
    """The sample submission itself cannot be read: the competition's problem, not the solution's."""


def check_submission(
    submission_path: str | Path,
    sample_submission_path: str | Path,
    id_column: str | None = None,
    metric: MetricSpec | None = None,
) -> str | None:
    """Why the submission is invalid, in words a user can read; None when it matches the sample's format.

    `id_column` defaults to the sample's first column. With the competition's `metric`, its columns are numeric
    or labels as the metric says (else as the sample's values look), and its ranges and declared labels are
    checked as the grader checks them. Raises SampleSubmissionError if the sample is unusable.
    """
    sample = read_sample(Path(sample_submission_path))
    id_col = id_column or str(sample.columns[0])
    if id_col not in sample.columns:
        raise SampleSubmissionError(f"the sample submission has no id column {id_col!r}")
    try:
        frame = read_submission(Path(submission_path))
    except InvalidSubmission as exc:
        return str(exc)
    expected = [str(c) for c in sample.columns]
    frame = _as_graded(frame, sample, id_col, _metric(metric)).frame  # as the graders read it
    columns = [str(c) for c in frame.columns]
    problem = columns_problem(columns, expected) or rows_problem(len(frame), len(sample))
    if problem:
        return problem
    keys = metric.key_columns if metric is not None and id_col == metric.id_column else ()
    if keys:  # each row keyed by the id and other columns (uw-madison's id and class): compared joined
        frame, joined = keyed(frame, metric)  # type: ignore[arg-type]
        sample, _ = keyed(sample, metric)  # type: ignore[arg-type]
        problem = ids_problem(
            frame[joined.id_column], sample[joined.id_column], " and ".join((id_col, *keys))
        )
    else:
        problem = ids_problem(frame[id_col], sample[id_col], id_col)
    if problem:
        return problem
    rules = _metric(metric)
    declared = metric.labels if metric is not None else {}
    passthrough = (*metric.passthrough_columns, *keys) if metric is not None else ()
    free_text = metric.free_text if metric is not None else ()
    for column in (c for c in expected if c != id_col and c not in passthrough):
        labels = declared.get(column)
        # Free text, or a sample or labels that hold cells pandas reads as missing ("NA" tokens): a missing
        # prediction is a wrong one to the grader, not a reason to refuse the file.
        missing_ok = column in free_text or grader_scores_missing(sample[column], labels)
        problem = _values_problem(frame[column], sample[column], column, rules, labels, missing_ok)
        if problem:
            return problem
    return None


def deliver_as_sample(
    submission_path: str | Path,
    sample_submission_path: str | Path,
    id_column: str | None = None,
    metric: MetricSpec | None = None,
) -> str | None:
    """Rewrite a submission that passes `check_submission` in its delivered form (`delivered_form`: the sample's
    columns, order and id spelling, so that no grader sees what only some read past) and say what was tolerated;
    None, the file untouched, when there was nothing to tolerate. Raises ValueError where it does not pass."""
    problem = check_submission(submission_path, sample_submission_path, id_column, metric)
    if problem:
        raise ValueError(f"{submission_path} is not a valid submission: {problem}")
    sample = read_sample(Path(sample_submission_path))
    id_col = id_column or str(sample.columns[0])
    frame = read_submission(Path(submission_path))
    library = _metric(metric)
    tolerated = _as_graded(frame, sample, id_col, library)
    keys = metric.key_columns if metric is not None and id_col == metric.id_column else ()
    delivered = delivered_form(tolerated.frame, sample, id_col, keys)
    renormalised = ""
    if metric is not None and library is not None:
        delivered, renormalised = renormalised_rows(delivered, library, metric.target_columns)
    if delivered.equals(frame):
        return None
    write_text_atomic(Path(submission_path), delivered.to_csv(index=False))
    return joined([*tolerated.notes, renormalised]) or "its columns or rows were put in the sample's order"


def read_sample(path: Path) -> pd.DataFrame:
    """The sample submission as strings; SampleSubmissionError when it is missing or unreadable."""
    try:
        sample = read_submission(path)
    except InvalidSubmission as exc:
        raise SampleSubmissionError(f"the sample submission is unusable: {exc}") from None
    if sample.shape[1] < 2:
        raise SampleSubmissionError(f"the sample submission {path} needs an id column and a target column")
    return sample


def _as_graded(frame: pd.DataFrame, sample: pd.DataFrame, id_col: str, library: Metric | None) -> Tolerated:
    """`frame` as the graders read it (`tolerate`): against the sample's columns and ids, the blanks the metric's
    grader fills filled."""
    fills = library.blank_fills if library is not None else None
    return tolerate(
        frame, id_col, [str(c) for c in sample.columns], known_ids=sample[id_col], blank_fills=fills
    )


def _metric(spec: MetricSpec | None) -> Metric | None:
    """The library metric of `spec`; None when there is none (its rules are then left to the grader)."""
    if spec is None:
        return None
    try:
        return get_metric(spec.name)
    except CompetitionError:
        return None


def _values_problem(
    values: pd.Series,
    sample: pd.Series,
    column: str,
    metric: Metric | None,
    declared: tuple[str, ...] | None,
    missing_ok: bool = False,
) -> str | None:
    """The grader's value rules for one target column, as far as they hold without the answers. `missing_ok`: a
    missing text prediction is scored (as wrong) by the grader, not refused."""
    numeric = metric.numeric if metric is not None else _all_numbers(sample)
    if not numeric:
        empty_ok = metric is not None and metric.empty_ok  # an empty cell is a prediction for these metrics
        problem = None if empty_ok or missing_ok else labels_problem(values, column)
        allowed = declared_labels(metric, declared) if metric is not None else None
        if problem or allowed is None:
            return problem
        predicted = values.str.strip().to_numpy()
        return allowed_labels_problem(known_cells(predicted) if missing_ok else predicted, allowed, column)
    problem = numbers_problem(values, column)
    if problem or metric is None:
        return problem
    return range_problem(as_numbers(values), column, metric)


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
    shown = ", ".join(f"{c}={v[0]!r}" for c, v in list(values.items())[:MAX_LISTED])
    return (
        f"every one of its {len(frame)} rows has the same prediction ({shown}): the model learned nothing "
        "from the features and scores like a constant guess"
    )
