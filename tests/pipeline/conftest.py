"""Fixtures for pipeline tests: a small, fast, offline run configuration."""

from __future__ import annotations

from pathlib import Path

import pytest


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
