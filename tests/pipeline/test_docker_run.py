"""The main job on the Docker sandbox: a short run whose every solution ran in a locked-down container."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.competition import CompetitionParams, competition_flow
from swarm.journal import Journal

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("prefect_server")]


def test_short_run_on_the_docker_sandbox(
    tmp_path: Path, base_overrides: list[str], docker_image: str
) -> None:
    overrides = [o for o in base_overrides if not o.startswith("execution.sandbox=")]
    run_dir = tmp_path / "run"
    summary = competition_flow(
        CompetitionParams(
            run_dir=str(run_dir),
            overrides=[
                *overrides,
                "execution.sandbox=docker",
                f"execution.image={docker_image}",
                "agent.max_steps=2",
            ],
        )
    )
    journal = Journal.load(run_dir / "journal.jsonl")
    assert len(journal) == 2
    assert {node.meta.sandbox for node in journal} == {"docker"}
    assert summary["grade"]["valid"], summary["grade"]
    best = run_dir / "workspace" / "best_solution"
    assert (best / "submission.csv").is_file() and (best / "node_id.txt").read_text().strip() == summary[
        "best_node"
    ]
