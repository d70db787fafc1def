"""The census of MLE-bench's 75 competitions (deployments/MLEBENCH_LAYOUTS.md) kept honest by the layout
miniatures (tests/evaluation/census_miniatures.py; issue 29, point 6): for each competition a miniature copies,
the harness splits the miniature exactly when the census's "splits?" cell says yes, and where it refuses, its one
sentence gives the census's reason. A change that makes a layout split (or stop splitting) fails here until the
census says so; rows the code has already outrun are listed in CENSUS_TO_UPDATE until the census is updated. Where
the harness splits, the offline coder reads the sandbox's view (its id, targets and metric: what a no-key run's
preflight asks), so the main job with no API key has a coder for every layout the harness splits (point 7)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swarm.competitions import load_competition
from swarm.layouts.holdout import NoHoldout, build_holdout
from swarm.offline_coder.task import infer_task_from_dir
from tests.evaluation.census_miniatures import CENSUS, METRICS, MINIATURES, PROGRAMS
from tests.layouts.tables.image_miniatures import tgs_salt

# Kaggle's 55M rows (about 5 GB) are over the default evaluation.max_train_mb (2048): a small limit stands in.
# MLE-bench's icecube train_meta.parquet holds about 119 million events (about 5.7 GB unpacked): streamed likewise.
MAX_TRAIN_MB = {"new-york-city-taxi-fare-prediction": 0.001, "icecube-neutrinos-in-deep-ice": 0.0001}
# Where the harness refuses: words its one-sentence reason must hold, the reason the census's note gives.
NO_TABLE = ("there is no train.csv of labelled rows", "nor a labels table")
# None is refused since h-and-m's log is split; multi-modal-gesture, still refused, has no miniature.
REASONS: dict[str, tuple[str, ...]] = {}

# Rows whose "splits?" cell the code has outrun: the miniature splits where the census still says "no" (or the
# reverse). The test expects the opposite of the cell for these; once the census is updated, they fail here
# until removed from this set.
CENSUS_TO_UPDATE: set[str] = set()


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
    program = PROGRAMS.get(competition_id)
    if program and shutil.which(program) is None:
        pytest.skip(f"{competition_id}'s miniature needs {program} on PATH")
    root = MINIATURES[competition_id](tmp_path / competition_id)
    competition = load_competition(str(root), tmp_path / "cache", metric=METRICS.get(competition_id))
    limit = {"max_train_mb": MAX_TRAIN_MB[competition_id]} if competition_id in MAX_TRAIN_MB else {}
    try:
        holdout = build_holdout(competition, tmp_path / "harness", fraction=0.2, seed=0, **limit)
        splits, why = True, ""
    except NoHoldout as exc:
        splits, why = False, str(exc)
    if splits:  # the offline coder reads the view the sandbox gets: the no-key run's preflight passes
        task = infer_task_from_dir(str(holdout.public_dir))
        assert task["targets"], task
        # Held-out rows look like test rows (issue 30): fresh ids, or the run says why they are kept; and no
        # file on the test side is a link (a held-out file linked from train/ would share its inode and mtime).
        assert holdout.fresh_ids or "this layout's split keeps them" not in holdout.describe_ids()
        linked = [
            path
            for folder in holdout.public_dir.iterdir()
            if folder.is_dir() and "test" in folder.name.lower()
            for path in folder.rglob("*")
            if path.is_file() and path.stat().st_nlink > 1
        ]
        assert not linked, f"{linked[0]} is a link: its inode and mtime could tell a held-out file apart"
    stale = competition_id in CENSUS_TO_UPDATE
    assert (cell.startswith("yes") != stale) == splits, (
        f"census says {cell!r}; the miniature {'splits' if splits else why}"
        + ("; if the census was updated, take the row out of CENSUS_TO_UPDATE" if stale else "")
    )
    if not splits:
        assert "\n" not in why, why
        assert competition_id in REASONS, (
            f"{competition_id} is refused ({why}): name the census's reason in REASONS"
        )
        for words in REASONS[competition_id]:
            assert words in why, f"the census's reason {words!r} is not the refusal's: {why}"


def test_the_lists_beside_the_miniatures_name_miniatures() -> None:
    for listed in (METRICS, MAX_TRAIN_MB, PROGRAMS, REASONS, CENSUS_TO_UPDATE):
        assert set(listed) <= set(MINIATURES)


def test_tgs_salts_held_out_examples_get_their_images_not_their_masks(tmp_path: Path) -> None:
    """The census's tgs-salt row says "no leak found": the held-out images go where the test images are
    (`test/images/`) and their masks stay out of the view."""
    root = tgs_salt(tmp_path / "tgs")
    holdout = build_holdout(load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.2)
    view = holdout.public_dir
    assert not [p for p in view.rglob("*.png") if p.read_bytes().startswith(b"mask ") and "test" in p.parts]
    own = holdout.own_ids("held")  # fresh ids in the view; each held-out row's own is the harness's
    assert holdout.ids and set(holdout.ids) == set(own)
    for i in holdout.ids:
        assert (view / "test" / "images" / f"{i}.png").read_bytes() == f"images/{own[i]}.png".encode()
