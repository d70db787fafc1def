"""A labels table whose ids end the names of the inputs (multi-modal-gesture-recognition: `training.csv` `Id` =
`0300` for `Sample00300.zip`, spread over `training1/`..`training3/` and `test/`): the harness, matching ids to whole
file names, refuses the split and its one sentence names such files (issue 29, point 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.layouts.holdout import NoHoldout, build_holdout


def gestures(root: Path) -> Path:
    public = root / "prepared" / "public"
    public.mkdir(parents=True)
    (root / "prepared" / "private").mkdir()
    (public / "description.md").write_text("# Gestures\n\nScored by the Levenshtein distance.\n")
    (root / "competition.json").write_text(json.dumps({"metric": {"name": "token_error_rate"}}))
    train, test = [f"{k:04d}" for k in range(1, 31)], [f"{k:04d}" for k in range(300, 306)]
    for k, sample in enumerate(train):
        folder = public / f"training{1 + k % 3}"
        folder.mkdir(exist_ok=True)
        (folder / f"Sample0{sample}.zip").write_bytes(b"PK")
    (public / "test").mkdir()
    for sample in test:
        (public / "test" / f"Sample0{sample}.zip").write_bytes(b"PK")
    pd.DataFrame({"Id": train, "Sequence": "1 2 3"}).to_csv(public / "training.csv", index=False)
    pd.DataFrame({"Id": test}).to_csv(public / "test.csv", index=False)
    pd.DataFrame({"Id": test, "Sequence": "3 2 1"}).to_csv(public / "randomPredictions.csv", index=False)
    return root


def test_ids_that_end_file_names_are_named_in_the_refusal(tmp_path: Path) -> None:
    competition = load_competition(str(gestures(tmp_path / "g")), tmp_path / "cache")
    with pytest.raises(NoHoldout) as refused:
        build_holdout(competition, tmp_path / "h", fraction=0.2)
    message = str(refused.value)
    assert "the ids of training.csv name no files in a folder beside the test files" in message
    assert "files such as test/Sample00300.zip" in message and "whole file names" in message
    assert "\n" not in message
