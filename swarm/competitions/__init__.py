"""Competitions: reading MLE-bench layouts, bundled competitions, metrics, grading and medals."""

from __future__ import annotations

from swarm.competitions.bundled import list_bundled, prepare_bundled
from swarm.competitions.competition import Competition, MetricSpec, load_competition_dir
from swarm.competitions.errors import CompetitionError
from swarm.competitions.grading import GradeReport, grade_submission
from swarm.competitions.loader import load_competition
from swarm.competitions.medals import medal_places
from swarm.competitions.metrics import METRICS, get_metric

__all__ = [
    "METRICS",
    "Competition",
    "CompetitionError",
    "GradeReport",
    "MetricSpec",
    "get_metric",
    "grade_submission",
    "list_bundled",
    "load_competition",
    "load_competition_dir",
    "medal_places",
    "prepare_bundled",
]
