"""Fixtures shared by every test dir: the Docker engine the docker-marked tests need."""

from __future__ import annotations

import os

import pytest

from sandbox.base import SandboxUnavailable
from swarm.config import ExecutionConfig

IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


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


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With CI=true a run in which no test passed (all skipped, say) fails instead of exiting 0."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if IN_CI and exitstatus == pytest.ExitCode.OK and reporter and not reporter.stats.get("passed"):
        reporter.write("\nCI=true and no test passed: failing the run\n", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
