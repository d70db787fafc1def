"""Grading a submission: validate, score, and place the score on the competition's leaderboard."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel

from swarm.competitions.competition import Competition, MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.leaderboard import read_leaderboard
from swarm.competitions.medals import (
    Medal,
    Thresholds,
    is_above_median,
    leaderboard_rank,
    medal_for,
    thresholds,
)
from swarm.competitions.metrics import Metric, get_metric
from swarm.competitions.metrics.base import InvalidPrediction
from swarm.competitions.tolerance import blank_predictions_note, joined, tolerate
from swarm.competitions.validation import (
    AlignedColumns,
    InvalidSubmission,
    align,
    answer_groups,
    answer_table,
    as_text,
    keyed,
    read_answers,
    read_submission,
    scored_rows,
)

SCORE_DIGITS = 6


class GradeReport(BaseModel):
    """The outcome of grading one submission. Thresholds are None when the competition has no leaderboard."""

    competition_id: str
    submission_path: str
    metric: str
    lower_is_better: bool
    metric_params: dict[str, Any] = {}
    valid: bool
    reason: str | None = None
    score: float | None = None
    note: str | None = None  # what the score tolerated as MLE-bench's graders do (extra columns ignored, ...)
    gold_threshold: float | None = None
    silver_threshold: float | None = None
    bronze_threshold: float | None = None
    median_threshold: float | None = None
    num_teams: int | None = None
    rank: int | None = None
    medal: Medal | None = None
    any_medal: bool = False
    above_median: bool = False


def _require_gradable(competition: Competition) -> None:
    if competition.metric is None:
        raise CompetitionError(
            f"competition {competition.id!r} names no metric: pass one explicitly "
            "(e.g. --metric rmse, or metric='rmse'), or add it to competition.json"
        )
    if competition.answers is None:
        raise CompetitionError(
            f"no answers file in {competition.private_dir}: expected one of answers.csv, test.csv, "
            "gold_submission.csv (or name it in competition.json)"
        )


@dataclass(frozen=True)
class FrameScore:
    """A submission's rounded score, and what forms of it the score read past (`swarm.competitions.tolerance`)."""

    score: float
    note: str | None = None


def score_frame(submission: pd.DataFrame, answers: pd.DataFrame, spec: MetricSpec) -> float:
    """The rounded score of `submission` against `answers` (both frames of strings, as read from CSV).

    `answers` hold the id column and the target columns (or, for multiclass_logloss, one label column) of the
    rows to score, and for a grouped metric (`log_mae`) the column its `group_column` names, whose values are
    passed as each scored row's group; the submission must hold exactly their ids. Raises InvalidSubmission
    with the reason when the submission cannot be scored, and CompetitionError when the answers or the spec are
    at fault (e.g. a single class for AUC, or answers lacking the group column).
    """
    return scored_frame(submission, answers, spec).score


def scored_frame(submission: pd.DataFrame, answers: pd.DataFrame, spec: MetricSpec) -> FrameScore:
    """`score_frame`'s score, with a note on what it tolerated as MLE-bench's graders do: extra columns ignored,
    numeric ids spelled as other numbers, blank text predictions scored rather than refused."""
    return scored_parts(submission, answers, spec)[0]


@dataclass(frozen=True)
class ScoredRows:
    """What a score was computed from: the metric, its parameters, the aligned answers and predictions of each
    scored column and the rows' ids (the answers' id column, keyed ids joined), in the same order; `rescore`
    scores any selection of those rows (a bootstrap's resample) as the score was."""

    metric: Metric
    params: dict[str, Any]
    columns: list[AlignedColumns]
    ids: np.ndarray

    def rescore(self, rows: np.ndarray) -> float:
        """The metric (unrounded) over the rows at positions `rows` (repeats allowed); InvalidSubmission or
        CompetitionError where it cannot be computed on them."""
        picked = [replace(c, y_true=c.y_true[rows], y_pred=c.y_pred[rows]) for c in self.columns]
        return _metric_value(self.metric, picked, self.params)


def scored_parts(
    submission: pd.DataFrame, answers: pd.DataFrame, spec: MetricSpec
) -> tuple[FrameScore, ScoredRows]:
    """`scored_frame`'s score and the rows it was computed from (for the score's interval)."""
    metric = get_metric(spec.name)
    params = metric.resolve_params(spec.params)
    truth = answer_table(answers, spec)
    known = answers[spec.id_column] if spec.id_column in answers.columns else None
    tolerated = tolerate(
        as_text(submission),
        spec.id_column,
        [spec.id_column, *spec.target_columns],
        (*spec.passthrough_columns, *spec.key_columns),
        known_ids=None if known is None else as_text(known.to_frame()).iloc[:, 0],
        blank_fills=metric.blank_fills,
    )
    submission, spec = keyed(tolerated.frame, spec)  # rows keyed by the id and other columns (uw-madison)
    submission, truth = scored_rows(submission, truth, spec)  # MLE-bench's `keep` column, if any
    columns = align(submission, truth, spec, metric)
    if metric.grouped:  # the rows' groups, in the answers' order as `align` returns the rows
        params["groups"] = answer_groups(truth, spec)
    value = _metric_value(metric, columns, params)
    blanks = blank_predictions_note(submission, metric, spec.target_columns)
    ids = truth[spec.id_column].str.strip().to_numpy()
    score = FrameScore(round(value, SCORE_DIGITS), joined((*tolerated.notes, blanks or "")))
    return score, ScoredRows(metric, params, columns, ids)


def _metric_value(metric: Metric, columns: list[AlignedColumns], params: dict[str, Any]) -> float:
    """The metric over the aligned columns (per column and averaged, or the whole table at once); a value it
    cannot compute is an InvalidSubmission."""
    try:
        if metric.scope == "table":
            y_true = np.column_stack([c.y_true for c in columns])
            y_pred = np.column_stack([c.y_pred for c in columns])
            value = metric.score(y_true, y_pred, **params)
        else:
            value = float(np.mean([metric.score(c.y_true, c.y_pred, **params) for c in columns]))
    except InvalidPrediction as exc:
        raise InvalidSubmission(str(exc)) from exc
    except CompetitionError:
        raise
    except ValueError as exc:
        raise InvalidSubmission(f"{metric.name} could not be computed: {exc}") from exc
    if not np.isfinite(value):
        raise InvalidSubmission(f"{metric.name} is not finite ({value})")
    return value


def score_submission(competition: Competition, submission_path: Path) -> float:
    """The submission's score; raises InvalidSubmission with the reason when it cannot be scored."""
    return scored_submission(competition, submission_path).score


def scored_submission(competition: Competition, submission_path: Path) -> FrameScore:
    """The submission's score and what it tolerated; InvalidSubmission with the reason when it cannot be
    scored."""
    _require_gradable(competition)
    answers = read_answers(competition.answers, competition.metric)
    return scored_frame(read_submission(Path(submission_path)), answers, competition.metric)


def _leaderboard_thresholds(competition: Competition, lower: bool) -> tuple[Thresholds | None, list[float]]:
    if competition.leaderboard is None:
        return None, []
    scores = read_leaderboard(competition.leaderboard)["score"].astype(float).tolist()
    return thresholds(scores, lower), scores


def grade_submission(competition: Competition, submission_path: str | Path) -> GradeReport:
    """Validate and score `submission_path`, and compare the score with the leaderboard's medal thresholds.

    An invalid submission gives `valid=False` and a `reason`; a broken competition raises CompetitionError.
    """
    _require_gradable(competition)
    spec = competition.metric
    lower = spec.lower_is_better
    limits, scores = _leaderboard_thresholds(competition, lower)
    report = GradeReport(
        competition_id=competition.id,
        submission_path=str(submission_path),
        metric=spec.name,
        metric_params=dict(spec.params),
        lower_is_better=lower,
        valid=False,
    )
    if limits is not None:
        report.gold_threshold = limits.gold
        report.silver_threshold = limits.silver
        report.bronze_threshold = limits.bronze
        report.median_threshold = limits.median
        report.num_teams = limits.num_teams
    try:
        scored = scored_submission(competition, Path(submission_path))
    except InvalidSubmission as exc:
        report.reason = str(exc)
        return report
    score = report.score = scored.score
    report.valid, report.note = True, scored.note
    if limits is not None:
        report.medal = medal_for(score, limits, lower)
        report.any_medal = report.medal is not None
        report.above_median = is_above_median(score, limits, lower)
        report.rank = leaderboard_rank(score, scores, lower)
    return report
