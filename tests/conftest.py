"""Fixtures shared by every test dir: one Prefect test server, a prepared bundled competition, a small offline
run configuration, and the Docker engine the docker-marked tests need."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.prefect_env import apply_prefect_defaults

apply_prefect_defaults()  # the main job's Prefect settings (logging levels included), before Prefect loads

from prefect.settings import temporary_settings  # noqa: E402
from prefect.testing.utilities import prefect_test_harness  # noqa: E402

from sandbox.base import SandboxUnavailable  # noqa: E402
from swarm.competitions import prepare_bundled  # noqa: E402
from swarm.config import ExecutionConfig  # noqa: E402

IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def prefect_server() -> Iterator[None]:
    """One ephemeral Prefect API for the whole session (~10 s once), heartbeats off.

    Defined once, here: two session harnesses alive at once leave Prefect's events worker on the first
    server, so task runs of the second never reach the API.
    """
    with (
        prefect_test_harness(server_startup_timeout=60),
        temporary_settings(updates={"flows.heartbeat_frequency": None}),
    ):
        yield


@pytest.fixture(scope="session")
def competition_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache dir with the bundled titanic prepared (its hidden answers stay there)."""
    cache = tmp_path_factory.mktemp("cache")
    prepare_bundled("titanic", cache)
    return cache


@pytest.fixture
def base_overrides(competition_cache: Path, tmp_path: Path) -> list[str]:
    """A small, fast, offline run in the bwrap sandbox (no Docker needed; isolated also as root with an
    interpreter under a 0700 /root, where the local backend cannot run)."""
    return [
        f"project.cache_dir={competition_cache}",
        f"project.runs_dir={tmp_path / 'runs'}",
        "data.competition=titanic",
        "execution.sandbox=bwrap",
        "execution.timeout_s=180",
        "llm.code.provider=offline",
        "llm.feedback.provider=offline",
        "llm.evolution.provider=offline",
        "search.parallel=2",
        "search.num_drafts=2",
        "evolution.steps_per_epoch=2",
        # The harness's reference model is one more execution a run; its own tests, the layouts' runs
        # (tests/faults/test_offline_layouts.py) and the two-faced solution's run keep it on.
        "evaluation.consistency=false",
    ]


@pytest.fixture(scope="session")
def docker_image() -> str:
    """The sandbox image tag when an engine answers and the image exists.

    Outside CI a missing engine or image skips the test with the reason; with CI=true it fails it.
    """
    image = ExecutionConfig().image
    try:
        from sandbox.docker_backend import docker_client, image_exists

        client = docker_client(timeout=30)
        if not image_exists(client, image):
            raise SandboxUnavailable(f"image {image} is missing; run sandbox/build_image.sh")
    except SandboxUnavailable as exc:
        if IN_CI:
            pytest.fail(f"CI=true but the Docker backend is unusable: {exc}")
        pytest.skip(f"Docker backend unusable: {exc}")
    return image


# Fixtures whose tests run whole flows, a Prefect server, Docker or a browser: slow whatever their marks say,
# so that `python -m pytest -m "not slow"` stays the fast development loop.
SLOW_FIXTURES = frozenset({"prefect_server", "docker_image"})
SLOW_MARKS = frozenset({"docker", "ui"})


# Tests that drive one engine of the host (the Docker daemon, a browser) run one after another on one worker when the
# suite runs in parallel (pytest-xdist's --dist loadgroup), so two of them never build or start the same thing.
ENGINE_GROUP = "engine"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark slow every test that uses a slow fixture or carries a slow kind of mark (see SLOW_FIXTURES), and put
    the Docker and browser tests in one group of pytest-xdist's (ENGINE_GROUP)."""
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        marks = {mark.name for mark in item.iter_markers()}
        if "slow" not in marks and (uses & SLOW_FIXTURES or marks & SLOW_MARKS):
            item.add_marker(pytest.mark.slow)
        if "docker_image" in uses or marks & SLOW_MARKS:
            item.add_marker(pytest.mark.xdist_group(ENGINE_GROUP))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With CI=true a run in which no test passed (all skipped, say) fails instead of exiting 0."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if IN_CI and exitstatus == pytest.ExitCode.OK and reporter and not reporter.stats.get("passed"):
        reporter.write("\nCI=true and no test passed: failing the run\n", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
