"""`data.obfuscate`: the models are told the task by description_obfuscated.md (the version that does not name the
competition, as MLE-bench keeps one for each), and a run without one stops before anything is made."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swarm.competitions import CompetitionError, load_competition
from swarm.config import load_config
from swarm.journal import Journal
from swarm.pipeline.context import RunContext, create_run
from swarm.pipeline.preflight import check_run_inputs
from swarm.pipeline.state import StepPlan, load_state

OBFUSCATED = "# Task\n\nPredict a class based on tabular data.\n\n# Metric\n\nClassification accuracy.\n"


def titanic_copy(cache: Path, target: Path, obfuscated: str | None) -> Path:
    source = load_competition("titanic", cache).root
    shutil.copytree(source, target)
    if obfuscated is not None:
        (target / "prepared" / "public" / "description_obfuscated.md").write_text(
            obfuscated, encoding="utf-8"
        )
    return target


def draft_prompt(cfg_overrides: list[str], run_dir: Path) -> str:
    config = load_config(None, cfg_overrides, env_file=None)
    paths = create_run(config, run_dir)
    rc = RunContext(paths, config, load_state(paths))
    messages, _, _ = rc.build_prompt(StepPlan(step=1, epoch=1, task_type="draft", seed=1), [], Journal())
    return "\n".join(m.content for m in messages)


def test_the_prompt_tells_the_obfuscated_task_instead_of_the_description(
    tmp_path: Path, competition_cache: Path
) -> None:
    data = titanic_copy(competition_cache, tmp_path / "data", OBFUSCATED)
    overrides = [f"project.cache_dir={competition_cache}", f"data.data_dir={data}", "execution.sandbox=local"]
    original = (data / "prepared" / "public" / "description.md").read_text(encoding="utf-8")
    title = original.strip().splitlines()[0]
    plain = draft_prompt(overrides, tmp_path / "plain")
    assert title in plain and "Predict a class based on tabular data." not in plain
    hidden = draft_prompt([*overrides, "data.obfuscate=true"], tmp_path / "obfuscated")
    assert "Predict a class based on tabular data." in hidden and title not in hidden


def test_obfuscate_without_the_file_stops_the_run_naming_it(tmp_path: Path, competition_cache: Path) -> None:
    data = titanic_copy(competition_cache, tmp_path / "data", None)
    cfg = load_config(
        None,
        [f"project.cache_dir={competition_cache}", f"data.data_dir={data}", "data.obfuscate=true"],
        env_file=None,
    )
    with pytest.raises(
        CompetitionError, match="has no description_obfuscated.md .*copy it beside description.md"
    ):
        check_run_inputs(cfg)
