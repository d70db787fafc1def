"""The Docker work pool, for real: a `prefect server` on loopback, the `docker` pool made by
deployments/create_pools.sh, the `competition-docker` deployment of deployments/docker/prefect.yaml, a worker
by deployments/start_worker.py, and one short offline competition run in a container of the flow image
(deployments/docker/build_flow_image.sh), checked from the host: the flow run and its task runs in the API,
the run dir the container wrote into the mounted runs/, and that the container is gone.

Installs and builds nothing. Without the engine, the sandbox image, the flow image or prefect-docker the module
is skipped, except with CI=true, where that fails it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.ops.processes import free_port, state_of, stop, tail

pytestmark = [pytest.mark.docker, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
FLOW_IMAGE = "swarm-ev2-flow:latest"  # deployments/docker/prefect.yaml and the pool's template use this tag
WORKDIR = "/opt/swarm-ev2"  # where the image holds the checkout
TERMINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}
OFFLINE = [
    "llm.code.provider=offline",
    "llm.feedback.provider=offline",
    "llm.evolution.provider=offline",
    "agent.max_steps=2",
    "search.parallel=2",
]


# ---------------------------------------------------------------- processes (as in tests/ops/test_ui.py)


def unusable(message: str) -> None:
    """Skip the module with the reason; with CI=true fail it instead."""
    if IN_CI:
        pytest.fail(f"CI=true but {message}")
    pytest.skip(message)


# ------------------------------------------------------------------------------------------------ the stack


@dataclass
class Stack:
    """A live server and Docker-pool worker; `host_dir` holds the runs/ and .cache/ mounted into containers."""

    api: str
    env: dict[str, str]
    host_dir: Path
    worker_log: Path

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One API call; a 503 (SQLite busy on a loaded machine) is tried again, as Prefect's client does."""
        for attempt in range(6):
            response = httpx.request(method, f"{self.api}{path}", json=body, timeout=60)
            if response.status_code != 503:
                break
            time.sleep(1 + attempt)
        response.raise_for_status()
        return response.json()

    def run(self, cmd: list[str], timeout: float = 180) -> str:
        """A command against this server, from the repo root; fails the test with its output when it fails."""
        done = subprocess.run(
            cmd, cwd=REPO, env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )
        assert done.returncode == 0, (
            f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        )
        return done.stdout + done.stderr

    def wait(self, flow_run_id: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            run = self.call("GET", f"/flow_runs/{flow_run_id}")
            if state_of(run) in TERMINAL:
                return run
            if time.monotonic() > deadline:
                pytest.fail(
                    f"flow run {run['name']} still {state_of(run)} after {timeout:.0f} s; worker log:\n"
                    + tail(self.worker_log)
                )
            time.sleep(1)

    def task_runs(self, flow_run_ids: list[str], expect: Callable[[list[dict]], bool]) -> list[dict]:
        """The task runs of these flow runs once `expect` holds (their states arrive through events, so they
        can land a moment after the flow run finished)."""
        deadline = time.monotonic() + 60
        while True:
            runs = self.call("POST", "/task_runs/filter", {"flow_runs": {"id": {"any_": flow_run_ids}}})
            if expect(runs) or time.monotonic() > deadline:
                return runs
            time.sleep(0.5)


def containers_of(client: Any, flow_run_id: str) -> list[Any]:
    """Every container, running or not, the worker made for this flow run (it labels them)."""
    return client.containers.list(all=True, filters={"label": f"io.prefect.flow-run-id={flow_run_id}"})


@pytest.fixture(scope="module")
def engine(docker_image: str) -> Any:
    """A docker client, once the engine, the sandbox image (docker_image), the flow image and the worker's
    prefect-docker are there; a flow image older than the checkout is used with a warning."""
    import docker

    try:
        import prefect_docker  # noqa: F401
    except ImportError:
        unusable('prefect-docker is not installed (pip install -e ".[docker-pool]")')
    client = docker.from_env(timeout=60)
    try:
        client.images.get(FLOW_IMAGE)
    except docker.errors.ImageNotFound:
        unusable(f"the flow image {FLOW_IMAGE} is missing (deployments/docker/build_flow_image.sh)")
    check = subprocess.run(
        ["bash", "deployments/docker/build_flow_image.sh", "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if check.returncode != 0:
        warnings.warn(
            f"{check.stdout.strip()}: the container runs the code it was built from "
            "(rebuild: deployments/docker/build_flow_image.sh)",
            stacklevel=1,
        )
    return client


def child_env(tmp: Path, api: str, host_dir: Path) -> dict[str, str]:
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
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        DO_NOT_TRACK="1",
        PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE="200",
        PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE="500",
        PREFECT_LOGGING_LEVEL="INFO",
        PREFECT_WORKER_QUERY_SECONDS="2",
        PREFECT_SERVER_DATABASE_TIMEOUT="60",
        SWARM_DOCKER_HOST_DIR=str(host_dir),  # create_pools.sh: the runs/ and .cache/ mounted into containers
        PWD=str(REPO),
    )
    return env


@pytest.fixture(scope="module")
def stack(engine: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Server on a free loopback port, the docker pool, its deployment and worker; torn down even on failure."""
    tmp = tmp_path_factory.mktemp("docker-pool")
    host_dir = tmp / "host"
    for sub in ("runs", ".cache"):
        (host_dir / sub).mkdir(parents=True)
        (host_dir / sub).chmod(0o755)
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    st = Stack(api=api, env=child_env(tmp, api, host_dir), host_dir=host_dir, worker_log=tmp / "worker.log")
    server_log = tmp / "server.log"
    procs: list[tuple[subprocess.Popen, int]] = []

    def start(log_path: Path, cmd: list[str], sigints: int) -> subprocess.Popen:
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                cmd, cwd=REPO, env=st.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        procs.append((proc, sigints))
        return proc

    started = time.monotonic()
    try:
        server = start(
            server_log,
            [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            sigints=1,
        )
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{api}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, f"server exited:\n{tail(server_log)}"
            assert time.monotonic() < deadline, f"server not healthy in 90 s:\n{tail(server_log)}"
            time.sleep(0.5)
        st.run(["bash", "deployments/create_pools.sh", "--docker-only"])
        st.run(
            [sys.executable, "-m", "prefect", "--no-prompt", "deploy", "--all"]
            + ["--prefect-file", "deployments/docker/prefect.yaml"]
        )
        start(st.worker_log, [sys.executable, "deployments/start_worker.py", "--pool", "docker"], sigints=2)
        print(f"\nstack up in {time.monotonic() - started:.0f} s at {api}")
        yield st
    finally:
        for proc, sigints in reversed(procs):
            stop(proc, sigints)
        print(f"\nstack down after {time.monotonic() - started:.0f} s")


@pytest.fixture(scope="module")
def docker_run(stack: Stack, engine: Any) -> Iterator[dict[str, Any]]:
    """One short offline competition run through `competition/competition-docker`, waited for; afterwards any
    container of it that survived is removed (the test has looked by then)."""
    dep = stack.call("GET", "/deployments/name/competition/competition-docker")
    params = {"competition": "titanic", "overrides": OFFLINE}
    flow_run_id = stack.call(
        "POST", f"/deployments/{dep['id']}/create_flow_run", {"parameters": {"params": params}}
    )["id"]
    started = time.monotonic()
    try:
        run = stack.wait(flow_run_id, timeout=600)
        print(f"\ncontainer run {state_of(run)} after {time.monotonic() - started:.0f} s")
        yield run
    finally:
        for container in containers_of(engine, flow_run_id):
            with contextlib.suppress(Exception):
                container.remove(force=True)


# ------------------------------------------------------------------------------------------------ the tests


def test_the_pool_runs_flows_in_the_flow_image(stack: Stack) -> None:
    pool = stack.call("GET", "/work_pools/docker")
    assert pool["type"] == "docker"
    defaults = {k: v.get("default") for k, v in pool["base_job_template"]["variables"]["properties"].items()}
    assert defaults["image"] == FLOW_IMAGE and defaults["image_pull_policy"] == "Never"
    assert defaults["network_mode"] == "host" and defaults["auto_remove"] is True
    assert sorted(defaults["volumes"]) == sorted(
        [
            f"{stack.host_dir / 'runs'}:{WORKDIR}/runs",
            f"{stack.host_dir / '.cache'}:{WORKDIR}/.cache",
            "/run/swarm-sandbox:/run/swarm-sandbox",
        ]
    )
    dep = stack.call("GET", "/deployments/name/competition/competition-docker")
    assert dep["work_pool_name"] == "docker" and dep["job_variables"] == {"image": FLOW_IMAGE}
    assert dep["pull_steps"] == [{"prefect.deployments.steps.set_working_directory": {"directory": WORKDIR}}]


def test_competition_run_completes_in_a_container(stack: Stack, docker_run: dict[str, Any]) -> None:
    run = docker_run
    assert state_of(run) == "COMPLETED", (run["state"], tail(stack.worker_log))
    # The worker ran it as a container: prefect-docker records "<engine>:<container id>".
    assert run["infrastructure_pid"] and ":" in run["infrastructure_pid"], run["infrastructure_pid"]

    subflows = stack.call(
        "POST",
        "/flow_runs/filter",
        {"flow_runs": {"parent_flow_run_id": {"operator": "and_", "any_": [run["id"]]}}},
    )
    assert [(r["name"], state_of(r)) for r in subflows] == [("epoch-1", "COMPLETED")]

    def steps_done(trs: list[dict]) -> bool:
        names = [t["name"] for t in trs]
        per_verb = {v: sum(n.startswith(f"{v}[") for n in names) for v in ("generate", "execute", "review")}
        finished = any(n.startswith("evolve_agents[") for n in names)
        return (
            finished
            and per_verb == {"generate": 2, "execute": 2, "review": 2}
            and all(state_of(t) == "COMPLETED" for t in trs)
        )

    task_runs = stack.task_runs([subflows[0]["id"]], steps_done)
    assert steps_done(task_runs), sorted((t["name"], state_of(t)) for t in task_runs)


def test_the_run_dir_lands_in_the_mounted_runs_dir(stack: Stack, docker_run: dict[str, Any]) -> None:
    assert state_of(docker_run) == "COMPLETED", docker_run["state"]
    run_dirs = [p for p in (stack.host_dir / "runs").iterdir() if p.is_dir()]
    assert len(run_dirs) == 1, run_dirs
    run_dir = run_dirs[0]

    lines = (run_dir / "journal.jsonl").read_text().splitlines()
    header, nodes = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    assert header["format"] == "swarm-journal" and len(nodes) == 2, nodes

    grade = json.loads((run_dir / "grade.json").read_text())
    assert grade["competition_id"] == "titanic" and grade["valid"] is True, grade
    assert 0.5 < grade["score"] <= 1.0, grade
    # Written inside the container, at the path the template mounts the host's runs/ on.
    assert grade["submission_path"].startswith(f"{WORKDIR}/runs/{run_dir.name}/"), grade["submission_path"]
    submission = run_dir / Path(grade["submission_path"]).relative_to(f"{WORKDIR}/runs/{run_dir.name}")
    assert submission.is_file() and len(submission.read_text().splitlines()) > 100, submission

    # The pool template's environment reached the run: no engine inside the container, the mounted cache,
    # where the competition was prepared inside the container.
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert config["execution"]["sandbox"] == "local", config["execution"]
    assert config["project"]["cache_dir"] == f"{WORKDIR}/.cache", config["project"]
    assert list((stack.host_dir / ".cache").rglob("sample_submission.csv")), sorted(
        p.name for p in (stack.host_dir / ".cache").rglob("*")
    )


def test_no_container_of_the_run_survives(engine: Any, docker_run: dict[str, Any]) -> None:
    import docker

    container_id = docker_run["infrastructure_pid"].rsplit(":", 1)[-1]
    deadline = time.monotonic() + 30  # auto_remove: the engine removes it once the flow process has exited
    while True:
        left = containers_of(engine, docker_run["id"])
        try:
            engine.containers.get(container_id)
            gone = False
        except docker.errors.NotFound:
            gone = True
        if (gone and not left) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert gone and not left, [(c.name, c.status) for c in left]
