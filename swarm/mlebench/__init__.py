"""Running Swarm-Ev2 as an MLE-bench agent: container paths, time limit, /validate, outputs.

Prefect-free: the search is passed in (flows/mlebench_agent.py passes the competition flow).
"""

from __future__ import annotations

from swarm.mlebench.agent import (
    EXIT_BAD_INPUT,
    EXIT_NO_SUBMISSION,
    EXIT_OK,
    AgentResult,
    SearchRequest,
    run_agent,
)
from swarm.mlebench.settings import AgentSettings, SettingsError, TimeBudget, default_margin, settings_from
from swarm.mlebench.validate import Verdict, validate_submission

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_NO_SUBMISSION",
    "EXIT_OK",
    "AgentResult",
    "AgentSettings",
    "SearchRequest",
    "SettingsError",
    "TimeBudget",
    "Verdict",
    "default_margin",
    "run_agent",
    "settings_from",
    "validate_submission",
]
