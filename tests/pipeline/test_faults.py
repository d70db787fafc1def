"""Faults through the whole pipeline: a model error retried by Prefect, a crashing solution debugged,
a run killed with SIGKILL and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from prefect import flow
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterName

from flows.competition import CompetitionParams, competition_flow, prepare_run
from swarm.competitions import load_competition
from swarm.journal import Journal
from swarm.llm.base import CallContext
from swarm.llm.loopback_server import LoopbackServer, Reply
from swarm.offline import OfflineClient
from swarm.pipeline.state import load_state
from tasks import generate, select_parent
from tasks.runs import cache_storage, forget_context, get_context

pytestmark = pytest.mark.usefixtures("prefect_server")
REPO = Path(__file__).resolve().parents[2]
CRASHING_REPLY = """The plan: read the data and use a column that is not there.

```python
import pandas as pd

train = pd.read_csv("./input/train.csv")
print(train["no_such_column"].mean())
```
"""


def offline_reply(competition_cache: Path, seed: int) -> str:
    """A real solution text, as a model would send it, written by the offline coder."""
    public = load_competition("titanic", competition_cache).public_dir
    ctx = CallContext(stage="code", kind="draft", hints={"input_dir": str(public), "seed": seed})
    return OfflineClient(seed=seed).complete([], ctx)


def model_overrides(server: LoopbackServer) -> list[str]:
    return [
        "llm.code.provider=openai",
        "llm.code.model=gpt-4o-mini",
        f"llm.code.base_url={server.openai_base_url}",
        "llm.code.api_key_env=SWARM_TEST_MODEL_KEY",
        "llm.code.max_retries=0",
    ]


def code_requests(server: LoopbackServer) -> list:
    return [r for r in server.requests if r.path.endswith("/chat/completions")]


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


def test_model_fault_is_retried_by_the_task(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWARM_TEST_MODEL_KEY", "test-key")
    with LoopbackServer() as server:
        server.enqueue(Reply.error(500), Reply.say(offline_reply(competition_cache, 1)))
        run_dir = tmp_path / "run"
        competition_flow(
            CompetitionParams(
                run_dir=str(run_dir),
                overrides=[
                    *base_overrides,
                    *model_overrides(server),
                    "agent.max_steps=1",
                    "search.parallel=1",
                ],
            )
        )
        assert len(code_requests(server)) == 2
    journal = Journal.load(run_dir / "journal.json")
    assert len(journal) == 1 and not journal.nodes[0].is_buggy
    node_id = journal.nodes[0].id
    generate_runs = task_runs("generate[", node_id, lambda runs: runs and runs[0].run_count >= 2)
    assert len(generate_runs) == 1 and generate_runs[0].run_count == 2
    attempts = [json.loads(line) for line in (run_dir / "llm_usage.jsonl").read_text().splitlines()]
    code_attempts = [a for a in attempts if a["stage"] == "code"]
    assert [a["ok"] for a in code_attempts] == [False, True]


def test_crashing_solution_is_debugged(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWARM_TEST_MODEL_KEY", "test-key")
    with LoopbackServer() as server:
        server.enqueue(Reply.say(CRASHING_REPLY), Reply.say(offline_reply(competition_cache, 2)))
        run_dir = tmp_path / "run"
        summary = competition_flow(
            CompetitionParams(
                run_dir=str(run_dir),
                overrides=[
                    *base_overrides,
                    *model_overrides(server),
                    "agent.max_steps=2",
                    "search.parallel=1",
                    "search.num_drafts=1",
                    "search.debug_prob=1.0",
                ],
            )
        )
    first, second = Journal.load(run_dir / "journal.json").nodes
    assert first.is_buggy and "KeyError" in (first.bug_reason or "")
    assert second.task_type == "debug" and second.parent_ids == (first.id,)
    assert not second.is_buggy and summary["best_node"] == second.id
    failed = task_runs("execute[", first.id, lambda runs: runs and runs[0].state.is_final())
    assert len(failed) == 1 and failed[0].state.is_failed()
    assert "KeyError" in failed[0].state.message and failed[0].run_count == 1  # shown, never retried


def _nodes_on_disk(run_dir: Path) -> list[str]:
    try:
        return [n["id"] for n in json.loads((run_dir / "journal.json").read_text())["nodes"]]
    except (FileNotFoundError, json.JSONDecodeError, KeyError):
        return []


@pytest.mark.slow
def test_sigkilled_run_resumes_without_losing_or_repeating(tmp_path: Path, base_overrides: list[str]) -> None:
    run_dir = tmp_path / "run"
    cmd = [
        sys.executable,
        str(REPO / "flows" / "run_competition.py"),
        "--run-dir",
        str(run_dir),
        "--no-live",
        *[
            arg
            for o in [*base_overrides, "agent.max_steps=6", "evolution.steps_per_epoch=3"]
            for arg in ("--set", o)
        ],
    ]
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
    env.pop("PREFECT_API_URL", None)
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 400
    while len(_nodes_on_disk(run_dir)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _nodes_on_disk(run_dir)
    assert len(before) >= 2

    summary = competition_flow(CompetitionParams(run_dir=str(run_dir), resume=True))

    after = Journal.load(run_dir / "journal.json")
    ids = [n.id for n in after]
    assert ids[: len(before)] == before  # nothing lost, order kept
    assert len(ids) == 6 and len(set(ids)) == 6
    calls = Counter(
        r["node_id"]
        for r in map(json.loads, (run_dir / "llm_usage.jsonl").read_text().splitlines())
        if r["stage"] == "code"
    )
    assert all(calls[node_id] == 1 for node_id in before)  # no finished node's generation was repeated
    assert Counter(n.epoch for n in after) == {1: 3, 2: 3}  # a resumed epoch does not run extra steps
    assert summary["grade"]["valid"]


@flow
def crash_after_generate(run_dir: str) -> None:
    """Plan a step and let the model answer it, then die before the step is recorded."""
    rc = get_context(run_dir)
    journal, state = Journal.load(rc.paths.journal), load_state(rc.paths)
    planned = select_parent(run_dir, journal, state)
    generate.with_options(result_storage=cache_storage(run_dir))(run_dir, planned)
    raise RuntimeError("killed after generate")


def test_resume_replays_a_step_in_flight_without_a_new_model_call(
    tmp_path: Path, base_overrides: list[str]
) -> None:
    run_dir = tmp_path / "run"
    prepare_run(CompetitionParams(run_dir=str(run_dir), overrides=[*base_overrides, "agent.max_steps=2"]))
    with pytest.raises(RuntimeError, match="killed after generate"):
        crash_after_generate(str(run_dir))
    forget_context(str(run_dir))
    pending = json.loads((run_dir / "state.json").read_text())["pending"]
    assert len(pending) == 1 and (run_dir / "pending" / f"{pending[0]['node_id']}.json").is_file()

    competition_flow(CompetitionParams(run_dir=str(run_dir), resume=True))

    journal = Journal.load(run_dir / "journal.json")
    assert pending[0]["node_id"] in journal and len(journal) == 2  # the step in flight was finished
    calls = Counter(
        r["node_id"]
        for r in map(json.loads, (run_dir / "llm_usage.jsonl").read_text().splitlines())
        if r["stage"] == "code"
    )
    assert calls == {n.id: 1 for n in journal}  # the replayed step's answer came from the cache


def test_private_answers_never_reach_a_prompt(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWARM_TEST_MODEL_KEY", "test-key")
    competition = load_competition("titanic", competition_cache)
    answers = next(p for p in competition.private_dir.iterdir() if p.suffix == ".csv")
    answer_rows = "\n".join(answers.read_text().splitlines()[1:6])  # five id,label lines in a row
    with LoopbackServer() as server:
        server.enqueue(*[Reply.say(offline_reply(competition_cache, seed)) for seed in (4, 5, 6)])
        run_dir = tmp_path / "run"
        competition_flow(
            CompetitionParams(
                run_dir=str(run_dir),
                overrides=[
                    *base_overrides,
                    *model_overrides(server),
                    "agent.max_steps=3",
                    "search.parallel=1",
                ],
            )
        )
        bodies = [
            r.body.decode() if isinstance(r.body, bytes) else json.dumps(r.body) for r in server.requests
        ]
    assert len(bodies) == 3
    assert "# EXAMPLES" not in bodies[0] and "# EXAMPLES" in bodies[1]  # the first draft's record, shown
    journal = Journal.load(run_dir / "journal.json")
    records = [json.loads(line) for line in (run_dir / "experience.jsonl").read_text().splitlines()]
    assert sorted(r["node_id"] for r in records) == sorted(n.id for n in journal)  # one record per node
    for node in journal:  # every node traces the agent texts and prompt assets it was given
        assert set(node.meta["agent_versions"]) == {
            "role",
            "strategy_explore",
            "strategy_merge",
            "strategy_mutate",
        }
        assert len(node.meta["prompt_assets_hash"]) == 64
    for body in bodies:
        assert str(competition.private_dir) not in body and answers.name not in body
        assert answer_rows not in body.replace("\\n", "\n")


def test_spend_cap_stops_the_run_cleanly_after_the_step(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWARM_TEST_MODEL_KEY", "test-key")
    with LoopbackServer() as server:
        # 1M prompt tokens of gpt-4o-mini cost $0.15, over the $0.10 cap after the first call.
        reply = offline_reply(competition_cache, 3)
        server.enqueue(*[Reply.say(reply, prompt_tokens=1_000_000, completion_tokens=10)] * 3)
        run_dir = tmp_path / "run"
        summary = competition_flow(
            CompetitionParams(
                run_dir=str(run_dir),
                overrides=[
                    *base_overrides,
                    *model_overrides(server),
                    "agent.max_steps=3",
                    "search.parallel=1",
                    "llm.spend_cap_usd=0.10",
                ],
            )
        )
        assert len(code_requests(server)) == 1
    assert summary["stopped_reason"] == "spend cap reached"
    assert summary["cost_usd"] == pytest.approx(0.15 + 10 * 0.6 / 1e6)
    journal = Journal.load(run_dir / "journal.json")
    assert len(journal) == 1  # the step in flight finished and was saved
    assert summary["grade"]["valid"]


def test_a_reply_without_code_is_a_buggy_node_and_gets_debugged(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWARM_TEST_MODEL_KEY", "test-key")
    with LoopbackServer() as server:
        server.enqueue(
            Reply.say("I would start with a gradient-boosted model, but here is no code."),
            Reply.say(offline_reply(competition_cache, 7)),
        )
        run_dir = tmp_path / "run"
        competition_flow(
            CompetitionParams(
                run_dir=str(run_dir),
                overrides=[
                    *base_overrides,
                    *model_overrides(server),
                    "agent.max_steps=2",
                    "search.parallel=1",
                    "search.num_drafts=1",
                    "search.debug_prob=1.0",
                ],
            )
        )
    first, second = Journal.load(run_dir / "journal.json").nodes
    assert first.is_buggy and "no runnable code" in (first.bug_reason or "") and first.code == ""
    assert first.meta.get("parse_error")
    assert second.task_type == "debug" and second.parent_ids == (first.id,) and not second.is_buggy
