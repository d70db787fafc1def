"""An image the offline solution cannot read (truncated, or not an image at all) leaves its pixel features
missing instead of failing the whole solution: real competitions ship a few broken files."""

from __future__ import annotations

from pathlib import Path

from swarm.offline_coder.genome import safe_genome
from swarm.offline_coder.render import render_solution
from swarm.offline_coder.task import infer_task_from_dir
from tests.layouts.tables.miniatures import labels_table_competition

from .conftest import run_solution


def test_unreadable_images_leave_their_features_missing(tmp_path: Path) -> None:
    public = labels_table_competition(tmp_path / "c") / "prepared" / "public"
    broken = sorted((public / "train").iterdir())[:3]
    for path in broken:
        path.write_bytes(b"not a PNG")
    task = infer_task_from_dir(str(public))
    result = run_solution(render_solution(task, safe_genome(task)), public, tmp_path / "run")
    assert result.returncode == 0, result.output[-2000:]
    assert f"{len(broken)} of 104 images could not be read" in result.output
    assert result.submission is not None and len(result.submission) == 24
