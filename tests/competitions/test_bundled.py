"""The bundled competitions: layout, no leakage, fixed split, permissions, idempotence and medal invariants."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import grade_submission, list_bundled, load_competition, prepare_bundled
from swarm.competitions.bundled import SPECS, base

LEADERBOARDS = Path(__file__).parents[2] / "swarm" / "competitions" / "leaderboards"


ALL = [
    "titanic",
    "house-prices",
    "telco-churn",
    "food-reviews",
    "chicago-ridership",
    "digit-images",
    "flight-delays",
    "electricity-demand",
    "exam-schools",
]
# The test's share of the rows: a quarter, or what a competition's rule for its test rows gives (flight-delays'
# 22nd and later days of each month: 0.30; electricity-demand's 20th and later: 137 of 365 days).
TEST_SHARE = {"flight-delays": (0.28, 0.32), "electricity-demand": (0.375, 0.376)}


def test_nine_bundled_competitions() -> None:
    assert list_bundled() == sorted(ALL)


@pytest.mark.parametrize("competition_id", ALL)
def test_layout_and_no_target_leak(cache_dir: Path, competition_id: str) -> None:
    comp = load_competition(competition_id, cache_dir)
    spec = SPECS[competition_id]
    train = pd.read_csv(comp.public_dir / "train.csv")
    test = pd.read_csv(comp.public_dir / "test.csv")
    sample = pd.read_csv(comp.sample_submission)
    answers = pd.read_csv(comp.answers)
    assert spec.target in train.columns and spec.target not in test.columns
    assert list(sample.columns) == [spec.id_column, spec.target] == list(answers.columns)
    assert sample[spec.target].nunique() == 1
    assert list(sample[spec.id_column]) == list(test[spec.id_column]) == list(answers[spec.id_column])
    assert not set(train[spec.id_column]) & set(test[spec.id_column])
    low, high = TEST_SHARE.get(competition_id, (0.2, 0.3))
    assert low < len(test) / (len(train) + len(test)) < high
    assert set(train.columns) - {spec.id_column, spec.target} == set(test.columns) - {spec.id_column}
    for column in spec.columns:
        assert f"`{column}`" in comp.description
    assert "## Submission Format" in comp.description and "## Evaluation" in comp.description


def test_house_prices_drops_record_identifiers(cache_dir: Path) -> None:
    train = pd.read_csv(load_competition("house-prices", cache_dir).public_dir / "train.csv")
    assert not {"PID", "Order", "price"} & set(train.columns)
    assert {"GrLivArea", "1stFlrSF", "YearRemodAdd"} <= set(train.columns)


@pytest.mark.parametrize("competition_id", ALL)
def test_split_matches_the_shipped_leaderboard(cache_dir: Path, competition_id: str) -> None:
    """The leaderboard was scored against exactly these answers: the split must not drift."""
    meta = json.loads((LEADERBOARDS / f"{competition_id}.json").read_text())
    answers = load_competition(competition_id, cache_dir).answers
    assert hashlib.sha256(answers.read_bytes()).hexdigest() == meta["answers_sha256"]


def test_private_dir_is_owner_only_and_public_is_readable(cache_dir: Path) -> None:
    comp = load_competition("titanic", cache_dir)
    assert stat.S_IMODE(os.stat(comp.private_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(comp.public_dir).st_mode) == 0o755
    assert stat.S_IMODE(os.stat(comp.public_dir / "train.csv").st_mode) == 0o644


def _file_stamps(root: Path) -> dict[Path, tuple[int, int]]:
    """Inode and mtime of the dir and everything in it: a rebuild (new files renamed in) changes both."""
    return {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in [root, *sorted(root.rglob("*"))]}


def test_prepare_is_idempotent_and_repairs_broken_dirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = prepare_bundled("titanic", tmp_path)
    before = _file_stamps(root)

    def no_rebuild(*_: object) -> None:
        raise AssertionError("a current preparation was rebuilt")

    monkeypatch.setattr(base, "_write_files", no_rebuild)
    assert prepare_bundled("titanic", tmp_path) == root
    assert _file_stamps(root) == before
    monkeypatch.undo()
    (root / "prepared" / "public" / "train.csv").unlink()
    assert prepare_bundled("titanic", tmp_path) == root
    assert (root / "prepared" / "public" / "train.csv").is_file()
    assert [p.name for p in (tmp_path / "competitions").iterdir()] == ["titanic"]


@pytest.mark.parametrize("competition_id", ALL)
def test_answers_win_gold_and_sample_wins_nothing(cache_dir: Path, competition_id: str) -> None:
    comp = load_competition(competition_id, cache_dir)
    best = grade_submission(comp, comp.answers)
    assert best.valid and best.medal == "gold" and best.rank == 1 and best.above_median
    assert best.num_teams is not None and 60 <= best.num_teams <= 150
    sample = grade_submission(comp, comp.sample_submission)
    assert sample.valid and sample.medal is None and not sample.any_medal and not sample.above_median


@pytest.mark.parametrize("competition_id", ALL)
def test_broken_submission_is_invalid(cache_dir: Path, competition_id: str, tmp_path: Path) -> None:
    comp = load_competition(competition_id, cache_dir)
    frame = pd.read_csv(comp.sample_submission).iloc[:-1]
    path = tmp_path / "broken.csv"
    frame.to_csv(path, index=False)
    report = grade_submission(comp, path)
    assert not report.valid and "rows, expected" in report.reason
    assert report.gold_threshold is not None  # thresholds are still reported


def test_leaderboards_are_best_first_and_small() -> None:
    for competition_id in list_bundled():
        path = LEADERBOARDS / f"{competition_id}.csv"
        board = pd.read_csv(path)
        meta = json.loads((LEADERBOARDS / f"{competition_id}.json").read_text())
        assert {"teamName", "score", "model"} <= set(board.columns)
        ordered = board["score"].sort_values(ascending=meta["lower_is_better"]).tolist()
        assert board["score"].tolist() == ordered
        assert board["model"].nunique() >= 5 and path.stat().st_size < 50_000


def test_concurrent_prepares_agree(tmp_path: Path) -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        roots = list(pool.map(lambda _: prepare_bundled("telco-churn", tmp_path), range(4)))
    assert len(set(roots)) == 1
    assert [p.name for p in (tmp_path / "competitions").iterdir()] == ["telco-churn"]
    assert load_competition("telco-churn", tmp_path).answers.is_file()


def test_a_preparation_of_an_older_version_is_redone(tmp_path: Path) -> None:
    """A cache prepared by an older version (digit-images before its digits were warped) is not reused."""
    root = prepare_bundled("titanic", tmp_path)
    meta_path = root / "competition.json"
    meta = json.loads(meta_path.read_text())
    (root / "prepared" / "public" / "stale.txt").write_text("from an older version")
    meta_path.write_text(json.dumps({**meta, "prepare_version": meta["prepare_version"] - 1}))
    again = prepare_bundled("titanic", tmp_path)
    assert json.loads((again / "competition.json").read_text())["prepare_version"] == meta["prepare_version"]
    assert not (again / "prepared" / "public" / "stale.txt").exists()
