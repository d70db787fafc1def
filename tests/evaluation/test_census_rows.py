"""The census of MLE-bench's 75 competitions (deployments/MLEBENCH_LAYOUTS.md) kept honest by the layout
miniatures (issue 29, point 6): for each competition a miniature copies, the harness splits the miniature exactly
when the census's "splits?" cell says yes. A change that makes a layout split (or stop splitting) fails here
until the census says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from swarm.competitions import load_competition
from swarm.evaluation.holdout import NoHoldout, build_holdout
from tests.competitions.champs import champs_competition
from tests.competitions.insults_builder import insults
from tests.competitions.test_archive_competitions import _cactus
from tests.evaluation.composite_builders import text_normalization_layout
from tests.evaluation.records_builders import pizza_competition
from tests.evaluation.test_labels_table_layouts import image_competition
from tests.evaluation.test_vote_count_labels import hms
from tests.faults.test_offline_layouts import archived_competition

CENSUS = Path(__file__).parents[2] / "deployments" / "MLEBENCH_LAYOUTS.md"
MINIATURES: dict[str, Callable[[Path], Path]] = {
    "aerial-cactus-identification": _cactus,  # its metric from the run (here: --metric auc)
    "champs-scalar-coupling": lambda root: champs_competition(
        root, metric={"name": "log_mae", "params": {"group_column": "type"}}
    ),
    "detecting-insults-in-social-commentary": insults,
    "dogs-vs-cats-redux-kernels-edition": archived_competition,
    "histopathologic-cancer-detection": image_competition,
    "hms-harmful-brain-activity-classification": hms,
    "random-acts-of-pizza": pizza_competition,
    "seti-breakthrough-listen": lambda root: filed_by_first_character(image_competition(root)),
    "text-normalization-challenge-english-language": text_normalization_layout,
}


def filed_by_first_character(root: Path) -> Path:
    """seti's filing: `train/<c>/<id>.npy`, `test/<c>/<id>.npy` (here `.tif`), c the id's first character."""
    for folder in ("train", "test"):
        for path in list((root / "prepared" / "public" / folder).iterdir()):
            (path.parent / path.stem[0]).mkdir(exist_ok=True)
            path.rename(path.parent / path.stem[0] / path.name)
    return root


METRICS = {"aerial-cactus-identification": "auc"}  # miniatures whose competition.json names no metric


def census_splits() -> dict[str, str]:
    """competition -> its "splits?" cell, from the census table."""
    lines = CENSUS.read_text(encoding="utf-8").splitlines()
    header = next(line for line in lines if line.startswith("| competition |"))
    column = [cell.strip() for cell in header.strip("|").split("|")].index("splits?")
    rows = {}
    for line in lines:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) > column and cells[0] in MINIATURES:
            rows[cells[0]] = cells[column]
    return rows


@pytest.mark.parametrize("competition_id", sorted(MINIATURES))
def test_the_census_says_yes_exactly_where_the_miniature_splits(tmp_path: Path, competition_id: str) -> None:
    cell = census_splits().get(competition_id)
    assert cell is not None, f"{competition_id} has no row in {CENSUS.name}"
    root = MINIATURES[competition_id](tmp_path / competition_id)
    competition = load_competition(str(root), tmp_path / "cache", metric=METRICS.get(competition_id))
    try:
        build_holdout(competition, tmp_path / "harness", fraction=0.2, seed=0)
        splits, why = True, ""
    except NoHoldout as exc:
        splits, why = False, str(exc)
    assert cell.startswith("yes") == splits, (
        f"census says {cell!r}; the miniature {'splits' if splits else why}"
    )
