"""A whole competition run without Prefect, for tests of what a run does on a layout or a setting rather than of
the flow: the core the competition flow calls, in its order (`swarm.pipeline.lifecycle`), its epochs on the plain
runner (`swarm.pipeline.plain`). With no API key set it is what the no-key main job runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from swarm.pipeline.context import open_run
from swarm.pipeline.lifecycle import prepare_run
from swarm.pipeline.plain import run_to_end


def plain_competition_run(
    overrides: list[str], run_dir: Path, data_dir: Path | None = None
) -> dict[str, Any]:
    """The run `overrides` ask for (on the competition in `data_dir`, if given) in `run_dir`: the request checked
    and the run created (its metric, the harness split, its LLM stages: `lifecycle.prepare_run`), its epochs until
    a limit, then its end (refit or blend, delivery, grading, report); returns the run's summary, as the
    competition flow does."""
    paths = prepare_run(data_dir=str(data_dir) if data_dir else None, overrides=overrides, run_dir=run_dir)
    return run_to_end(open_run(paths.root)[0])
