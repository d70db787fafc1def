"""The review: the model's verdict overruled by the facts, conflicts recorded, failures survived."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import ExecutionResult
from swarm.evaluation.review import ExecutionFacts, TrustedScore, combine_review, describe_exception
from swarm.llm.base import CallContext
from swarm.pipeline.review import SUBMIT_REVIEW, review_execution
from swarm.protocol import metric_line
from tests.doubles.loopback_server import Reply

CTX = CallContext(stage="feedback", kind="review", node_id="n1")
TRACEBACK = """Traceback (most recent call last):
  File "/work/runfile.py", line 12, in <module>
    df["Age"]
  File "/usr/lib/python3.11/site-packages/pandas/core/frame.py", line 4102, in __getitem__
    raise KeyError(key)
KeyError: 'Age'
"""
CLEAN = dict(exit_code=0, exc_type=None, timed_out=False, oom_killed=False, submission_exists=True)
HARNESS_FIELDS = {"submission_problem", "timeout_s", "submission_name", "trusted"}


def facts(output: str, **overrides) -> ExecutionFacts:
    """The facts of a clean run that printed `output`, with `overrides`: the sandbox's result's fields (and
    `submission_exists`, `exc_message`, as the review reads them off it) or the harness's."""
    fields = {**CLEAN, **overrides}
    added = {k: fields.pop(k) for k in HARNESS_FIELDS & set(fields)}
    written = fields.pop("submission_exists")
    result = ExecutionResult(
        output=output,
        exc_info=fields.pop("exc_message", None),
        exec_time=1.0,
        submission_path=Path("submission.csv") if written else None,
        backend="local",
        **fields,
    )
    return ExecutionFacts(result=result, **added)


def said(**overrides):
    base = dict(is_bug=False, has_csv_submission=True, summary="Fine.", metric=0.81, lower_is_better=False)
    return {**base, **overrides}


def test_clean_run_uses_the_printed_metric():
    out = combine_review(said(metric=0.8123), facts(metric_line("accuracy", 0.8123, False)))
    assert (out.is_buggy, out.bug_reason, out.metric, out.lower_is_better) == (False, None, 0.8123, False)
    assert out.metric_conflict is None


@pytest.mark.parametrize(
    ("changed", "reason"),
    [
        ({"exc_type": "KeyError", "exit_code": 1}, "the script raised KeyError: 'Age' at line 12"),
        ({"timed_out": True, "exit_code": None}, "timed out after 600 s"),
        ({"oom_killed": True, "exit_code": 137}, "was killed for running out of memory"),
        ({"submission_exists": False}, "no submission.csv was written"),
        ({"exit_code": 2}, "the script exited with code 2"),
    ],
)
def test_hard_facts_override_a_happy_reviewer(changed, reason):
    output = TRACEBACK + metric_line("acc", 0.9, False)
    out = combine_review(said(is_bug=False), facts(output, **changed, timeout_s=600))
    assert out.is_buggy
    assert reason in out.bug_reason


def test_no_metric_anywhere_is_a_bug():
    out = combine_review(said(metric=None), facts("training done\n"))
    assert out.is_buggy and "no validation metric" in out.bug_reason
    assert out.metric is None


def test_reviewer_metric_is_used_when_nothing_was_printed():
    out = combine_review(said(metric=1.5, lower_is_better=True), facts("rmse 1.5\n"))
    assert (out.is_buggy, out.metric, out.lower_is_better) == (False, 1.5, True)


def test_reviewer_can_still_flag_a_bug():
    out = combine_review(
        said(is_bug=True, summary="It trains on the test labels."), facts(metric_line("a", 1, False))
    )
    assert out.is_buggy and "trains on the test labels" in out.bug_reason


def test_value_conflict_is_recorded_and_the_printed_line_wins():
    out = combine_review(said(metric=0.75), facts(metric_line("auc", 0.8123, False)))
    assert out.metric == 0.8123
    assert "0.8123" in out.metric_conflict and "0.75" in out.metric_conflict


def test_direction_conflict_is_recorded():
    out = combine_review(said(metric=0.3, lower_is_better=False), facts(metric_line("rmse", 0.3, True)))
    assert out.lower_is_better is True
    assert "lower is better" in out.metric_conflict and "higher is better" in out.metric_conflict


def test_small_rounding_is_not_a_conflict():
    out = combine_review(said(metric=0.8123), facts(metric_line("auc", 0.81234, False)))
    assert out.metric_conflict is None


def test_describe_exception_handles_qualified_names_and_missing_traceback():
    output = '  File "/w/run.py", line 3, in <module>\npandas.errors.ParserError: bad line\n'
    assert describe_exception("ParserError", output) == "the script raised ParserError: bad line at line 3"
    assert describe_exception("MemoryError", "") == "the script raised MemoryError"


def test_the_sandbox_message_is_used_when_the_output_has_none():
    """E.g. the sandbox killed the run for its disk use: nothing in the output says why."""
    limit = "wrote more than the 16 MB disk limit (execution.disk_mb) and was killed"
    out = combine_review(
        said(is_bug=False),
        facts(
            "wrote 17 files\n",
            exit_code=137,
            exc_type="DiskLimitExceeded",
            submission_exists=False,
            exc_message=limit,
        ),
    )
    assert out.is_buggy and out.bug_reason.startswith(f"the script raised DiskLimitExceeded: {limit}")
    printed = "Traceback (most recent call last):\nKeyError: 'Age'\n"
    assert describe_exception("KeyError", printed, "ignored") == "the script raised KeyError: 'Age'"


def test_review_through_a_real_client(make, server, provider):
    server.enqueue(Reply.tool_call("submit_review", said(metric=0.5)))
    out = review_execution(
        make(provider),
        CTX,
        task_description="Predict survival.",
        code="print('hi')",
        facts=facts(metric_line("accuracy", 0.8, False)),
    )
    assert out.metric == 0.8 and out.llm_said["metric"] == 0.5 and out.metric_conflict
    body = server.requests[0].body
    assert SUBMIT_REVIEW.name in str(body.get("tool_choice"))


def test_failed_review_falls_back_to_the_facts(make, server, provider):
    server.enqueue(Reply.error(401, "bad key"))
    out = review_execution(
        make(provider),
        CTX,
        task_description="t",
        code="c",
        facts=facts(TRACEBACK, exc_type="KeyError", exit_code=1),
    )
    assert out.is_buggy and "KeyError: 'Age' at line 12" in out.bug_reason
    assert out.llm_said is None and "401" in out.review_error
    assert "facts only" in out.summary


def test_review_with_the_offline_coder_gets_the_facts_as_hints():
    offline = pytest.importorskip("swarm.offline_coder")
    out = review_execution(
        offline.OfflineClient(),
        CallContext(stage="feedback", kind="review"),
        task_description="t",
        code="c",
        facts=facts("fitting\n" + metric_line("rmse", 2.5, True)),
    )
    assert (out.is_buggy, out.metric, out.lower_is_better) == (False, 2.5, True)
    assert out.llm_said is not None and out.llm_said["metric"] == 2.5


def test_an_invalid_submission_makes_the_node_buggy_with_the_reason():
    problem = "it has 10 rows but the sample submission has 418"
    out = combine_review(said(), facts(metric_line("accuracy", 0.8, False), submission_problem=problem))
    assert out.is_buggy
    assert out.bug_reason == f"the submission.csv it wrote is invalid: {problem}"
    assert out.submission_problem == problem
    assert out.metric == 0.8  # still reported, but a buggy node is not ranked


def test_a_missing_submission_is_not_also_called_invalid():
    missing = facts(
        metric_line("accuracy", 0.8, False),
        submission_exists=False,
        submission_problem="submission file x does not exist",
    )
    out = combine_review(said(), missing)
    assert out.bug_reason == "no submission.csv was written" and out.submission_problem is None


def test_the_reviewer_is_told_about_an_invalid_submission(make, server, provider):
    server.enqueue(Reply.tool_call("submit_review", said()))
    out = review_execution(
        make(provider),
        CTX,
        task_description="t",
        code="c",
        facts=facts(
            metric_line("accuracy", 0.8, False),
            submission_problem="column 'Survived' has 3 missing/NaN value(s) of 418",
        ),
    )
    assert out.is_buggy and "column 'Survived' has 3 missing/NaN" in out.bug_reason
    prompt = server.requests[0].body["messages"][-1]["content"]
    assert "submission.csv is invalid: column 'Survived' has 3 missing/NaN" in prompt


def test_the_offline_reviewer_flags_an_invalid_submission():
    offline = pytest.importorskip("swarm.offline_coder")
    out = review_execution(
        offline.OfflineClient(),
        CallContext(stage="feedback", kind="review"),
        task_description="t",
        code="c",
        facts=facts(metric_line("rmse", 2.5, True), submission_problem="duplicate id(s) in 'Id': '7'"),
    )
    assert out.is_buggy and out.llm_said["is_bug"] is True
    assert "duplicate id(s) in 'Id'" in out.llm_said["summary"]


def test_outcome_exposes_the_claimed_metric_and_the_conflict():
    out = combine_review(said(metric=0.75, lower_is_better=True), facts(metric_line("auc", 0.8123, False)))
    assert (out.metric, out.metric_source, out.lower_is_better) == (0.8123, "printed", False)
    assert (out.llm_metric, out.llm_lower_is_better) == (0.75, True)
    assert out.has_metric_conflict
    record = out.conflict_record()
    assert record == {
        "description": out.metric_conflict,
        "used_metric": 0.8123,
        "used_source": "printed",
        "used_lower_is_better": False,
        "claimed_metric": 0.75,
        "claimed_lower_is_better": True,
    }
    assert "the reviewer said 0.75" in record["description"] and "lower is better" in record["description"]
    agreed = combine_review(said(metric=0.8123), facts(metric_line("auc", 0.8123, False)))
    assert agreed.conflict_record() is None and not agreed.has_metric_conflict
    assert agreed.llm_metric == 0.8123


def test_metric_source_is_the_reviewer_or_none():
    by_reviewer = combine_review(said(metric=1.5, lower_is_better=True), facts("rmse 1.5\n"))
    assert (by_reviewer.metric_source, by_reviewer.llm_metric) == ("reviewer", 1.5)
    failed = combine_review(None, facts(""), review_error="HTTP 500")
    assert (failed.metric_source, failed.llm_metric, failed.llm_lower_is_better) == (None, None, None)


def test_a_harness_score_replaces_the_claim():
    """The trusted score travels in the facts: it is the metric, the printed line only a claim."""
    trusted = TrustedScore(0.7, lower_is_better=False)
    out = combine_review(said(metric=0.9), facts(metric_line("auc", 0.9, False), trusted=trusted))
    assert (out.metric, out.metric_source, out.claimed_metric) == (0.7, "harness", 0.9)
    assert not out.is_buggy
    unscored = combine_review(said(), facts("no metric\n", trusted=TrustedScore(None, False)))
    assert unscored.is_buggy and "harness could not score" in unscored.bug_reason


def test_facts_are_one_frozen_value():
    value = facts("x")
    with pytest.raises(AttributeError):
        value.timeout_s = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        ExecutionFacts(value.result, None, 600)  # type: ignore[misc]  # keywords only
