"""A grouped metric gets its groups: `log_mae` with `group_column` is champs's mean over coupling types of
log(MAE), from the grader (the answers' column), and the metric choice sets the column from description.md."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from swarm.competitions import grade_submission, load_competition_dir
from swarm.competitions.competition import MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.grading import score_frame
from swarm.competitions.validation import answer_groups, answer_table
from swarm.evaluation.metric_choice import (
    SOURCE_COMPETITION_JSON,
    SOURCE_MODEL,
    SOURCE_OVERRIDE,
    SOURCE_RULES,
    infer_group_column,
    resolve_metric,
)
from swarm.offline_coder import OfflineClient
from swarm.pipeline.metric_model import metric_reader
from tests.competitions.scripted_client import ScriptedClient
from tests.layouts.tables.champs import (
    EVALUATION,
    GROUPED,
    GROUPED_METRIC,
    TARGET,
    champs_competition,
    couplings,
    offset_predictions,
    ungrouped,
)

SPEC = MetricSpec("log_mae", True, "id", (TARGET,))
GROUPED_SPEC = MetricSpec("log_mae", True, "id", (TARGET,), params={"group_column": "type"})


def hand_made() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(submission, answers) as read from CSV: type A off by 1.0 on both rows, type B by 0.01, the submission's
    rows in another order than the answers'."""
    answers = pd.DataFrame(
        {"id": ["1", "2", "3", "4"], "type": ["A", "B", "A", "B"], TARGET: ["1", "3", "2", "4"]}
    )
    submission = pd.DataFrame({"id": ["4", "3", "2", "1"], TARGET: ["4.01", "3", "3.01", "2"]})
    return submission, answers


def test_the_grouped_score_is_the_mean_over_groups_of_log_mae() -> None:
    submission, answers = hand_made()
    # MAE of A 1.0 and of B 0.01: (log 1 + log 0.01) / 2; all rows one group: log((1 + 1 + .01 + .01) / 4)
    assert score_frame(submission, answers, GROUPED_SPEC) == round((0 + math.log(0.01)) / 2, 6) == -2.302585
    assert score_frame(submission, answers, SPEC) == round(math.log(0.505), 6) == -0.683197


def test_the_answers_keep_the_group_column_and_give_the_groups_in_their_order() -> None:
    _, answers = hand_made()
    table = answer_table(answers, GROUPED_SPEC)
    assert list(table.columns) == ["id", TARGET, "type"]
    assert list(answer_groups(table, GROUPED_SPEC)) == ["A", "B", "A", "B"]
    assert list(answer_table(answers, SPEC).columns) == ["id", TARGET]  # no group column asked for
    assert answer_groups(answers, SPEC) is None
    blank = answers.assign(type=["A", "", "A", "B"])
    with pytest.raises(CompetitionError, match="group column 'type' has missing values"):
        score_frame(hand_made()[0], blank, GROUPED_SPEC)


def test_answers_without_the_group_column_stop_with_the_reason() -> None:
    submission, answers = hand_made()
    with pytest.raises(CompetitionError, match="no groups were passed, but group_column='type' names them"):
        score_frame(submission, answers.drop(columns=["type"]), GROUPED_SPEC)


def test_the_grader_scores_champs_by_type(tmp_path: Path) -> None:
    root = champs_competition(tmp_path / "champs", metric=GROUPED_METRIC)
    competition = load_competition_dir(root)
    assert competition.metric is not None and competition.metric.params == {"group_column": "type"}
    answers = pd.read_csv(competition.answers)
    path = tmp_path / "submission.csv"
    pd.DataFrame({"id": answers["id"], TARGET: offset_predictions(answers)}).to_csv(path, index=False)
    report = grade_submission(competition, path)
    assert report.valid and report.score == pytest.approx(GROUPED, abs=1e-6)
    assert report.metric_params == {"group_column": "type"}
    assert ungrouped(list(answers["type"])) == pytest.approx(math.log(0.505))  # what it scored before
    # `--metric log_mae` keeps competition.json's group column
    named = load_competition_dir(root, metric="log_mae")
    assert grade_submission(named, path).score == pytest.approx(GROUPED, abs=1e-6)


def test_the_grader_refuses_answers_without_the_group_column(tmp_path: Path) -> None:
    root = champs_competition(tmp_path / "champs", metric=GROUPED_METRIC, answers_have_type=False)
    competition = load_competition_dir(root)
    path = tmp_path / "submission.csv"
    answers = couplings(60, 20)
    pd.DataFrame({"id": answers["id"], TARGET: offset_predictions(answers)}).to_csv(path, index=False)
    with pytest.raises(CompetitionError, match="the caller must read the answers' column 'type'"):
        grade_submission(competition, path)


# -- the metric choice sets the group column ------------------------------------------------------------------


def test_the_description_names_the_group_column(tmp_path: Path) -> None:
    competition = load_competition_dir(champs_competition(tmp_path / "champs"))
    column, words = infer_group_column(competition)
    assert column == "type" and words.lower() == "for each scalar coupling type"


@pytest.mark.parametrize(
    ("client", "source"),
    [
        (None, SOURCE_RULES),
        (OfflineClient(), SOURCE_RULES),
        (ScriptedClient({"name": "log_mae", "lower_is_better": True, "reason": "log of MAE"}), SOURCE_MODEL),
    ],
)
def test_rules_and_model_choosing_log_mae_set_the_group_column(tmp_path: Path, client, source) -> None:
    competition = load_competition_dir(champs_competition(tmp_path / "champs"))
    assert competition.metric is None
    choice = resolve_metric(competition, override=None, model=metric_reader(client), bundled=False)
    assert (choice.name, choice.source, choice.params) == ("log_mae", source, {"group_column": "type"})
    assert "grouped by 'type': description.md says \"for each scalar coupling type\"" in choice.reason
    assert "log_mae (group_column=type)" in choice.describe()


def test_an_override_naming_log_mae_gets_the_group_column_too(tmp_path: Path) -> None:
    competition = load_competition_dir(champs_competition(tmp_path / "champs"))
    choice = resolve_metric(competition, override="log_mae", model=None, bundled=False)
    assert (choice.source, choice.params) == (SOURCE_OVERRIDE, {"group_column": "type"})
    declared = {"name": "log_mae", "params": {"group_column": "molecule_name"}}
    chosen = load_competition_dir(
        champs_competition(tmp_path / "declared", metric=declared), metric="log_mae"
    )
    # competition.json's params of the same metric come first; nothing is inferred over them
    assert resolve_metric(chosen, override="log_mae", model=None, bundled=False).params == {
        "group_column": "molecule_name"
    }


def test_competition_json_is_taken_as_declared(tmp_path: Path) -> None:
    plain = load_competition_dir(champs_competition(tmp_path / "plain", metric={"name": "log_mae"}))
    choice = resolve_metric(plain, override=None, model=None, bundled=False)
    assert (choice.source, choice.params) == (SOURCE_COMPETITION_JSON, {})
    grouped = load_competition_dir(champs_competition(tmp_path / "grouped", metric=GROUPED_METRIC))
    assert resolve_metric(grouped, override=None, model=None, bundled=False).params == {
        "group_column": "type"
    }


@pytest.mark.parametrize(
    ("description", "test_has_type"),
    [
        (EVALUATION, False),  # test.csv lacks `type`: not a column the solutions and answers share
        ("## Evaluation\n\nScored on log(MAE).\n", True),  # no words of a score per group
        # two shared columns named (molecule_name, atom_index_0): ambiguous
        (
            "## Evaluation\n\nThe log of the mean absolute error for each molecule name and atom index 0.\n",
            True,
        ),
    ],
)
def test_no_group_column_unless_described_and_shared(
    tmp_path: Path, description: str, test_has_type: bool
) -> None:
    root = champs_competition(tmp_path / "c", description=description, test_has_type=test_has_type)
    competition = load_competition_dir(root)
    assert infer_group_column(competition) is None
    choice = resolve_metric(competition, override=None, model=None, bundled=False)
    assert (choice.name, choice.params) == ("log_mae", {})


def test_a_metric_that_is_not_grouped_gets_no_group_column(tmp_path: Path) -> None:
    description = EVALUATION.replace("Log of the Mean Absolute Error", "Mean Absolute Error")
    competition = load_competition_dir(champs_competition(tmp_path / "c", description=description))
    choice = resolve_metric(competition, override=None, model=None, bundled=False)
    assert (choice.name, choice.params) == ("mae", {})
