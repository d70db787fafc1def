"""The leaderboard script: a small rebuild reproduces the shipped rows of the same teams."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions.build_leaderboards import LEADERBOARD_DIR, build_one, main

N_TEAMS = 5


@pytest.mark.parametrize(
    "competition_id", ["titanic", "telco-churn", pytest.param("house-prices", marks=pytest.mark.slow)]
)
def test_small_rebuild_matches_the_shipped_rows(cache_dir: Path, tmp_path: Path, competition_id: str) -> None:
    """Teams are drawn one after another from one seeded generator, so the first N are the same for any N."""
    board = build_one(competition_id, cache_dir, tmp_path, n_teams=N_TEAMS)
    shipped = pd.read_csv(LEADERBOARD_DIR / f"{competition_id}.csv")
    meta = json.loads((tmp_path / f"{competition_id}.json").read_text())
    shipped_meta = json.loads((LEADERBOARD_DIR / f"{competition_id}.json").read_text())

    assert sorted(board["teamName"]) == [f"ref-{n:03d}" for n in range(1, N_TEAMS + 1)]
    same_teams = shipped.set_index("teamName").loc[board["teamName"]]
    for column in ("model", "n_features", "log_target", "params"):
        assert board[column].tolist() == same_teams[column].tolist(), column
    assert board["score"].to_numpy() == pytest.approx(same_teams["score"].to_numpy(), abs=1e-6)
    ascending = shipped_meta["lower_is_better"]
    assert board["score"].tolist() == sorted(board["score"], reverse=not ascending)
    assert pd.read_csv(tmp_path / f"{competition_id}.csv")["teamName"].tolist() == board["teamName"].tolist()
    assert meta["teams"] == N_TEAMS
    for key in ("metric", "lower_is_better", "population_seed", "answers_sha256"):
        assert meta[key] == shipped_meta[key], key


def test_command_line_writes_only_the_chosen_competition(
    cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "boards"
    assert main(["--only", "titanic", "--teams", "3", "--cache-dir", str(cache_dir), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["titanic.csv", "titanic.json"]
    assert len(pd.read_csv(out / "titanic.csv")) == 3
    assert capsys.readouterr().out.startswith("titanic: 3 teams in ")
