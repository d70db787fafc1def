"""A run SIGKILLed at random moments and resumed: no completed node is lost or changed, no answered model
call is made again, every JSON file of the run dir parses after every kill, and the run ends graded."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from prefect import flow
from prefect.settings import PREFECT_API_URL
from prefect.utilities.annotations import opaque

from flows.competition import CompetitionParams, competition_flow, prepare_run
from swarm.atomic import read_json
from swarm.competitions import load_competition
from swarm.competitions.submission_check import check_submission
from swarm.journal import Journal
from swarm.pipeline.mcts import ROOT, tree_stats
from swarm.pipeline.schedule import LiveRun
from swarm.pipeline.state import RunPaths, load_state
from swarm.pipeline.steps import PlannedStep, generation_cache_key
from tasks import generate, select_parent
from tasks.runs import cache_storage, forget_context, get_context
from tests.doubles.loopback_server import LoopbackServer, Reply

from .conftest import solution, stage_overrides

pytestmark = pytest.mark.usefixtures("prefect_server")
REPO = Path(__file__).resolve().parents[2]
MAX_STEPS = 6
STEPS_PER_EPOCH = 2
KILLS = 4
# Fields a node may gain after it was recorded: its GA fitness is set again at every epoch's end, its tree
# statistics after every step of an mcts run.
MUTABLE_FIELDS = {"fitness", "visits", "total_reward"}


@dataclass
class Kill:
    """What the run dir held right after one SIGKILL."""

    nodes: dict[str, dict]
    code_calls: Counter  # code-stage ledger records per node id
    cached: set[str]  # pending nodes whose model answer was already persisted


def json_files_parse(run_dir: Path) -> dict[str, dict]:
    """Parse every JSON file of the run (not the solutions' own outputs); return the journal's nodes by id.

    (`code_calls` parses every line of the usage ledger.)"""
    for path in run_dir.rglob("*.json"):
        if "workspace" not in path.relative_to(run_dir).parts:
            read_json(path)  # raises, naming the file, when it is not valid JSON
    if not (run_dir / "journal.jsonl").exists():
        return {}
    journal = Journal.load(run_dir / "journal.jsonl")  # also validates the DAG
    return {node.id: node.to_dict() for node in journal}


def best_solution_on_disk(run_dir: Path, nodes: dict[str, dict], sample: Path) -> None:
    """Once the journal holds a good node, best_solution/ holds a valid scored submission and its code, whatever
    moment the kill came at (the node it names is good, or was not saved yet when the kill came)."""
    if not any(node["is_buggy"] is False for node in nodes.values()):
        return
    best = run_dir / "workspace" / "best_solution"
    assert (best / "submission.csv").is_file() and (best / "solution.py").is_file(), sorted(best.iterdir())
    assert check_submission(best / "submission.csv", sample, "PassengerId") is None
    named = (best / "node_id.txt").read_text().strip()
    assert named not in nodes or nodes[named]["is_buggy"] is False, named


def code_calls(run_dir: Path) -> Counter:
    path = run_dir / "llm_usage.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return Counter(r["node_id"] for r in map(json.loads, lines) if r["stage"] == "code")


def cached_pending(run_dir: Path) -> set[str]:
    """Pending steps whose generation result Prefect had persisted (a resume must not ask the model again)."""
    cache = {p.name for p in (run_dir / "cache").iterdir()} if (run_dir / "cache").is_dir() else set()
    found = set()
    for saved in (run_dir / "pending").glob("*.json"):
        planned = PlannedStep.model_validate(read_json(saved))
        if generation_cache_key(planned, "gpt-4o-mini", "openai", 0.5) in cache:
            found.add(planned.plan.node_id)
    return found


def journal_size(run_dir: Path) -> int:
    try:
        return len(Journal.load(run_dir / "journal.jsonl"))
    except (FileNotFoundError, ValueError):
        return 0


def launch(run_dir: Path, overrides: list[str], env: dict[str, str]) -> subprocess.Popen:
    """The main job as a user starts it: a new run, or a resume once the run dir holds a state."""
    if (run_dir / "state.json").exists():
        args = ["--resume", str(run_dir)]
    else:
        args = ["--run-dir", str(run_dir), *[a for o in overrides for a in ("--set", o)]]
    cmd = [sys.executable, str(REPO / "flows" / "run_competition.py"), "--no-live", "--json", *args]
    env = {**env, "PYTHONPATH": str(REPO)}  # this checkout's packages, wherever pip points
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "policy"), [(1, "aide"), (2, "mcts")])
def test_sigkill_at_random_moments_then_resume(
    seed, policy, tmp_path, base_overrides, model_key, competition_cache
) -> None:
    rng = random.Random(seed)
    sample = load_competition("titanic", competition_cache).sample_submission
    run_dir = tmp_path / "run"
    env = {
        **os.environ,
        "PREFECT_API_URL": PREFECT_API_URL.value(),  # the session's test server: no server start per process
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
    }
    with LoopbackServer(latency_s=0.3) as server:
        server.enqueue(*[Reply.say(solution(f"{seed}-{i}")) for i in range(4 * MAX_STEPS)])
        overrides = [
            *base_overrides,
            *stage_overrides(server),
            f"agent.max_steps={MAX_STEPS}",
            f"evolution.steps_per_epoch={STEPS_PER_EPOCH}",
            f"search.policy={policy}",
        ]
        kills: list[Kill] = []
        for number in range(KILLS):
            proc = launch(run_dir, overrides, env)
            # A random moment: the first kill while the run starts up (imports, checks, creating the run dir),
            # the others a little after one of the next model calls (during the call itself, the execution,
            # the review, or an epoch's end).
            target = len(server.requests) + (0 if number == 0 else rng.randint(1, 2))
            deadline = time.monotonic() + 300
            while proc.poll() is None and len(server.requests) < target and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(rng.uniform(1.0, 6.0) if number == 0 else rng.uniform(0.0, 1.5))
            if proc.poll() is not None:  # it finished first
                assert proc.returncode == 0, proc.stderr.read()[-3000:]
                break
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            kill = Kill(json_files_parse(run_dir), code_calls(run_dir), cached_pending(run_dir))
            best_solution_on_disk(run_dir, kill.nodes, sample)
            for before in kills:  # nothing recorded before an earlier kill was lost or changed
                for node_id, node in before.nodes.items():
                    assert _stable(kill.nodes.get(node_id)) == _stable(node), (
                        f"node {node_id} lost or changed"
                    )
            kills.append(kill)

        final = launch(run_dir, overrides, env)
        out, err = final.communicate(timeout=600)
        assert final.returncode == 0, err[-3000:]
        requests = server.requests

    summary = json.loads(out[out.index("{") :])
    assert summary["grade"]["valid"] and summary["best_node"] is not None
    assert load_state(RunPaths(run_dir)).finished
    journal = Journal.load(run_dir / "journal.jsonl")
    final_nodes = {node.id: node.to_dict() for node in journal}
    assert len(final_nodes) == MAX_STEPS
    assert Counter(n.epoch for n in journal) == {e: STEPS_PER_EPOCH for e in (1, 2, 3)}
    if policy == "mcts":  # the tree went on across the kills: each node's statistics are its whole subtree's
        stats = tree_stats(journal, [], lower_is_better=False)
        assert [n.visits for n in journal] == [stats.visits[n.id] for n in journal]
        assert sum(stats.visits[k] for k in stats.children[ROOT]) == MAX_STEPS
    for kill in kills:
        for node_id, node in kill.nodes.items():
            assert _stable(final_nodes.get(node_id)) == _stable(node), f"node {node_id} lost or changed"
    # Every node's model call was answered once, unless a kill came before its answer was persisted.
    calls = code_calls(run_dir)
    assert set(calls) == set(final_nodes)
    for node_id, count in calls.items():
        retried_after = [
            k for k in kills if node_id not in k.nodes and node_id not in k.cached and k.code_calls[node_id]
        ]
        assert count <= 1 + len(retried_after), f"node {node_id}: {count} model calls, {len(kills)} kills"
    for kill in kills:  # a node finished before a kill never called the model again
        for node_id in kill.nodes:
            assert calls[node_id] == kill.code_calls[node_id]
    # Each request the server got is in the ledger, or was cut off by a kill (at most `parallel` per kill).
    assert sum(calls.values()) <= len(requests) <= sum(calls.values()) + 2 * len(kills)


def _stable(node: dict | None) -> dict | None:
    return None if node is None else {k: v for k, v in node.items() if k not in MUTABLE_FIELDS}


@flow
def crash_after_generate(run_dir: str) -> None:
    """Plan a step and let the model answer it, then die before the step is recorded."""
    rc = get_context(run_dir)
    journal, state = Journal.load(rc.paths.journal), load_state(rc.paths)
    planned = select_parent(opaque(LiveRun(rc, journal, state)), state.next_step)
    generate.with_options(result_storage=cache_storage(run_dir))(run_dir, planned)
    raise RuntimeError("killed after generate")


@pytest.mark.parametrize("max_steps", [2, 1], ids=["below the step limit", "at the step limit"])
def test_resume_replays_a_step_in_flight_without_a_new_model_call(
    tmp_path: Path, base_overrides: list[str], max_steps: int
) -> None:
    run_dir = tmp_path / "run"
    overrides = [*base_overrides, f"agent.max_steps={max_steps}"]
    prepare_run(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
    with pytest.raises(RuntimeError, match="killed after generate"):
        crash_after_generate(str(run_dir))
    forget_context(str(run_dir))
    pending = json.loads((run_dir / "state.json").read_text())["pending"]
    assert len(pending) == 1 and (run_dir / "pending" / f"{pending[0]['node_id']}.json").is_file()

    competition_flow(CompetitionParams(run_dir=str(run_dir), resume=True))

    journal = Journal.load(run_dir / "journal.jsonl")
    assert pending[0]["node_id"] in journal and len(journal) == max_steps  # the step in flight was finished
    calls = Counter(
        r["node_id"]
        for r in map(json.loads, (run_dir / "llm_usage.jsonl").read_text().splitlines())
        if r["stage"] == "code"
    )
    assert calls == {n.id: 1 for n in journal}  # the replayed step's answer came from the cache
