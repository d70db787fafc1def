"""What the models are told of a competition's task: its description, or the version that does not name it."""

from __future__ import annotations

from pathlib import Path

from swarm.competitions.competition import Competition
from swarm.competitions.errors import CompetitionError

OBFUSCATED = "description_obfuscated.md"


def task_description(competition: Competition, obfuscate: bool = False) -> str:
    """What the models are told of the task: description.md, or with `obfuscate` (data.obfuscate) the version that
    does not name the competition, `description_obfuscated.md` beside it or in the competition's root (MLE-bench
    keeps one for each competition: mlebench/competitions/<id>/description_obfuscated.md); CompetitionError where
    there is none."""
    if not obfuscate:
        return competition.description
    places = [competition.public_dir, competition.shipped_public_dir, competition.root]
    for folder in filter(None, places):
        path = Path(folder) / OBFUSCATED
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise CompetitionError(
        f"data.obfuscate is set, but {competition.id} has no {OBFUSCATED} (looked in {competition.public_dir} and "
        f"{competition.root}); MLE-bench keeps one for each competition (mlebench/competitions/<id>/{OBFUSCATED}): "
        "copy it beside description.md"
    )
