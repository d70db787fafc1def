"""A review's reading of a submission (the harness's scoring, the submission checks), bounded in time and memory.

A submission is untrusted: one that passes the harness's size gate (`swarm.evaluation.submission_size`) may
still take long or much memory to parse and check. So the harness's `evaluate`, `check_submission` and
`constant_predictions` run in a child process (forked by `swarm.pipeline.review_server`, which holds this
module's imports, so each child starts in a fraction of a second) under an address-space limit
(`evaluation.review_memory_mb`), killed at `evaluation.review_timeout_s`. The child writes the same files as
the review did in its own thread (the test rows, the held-out rows) and answers with `SubmissionChecks`; a
child killed at its limit, or out of memory, gives a problem saying so, which makes the node buggy rather than
stalling the run. A stop of the run (`swarm.pipeline.stopping`) kills the child at once.
"""

from __future__ import annotations

import contextlib
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swarm.competitions.competition import MetricSpec
from swarm.competitions.score_interval import ScoreInterval
from swarm.competitions.submission_check import check_submission, constant_predictions, read_sample
from swarm.evaluation.harness import Harness, keep_copy
from swarm.evaluation.submission_size import size_limit
from swarm.pipeline.review_server import REVIEW_SERVER
from swarm.pipeline.stopping import tracked


@dataclass(frozen=True)
class CheckRequest:
    """What one review reads: the node's submission, where the harness keeps its parts, and against what."""

    submission: Path
    kept: Path  # the harness's copy of the test rows
    heldout: Path | None  # the harness's copy of the scored held-out rows
    sample: Path
    spec: MetricSpec | None
    harness: Harness | None


@dataclass(frozen=True)
class SubmissionChecks:
    """What the review established about a submission: why it is unusable (None: it is fine), the harness's
    score (None without a harness or a usable prediction), the test rows it kept, what was tolerated, and the
    score's bootstrap interval (computed here, in the child, from the rows the score came from)."""

    problem: str | None
    score: float | None = None
    test_submission: Path | None = None
    note: str | None = None
    interval: ScoreInterval | None = None


def check_files(request: CheckRequest) -> SubmissionChecks:
    """The harness's score (with a harness) and the submission checks, in this process."""
    spec, note, score, interval = request.spec, None, None, None
    id_column = spec.id_column if spec else None
    if request.harness is not None:
        scored = request.harness.evaluate(request.submission, request.kept, request.heldout)
        score, test_submission, problem, note, interval = (
            scored.score,
            scored.test_submission,
            scored.problem,
            scored.note,
            scored.interval,
        )
    else:
        sample = read_sample(request.sample)
        limit = size_limit(sample, id_column or str(sample.columns[0]), len(sample))
        test_submission, problem = keep_copy(request.submission, request.kept, limit)
    if test_submission is not None:
        test_problem = check_submission(test_submission, request.sample, id_column=id_column, metric=spec)
        if test_problem is None:
            test_problem = constant_predictions(test_submission, request.sample, id_column=id_column)
        problem = "; ".join(p for p in (problem, test_problem) if p) or None
    return SubmissionChecks(problem, score, test_submission, note, interval)


def check_bounded(request: CheckRequest, timeout_s: float, memory_mb: int) -> SubmissionChecks:
    """`check_files` in a child process, killed past `timeout_s` seconds; `memory_mb` caps its address space
    (0: no cap). An exception of the checks is raised here, as it would have been in this process."""
    with tempfile.TemporaryDirectory(prefix="swarm-review-") as tmp:
        answer_path = Path(tmp) / "answer.pickle"
        try:
            child = REVIEW_SERVER.fork(check_files, request, memory_mb, answer_path)
        except OSError as exc:
            return SubmissionChecks(f"reading and checking it could not start ({exc})")
        with tracked(child), contextlib.closing(child):
            if not child.wait(timeout_s):
                child.kill()
                child.wait(None)
                return _outcome(("timeout", None), None, timeout_s, memory_mb)
        answer = pickle.loads(answer_path.read_bytes()) if answer_path.is_file() else None
    return _outcome(answer, child.exit_note, timeout_s, memory_mb)


def _outcome(
    answer: tuple[str, Any] | None, exit_note: str | None, timeout_s: float, memory_mb: int
) -> SubmissionChecks:
    """The checks from the child's answer, or the problem that stopped it."""
    kind, value = answer if answer is not None else ("ended", None)
    if kind == "ok":
        return value
    if kind == "raised":
        raise value
    if kind == "timeout":
        why = f"ran past the review's limit of {timeout_s:g} s (evaluation.review_timeout_s) and was stopped"
    elif kind == "memory":
        why = f"ran out of the review's {memory_mb} MB of memory (evaluation.review_memory_mb)"
    else:
        why = f"ended without an answer ({exit_note or 'killed'})"
    return SubmissionChecks(f"reading and checking it {why}")
