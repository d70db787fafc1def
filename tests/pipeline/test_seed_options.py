"""Two of the seed design's options: per-node archives (`project.archive_nodes`) and the experience pool's quality
floor for prompt examples (`evolution.experience_min_quality`)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from swarm.agents.experience import ExperienceRecord
from swarm.config import load_config
from swarm.journal import Journal
from swarm.pipeline.context import RunContext, create_run, open_run
from swarm.pipeline.plain import run_epoch
from swarm.pipeline.state import StepPlan, load_state


def test_archive_nodes_zips_each_node_after_its_step(tmp_path: Path, base_overrides: list[str]) -> None:
    overrides = [
        *base_overrides,
        "agent.max_steps=2",
        "evolution.steps_per_epoch=2",
        "project.archive_nodes=true",
    ]
    run_dir = create_run(load_config(None, overrides), tmp_path / "run").root
    run_epoch(*open_run(run_dir), epoch=1)
    journal = Journal.load(run_dir / "journal.jsonl")
    archives = run_dir / "workspace" / "archives"
    assert sorted(p.stem for p in archives.iterdir()) == sorted(n.id for n in journal)
    for node in journal:
        with zipfile.ZipFile(archives / f"{node.id}.zip") as zf:
            assert zf.read("solution.py").decode() == node.code
            meta = json.loads(zf.read("meta.json"))
            assert meta["is_buggy"] is node.is_buggy and meta["step"] == node.step
            assert any(name.startswith("submission/") for name in zf.namelist()) or node.is_buggy


def record(node_id: str, metric: float) -> ExperienceRecord:
    return ExperienceRecord(
        "agent_0", "draft", node_id, 0.0, True, f"plan of {node_id}", node_id, metric=metric
    )


def test_prompt_examples_keep_to_the_quality_floor(tmp_path: Path, competition_cache: Path) -> None:
    def examples(floor: float) -> list[str]:
        overrides = [
            f"project.cache_dir={competition_cache}",
            "execution.sandbox=local",
            "evolution.experience_top_k=5",
            f"evolution.experience_min_quality={floor}",
        ]
        config = load_config(None, overrides, env_file=None)
        paths = create_run(config, tmp_path / f"run-{floor}")
        rc = RunContext(paths, config, load_state(paths))
        for i, metric in enumerate((0.60, 0.70, 0.75, 0.80, 0.90)):  # accuracy: higher is better
            rc.pool.add(record(f"n{i}", metric))
        messages, _, _ = rc.build_prompt(StepPlan(step=1, epoch=1, task_type="draft", seed=1), [], Journal())
        text = "\n".join(m.content for m in messages)
        return [f"n{i}" for i in range(5) if f"plan of n{i}" in text]

    assert examples(0.0) == ["n0", "n1", "n2", "n3", "n4"]
    kept = examples(0.5)
    assert kept and "n4" in kept and "n0" not in kept and len(kept) < 5
