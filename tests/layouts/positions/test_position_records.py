"""Records of per-position arrays (issue 29): stanford-covid-vaccine's `train.json` holds a record per RNA sequence
whose targets are arrays of its first `seq_scored` positions, and its sample submission a row per position of
every test sequence (`<id>_<position>`). The harness holds out whole records, moves them to `test.json` with the
test records' fields only, lists all their positions in the sample and scores the positions with targets by MCRMSE
over the 3 scored columns, as MLE-bench's grade.py does; labels stay private."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition_dir
from swarm.competitions.competition import MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.grading import score_frame, score_submission
from swarm.competitions.scored_columns import scored_columns_named
from swarm.competitions.validation import InvalidSubmission
from swarm.evaluation.harness import Harness
from swarm.evaluation.metric_choice import resolve_metric
from swarm.layouts.holdout import Holdout, NoHoldout, build_holdout
from swarm.offline_coder.task import find_data_files, infer_task_from_dir, read_examples
from tests.layouts.positions.miniatures import (
    DESCRIPTION,
    ERRORS,
    LENGTH,
    SCORED,
    SCORED_POSITIONS,
    TARGETS,
    TEST_FIELDS,
    covid_competition,
    read_lines,
    write_lines,
)
from tests.pipeline.plain_runs import plain_competition_run

SAMPLE = "sample_submission.csv"


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def grade_py(submission: pd.DataFrame, answers: pd.DataFrame) -> float:
    """MLE-bench's stanford-covid-vaccine grade.py, its scoring steps as they are: rows sorted by id_seqpos,
    those whose `keep` is true, the RMSE of each of the 3 scored columns, averaged."""
    sub = submission.sort_values(by="id_seqpos").reset_index(drop=True)
    ans = answers.sort_values(by="id_seqpos").reset_index(drop=True)
    assert list(sub["id_seqpos"]) == list(ans["id_seqpos"])
    mask = ans["keep"].to_numpy(dtype=bool)
    errors = [
        np.sqrt(np.mean((ans[c].astype(float)[mask] - sub[c].astype(float)[mask]) ** 2))
        for c in ["reactivity", "deg_Mg_pH10", "deg_Mg_50C"]
    ]
    return float(np.mean(errors))


def split(tmp_path: Path, **options) -> tuple[Path, Holdout]:
    root = covid_competition(tmp_path / "covid", **options)
    return root, build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2, seed=3)


def own_records(holdout: Holdout) -> dict[str, str]:
    """Each record's fresh id in the view -> its own (test and held-out records)."""
    rows = {**holdout.own_ids("test"), **holdout.own_ids("held")}
    return {view.rsplit("_", 1)[0]: mine.rsplit("_", 1)[0] for view, mine in rows.items()}


def test_whole_records_move_to_test_json_and_every_position_to_the_sample(tmp_path: Path) -> None:
    root, holdout = split(tmp_path)
    public, view = root / "prepared" / "public", holdout.public_dir
    original = {r["id"]: r for r in read_lines(public / "train.json")}
    train, test = read_lines(view / "train.json"), read_lines(view / "test.json")
    own = own_records(holdout)
    held = [r for r in test if own[r["id"]] in original]

    assert holdout.table.startswith("train.json (8 records") and holdout.split == "random"
    assert len(held) == 8 and len(train) == 32 and len(test) == 16 and holdout.n_train == 32
    assert not {own[r["id"]] for r in held} & {r["id"] for r in train}  # a sequence is on one side only
    assert all(original[own[r["id"]]]["SN_filter"] == 1 for r in held)  # drawn as MLE-bench drew its test
    assert all(list(r) == TEST_FIELDS for r in test)  # the test records' fields, in their order
    assert [r["index"] for r in test] == list(range(16)) and [r["index"] for r in train] == list(range(32))
    assert all(r["sequence"] == original[own[r["id"]]]["sequence"] for r in held)
    # Every record of test.json, test and held-out alike, has a fresh id like the test's: no training id, no tell.
    assert holdout.fresh_ids and not {r["id"] for r in test} & set(original)
    assert all(re.fullmatch(r"id_[0-9a-f]{9}", r["id"]) for r in test) and len({r["id"] for r in test}) == 16
    assert "fresh id (id_seqpos)" in holdout.describe_ids()
    # The sample lists every position of every record of test.json, in its order; the harness knows them all.
    sample = read(view / SAMPLE)
    assert list(sample["id_seqpos"]) == [f"{r['id']}_{k}" for r in test for k in range(LENGTH)]
    assert list(sample.columns) == ["id_seqpos", *TARGETS]
    assert sorted(holdout.ids) == sorted(f"{r['id']}_{k}" for r in held for k in range(LENGTH))
    # labels.csv: the scored positions of the held-out records, in the submission's columns, private.
    labels = read(holdout.labels_path)
    assert list(labels.columns) == ["id_seqpos", *TARGETS] and len(labels) == 8 * SCORED_POSITIONS
    expected = {
        f"{i}_{k}": original[own[i]]["deg_Mg_50C"][k] for i in (r["id"] for r in held) for k in range(12)
    }
    assert {i: float(v) for i, v in zip(labels["id_seqpos"], labels["deg_Mg_50C"], strict=True)} == expected
    assert oct(holdout.labels_path.stat().st_mode & 0o777) == "0o600"


def test_no_target_of_a_held_out_record_stays_in_the_view(tmp_path: Path) -> None:
    root, holdout = split(tmp_path)
    original = {r["id"]: r for r in read_lines(root / "prepared" / "public" / "train.json")}
    own = own_records(holdout)
    held = [original[own[i]] for i in {i.rsplit("_", 1)[0] for i in holdout.ids}]
    secrets = {json.dumps(v) for r in held for f in [*TARGETS, *ERRORS] for v in r[f]}
    secrets |= {json.dumps(r["signal_to_noise"]) for r in held}
    files = [p for p in holdout.public_dir.rglob("*") if p.is_file()]
    assert {p.name for p in files} == {"train.json", "test.json", SAMPLE, "description.md"}
    numbers = set(re.findall(r"-?\d+\.\d+(?:e-?\d+)?", "\n".join(p.read_text() for p in files)))
    assert len(secrets) > 8 * 5 * SCORED_POSITIONS and not secrets & numbers
    kept = read_lines(holdout.public_dir / "train.json")
    assert {json.dumps(r["reactivity"][0]) for r in kept} <= numbers  # the check finds values that are there


def test_a_perfect_submission_scores_0_and_a_perturbed_one_what_grade_py_gives(tmp_path: Path) -> None:
    root, holdout = split(tmp_path)
    competition = load_competition_dir(root)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    view_sample = read(holdout.public_dir / SAMPLE)
    truth = read(holdout.labels_path).set_index("id_seqpos")
    submission = view_sample.copy()
    scored = submission["id_seqpos"].isin(truth.index)
    for column in TARGETS:  # unscored positions and columns hold anything: they are not read
        submission[column] = "7.5"
        submission.loc[scored, column] = truth.loc[submission.loc[scored, "id_seqpos"], column].to_numpy()
    path = tmp_path / "submission.csv"
    submission.to_csv(path, index=False)
    result = harness.evaluate(path, tmp_path / "test_rows.csv", tmp_path / "held_rows.csv")
    assert (result.score, result.problem) == (0.0, None)
    assert len(read(tmp_path / "test_rows.csv")) == 8 * LENGTH  # the test's own rows, unscored ones too
    assert len(read(tmp_path / "held_rows.csv")) == 8 * SCORED_POSITIONS

    # +0.1 on every scored reactivity, +0.2 on deg_Mg_50C at even positions, deg_pH10 wrong everywhere.
    position = submission["id_seqpos"].str.rsplit("_", n=1).str[1].astype(int)
    perturbed = submission.copy()
    perturbed.loc[scored, "reactivity"] = (submission.loc[scored, "reactivity"].astype(float) + 0.1).map(repr)
    even = scored & (position % 2 == 0)
    perturbed.loc[even, "deg_Mg_50C"] = (submission.loc[even, "deg_Mg_50C"].astype(float) + 0.2).map(repr)
    perturbed["deg_pH10"] = "100"
    perturbed.to_csv(path, index=False)
    by_hand = (0.1 + 0.0 + np.sqrt(0.5 * 0.2**2)) / 3
    score = harness.evaluate(path, tmp_path / "test_rows.csv").score
    assert score == pytest.approx(by_hand, abs=1e-6)
    # grade.py on the held-out records' answers as MLE-bench writes them (every position, `keep` on scored ones)
    held = perturbed[perturbed["id_seqpos"].isin(holdout.ids)]
    answers = held[["id_seqpos"]].assign(keep=held["id_seqpos"].isin(truth.index).to_numpy())
    for column in TARGETS:
        answers[column] = [truth[column].get(i, "0.0") for i in held["id_seqpos"]]
    assert score == pytest.approx(grade_py(held, answers), abs=1e-6)


def test_the_final_grade_reads_mle_bench_answers_as_grade_py(tmp_path: Path) -> None:
    competition = load_competition_dir(covid_competition(tmp_path / "covid"))
    assert competition.answers is not None and competition.answers.name == "test.csv"
    answers = read(competition.answers)
    answers = answers.assign(keep=answers["keep"] == "True")  # every position, `keep` on the scored ones
    sample = read(competition.sample_submission)
    rng = np.random.default_rng(5)
    submission = sample.assign(**{c: rng.uniform(0, 1, len(sample)).round(6).astype(str) for c in TARGETS})
    path = tmp_path / "submission.csv"
    submission.to_csv(path, index=False)
    assert score_submission(competition, path) == pytest.approx(grade_py(submission, answers), abs=1e-6)
    truth = answers.set_index("id_seqpos")
    kept = answers.loc[answers["keep"], "id_seqpos"]
    perfect = submission.set_index("id_seqpos")
    perfect.loc[kept, TARGETS] = truth.loc[kept, TARGETS]
    perfect.reset_index().to_csv(path, index=False)
    assert score_submission(competition, path) == 0.0  # the unscored positions hold anything
    submission[submission["id_seqpos"] != answers.loc[~answers["keep"], "id_seqpos"].iloc[0]].to_csv(
        path, index=False
    )
    with pytest.raises(InvalidSubmission, match="rows"):  # as grade.py: every position, scored or not
        score_submission(competition, path)


def test_every_position_of_a_held_out_record_must_be_predicted(tmp_path: Path) -> None:
    root, holdout = split(tmp_path)
    competition = load_competition_dir(root)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    sample = read(holdout.public_dir / SAMPLE)
    unscored = sorted(set(holdout.ids) - set(read(holdout.labels_path)["id_seqpos"]))
    path = tmp_path / "submission.csv"
    sample[sample["id_seqpos"] != unscored[0]].to_csv(path, index=False)  # as grade.py: every row or none
    result = harness.evaluate(path, tmp_path / "test_rows.csv")
    assert result.score is None and "1 of the 160 test rows" in (result.problem or "")


def test_mcrmse_scores_the_named_columns_only_as_grade_py() -> None:
    ids = [f"id_a_{k}" for k in range(4)]
    answers = pd.DataFrame(
        {"id_seqpos": ids, **{c: ["1.0", "2.0", "3.0", "4.0"] for c in TARGETS}}, dtype=str
    )
    submission = answers.assign(reactivity=["1.5", "2.0", "3.0", "4.0"], deg_Mg_50C=["1", "2", "3", "5"])
    submission = submission.assign(deg_pH10="9", deg_50C="-9")  # submitted, not scored
    spec = MetricSpec("mcrmse", True, "id_seqpos", tuple(TARGETS), params={"scored_columns": SCORED})
    by_hand = (np.sqrt(0.25 / 4) + 0.0 + np.sqrt(1 / 4)) / 3
    assert score_frame(submission, answers, spec) == pytest.approx(by_hand, abs=1e-6)
    assert by_hand == pytest.approx(grade_py(submission, answers.assign(keep=True)))
    everything = MetricSpec("mcrmse", True, "id_seqpos", tuple(TARGETS))  # unset: all 5 columns
    assert score_frame(submission, answers, everything) > by_hand
    wrong = MetricSpec("mcrmse", True, "id_seqpos", tuple(TARGETS), params={"scored_columns": ["reactivty"]})
    with pytest.raises(CompetitionError, match="reactivty"):
        score_frame(submission, answers, wrong)


def test_the_rules_name_mcrmse_and_its_scored_columns_from_the_description(tmp_path: Path) -> None:
    # The real wording: "While the submission format requires all 5 to be predicted, only the following are
    # scored: `reactivity`, `deg_Mg_pH10`, and `deg_Mg_50C`."
    competition = load_competition_dir(covid_competition(tmp_path / "covid", declare=False))
    choice = resolve_metric(competition, override=None, model=None, bundled=False)
    assert (choice.name, choice.params) == ("mcrmse", {"scored_columns": SCORED})
    assert "only the following are scored" in choice.reason
    found = scored_columns_named(DESCRIPTION, TARGETS)
    assert found is not None and found[0] == SCORED
    # "Positions greater than the `seq_scored` value [...] are not scored" names no column; all 5 are no subset.
    assert scored_columns_named("Positions greater than seq_scored are not scored.", TARGETS) is None
    assert scored_columns_named(f"Only {', '.join(TARGETS)} are scored.", TARGETS) is None


def test_the_run_scores_with_the_columns_the_rules_found(tmp_path: Path) -> None:
    root = covid_competition(tmp_path / "covid", declare=False)
    competition = load_competition_dir(root, metric="mcrmse")
    choice = resolve_metric(competition, override="mcrmse", model=None, bundled=False)
    assert competition.metric is not None and competition.metric.params == {}
    spec = replace(competition.metric, params=choice.params)  # as the run's resolve_competition does
    competition = replace(competition, metric=spec)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=3)
    truth = read(holdout.labels_path).set_index("id_seqpos")
    submission = read(holdout.public_dir / SAMPLE)
    scored = submission["id_seqpos"].isin(truth.index)
    for column in TARGETS:
        submission.loc[scored, column] = truth.loc[submission.loc[scored, "id_seqpos"], column].to_numpy()
    submission.loc[scored, "deg_50C"] = "50"  # an unscored column, wrong
    submission.to_csv(tmp_path / "s.csv", index=False)
    harness = Harness(holdout, spec, competition.sample_submission)
    assert harness.evaluate(tmp_path / "s.csv", tmp_path / "t.csv").score == 0.0


def test_held_out_ids_a_test_record_has_are_rekeyed(tmp_path: Path) -> None:
    root = covid_competition(tmp_path / "covid")
    public = root / "prepared" / "public"
    train, test = read_lines(public / "train.json"), read_lines(public / "test.json")
    for record, twin in zip(
        train[::2], test, strict=False
    ):  # ids the test records have: a held-out one moves
        record["id"] = twin["id"]
    write_lines(public / "train.json", train)
    competition = load_competition_dir(root)
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.2, seed=3)
    view_test = read_lines(holdout.public_dir / "test.json")
    assert holdout.rekeyed and len({r["id"] for r in view_test}) == 16
    new = {r["id"] for r in view_test}  # fresh for every record: none a test or training record's own
    assert not new & {r["id"] for r in [*test, *train]} and {i.rsplit("_", 1)[0] for i in holdout.ids} < new
    assert all(re.fullmatch(r"id_[0-9a-f]{9}", i) for i in new)  # like the test's ids: no tell
    truth = read(holdout.labels_path).set_index("id_seqpos")
    assert set(truth.index) <= set(holdout.ids)
    submission = read(holdout.public_dir / SAMPLE)
    scored = submission["id_seqpos"].isin(truth.index)
    for column in TARGETS:
        submission.loc[scored, column] = truth.loc[submission.loc[scored, "id_seqpos"], column].to_numpy()
    submission.to_csv(tmp_path / "s.csv", index=False)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    assert harness.evaluate(tmp_path / "s.csv", tmp_path / "t.csv").score == 0.0


@pytest.mark.parametrize(
    ("broken", "words"),
    [
        ("reactivity", "holds target arrays of different lengths (reactivity 10, deg_Mg_pH10 12"),
        ("all", "holds 10 target values where its seq_scored says 12"),
    ],
)
def test_arrays_that_disagree_with_the_scored_positions_are_refused_in_one_sentence(
    tmp_path: Path, broken: str, words: str
) -> None:
    root = covid_competition(tmp_path / "covid")
    path = root / "prepared" / "public" / "train.json"
    records = read_lines(path)
    for name in TARGETS if broken == "all" else [broken]:
        records[5][name] = records[5][name][:10]
    write_lines(path, records)
    with pytest.raises(NoHoldout) as refused:
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)
    message = str(refused.value)
    assert words in message and records[5]["id"] in message
    assert ". " not in message and "\n" not in message  # one sentence


def test_a_sample_that_lists_positions_no_test_field_counts_is_refused(tmp_path: Path) -> None:
    root = covid_competition(tmp_path / "covid")
    public = root / "prepared" / "public"
    sample = read(public / SAMPLE)
    first = sample["id_seqpos"].iloc[0].rsplit("_", 1)[0]
    sample[sample["id_seqpos"] != f"{first}_{LENGTH - 1}"].to_csv(public / SAMPLE, index=False)
    with pytest.raises(NoHoldout, match="no field of test.json gives the number of positions"):
        build_holdout(load_competition_dir(root), tmp_path / "h", fraction=0.2)


def test_the_offline_coder_reads_a_row_per_position(tmp_path: Path) -> None:
    public = covid_competition(tmp_path / "covid") / "prepared" / "public"
    files = find_data_files(str(public))
    assert files["positions"] == {
        "train": "train.json",
        "test": "test.json",
        "id_field": "id",
        "length_field": "seq_length",
    }
    sample = pd.read_csv(public / SAMPLE)
    train, test = read_examples(str(public), files, sample)
    assert len(train) == 40 * SCORED_POSITIONS and test["id_seqpos"].tolist() == sample["id_seqpos"].tolist()
    first, row = read_lines(public / "train.json")[0], train.iloc[3]
    assert (row["id_seqpos"], row["position"], row["reactivity"]) == (
        f"{first['id']}_3",
        3,
        first["reactivity"][3],
    )
    assert (
        row["sequence"] + row["sequence_prev"] + row["sequence_next"]
        == first["sequence"][3] + first["sequence"][2:5:2]
    )
    task = infer_task_from_dir(str(public))
    assert task["id_col"] == "id_seqpos" and [(t["name"], t["task"]) for t in task["targets"]] == [
        (t, "regression") for t in TARGETS
    ]


@pytest.mark.slow
def test_no_key_the_main_job_delivers_what_grade_py_scores_better_than_a_constant(
    tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    root = covid_competition(tmp_path / "covid", n_train=120, n_test=24, declare=False)
    overrides = [o for o in base_overrides if not o.startswith("data.competition=")]
    run_dir = tmp_path / "run"
    limits = ["agent.max_steps=3", "search.num_drafts=2", "search.parallel=2"]
    summary = plain_competition_run([*overrides, *limits], run_dir, root)  # the main job's run, Prefect aside
    assert summary["validation_source"] == "harness", summary
    evaluation = json.loads((run_dir / "evaluation.json").read_text())
    assert "a row per position <id>_<position>" in evaluation["holdout"]
    assert evaluation["metric"]["params"] == {"scored_columns": SCORED}
    assert summary["good_nodes"] >= 1 and summary["grade"]["valid"], summary
    answers = read(root / "prepared" / "private" / "test.csv")
    answers = answers.assign(keep=answers["keep"] == "True")
    delivered = read(Path(summary["grade"]["submission_path"]))
    constant = answers[["id_seqpos"]].assign(**dict.fromkeys(TARGETS, "0.5"))  # the targets' middle
    assert summary["grade"]["score"] == pytest.approx(grade_py(delivered, answers), abs=1e-6)
    assert grade_py(delivered, answers) < grade_py(constant, answers)


def test_records_whose_sample_no_test_field_counts_are_refused_by_the_coder_in_one_sentence(
    tmp_path: Path,
) -> None:
    """The reader finds the layout (the harness refuses it, saying why); the coder's reading says what is wrong."""
    root = covid_competition(tmp_path / "covid")
    public = root / "prepared" / "public"
    sample = read(public / SAMPLE)
    first = sample["id_seqpos"].iloc[0].rsplit("_", 1)[0]
    sample[sample["id_seqpos"] != f"{first}_{LENGTH - 1}"].to_csv(public / SAMPLE, index=False)
    files = find_data_files(str(public))
    assert files["positions"] == {"train": "train.json", "test": "test.json"}
    with pytest.raises(ValueError, match="no field of test.json names the sample's records and counts"):
        read_examples(str(public), files, pd.read_csv(public / SAMPLE))
