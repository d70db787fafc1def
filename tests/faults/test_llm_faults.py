"""Model faults through whole runs: rate limits, 5xx bursts, timeouts, truncated replies, invalid tool
arguments, replies without code, the spend cap. Each run finishes, and the usage ledger in the run dir holds
one record per HTTP attempt the loopback server received, failed ones included."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterName

from flows.competition import CompetitionParams, competition_flow
from swarm.journal import Journal
from swarm.pipeline.state import RunPaths, load_state
from tests.doubles.loopback_server import LoopbackServer, RecordedRequest, Reply

from .conftest import read_ledger, solution, stage_overrides

pytestmark = pytest.mark.usefixtures("prefect_server", "model_key")
PROTOCOLS = ["openai", "anthropic"]
TIMEOUT_S = 1.0
CUT_OFF = """Plan: survival by sex and class.

```python
import csv

rows = list(csv.DictReader(open("input/train.csv")))
rates = {}
for row in rows:
    key = (row["Sex"], row["Pclass"]
"""


def run(run_dir: Path, overrides: list[str]) -> dict:
    return competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=overrides))


def model_attempts(run_dir: Path) -> list[dict]:
    """The ledger records of calls that went over HTTP (the offline coder's are in the ledger too)."""
    return [r for r in read_ledger(run_dir) if r["provider"] != "offline"]


def assert_one_record_per_attempt(records: list[dict], requests: list[RecordedRequest]) -> None:
    """Record i is request i (the runs here make one call at a time), and says how that attempt ended."""
    assert 0 < len(records) == len(requests), (
        [(r["stage"], r["ok"], r["status"]) for r in records],
        [(q.path, q.reply.status) for q in requests],
    )
    for record, request in zip(records, requests, strict=True):
        reply = request.reply
        assert reply is not None
        if reply.status >= 400:
            assert (record["ok"], record["status"]) == (False, reply.status), record
            assert record["prompt_tokens"] == record["completion_tokens"] == 0
        elif reply.delay_s > TIMEOUT_S:
            assert not record["ok"] and record["status"] is None, record
            assert "timed out" in record["error"]
        else:
            assert (record["prompt_tokens"], record["completion_tokens"]) == (
                reply.prompt_tokens,
                reply.completion_tokens,
            )
            assert record["ok"] or record["error"].startswith("unusable reply"), record


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_rate_limits_bursts_timeouts_and_cut_off_replies(protocol, tmp_path, base_overrides) -> None:
    with LoopbackServer() as server:
        server.enqueue(
            # step 1: a rate limit asking for 1 s, then a burst of server errors, then the answer
            Reply.error(429, "slow down", headers={"retry-after": "1"}),
            Reply.error(500),
            Reply.error(503),
            Reply.error(529, "overloaded"),
            Reply.say(solution("burst"), prompt_tokens=120, completion_tokens=80),
            # step 2: a reply slower than the call's timeout, then the answer
            Reply.slow(TIMEOUT_S + 2, then=Reply.say(solution("late"))),
            Reply.say(solution("timely"), prompt_tokens=130, completion_tokens=90),
            # step 3: a reply cut off at the token limit in the middle of its code
            Reply.cut_off(CUT_OFF, prompt_tokens=140, completion_tokens=4096),
        )
        run_dir = tmp_path / "run"
        overrides = [
            *base_overrides,
            *stage_overrides(
                server,
                protocol=protocol,
                max_retries=4,
                timeout_s=TIMEOUT_S,
                retry_base_s=0.01,
                retry_max_wait_s=2,
            ),
            "agent.max_steps=3",
            "search.parallel=1",
            "search.num_drafts=3",
        ]
        summary = run(run_dir, overrides)
        requests = server.requests
        assert server.pending == 0

    assert load_state(RunPaths(run_dir)).finished and summary["stopped_reason"] == "step limit reached"
    burst, late, cut = Journal.load(run_dir / "journal.jsonl").nodes
    assert not burst.is_buggy and "variant burst" in burst.code
    assert not late.is_buggy and "variant timely" in late.code  # the late reply never arrived
    assert cut.is_buggy and "SyntaxError" in cut.bug_reason
    assert "cut off at its token limit (llm.code.max_tokens=4096)" in cut.bug_reason
    assert summary["best_node"] in (burst.id, late.id) and summary["grade"]["valid"]
    # Retry-After (1 s) won over the 0.01 s backoff.
    assert requests[1].received_at - requests[0].received_at >= 1.0
    records = model_attempts(run_dir)
    assert [r["status"] for r in records[:4]] == [429, 500, 503, 529]
    assert [r["node_id"] for r in records] == [burst.id] * 5 + [late.id] * 2 + [cut.id]
    assert_one_record_per_attempt(records, requests)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_invalid_review_arguments_are_asked_again_then_left_to_the_facts(
    protocol, tmp_path, base_overrides
) -> None:
    valid = {
        "is_bug": False,
        "has_csv_submission": True,
        "summary": "Ran cleanly and wrote the submission.",
        "metric": 0.78,
        "lower_is_better": False,
    }
    with LoopbackServer() as server:
        server.enqueue(
            # step 1: broken JSON, then the wrong types: the review falls back to the facts
            Reply.say(solution("first")),
            Reply.tool_call("submit_review", '{"is_bug": false, "summary": "Ran cle'),
            Reply.tool_call("submit_review", {"is_bug": "perhaps", "metric": "high"}),
            # step 2: broken JSON, then valid arguments: the second answer is used
            Reply.say(solution("second")),
            Reply.tool_call("submit_review", "{not json at all"),
            Reply.tool_call("submit_review", valid),
        )
        run_dir = tmp_path / "run"
        overrides = [
            *base_overrides,
            *stage_overrides(server, "code", protocol),
            *stage_overrides(server, "feedback", protocol),
            "agent.max_steps=2",
            "search.parallel=1",
        ]
        summary = run(run_dir, overrides)
        requests = server.requests

    assert load_state(RunPaths(run_dir)).finished and summary["grade"]["valid"]
    first, second = Journal.load(run_dir / "journal.jsonl").nodes
    assert not first.is_buggy and first.metric.value is not None  # the facts and the printed metric
    assert "review call failed" in first.analysis and "invalid arguments for submit_review twice" in (
        first.analysis
    )
    assert not second.is_buggy and second.analysis == valid["summary"]
    records = model_attempts(run_dir)
    assert [(r["stage"], r["ok"]) for r in records] == [
        ("code", True),
        ("feedback", False),
        ("feedback", False),
        ("code", True),
        ("feedback", False),
        ("feedback", True),
    ]
    assert all(r["error"].startswith("unusable reply") for r in records if not r["ok"])
    assert_one_record_per_attempt(records, requests)


def task_runs(prefix: str, node_id: str, ready, timeout: float = 30.0) -> list:
    """The task runs of one node, polled until `ready(runs)`: Prefect 3 reports task-run states to the
    server through events, so they can land a moment after the flow returned."""
    deadline = time.monotonic() + timeout
    while True:
        with get_client(sync_client=True) as client:
            found = client.read_task_runs(task_run_filter=TaskRunFilter(name=TaskRunFilterName(like_=prefix)))
        runs = [t for t in found if node_id[:6] in t.name]
        if ready(runs) or time.monotonic() > deadline:
            return runs
        time.sleep(0.2)


def test_a_fault_the_client_gives_up_on_is_retried_by_the_task(tmp_path, base_overrides) -> None:
    with LoopbackServer() as server:
        server.enqueue(Reply.error(500), Reply.say(solution("retried")))
        run_dir = tmp_path / "run"
        run(run_dir, [*base_overrides, *stage_overrides(server), "agent.max_steps=1", "search.parallel=1"])
        assert len(server.requests) == 2
    journal = Journal.load(run_dir / "journal.jsonl")
    assert len(journal) == 1 and not journal.nodes[0].is_buggy
    node_id = journal.nodes[0].id
    generate_runs = task_runs("generate[", node_id, lambda runs: runs and runs[0].run_count >= 2)
    assert len(generate_runs) == 1 and generate_runs[0].run_count == 2
    assert [a["ok"] for a in model_attempts(run_dir)] == [False, True]


def test_a_reply_twice_without_code_is_a_buggy_node_and_gets_debugged(tmp_path, base_overrides) -> None:
    with LoopbackServer() as server:
        server.enqueue(
            Reply.say("I would start with a gradient-boosted model, but here is no code."),
            Reply.say("Asked again, still in words: boosting on sex and class."),  # the step asks once more
            Reply.say(solution("debugged")),
        )
        run_dir = tmp_path / "run"
        overrides = [
            *base_overrides,
            *stage_overrides(server),
            "agent.max_steps=2",
            "search.parallel=1",
            "search.num_drafts=1",
            "search.debug_prob=1.0",
        ]
        run(run_dir, overrides)
        requests = server.requests
    first, second = Journal.load(run_dir / "journal.jsonl").nodes
    assert first.is_buggy and "no runnable code" in (first.bug_reason or "") and first.code == ""
    assert first.meta.parse_error and first.meta.reasked
    assert len(requests) == 3 and requests[1].body["messages"][-1]["role"] == "user"
    assert second.task_type == "debug" and second.parent_ids == (first.id,) and not second.is_buggy
    assert_one_record_per_attempt(model_attempts(run_dir), requests)


def test_spend_cap_stops_the_run_cleanly_after_the_step(tmp_path, base_overrides) -> None:
    with LoopbackServer() as server:
        # 1M prompt tokens of gpt-4o-mini cost $0.15, over the $0.10 cap after the first call.
        reply = Reply.say(solution("costly"), prompt_tokens=1_000_000, completion_tokens=10)
        server.enqueue(reply, reply, reply)
        run_dir = tmp_path / "run"
        overrides = [
            *base_overrides,
            *stage_overrides(server),
            "agent.max_steps=3",
            "search.parallel=1",
            "llm.spend_cap_usd=0.10",
        ]
        summary = run(run_dir, overrides)
        assert len(server.requests) == 1
    assert summary["stopped_reason"] == "spend cap reached"
    assert summary["cost_usd"] == pytest.approx(0.15 + 10 * 0.6 / 1e6)
    journal = Journal.load(run_dir / "journal.jsonl")
    assert len(journal) == 1  # the step in flight finished and was saved
    assert summary["grade"]["valid"]
    assert json.loads((run_dir / "state.json").read_text())["finished"]
