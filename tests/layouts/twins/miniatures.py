"""Miniatures of nfl-player-contact-detection's twin tables of game plays (`train_<x>.csv`, `test_<x>.csv`):
the census's (`nfl_contact`) and one with learnable contacts for the no-key run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tests.layouts.kit import dirs, write_files


def nfl_contact(root: Path, n_plays: int = 10, n_test: int = 2, steps: int = 4) -> Path:
    """nfl-player-contact-detection: `train_labels.csv` (`contact_id` = `<game_play>_<step>_<p1>_<p2>`,
    `game_play` itself `<game>_<play>`, `datetime`, `step`, `nfl_player_id_1`, `nfl_player_id_2` (`G`: the
    ground), `contact`), the game plays' twin tables `train_`/`test_` `baseline_helmets.csv`,
    `player_tracking.csv`, `video_metadata.csv` (rows of the split's game plays, keyed by `game_play`), videos
    `train/<game_play>_<view>.mp4` and `test/` (views All29, Endzone, Sideline), `sample_submission.csv`
    `contact_id`, `contact` (0): the test's labels rows, no test table of contacts."""
    public, private = dirs(root, "mcc", "# NFL contact\n\nScored by the Matthews correlation coefficient.\n")
    rng = np.random.default_rng(151)
    plays = [f"{58000 + 10 * k}_{int(rng.integers(1000, 4000)):06d}" for k in range(n_plays)]
    players = [str(p) for p in rng.integers(30000, 50000, 4)]
    labels, helmets, tracking, videos = [], [], [], []
    for play in plays:
        for step in range(steps):
            when = f"2021-09-{10 + step:02d}T00:00:00.000Z"
            for i, first in enumerate(players):
                tracking.append(
                    (play, first, step, when, float(rng.uniform(0, 100)), float(rng.uniform(0, 50)))
                )
                helmets.append((play, step, first, int(rng.integers(0, 1000)), int(rng.integers(0, 600))))
                for second in [*players[i + 1 :], "G"]:
                    contact = int(rng.random() < 0.3)
                    labels.append(
                        (f"{play}_{step}_{first}_{second}", play, when, step, first, second, contact)
                    )
        for view in ("Endzone", "Sideline"):
            videos.append((play, view, "2021-09-10T00:00:00.000Z", "2021-09-10T00:00:10.000Z"))
    frames = {
        "labels": pd.DataFrame(
            labels,
            columns=[
                "contact_id",
                "game_play",
                "datetime",
                "step",
                "nfl_player_id_1",
                "nfl_player_id_2",
                "contact",
            ],
        ),
        "baseline_helmets": pd.DataFrame(
            helmets, columns=["game_play", "frame", "nfl_player_id", "left", "top"]
        ),
        "player_tracking": pd.DataFrame(
            tracking, columns=["game_play", "nfl_player_id", "step", "datetime", "x_position", "y_position"]
        ),
        "video_metadata": pd.DataFrame(videos, columns=["game_play", "view", "start_time", "end_time"]),
    }
    test_plays = plays[-n_test:]
    for name, frame in frames.items():
        held = frame["game_play"].isin(test_plays)
        frame[~held].to_csv(public / f"train_{name}.csv", index=False)
        if name == "labels":
            frame[held].to_csv(private / "test.csv", index=False)
            frame[held][["contact_id"]].assign(contact=0).to_csv(
                public / "sample_submission.csv", index=False
            )
        else:
            frame[held].to_csv(public / f"test_{name}.csv", index=False)
    for play in plays:
        folder = "test" if play in test_plays else "train"
        write_files(public / folder, [f"{play}_{view}.mp4" for view in ("All29", "Endzone", "Sideline")])
    return root


def twin_tables_competition(root: Path) -> Path:
    """nfl-player-contact-detection's layout (nfl_contact): contacts in `train_labels.csv`, the game plays'
    inputs in `train_`/`test_` table pairs and videos, the test's contacts listed by the sample alone; here a
    player touches the ground (`G`) at odd steps and no other player."""
    nfl_contact(root, n_plays=24, n_test=6, steps=6)
    public, private = root / "prepared" / "public", root / "prepared" / "private"

    def contact(table: pd.DataFrame) -> pd.Series:
        odd = table["step"].astype(int) % 2 == 1
        return ((table["nfl_player_id_2"] == "G") & odd).astype(int)

    train = pd.read_csv(public / "train_labels.csv", dtype=str, keep_default_na=False)
    train.assign(contact=contact(train)).to_csv(public / "train_labels.csv", index=False)
    answers = pd.read_csv(private / "test.csv", dtype=str, keep_default_na=False)
    answers.assign(contact=contact(answers)).to_csv(private / "test.csv", index=False)
    return root
