"""Where the MLE-bench agent container keeps things, and how much time the agent has.

MLE-bench mounts the competition's public files read-only at /home/data, puts the benchmark rules in
/home/instructions.txt, extracts /home/submission, /home/logs and /home/code when the run ends, and passes
the agent's config `env_vars` (TIME_LIMIT_SECS, STEP_LIMIT by convention) plus COMPETITION_ID. Every path
here can be moved by an environment variable or a flag, so the same entry runs outside the container.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_VALIDATE_URL = "http://localhost:5000/validate"
# (setting, environment variable, default); the defaults are MLE-bench's container paths.
PATH_VARS: tuple[tuple[str, str, str], ...] = (
    ("data_dir", "MLEBENCH_DATA_DIR", "/home/data"),
    ("instructions", "MLEBENCH_INSTRUCTIONS", "/home/instructions.txt"),
    ("submission_dir", "SUBMISSION_DIR", "/home/submission"),
    ("logs_dir", "LOGS_DIR", "/home/logs"),
    ("code_dir", "CODE_DIR", "/home/code"),
)
AGENT_DIR_VAR, DEFAULT_AGENT_DIR = "AGENT_DIR", "/home/agent"
WORK_DIR_VAR = "MLEBENCH_WORK_DIR"
TIME_LIMIT_VAR = "TIME_LIMIT_SECS"
STEP_LIMIT_VAR = "STEP_LIMIT"
VALIDATE_URL_VAR = "MLEBENCH_VALIDATE_URL"
COMPETITION_ID_VAR = "COMPETITION_ID"
NO_VALIDATION = ("", "none", "off", "false", "0")


class SettingsError(ValueError):
    """A setting (flag or environment variable) has a value the agent cannot use."""


@dataclass(frozen=True)
class AgentSettings:
    """Everything the MLE-bench entry needs besides the search itself."""

    data_dir: Path
    instructions: Path
    submission_dir: Path
    logs_dir: Path
    code_dir: Path
    work_dir: Path
    time_limit_s: float | None = None
    safety_margin_s: float | None = None
    step_limit: int | None = None
    validate_url: str | None = DEFAULT_VALIDATE_URL
    validate_timeout_s: float = 10.0
    competition_id: str | None = None
    config_path: str | None = None
    overrides: tuple[str, ...] = ()
    all_code: bool = False
    poll_s: float = 30.0

    @property
    def submission_file(self) -> Path:
        return self.submission_dir / "submission.csv"


def _number(name: str, text: str | None, kind: type) -> Any:
    if text is None or str(text).strip() == "":
        return None
    try:
        value = kind(float(text)) if kind is int else kind(text)
    except ValueError:
        raise SettingsError(f"{name} must be a number, got {text!r}") from None
    if value <= 0:
        raise SettingsError(f"{name} must be positive, got {text!r}")
    return value


def settings_from(env: Mapping[str, str], **flags: Any) -> AgentSettings:
    """Settings from flags (when not None), else the environment, else MLE-bench's defaults."""
    values: dict[str, Any] = {}
    for name, var, default in PATH_VARS:
        values[name] = Path(flags.get(name) or env.get(var) or default)
    agent_dir = Path(env.get(AGENT_DIR_VAR) or DEFAULT_AGENT_DIR)
    values["work_dir"] = Path(flags.get("work_dir") or env.get(WORK_DIR_VAR) or agent_dir / "work")
    limit = flags.get("time_limit_s")
    values["time_limit_s"] = _number(
        "--time-limit / TIME_LIMIT_SECS", str(limit) if limit is not None else env.get(TIME_LIMIT_VAR), float
    )
    steps = flags.get("step_limit")
    values["step_limit"] = _number(
        "--steps / STEP_LIMIT", str(steps) if steps is not None else env.get(STEP_LIMIT_VAR), int
    )
    margin = flags.get("safety_margin_s")
    if margin is not None and margin < 0:
        raise SettingsError(f"--safety-margin must not be negative, got {margin}")
    values["safety_margin_s"] = margin
    url = flags.get("validate_url")
    url = url if url is not None else env.get(VALIDATE_URL_VAR, DEFAULT_VALIDATE_URL)
    values["validate_url"] = None if str(url).strip().lower() in NO_VALIDATION else str(url).strip()
    values["competition_id"] = flags.get("competition_id") or env.get(COMPETITION_ID_VAR) or None
    for name in ("validate_timeout_s", "config_path", "all_code", "poll_s"):
        if flags.get(name) is not None:
            values[name] = flags[name]
    values["overrides"] = tuple(flags.get("overrides") or ())
    return AgentSettings(**values)


def default_margin(limit_s: float) -> float:
    """Seconds kept back from the search for picking, validating and copying the result.

    A tenth of the limit, at least 30 s (but never more than half the limit), at most 15 minutes.
    """
    return min(max(0.1 * limit_s, min(30.0, 0.5 * limit_s)), 900.0)


@dataclass
class TimeBudget:
    """The agent's clock: the search stops starting steps at `search_end`, the wait for it ends at `hard_end`.

    With no limit both are None: the config's own agent.time_limit_s applies and the search is awaited.
    """

    limit_s: float | None
    margin_s: float = 0.0
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def start(cls, limit_s: float | None, margin_s: float | None = None, started: float | None = None):
        margin = 0.0 if limit_s is None else (default_margin(limit_s) if margin_s is None else margin_s)
        if limit_s is not None and margin >= limit_s:
            raise SettingsError(
                f"the safety margin ({margin:g} s) must be below the time limit ({limit_s:g} s)"
            )
        return cls(limit_s, margin, time.monotonic() if started is None else started)

    @property
    def search_end(self) -> float | None:
        return None if self.limit_s is None else self.started + self.limit_s - self.margin_s

    @property
    def hard_end(self) -> float | None:
        return None if self.limit_s is None else self.started + self.limit_s - self.margin_s / 2

    def left(self, until: float | None, now: float | None = None) -> float | None:
        """Seconds from now to `until` (None: unbounded), never negative."""
        if until is None:
            return None
        return max(0.0, until - (time.monotonic() if now is None else now))

    def elapsed(self) -> float:
        return time.monotonic() - self.started
