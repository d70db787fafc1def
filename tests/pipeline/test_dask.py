"""Parallel steps on a local Dask cluster of two worker processes (search.task_runner=dask)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flows.competition import CompetitionParams, competition_flow
from swarm.journal import Journal

pytestmark = pytest.mark.usefixtures("prefect_server")


def test_short_epoch_on_a_local_dask_cluster(tmp_path: Path, base_overrides: list[str]) -> None:
    try:
        import prefect_dask  # noqa: F401
    except ImportError:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail('CI=true but prefect-dask is missing; .ci/run installs ".[dev,dask]"')
        pytest.skip('prefect-dask is not installed: pip install -e ".[dask]"')
    run_dir = tmp_path / "run"
    summary = competition_flow(
        CompetitionParams(
            run_dir=str(run_dir),
            overrides=[*base_overrides, "search.task_runner=dask", "search.parallel=2", "agent.max_steps=2"],
        )
    )
    journal = Journal.load(run_dir / "journal.jsonl")
    assert len(journal) == 2 and summary["grade"]["valid"], summary["grade"]
    workers = {node.meta.worker for node in journal}
    assert all(not w.endswith(f":{os.getpid()}") for w in workers), workers  # ran in the Dask workers
