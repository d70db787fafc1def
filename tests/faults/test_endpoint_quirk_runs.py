"""Whole runs against endpoints as they behave in the wild: a thinking model whose drafts sit in its trace,
a model that rejects the system role, a server without tool calling (llama.cpp without --jinja: HTTP 500)
and without `usage`; and a reasoning model that spends its whole budget thinking, so the run ends with no
good node and the main job exits non-zero saying which setting to raise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.competition import CompetitionParams, competition_flow
from flows.run_competition import main
from swarm.journal import Journal
from swarm.llm.provider import REASONING_ALLOWANCE
from swarm.protocol import GENE_SECTIONS
from tests.doubles.loopback_server import LoopbackServer, Reply

from .conftest import read_ledger, solution, stage_overrides

pytestmark = [pytest.mark.usefixtures("prefect_server", "model_key"), pytest.mark.slow]
DRAFT = "SECRET-DRAFT-IDEA"
REVIEW = {
    "is_bug": False,
    "has_csv_submission": True,
    "summary": "Ran cleanly and wrote the submission.",
    "metric": 0.78,
    "lower_is_better": False,
}
QUOTED = 'SWARM_METRIC {"name": "accuracy", "value": 0.1, "lower_is_better": false}'


def test_thinking_model_without_tools_system_role_or_usage(tmp_path, base_overrides) -> None:
    reasoning = f"A first draft:\n```python\nraise SystemExit('{DRAFT}')\n```\nNo, simpler."
    tagged = f"<think>\nMaybe:\n```python\nraise SystemExit('{DRAFT}')\n```\n</think>\n"
    with LoopbackServer(
        reject_system=True,
        reject_tools=Reply.error(500, "tools param requires --jinja flag"),
        omit_usage=True,
    ) as server:
        server.enqueue(
            Reply.think(reasoning, solution("first")),  # step 1: the trace in reasoning_content
            Reply.say(f"<think>It printed {QUOTED}.</think>\n```json\n{json.dumps(REVIEW)}\n```\nDone."),
            Reply.say(tagged + solution("second")),  # step 2: the trace in <think> tags
            Reply.say(json.dumps(REVIEW) + "\nThat is my review."),
        )
        run_dir = tmp_path / "run"
        overrides = [
            *base_overrides,
            *stage_overrides(server, "code", max_retries=4, retry_base_s=0.01),
            *stage_overrides(server, "feedback", max_retries=4, retry_base_s=0.01),
            "agent.max_steps=2",
            "search.parallel=1",
            "search.num_drafts=1",
        ]
        summary = competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
        requests = server.requests
        assert server.pending == 0

    nodes = Journal.load(run_dir / "journal.jsonl").nodes
    assert len(nodes) == 2 and summary["good_nodes"] == 2 and summary["grade"]["valid"]
    for node, tag in zip(nodes, ("first", "second"), strict=True):
        assert f"variant {tag}" in node.code and DRAFT not in node.code + node.plan
        assert DRAFT in node.meta.thinking  # kept for people to read
        assert node.analysis == REVIEW["summary"]  # the review was read, not left to the facts
    # the quick solution marks no gene sections: flagged, and the improve step asks for the markers
    assert nodes[0].meta.missing_genes == list(GENE_SECTIONS) and nodes[1].task_type == "improve"
    assert sum("lacks these gene-section marker lines" in json.dumps(r.body) for r in requests) == 1
    # no prompt ever carried a thinking trace, and no request carried a system message once rejected
    later = [json.dumps(r.body) for r in requests[1:]]
    assert not any(DRAFT in body for body in later)
    statuses = [r.reply.status for r in requests]
    assert statuses.count(400) == 2  # one system-role rejection per stage, then remembered
    assert statuses.count(500) == 1  # tools rejected once: no retries, JSON for the rest of the run
    with_tools = [r.reply.status for r in requests if "tools" in r.body]
    assert with_tools == [400, 500]  # the first review only: rejected for its system role, then for tools
    records = [r for r in read_ledger(run_dir) if r["provider"] != "offline"]
    answered = [r for r in records if r["ok"]]
    assert len(answered) == 4 and all(r["estimated"] and r["prompt_tokens"] > 0 for r in answered)
    assert summary["cost_usd"] > 0  # estimated tokens are priced and count toward the spend cap


def test_reasoning_model_that_spends_its_budget_exits_non_zero(tmp_path, base_overrides, capsys) -> None:
    with LoopbackServer(default_reply=Reply.thought_until_limit(tokens=1000)) as server:
        run_dir = tmp_path / "run"
        overrides = [
            *base_overrides,
            *stage_overrides(server, "code", max_tokens=1000),
            "agent.max_steps=1",
            "search.parallel=1",
            "search.num_drafts=1",
        ]
        argv = ["--run-dir", str(run_dir), "--json", *(f"--set={o}" for o in overrides)]
        code = main(argv)
        budgets = [r.body["max_tokens"] for r in server.requests]

    err = capsys.readouterr().err
    assert code == 1
    assert "no good node" in err and "raise llm.code.max_tokens (now 1000)" in err
    assert budgets[:2] == [1000, 1000 + REASONING_ALLOWANCE]  # once it thought until the limit: more room
    assert set(budgets[2:]) <= {1000 + REASONING_ALLOWANCE}
    state = json.loads((Path(run_dir) / "state.json").read_text())
    assert "returned no text" in state["meta"]["failed_steps"][0]["error"]
