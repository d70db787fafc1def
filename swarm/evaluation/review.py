"""The review's rules: what the sandbox and the harness established about a run wins over what a model says.

A review (`swarm.pipeline.review` asks the feedback model, forced function `submit_review`: `SubmitReview`) says
whether the run is buggy and what validation metric it reported. The facts of the run (`ExecutionFacts`: the
sandbox's result, the harness's submission check and score) win: a run that raised, timed out, was OOM-killed,
wrote no submission file or reported no metric is buggy whatever the model says; so is one whose submission file
fails `swarm.competitions.submission_check` (`submission_problem`). The printed `SWARM_METRIC` line is
preferred over the model's metric; when the two disagree the outcome records the conflict; with a harness score,
that score is the metric and the solution's own only a claim. If the review call failed for good, the outcome is
built from the facts alone and says so. A buggy outcome may still carry a metric: do not rank it.
"""

from __future__ import annotations

import math
import re
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal

from pydantic import BaseModel, Field

from sandbox import ExecutionResult
from swarm.competitions.score_interval import ScoreInterval
from swarm.metric import ValidationSource
from swarm.protocol import METRIC_LINE_PREFIX, ReportedMetric, parse_metric_line

MetricSource = Literal["printed", "reviewer", "harness"]


class SubmitReview(BaseModel):
    """Arguments of the forced function `submit_review`."""

    is_bug: bool = Field(description="True if the run failed or has a bug that makes its result invalid.")
    has_csv_submission: bool = Field(
        description="True if the script wrote its predictions to submission.csv."
    )
    summary: str = Field(description="Two or three sentences: what happened, and what to fix if it is buggy.")
    metric: float | None = Field(
        description="The validation metric the script reported, or null if it reported none."
    )
    lower_is_better: bool = Field(description="True if a lower value of the metric is better (e.g. RMSE).")


@dataclass(frozen=True)
class TrustedScore:
    """The harness's score of a run on the rows it held out (None when its predictions for them are unusable,
    which the submission problem then says); it replaces the solution's own claim as the metric."""

    value: float | None
    lower_is_better: bool
    interval: ScoreInterval | None = None  # the score's bootstrap interval, or why there is none


@dataclass(frozen=True, kw_only=True)
class ExecutionFacts:
    """What the sandbox and the harness established about one run; the review cannot overrule them.

    `result` is the sandbox's record of the run as it came (output, exit code, exception, limits hit, the
    submission file). Beside it what the harness added: `submission_problem`, why the written submission is
    invalid (from `check_submission`), or None; `trusted`, the harness's score, when it held rows out; and the
    run's settings the review's words name (`timeout_s`, `submission_name`).
    """

    result: ExecutionResult
    submission_problem: str | None = None
    timeout_s: float | None = None
    submission_name: str = "submission.csv"
    trusted: TrustedScore | None = None

    @property
    def submission_exists(self) -> bool:
        return self.result.submission_path is not None


@dataclass(frozen=True)
class ReviewOutcome:
    """The verdict on one execution. `llm_said` is the model's raw arguments (None if the call failed).

    `metric` is the one to rank by; `metric_source` says where it came from (`printed` SWARM_METRIC line,
    `reviewer`, or None). `llm_metric` / `llm_lower_is_better` are what the model claimed, kept even when the
    printed line wins; `metric_conflict` describes a disagreement in words (None when they agree).
    `submission_problem` is why the submission file was rejected, if it was. With a harness score, `metric` is
    that score (`metric_source` "harness") and `claimed_metric` is what the solution printed (or, failing that,
    what the reviewer read), shown beside it.
    """

    is_buggy: bool
    bug_reason: str | None
    metric: float | None
    lower_is_better: bool
    summary: str
    metric_conflict: str | None = None
    llm_said: dict[str, Any] | None = None
    review_error: str | None = None
    metric_source: MetricSource | None = None
    llm_metric: float | None = None
    llm_lower_is_better: bool | None = None
    submission_problem: str | None = None
    claimed_metric: float | None = None
    test_submission: str | None = None  # the harness's copy of the submission's test rows, if it split one
    consistency: dict[str, Any] | None = None  # agreement with the harness's reference, held-out vs test rows
    interval: ScoreInterval | None = None  # the harness score's interval (or why none), with a harness score
    timings: dict[str, float] = field(default_factory=dict)  # seconds: the harness's checks, the review call

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled (a cached review, perhaps saved by an older version): the fields it lacks get their
        defaults, so a resumed run reads its old cache."""
        defaults = {f.name: f.default_factory() for f in fields(self) if f.default_factory is not MISSING}
        self.__dict__.update({**defaults, **state})

    @property
    def validation_source(self) -> ValidationSource:
        """`harness` when the harness scored the run, else `solution` (its own, unverified claim)."""
        return ValidationSource.HARNESS if self.metric_source == "harness" else ValidationSource.SOLUTION

    @property
    def overruled(self) -> bool:
        """Whether the reviewer said the run was fine and the facts made it buggy anyway."""
        return self.llm_said is not None and not self.llm_said.get("is_bug") and self.is_buggy

    @property
    def has_metric_conflict(self) -> bool:
        """Whether the printed metric and the model's claim disagree."""
        return self.metric_conflict is not None

    def conflict_record(self) -> dict[str, Any] | None:
        """What to store on a node when there is a metric conflict (JSON-ready), else None."""
        if self.metric_conflict is None:
            return None
        return {
            "description": self.metric_conflict,
            "used_metric": self.metric,
            "used_source": self.metric_source,
            "used_lower_is_better": self.lower_is_better,
            "claimed_metric": self.llm_metric,
            "claimed_lower_is_better": self.llm_lower_is_better,
        }


def combine_review(
    llm_said: dict[str, Any] | None,
    facts: ExecutionFacts,
    *,
    rel_tol: float = 5e-3,
    review_error: str | None = None,
) -> ReviewOutcome:
    """The outcome from the model's review (None if it failed) and the facts; the facts win. With a trusted
    (harness) score in the facts, that score is the metric and the solution's own is only a claim."""
    said = SubmitReview.model_validate(llm_said) if llm_said is not None else None
    printed = parse_metric_line(facts.result.output)
    llm_metric = said.metric if said is not None and _finite(said.metric) else None
    llm_lower = said.lower_is_better if said is not None else None

    source: MetricSource | None
    if printed is not None:
        metric, lower, source = printed.value, printed.lower_is_better, "printed"
    elif llm_metric is not None and llm_lower is not None:
        metric, lower, source = llm_metric, llm_lower, "reviewer"
    else:
        metric, lower, source = None, bool(llm_lower), None
    claimed = metric
    trusted = facts.trusted
    if trusted is not None:
        metric, lower, source = trusted.value, trusted.lower_is_better, "harness"

    reasons = fact_reasons(facts)
    if metric is None and trusted is None:
        reasons.append(f"no validation metric was reported (no {METRIC_LINE_PREFIX} line in the output)")
    elif metric is None and not reasons:
        reasons.append("the harness could not score its predictions for the rows it holds out")
    if not reasons and said is not None and said.is_bug:
        reasons.append(f"the reviewer judged the run buggy: {said.summary.strip() or 'no reason given'}")

    if said is not None:
        summary = said.summary.strip()
    else:
        summary = (
            f"The review call failed ({review_error}); this outcome is built from the execution facts only."
        )
    conflict = metric_conflict(printed, llm_metric, llm_lower, rel_tol)
    return ReviewOutcome(
        is_buggy=bool(reasons),
        bug_reason="; ".join(reasons) if reasons else None,
        metric=metric,
        lower_is_better=lower,
        summary=summary,
        metric_conflict=conflict,
        llm_said=llm_said,
        review_error=review_error,
        metric_source=source,
        llm_metric=llm_metric,
        llm_lower_is_better=llm_lower,
        submission_problem=facts.submission_problem if facts.submission_exists else None,
        claimed_metric=claimed,
        interval=trusted.interval if trusted is not None and trusted.value is not None else None,
    )


def fact_reasons(facts: ExecutionFacts) -> list[str]:
    """Why the facts alone make the run buggy, in words a user can read (empty when they do not)."""
    reasons = []
    if facts.result.timed_out:
        reasons.append(f"timed out after {facts.timeout_s:g} s" if facts.timeout_s else "timed out")
    if facts.result.oom_killed:
        reasons.append("was killed for running out of memory")
    if facts.result.exc_type:
        reasons.append(describe_exception(facts.result.exc_type, facts.result.output, facts.result.exc_info))
    elif (
        facts.result.exit_code not in (0, None) and not facts.result.timed_out and not facts.result.oom_killed
    ):
        reasons.append(f"the script exited with code {facts.result.exit_code}")
    if not facts.submission_exists and facts.result.submission_not_file:
        kind = facts.result.submission_not_file
        reasons.append(
            f"the {facts.submission_name} it wrote is {kind}, not a regular file, so it was not read"
        )
    elif not facts.submission_exists:
        reasons.append(f"no {facts.submission_name} was written")
    elif facts.submission_problem:
        reasons.append(f"the {facts.submission_name} it wrote is invalid: {facts.submission_problem}")
    return reasons


def describe_exception(exc_type: str, output: str, message: str | None = None) -> str:
    """E.g. "the script raised KeyError: 'Age' at line 12", read from the traceback in `output`, else with
    `message` (what the sandbox recorded)."""
    name = exc_type.rsplit(".", 1)[-1]
    pattern = re.compile(rf"^(?:[\w.]+\.)?{re.escape(name)}(?::[ \t]*(.*))?$", re.MULTILINE)
    matches = pattern.findall(output or "")
    message = (matches[-1].strip() if matches else "") or (message or "").strip()
    line = _script_line(output or "")
    text = f"the script raised {name}" + (f": {message[:200]}" if message else "")
    return text + (f" at line {line}" if line else "")


def metric_conflict(
    printed: ReportedMetric | None, llm_metric: float | None, llm_lower: bool | None, rel_tol: float
) -> str | None:
    """A description of how the printed metric and the model's disagree, or None when they agree."""
    if printed is None or llm_metric is None:
        return None
    problems = []
    scale = max(abs(printed.value), abs(llm_metric), 1e-12)
    if abs(printed.value - llm_metric) / scale > rel_tol:
        problems.append(
            f"the printed {printed.name} is {printed.value:g} but the reviewer said {llm_metric:g}"
        )
    if llm_lower is not None and llm_lower != printed.lower_is_better:
        problems.append(
            f"the printed line says {_direction(printed.lower_is_better)} but the reviewer said "
            f"{_direction(llm_lower)}"
        )
    return "; ".join(problems) + " (the printed line is used)" if problems else None


def _script_line(output: str) -> int | None:
    """The line number of the innermost traceback frame that is not inside an installed library."""
    frames = re.findall(r'^\s*File "([^"]+)", line (\d+)', output, re.MULTILINE)
    for filename, line in reversed(frames):
        if not any(part in filename for part in ("site-packages", "/lib/python", "<frozen")):
            return int(line)
    return int(frames[-1][1]) if frames else None


def _direction(lower_is_better: bool) -> str:
    return "lower is better" if lower_is_better else "higher is better"


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
