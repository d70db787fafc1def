"""What a node keeps of its step: how its code ran (`Execution`) and how it was judged (`Review`).

Each is one value on the node (`Node.execution`, `Node.review`), made once from the sandbox's `ExecutionResult`
and the review's `ReviewOutcome` (`swarm.pipeline.records.execution_record`, `review_record`), and saved as the
journal line's keys as they always stood (`term_out` ... `exc_stack`, `analysis` ... `metric_conflict`), so
journals written before these values existed read and write back unchanged. They hold what the journal keeps,
not everything the sandbox or the reviewer said: the rest lives in the node's directory and its `meta`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from swarm.metric import MetricValue

StackFrame = tuple[str, int, str, str | None]  # file, line, function, the line's code


@dataclass(frozen=True)
class Execution:
    """How the node's code ran: its output (trimmed), time, exit status, limits hit and exception.

    `exc_info` is the exception as saved: `{"message": ...}` for nodes this code writes, any object for older
    journals. A node whose code never ran (no code, or a generation that failed) keeps the defaults."""

    term_out: str = ""
    exec_time: float | None = None
    exit_code: int | None = None
    timed_out: bool = False
    oom_killed: bool = False
    exc_type: str | None = None
    exc_info: dict[str, Any] | None = None
    exc_stack: list[StackFrame] | None = None

    def __post_init__(self) -> None:
        if self.exc_stack is not None:
            object.__setattr__(self, "exc_stack", [tuple(frame) for frame in self.exc_stack])


@dataclass(frozen=True)
class Review:
    """How the node was judged: the verdict (`is_buggy`, None before a review), why, the score to rank by (the
    harness's where it split rows) and whether the solution's printed score and the reviewer's disagreed."""

    analysis: str | None = None
    metric: MetricValue | None = None
    is_buggy: bool | None = None
    bug_reason: str | None = None
    metric_conflict: bool = False


EXECUTION_KEYS = tuple(f.name for f in fields(Execution))
REVIEW_KEYS = tuple(f.name for f in fields(Review))
