"""The deployments and the Prefect UI, for real: a `prefect server` on loopback, the work pools and deployments
made by the repo's own scripts and prefect.yaml, a worker, short offline runs, then the pages in headless
Chromium (Debian's `chromium`), with screenshots saved under tests/ops/artifacts/ for people to look at.

Installs nothing. Without chromium the module is skipped, except with CI=true, where that fails it.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.ops.processes import free_port, state_of, stop, tail

pytestmark = [pytest.mark.ui, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "artifacts"
IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
CALL_TRIES = 6  # tries of one API call (503s and timeouts)
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]
TERMINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}
OFFLINE = [
    "execution.sandbox=local",
    "llm.code.provider=offline",
    "llm.feedback.provider=offline",
    "llm.evolution.provider=offline",
    "search.parallel=2",
]
STEP_NAME = re.compile(r"^(generate|execute|review)\[agent_\d+ [a-z]+ [0-9a-f]{6}\]$")


# ---------------------------------------------------------------------------------------------- processes


# ------------------------------------------------------------------------------------------------ the stack


@dataclass
class Stack:
    """A live server + worker, with the helpers the tests use."""

    url: str
    env: dict[str, str]
    tmp: Path
    chromium: str
    logs: dict[str, Path]
    runs: dict[str, str] = field(default_factory=dict)

    @property
    def api(self) -> str:
        return f"{self.url}/api"

    def get(self, path: str) -> Any:
        return self._call("GET", path, None)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self._call("POST", path, body)

    def _call(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        """One API call; a 503 (SQLite busy on a loaded machine) is tried again, as Prefect's client does, and so
        is a call the server did not answer in time (it stalled once for over a minute while two runs wrote):
        every call here reads, or creates a flow run with an idempotency key (`trigger`), so a retry does no
        harm."""
        for attempt in range(CALL_TRIES):
            try:
                response = httpx.request(method, f"{self.api}{path}", json=body, timeout=60)
            except httpx.TimeoutException:
                if attempt == CALL_TRIES - 1:
                    raise
                time.sleep(1 + attempt)
                continue
            if response.status_code != 503:
                break
            time.sleep(1 + attempt)
        response.raise_for_status()
        return response.json()

    def run(self, cmd: list[str], timeout: float = 120) -> str:
        """A command against this server, from the repo root; fails the test with its output when it fails."""
        done = subprocess.run(
            cmd, cwd=REPO, env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )
        assert done.returncode == 0, (
            f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        )
        return done.stdout + done.stderr

    def run_parallel(self, *cmds: list[str], timeout: float = 180) -> list[str]:
        """Several commands at once (each as `run`)."""
        with cf.ThreadPoolExecutor(len(cmds)) as pool:
            return list(pool.map(lambda cmd: self.run(cmd, timeout), cmds))

    def trigger(self, deployment: str, params: dict[str, Any]) -> str:
        """Create a flow run of `flow/deployment` with these `params`; its id."""
        dep = self.get(f"/deployments/name/{deployment}")
        body = {
            "parameters": {"params": params},
            "idempotency_key": uuid.uuid4().hex,
        }  # one run, retried or not
        return self.post(f"/deployments/{dep['id']}/create_flow_run", body)["id"]

    def wait(self, flow_run_id: str, timeout: float = 240) -> dict[str, Any]:
        """The flow run once it reached a terminal state (the worker's log in the failure otherwise)."""
        deadline = time.monotonic() + timeout
        while True:
            run = self.get(f"/flow_runs/{flow_run_id}")
            if state_of(run) in TERMINAL:
                return run
            if time.monotonic() > deadline:
                pytest.fail(
                    f"flow run {run['name']} still {state_of(run)} after {timeout:.0f} s; worker log:\n"
                    + tail(self.logs["worker"])
                )
            time.sleep(1)

    def subflows(self, flow_run_id: str) -> list[dict[str, Any]]:
        body = {"flow_runs": {"parent_flow_run_id": {"operator": "and_", "any_": [flow_run_id]}}}
        return sorted(self.post("/flow_runs/filter", body), key=lambda r: r["start_time"] or "")

    def task_runs(self, flow_run_ids: list[str], expect: Callable[[list[dict]], bool]) -> list[dict]:
        """The task runs of these flow runs once `expect` holds (their states arrive through events, so they
        can land a moment after the flow run finished)."""
        deadline = time.monotonic() + 60
        while True:
            runs = self.post("/task_runs/filter", {"flow_runs": {"id": {"any_": flow_run_ids}}})
            if expect(runs) or time.monotonic() > deadline:
                return runs
            time.sleep(0.5)

    def artifacts(self, flow_run_ids: list[str]) -> list[dict[str, Any]]:
        return self.post("/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": flow_run_ids}}})

    def render(self, page: str, shot: str | None, expect: Callable[[str], bool]) -> str:
        """The visible text of a UI page in headless Chromium (and its screenshot under tests/ops/artifacts/),
        tried again with more time while `expect` does not hold."""
        text = ""
        for budget in (8000, 20000):
            with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
                cmd = [self.chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}"]
                cmd += [f"--virtual-time-budget={budget}", "--dump-dom"]
                if shot:
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    cmd.append(f"--screenshot={SHOTS / shot}")
                proc = subprocess.Popen(
                    [*cmd, f"{self.url}{page}"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                    start_new_session=True,
                )
                try:
                    dom, _ = proc.communicate(timeout=90)
                finally:
                    stop(proc, sigints=0)
            text = page_text(dom)
            if expect(text):
                break
        return text

    def render_all(self, *pages: tuple[str, str | None, Callable[[str], bool]]) -> list[str]:
        """Several pages at once (each as `render`)."""
        with cf.ThreadPoolExecutor(len(pages)) as pool:
            return list(pool.map(lambda page: self.render(*page), pages))

    def rerun(self) -> str:
        """The rerun-epoch run of the good run, triggered once (as soon as a test sees the good run done),
        after noting the hash of the good run's journal, which the rerun must leave alone."""
        if "rerun" not in self.runs:
            journal = Path(self.runs["good_dir"]) / "journal.jsonl"
            self.runs["good_journal_sha"] = hashlib.sha256(journal.read_bytes()).hexdigest()
            params = {"run_dir": self.runs["good_dir"], "epoch": 1, "rerun": True}
            self.runs["rerun"] = self.trigger("epoch/rerun-epoch", params)
        return self.runs["rerun"]


def page_text(dom: str) -> str:
    """What a person reads on the page: the DOM without scripts, styles and tags, whitespace collapsed."""
    dom = re.sub(r"<(script|style)\b.*?</\1>", " ", dom, flags=re.S | re.I)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", dom))).strip()


def find_chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        message = "Debian's chromium is not installed (apt-get install -y --no-install-recommends chromium)"
        if IN_CI:
            pytest.fail(f"CI=true but {message}")
        pytest.skip(message)
    return path


def child_env(tmp: Path, api: str) -> dict[str, str]:
    """The environment of the server, worker and CLI: a private PREFECT_HOME and the settings of
    `flows/prefect_env.py` (batched SQLite writes, no analytics)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PREFECT_", "SWARM_")) and k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
    }
    env.update(
        PREFECT_HOME=str(tmp / "prefect-home"),
        PREFECT_API_URL=api,
        PREFECT_UI_API_URL=api,  # what the UI's browser code calls (by default port 4200)
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        DO_NOT_TRACK="1",
        PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE="200",
        PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE="500",
        PREFECT_LOGGING_LEVEL="INFO",  # flow runs send their logs to the UI
        PREFECT_WORKER_QUERY_SECONDS="2",
        PREFECT_SERVER_DATABASE_TIMEOUT="60",  # SQLite waits for its lock on a loaded machine
        PWD=str(REPO),  # `{{ $PWD }}` in prefect.yaml resolves from this at deploy time
    )
    return env


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Server on a free loopback port, both work pools, every deployment, a worker; torn down even on failure."""
    chromium = find_chromium()
    tmp = tmp_path_factory.mktemp("ui")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    logs = {"server": tmp / "server.log", "worker": tmp / "worker.log"}
    st = Stack(url=url, env=child_env(tmp, f"{url}/api"), tmp=tmp, chromium=chromium, logs=logs)
    procs: list[tuple[subprocess.Popen, int]] = []

    def start(name: str, cmd: list[str], sigints: int) -> subprocess.Popen:
        with open(logs[name], "w") as log:
            proc = subprocess.Popen(
                cmd, cwd=REPO, env=st.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        procs.append((proc, sigints))
        return proc

    started = time.monotonic()
    try:
        server = start(
            "server",
            [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            sigints=1,
        )
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{st.api}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, f"server exited:\n{tail(logs['server'])}"
            assert time.monotonic() < deadline, f"server not healthy in 90 s:\n{tail(logs['server'])}"
            time.sleep(0.5)
        print(f"\nserver healthy after {time.monotonic() - started:.0f} s")
        pools = ["bash", "deployments/create_pools.sh"]
        st.run_parallel(pools, [*pools, "--docker-only"])
        print(f"pools after {time.monotonic() - started:.0f} s")
        start("worker", [sys.executable, "deployments/start_worker.py", "--pool", "local"], sigints=2)
        deploy = [sys.executable, "-m", "prefect", "--no-prompt", "deploy", "--all"]
        st.run_parallel(deploy, [*deploy, "--prefect-file", "deployments/docker/prefect.yaml"])
        print(f"stack up in {time.monotonic() - started:.0f} s at {url}")
        yield st
    finally:
        for proc, sigints in reversed(procs):
            stop(proc, sigints)
        print(f"\nstack down after {time.monotonic() - started:.0f} s")


@pytest.fixture(scope="module")
def runs(stack: Stack) -> dict[str, str]:
    """The flow runs the tests look at, triggered together so the worker runs them side by side."""
    runs_dir, cache = stack.tmp / "runs", stack.tmp / "cache"
    common = [*OFFLINE, f"project.runs_dir={runs_dir}", f"project.cache_dir={cache}"]
    stack.runs["good_dir"] = str(runs_dir / "good")
    stack.runs["good"] = stack.trigger(
        "competition/competition",
        {
            "competition": "titanic",
            "run_dir": stack.runs["good_dir"],
            "overrides": [*common, "agent.max_steps=2"],
        },
    )
    # Every solution times out: each execute task fails with the reason, the run itself goes on and completes.
    stack.runs["failing"] = stack.trigger(
        "competition/competition",
        {"competition": "titanic", "overrides": [*common, "agent.max_steps=2", "execution.timeout_s=0.5"]},
    )
    stack.runs["benchmark"] = stack.trigger(
        "benchmark/weekly-benchmark",
        {"competitions": ["titanic", "no-such-competition"], "overrides": common, "max_steps": 1},
    )
    return stack.runs


def announce(capsys: pytest.CaptureFixture[str], *paths: str) -> None:
    with capsys.disabled():
        for name in paths:
            print(f"\nscreenshot: {SHOTS / name}")


# ------------------------------------------------------------------------------------------------ the tests


def test_deployments_and_pools_are_registered(stack: Stack, runs: dict[str, str]) -> None:
    competition = stack.get("/deployments/name/competition/competition")
    assert competition["work_pool_name"] == "local"
    assert competition["parameters"]["params"]["competition"] == "titanic"
    assert any(o.startswith("agent.max_steps=") for o in competition["parameters"]["params"]["overrides"])
    assert competition["pull_steps"] == [
        {"prefect.deployments.steps.set_working_directory": {"directory": str(REPO)}}
    ]
    assert stack.get("/deployments/name/epoch/rerun-epoch")["parameters"]["params"]["rerun"] is True

    bench = stack.get("/deployments/name/benchmark/weekly-benchmark")
    assert bench["parameters"]["params"]["competitions"] == ["titanic", "house-prices", "telco-churn"]
    [schedule] = bench["schedules"]
    assert schedule["schedule"]["cron"] == "0 3 * * 1"
    assert schedule["active"] is False  # paused until someone resumes it
    for dep in (competition, bench):  # no secret in a deployment
        assert not re.search(r"api_key|sk-[A-Za-z0-9]{8,}", json.dumps(dep), re.I), dep

    assert stack.get("/work_pools/local")["type"] == "process"
    docker = stack.get("/work_pools/docker")
    assert docker["type"] == "docker"
    defaults = {
        k: v.get("default") for k, v in docker["base_job_template"]["variables"]["properties"].items()
    }
    assert defaults["image"] == "swarm-ev2-flow:latest"
    assert defaults["image_pull_policy"] == "Never"
    assert defaults["env"]["SWARM_EXECUTION__SANDBOX"] == "local"
    docker_dep = stack.get("/deployments/name/competition/competition-docker")
    assert docker_dep["work_pool_name"] == "docker"
    assert docker_dep["job_variables"] == {"image": "swarm-ev2-flow:latest"}


def test_competition_run_shows_tasks_and_artifacts(
    stack: Stack, runs: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    run = stack.wait(runs["good"])
    assert run["state"]["type"] == "COMPLETED", run["state"]
    stack.rerun()  # its own test checks it; started now, it runs while this test looks at the pages
    [epoch] = stack.subflows(run["id"])
    assert epoch["name"] == "epoch-1" and state_of(epoch) == "COMPLETED"

    def steps_done(trs: list[dict]) -> bool:
        named = [t for t in trs if STEP_NAME.match(t["name"])]
        finished = any(t["name"].startswith("evolve_agents[") for t in trs)
        # 2 steps x generate, execute, review; every task run recorded as completed
        return finished and len(named) == 6 and all(state_of(t) == "COMPLETED" for t in trs)

    task_runs = stack.task_runs([epoch["id"]], steps_done)
    names = sorted(t["name"] for t in task_runs)
    assert steps_done(task_runs), names
    for verb in ("select_parent", "generate", "execute", "review", "update_population", "evolve_agents"):
        assert any(n.startswith(f"{verb}[") for n in names), (verb, names)

    artifacts = {a["key"].split("-")[0]: a for a in stack.artifacts([epoch["id"]]) if a["key"]}
    assert {"journal", "summary", "dispatcher"} <= set(artifacts), sorted(artifacts)
    assert artifacts["journal"]["type"] == "table"
    assert artifacts["summary"]["type"] == "markdown" and "# Epoch 1" in artifacts["summary"]["data"]
    assert "score.svg" in artifacts["summary"]["data"]
    assert (Path(runs["good_dir"]) / "grade.json").is_file()

    step_names = [n for n in names if STEP_NAME.match(n)]
    page, tasks, arts = stack.render_all(
        # The flow run's page, as a person opens it from the run list: name, state, flow, deployment, graph.
        (f"/runs/flow-run/{run['id']}", "ui-flow-run.png", lambda t: run["name"] in t),
        # The epoch's task runs, each named by what it does, and its artifacts.
        (
            f"/v2/runs/flow-run/{epoch['id']}?tab=TaskRuns",
            "ui-epoch-task-runs.png",
            lambda t: all(n in t for n in step_names),
        ),
        (f"/v2/runs/flow-run/{epoch['id']}?tab=Artifacts", None, lambda t: artifacts["journal"]["key"] in t),
    )
    assert run["name"] in page and "Completed" in page and "competition" in page, page[:2000]
    missing = [n for n in step_names if n not in tasks]
    assert not missing, f"task runs not on the page: {missing}\n{tasks[:3000]}"
    for kind in ("journal", "summary", "dispatcher"):
        assert artifacts[kind]["key"] in arts, (kind, arts[:3000])
    announce(capsys, "ui-flow-run.png", "ui-epoch-task-runs.png")


def test_failing_step_is_failed_with_its_reason(
    stack: Stack, runs: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    run = stack.wait(runs["failing"])
    assert run["state"]["type"] == "COMPLETED", run["state"]  # a solution's failure is not the run's
    [epoch] = stack.subflows(run["id"])

    def executes_failed(trs: list[dict]) -> bool:
        ex = [t for t in trs if t["name"].startswith("execute[")]
        rest = [t for t in trs if not t["name"].startswith("execute[")]
        finished = any(t["name"].startswith("evolve_agents[") for t in trs)
        return (
            finished
            and len(ex) == 2
            and all(state_of(t) == "FAILED" for t in ex)
            and all(state_of(t) == "COMPLETED" for t in rest)
        )

    task_runs = stack.task_runs([epoch["id"]], executes_failed)
    executes = [t for t in task_runs if t["name"].startswith("execute[")]
    assert executes_failed(task_runs), [(t["name"], state_of(t)) for t in task_runs]
    for task_run in executes:
        assert task_run["state"]["message"].startswith("solution failed: timed out after"), task_run["state"]
        assert task_run["run_count"] == 1  # a solution's own failure is never retried

    failed = executes[0]
    text, listing = stack.render_all(
        (f"/v2/runs/task-run/{failed['id']}", "ui-failed-step.png", lambda t: "solution failed: timed" in t),
        (f"/v2/runs/flow-run/{epoch['id']}?tab=TaskRuns", None, lambda t: "2 Failed" in t),
    )
    assert failed["name"] in text and "Failed" in text, text[:2000]
    assert "solution failed: timed out after" in text, text[:3000]
    assert "2 Failed" in listing and all(t["name"] in listing for t in executes), listing[:3000]
    announce(capsys, "ui-failed-step.png")


def test_rerun_epoch_deployment_branches_the_run(stack: Stack, runs: dict[str, str]) -> None:
    assert stack.wait(runs["good"])["state"]["type"] == "COMPLETED"
    rerun = stack.wait(stack.rerun())
    run_dir = Path(runs["good_dir"])
    journal = run_dir / "journal.jsonl"
    assert rerun["state"]["type"] == "COMPLETED", rerun["state"]
    assert rerun["name"] == "epoch-1"
    branches = [p for p in (run_dir / "branches").iterdir() if (p / "journal.jsonl").is_file()]
    assert len(branches) == 1, list((run_dir / "branches").iterdir())
    # The original history is untouched.
    assert hashlib.sha256(journal.read_bytes()).hexdigest() == runs["good_journal_sha"]


def test_benchmark_reports_every_competition(
    stack: Stack, runs: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    run = stack.wait(runs["benchmark"])
    # One competition failed: the benchmark says so, after running the other.
    assert run["state"]["type"] == "FAILED", run["state"]
    assert "1 of 2 competitions failed: no-such-competition" in run["state"]["message"]
    subflows = {r["name"]: state_of(r) for r in stack.subflows(run["id"])}
    assert subflows == {"benchmark-titanic": "COMPLETED", "benchmark-no-such-competition": "FAILED"}

    [table] = [a for a in stack.artifacts([run["id"]]) if a["key"] == "benchmark-summary"]
    assert table["type"] == "table"
    rows = {row["competition"]: row for row in json.loads(table["data"])}
    titanic, missing = rows["titanic"], rows["no-such-competition"]
    assert titanic["status"] == "completed" and titanic["steps"] == 1
    assert 0.5 < titanic["score"] <= 1.0 and titanic["medal"] in ("gold", "silver", "bronze", "none")
    assert titanic["gold"] >= titanic["silver"] >= titanic["bronze"] >= titanic["median"]
    assert Path(titanic["run_dir"], "grade.json").is_file()
    assert missing["status"] == "failed" and "neither a bundled competition" in missing["note"]

    text, page = stack.render_all(
        (
            f"/v2/runs/flow-run/{run['id']}?tab=Artifacts",
            "ui-benchmark.png",
            lambda t: "benchmark-summary" in t,
        ),
        (f"/v2/artifacts/artifact/{table['id']}", "ui-benchmark-summary.png", lambda t: "no-such-comp" in t),
    )
    assert "benchmark-summary" in text and "Failed" in text, text[:3000]
    # The table itself: one row per competition, with its status, score and medal.
    for cell in (
        "titanic",
        "completed",
        str(titanic["score"]),
        titanic["medal"],
        "no-such-competition",
        "failed",
    ):
        assert cell in page, (cell, page[:3000])
    announce(capsys, "ui-benchmark.png", "ui-benchmark-summary.png")


def test_secret_block_reaches_the_worker_environment(stack: Stack) -> None:
    """deployments/start_worker.py reads a Secret block into the worker's environment, and never prints it."""
    key = "sk-test-not-a-real-key-1234"
    save_and_read = (
        "from deployments import start_worker as w; "  # run from the repo root (Stack.run)
        "from prefect.blocks.system import Secret; "
        f"Secret(value={key!r}).save('openai-api-key'); "
        f"values, _ = w.secret_env(); assert values == {{'OPENAI_API_KEY': {key!r}}}, sorted(values)"
    )
    stack.run([sys.executable, "-c", save_and_read])
    out = stack.run([sys.executable, "deployments/start_worker.py", "--check"])
    assert "OPENAI_API_KEY: Secret block 'openai-api-key'" in out, out
    assert "ANTHROPIC_API_KEY: not set" in out, out
    assert key not in out
