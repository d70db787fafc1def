"""A sample that lists each test row's own items (issue 29): AI4Code's `cell_order` holds each test notebook's
cell ids as its JSON lists them. The held-out notebooks' rows in the view's sample list their own cells (not the
first test notebook's), so a submission that keeps the sample's order, as the offline coder's does when nothing
predicts the order, is valid on the harness and scored."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.competitions.grading import score_frame
from swarm.evaluation.harness import Harness
from swarm.evaluation.listed_items import file_items, listed_items_column
from swarm.layouts.holdout import build_holdout
from tests.layouts.tables.text_miniatures import ai4code


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_held_out_rows_list_their_own_cells_and_the_sample_as_is_is_scored(tmp_path: Path) -> None:
    competition = load_competition(str(ai4code(tmp_path / "nb")), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.2, seed=0)
    view = holdout.public_dir
    sample = read(view / "sample_submission.csv").set_index("id")["cell_order"]
    assert holdout.ids and set(holdout.ids) <= set(sample.index)
    for notebook in holdout.ids:
        cells = list(json.loads((view / "test" / f"{notebook}.json").read_text())["cell_type"])
        assert sample[notebook] == " ".join(cells)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    result = harness.evaluate(view / "sample_submission.csv", tmp_path / "test_rows.csv")
    held = read(view / "sample_submission.csv").query("id in @holdout.ids")
    expected = score_frame(held, read(holdout.labels_path), competition.metric)  # Kendall tau, as grade.py's
    assert result.problem is None and result.score == pytest.approx(expected)
    assert result.score < 1.0  # the files list their cells in another order than the notebooks'


def test_a_sample_that_does_not_list_the_files_items_is_left_alone(tmp_path: Path) -> None:
    public = ai4code(tmp_path / "nb") / "prepared" / "public"
    sample = read(public / "sample_submission.csv")
    files = {p.stem: p for p in (public / "test").iterdir()}
    assert listed_items_column(sample, "id", ["cell_order"], files) == "cell_order"
    reversed_order = sample.assign(cell_order=[" ".join(v.split()[::-1]) for v in sample["cell_order"]])
    assert listed_items_column(reversed_order, "id", ["cell_order"], files) is None
    (tmp_path / "list.json").write_text("[1, 2]")
    assert file_items(tmp_path / "list.json") is None
