"""One entry point for any competition: a bundled id or a path to an MLE-bench competition dir."""

from __future__ import annotations

from pathlib import Path

from swarm.competitions.bundled import SPECS, list_bundled, prepare_bundled
from swarm.competitions.competition import Competition, load_competition_dir
from swarm.competitions.errors import CompetitionError


def load_competition(
    path_or_id: str | Path, cache_dir: str | Path, metric: str | None = None, *, extract: bool = True
) -> Competition:
    """Load a bundled competition by id (preparing it under `cache_dir` on demand) or a competition dir.

    `metric` names the metric for a dir without competition.json (e.g. "rmse") or overrides its metric. A
    public dir holding archives is read through its view under `cache_dir`, with them extracted (made once,
    then reused: `archive_view`); `extract=False` reads it as it is (grading needs no inputs).
    """
    text = str(path_or_id)
    views = cache_dir if extract else None
    if isinstance(path_or_id, str) and text in SPECS:
        return load_competition_dir(prepare_bundled(text, cache_dir), metric=metric, cache_dir=views)
    path = Path(text).expanduser()
    if path.exists():
        return load_competition_dir(path, metric=metric, cache_dir=views)
    raise CompetitionError(
        f"{text!r} is neither a bundled competition ({', '.join(list_bundled())}) nor an existing directory"
    )
