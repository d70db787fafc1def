"""Fixtures for pipeline tests: one Prefect test server for the session, a prepared bundled competition."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from prefect.settings import temporary_settings
from prefect.testing.utilities import prefect_test_harness

from swarm.competitions import prepare_bundled

os.environ.setdefault("PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE", "200")
os.environ.setdefault("PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE", "500")


@pytest.fixture(scope="session")
def prefect_server() -> Iterator[None]:
    """One ephemeral Prefect API for the whole session (~10 s once), heartbeats off."""
    with (
        prefect_test_harness(server_startup_timeout=60),
        temporary_settings(updates={"flows.heartbeat_frequency": None}),
    ):
        yield


@pytest.fixture(scope="session")
def competition_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("cache")
    prepare_bundled("titanic", cache)
    return cache


@pytest.fixture
def base_overrides(competition_cache: Path, tmp_path: Path) -> list[str]:
    """A small, fast, offline run on the local sandbox."""
    return [
        f"project.cache_dir={competition_cache}",
        f"project.runs_dir={tmp_path / 'runs'}",
        "data.competition=titanic",
        "execution.sandbox=local",
        "execution.timeout_s=180",
        "llm.code.provider=offline",
        "llm.feedback.provider=offline",
        "llm.evolution.provider=offline",
        "search.parallel=2",
        "search.num_drafts=2",
        "evolution.steps_per_epoch=2",
    ]
