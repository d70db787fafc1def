"""The labels of a harness split: every labelled row's targets in the submission's columns, what kind of target
they are, and the held-out rows' private `labels.csv`.

The grader scores the held-out part of a submission with the competition's own `score_frame`, so the labels are
kept in exactly the columns a submission has (one-hot for a wide multi-class submission read from one column of
class values) and are checked to be scorable before the split is used.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.grading import score_frame
from swarm.competitions.metrics import get_metric
from swarm.competitions.validation import CLOSED_LABEL_SET, InvalidSubmission, group_columns
from swarm.evaluation.holdout_record import TRAIN, NoHoldout, write_private
from swarm.formats.columns import all_numbers, renamed_source
from swarm.formats.label_sets import class_sets, label_set_column


def submission_labels(train: pd.DataFrame, spec: MetricSpec, sample_columns: list[str]) -> pd.DataFrame:
    """The target columns of every train row in the submission's format (strings)."""
    targets = [c for c in sample_columns if c != spec.id_column and c not in spec.passthrough_columns]
    if all(c in train.columns for c in targets):
        return train[targets].astype(str)
    source = wide_source(train, targets)
    if source is None:
        raise NoHoldout(
            f"the sample submission's target column(s) {', '.join(targets[:5])} are not in {TRAIN} (no train "
            "column holds them as class values, and no single column known only for labelled rows stands for "
            "them under another name), so its rows cannot be scored"
        )
    sets = class_sets(train[source], targets) or []
    return pd.DataFrame({c: [str(int(c in s)) for s in sets] for c in targets}, index=train.index)


def renamed_target(
    train: pd.DataFrame, spec: MetricSpec, sample_columns: list[str], test_columns: list[str] | None
) -> dict[str, str]:
    """{train column: submission column} where the submission names its one missing target otherwise than the
    labelled table does: chaii's `PredictionString` is train.csv's `answer_text`, hubmap's `predicted` its
    `encoding`. The train column is the one known only for labelled rows (not in the test table, the sample or the
    id) of the metric's kind (numbers for a numeric metric; text, where any is, for a text metric), else the one
    of those named like labels (`target`); {} where no single column fits, or the targets are all there or are
    class columns (`wide_source`)."""
    targets = [c for c in sample_columns if c != spec.id_column and c not in spec.passthrough_columns]
    missing = [c for c in targets if c not in train.columns]
    if len(missing) != 1 or wide_source(train, targets) is not None:
        return {}
    known = {*sample_columns, *(test_columns or []), spec.id_column}
    candidates = [c for c in train.columns if c not in known]
    numeric = {c: all_numbers(train[c]) for c in candidates}
    source = renamed_source(candidates, numeric, numbers=get_metric(spec.name).numeric)
    return {source: missing[0]} if source is not None else {}


def wide_source(train: pd.DataFrame, targets: list[str]) -> str | None:
    """The train column whose values are the submission's class columns (a wide submission): a class per row, or
    a set of them joined with "," or blanks (freesound's `labels`; swarm/formats/label_sets.py)."""
    return label_set_column(train, targets)


def is_classification(spec: MetricSpec, labels: pd.DataFrame, wide: bool) -> bool:
    """Whether the targets are classes (a wide submission, a label or probability metric, or a few non-numeric
    values), which the split then stratifies by."""
    metric = get_metric(spec.name)
    if wide or metric.labels or metric.probability or metric.binary_truth:
        return True
    first = labels.iloc[:, 0]
    return first.nunique() <= 20 and pd.to_numeric(first, errors="coerce").isna().any()


def closed_classes(labels: pd.DataFrame, classification: bool) -> dict[str, list[str] | None]:
    """Every class of each target column of the labelled table, where they are a closed set (a label metric then
    accepts any of them, also one no held-out row has); None for a free-text column (over CLOSED_LABEL_SET
    distinct answers: any text is a valid prediction, however few distinct answers the held-out rows hold)."""
    if not classification:
        return {}
    values = {c: sorted(labels[c].str.strip().unique()) for c in labels.columns}
    return {c: v if len(v) <= CLOSED_LABEL_SET else None for c, v in values.items()}


def write_labels(root: Path, label_frame: pd.DataFrame, spec: MetricSpec) -> None:
    """The held-out labels, once they are known to be scorable, in the harness's private labels.csv."""
    _check_scorable(label_frame, spec)
    write_private(root / "labels.csv", label_frame.to_csv(index=False))


def _check_scorable(labels: pd.DataFrame, spec: MetricSpec) -> None:
    """NoHoldout when the metric is undefined on the held-out labels themselves (e.g. one class for AUC)."""
    named, groups = {spec.id_column, *spec.target_columns}, set(group_columns(spec))
    as_submission = _as_prediction(labels[[c for c in labels.columns if c in named or c not in groups]], spec)
    try:
        score_frame(as_submission, labels, spec)
    except (CompetitionError, InvalidSubmission) as exc:
        raise NoHoldout(f"the held-out rows cannot be scored with {spec.name}: {exc}") from None


def _as_prediction(labels: pd.DataFrame, spec: MetricSpec) -> pd.DataFrame:
    """The labels as a perfect submission would state them: the metric's own `perfect` prediction of each cell
    (kuzushiji's box centres); for a metric that takes a probability per class column (KL divergence), counts
    (hms's expert votes) become each row's shares; otherwise the labels as they are."""
    metric = get_metric(spec.name)
    targets = [c for c in spec.target_columns if c in labels.columns]
    if metric.perfect is not None:  # kuzushiji: a box's centre is the point that scores it
        try:
            return labels.assign(**{c: labels[c].map(metric.perfect) for c in targets})
        except CompetitionError:
            return labels  # malformed answers: scored as they are, whose error then says what is wrong
    if not (metric.probability and metric.scope == "table" and len(targets) >= 2):
        return labels
    counts = labels[targets].apply(pd.to_numeric, errors="coerce")
    totals = counts.sum(axis=1)
    if counts.isna().any().any() or (counts < 0).any().any() or (totals <= 0).any():
        return labels
    shares = counts.div(totals, axis=0)
    return labels.assign(**{c: shares[c].map(repr) for c in targets})


def label_strata(labels: pd.DataFrame) -> pd.Series:
    """One value per row to stratify a split on: the label, or a row's labels joined with "|" (column by column:
    pandas' row-wise join takes seconds at 50,000 rows)."""
    text = labels.astype(str)
    first = text.iloc[:, 0]
    return (
        first
        if text.shape[1] == 1
        else first.str.cat([text.iloc[:, i] for i in range(1, text.shape[1])], sep="|")
    )
