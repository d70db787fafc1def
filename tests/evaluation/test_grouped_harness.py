"""The harness scores a grouped metric with its groups: on a miniature champs-scalar-coupling, labels.csv keeps
the held-out rows' coupling `type` (privately), and a known submission's held-out score is the hand-computed
mean over types of log(MAE), not the log of the overall MAE."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.config import load_config
from swarm.evaluation.blend import Blender
from swarm.evaluation.ensemble import build_library
from swarm.evaluation.harness import Harness
from swarm.layouts.holdout import Holdout, NoHoldout, build_holdout
from swarm.pipeline.context import create_run, resolve_competition
from swarm.pipeline.evaluation_setup import load_evaluation
from tests.layouts.tables.champs import (
    GROUPED,
    GROUPED_METRIC,
    TARGET,
    champs_competition,
    offset_predictions,
    ungrouped,
)
from tests.layouts.tables.miniatures import read


def known_submission(holdout: Holdout, original_train: Path, path: Path) -> list[str]:
    """Write a submission for every row the solution sees: the held-out rows off by their type's offset (MAE
    1.0 on 1JHC, 0.01 on 2JHH), the competition's own test rows 0. Returns the held-out rows' types."""
    test = read(holdout.public_dir / "test.csv")
    truth = read(original_train).set_index("id")
    own = holdout.own_ids("held")  # each held-out row's fresh id in the view -> its own
    held = test[test["id"].isin(own)]
    rows = truth.loc[held["id"].map(own)].reset_index()
    predicted = dict(zip(held["id"], offset_predictions(rows), strict=True))
    sample = read(holdout.public_dir / "sample_submission.csv")
    values = [predicted.get(i, 0.0) for i in sample["id"]]
    pd.DataFrame({"id": sample["id"], TARGET: values}).to_csv(path, index=False)
    return list(rows["type"])


def test_held_out_rows_are_scored_per_type(tmp_path: Path) -> None:
    competition = load_competition_dir(champs_competition(tmp_path / "champs", metric=GROUPED_METRIC))
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.3, seed=0)
    labels = read(holdout.labels_path)
    assert list(labels.columns) == ["id", TARGET, "type"] and holdout.target_columns == [TARGET]
    assert stat.S_IMODE(holdout.labels_path.stat().st_mode) == 0o600
    original = read(competition.public_dir / "train.csv").set_index("id")
    own = labels["id"].map(holdout.own_ids("held"))
    assert (labels.set_index("id")["type"] == original.loc[own, "type"].to_numpy()).all()
    # what the sandbox sees: no labels file, the held-out rows in test.csv with their type but not the target
    public = holdout.public_dir
    assert not (public / "labels.csv").exists()
    test = read(public / "test.csv")
    assert TARGET not in test.columns and set(holdout.ids) <= set(test["id"])
    assert set(holdout.ids).isdisjoint(read(public / "train.csv")["id"])

    harness = Harness(holdout, competition.metric, competition.sample_submission)
    path = tmp_path / "s.csv"
    types = known_submission(holdout, competition.public_dir / "train.csv", path)
    assert set(types) == {"1JHC", "2JHH"} and ungrouped(types) != pytest.approx(GROUPED, abs=0.1)
    result = harness.evaluate(path, tmp_path / "test_part.csv", tmp_path / "heldout.csv")
    assert result.problem is None
    assert result.score == pytest.approx(GROUPED, abs=1e-6) == round(GROUPED, 6)

    # the ensemble's library scores the held-out rows with the same groups
    library = build_library(harness.spec, harness.labels, {"n1": read(tmp_path / "heldout.csv")}, 4)
    assert library.node_ids == ["n1"] and library.groups is not None
    assert library.score(Blender(harness.spec), library.predictions[0]) == pytest.approx(GROUPED, abs=1e-9)


def test_without_a_group_column_param_all_rows_are_one_group(tmp_path: Path) -> None:
    """What the harness scored before: log_mae without group_column, the log of the overall MAE."""
    root = champs_competition(tmp_path / "champs", metric={"name": "log_mae"})
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.3, seed=0)
    assert list(read(holdout.labels_path).columns) == ["id", TARGET]
    path = tmp_path / "s.csv"
    types = known_submission(holdout, competition.public_dir / "train.csv", path)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    assert harness.evaluate(path, tmp_path / "t.csv").score == pytest.approx(ungrouped(types), abs=1e-6)


def test_a_group_column_the_labelled_table_lacks_means_no_split(tmp_path: Path) -> None:
    metric = {"name": "log_mae", "params": {"group_column": "bond"}}
    competition = load_competition_dir(champs_competition(tmp_path / "champs", metric=metric))
    with pytest.raises(NoHoldout, match="no groups were passed, but group_column='bond'"):
        build_holdout(competition, tmp_path / "h", fraction=0.3, seed=0)


def test_a_run_takes_the_group_column_from_the_description(tmp_path: Path) -> None:
    """No competition.json: the offline coder's rules choose log_mae from champs's description.md, the choice
    sets group_column=type, the run's competition and harness split carry it."""
    root = champs_competition(tmp_path / "champs")
    cfg = load_config(
        None,
        [
            f"project.cache_dir={tmp_path / 'cache'}",
            f"project.runs_dir={tmp_path / 'runs'}",
            f"data.data_dir={root}",
            "llm.code.provider=offline",
            "llm.feedback.provider=offline",
            "llm.evolution.provider=offline",
            "evaluation.holdout_fraction=0.3",
        ],
    )
    paths = create_run(cfg, tmp_path / "run")
    setup = load_evaluation(paths.root)
    assert setup is not None and setup.holdout is not None
    assert (setup.metric.name, setup.metric.params) == ("log_mae", {"group_column": "type"})
    saved = json.loads((paths.root / "evaluation.json").read_text())
    assert saved["metric"]["params"] == {"group_column": "type"}
    competition = resolve_competition(cfg, setup.metric)  # as a resumed run or the final grade sees it
    assert competition.metric is not None and competition.metric.params == {"group_column": "type"}
    assert list(read(setup.holdout.labels_path).columns) == ["id", TARGET, "type"]
    harness = Harness(setup.holdout, competition.metric, competition.sample_submission)
    path = tmp_path / "s.csv"
    known_submission(setup.holdout, root / "prepared" / "public" / "train.csv", path)
    assert harness.evaluate(path, tmp_path / "t.csv").score == pytest.approx(GROUPED, abs=1e-6)
