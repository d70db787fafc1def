"""Reading a leaderboard CSV (one row per team, a numeric `score` column; other columns are kept)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.errors import CompetitionError


def read_leaderboard(path: Path) -> pd.DataFrame:
    """The leaderboard at `path` with a clean float `score` column; rows without a score are dropped."""
    try:
        frame = pd.read_csv(path)
    except FileNotFoundError as exc:
        raise CompetitionError(f"leaderboard {path} is missing") from exc
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CompetitionError(f"leaderboard {path} is not a readable CSV: {exc}") from exc
    if "score" not in frame.columns:
        raise CompetitionError(f"leaderboard {path} has no 'score' column (columns: {list(frame.columns)})")
    frame = frame.assign(score=pd.to_numeric(frame["score"], errors="coerce"))
    frame = frame[np.isfinite(frame["score"].to_numpy(dtype=float, na_value=np.nan))]
    if frame.empty:
        raise CompetitionError(f"leaderboard {path} holds no numeric scores")
    return frame.reset_index(drop=True)
