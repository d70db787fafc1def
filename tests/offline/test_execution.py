"""Run the offline coder's solutions for real (subprocess, input/ working/ submission/ layout)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score

from swarm.llm.base import CallContext
from swarm.offline_coder import OfflineClient
from swarm.offline_coder.sections import split_code
from swarm.protocol import GENE_SECTIONS, parse_metric_line
from tests.offline.solution_runs import ask, check_run

pytestmark = pytest.mark.slow
TARGET_METRIC = {"titanic": "accuracy", "ames": "rmsle", "churn": "auc"}


def constant_score(comp) -> float:
    """The score of the best single constant prediction (majority class, 0.5 AUC, median price)."""
    truth = comp.answers[comp.target]
    if comp.name == "titanic":
        return float(accuracy_score(truth, [truth.mode()[0]] * len(truth)))
    if comp.name == "churn":
        return 0.5
    log_truth = np.log(truth.astype(float))
    return float(np.sqrt(np.mean((log_truth - log_truth.median()) ** 2)))


@pytest.mark.parametrize("name", ["titanic", "ames", "churn"])
def test_draft_runs_and_beats_a_constant(competitions, tools, tmp_path, name):
    comp = competitions[name]
    sample = pd.read_csv(comp.input_dir / "sample_submission.csv")
    code = tools.code_of(ask(OfflineClient(seed=0), "draft", comp, seed=11))
    metric = check_run(tools.run(code, comp.input_dir, tmp_path), comp, sample)
    assert metric.name == TARGET_METRIC[name]
    score, baseline = (
        tools.score(comp, pd.read_csv(tmp_path / "submission" / "submission.csv")),
        constant_score(comp),
    )
    if name == "ames":
        assert score < 0.8 * baseline, (score, baseline)
    else:
        assert score > baseline + 0.05, (score, baseline)


def test_merge_runs(competitions, tools, tmp_path):
    comp = competitions["titanic"]
    client = OfflineClient(seed=5)
    a = tools.code_of(ask(client, "draft", comp, seed=1))
    b = tools.code_of(ask(client, "draft", comp, seed=2))
    plan = {name: 1 - i % 2 for i, name in enumerate(GENE_SECTIONS)}
    merged = tools.code_of(ask(client, "merge", comp, parent_codes=[a, b], crossover_plan=plan))
    check_run(
        tools.run(merged, comp.input_dir, tmp_path),
        comp,
        pd.read_csv(comp.input_dir / "sample_submission.csv"),
    )


def test_debug_repairs_a_broken_script(competitions, tools, tmp_path):
    comp = competitions["churn"]
    client = OfflineClient(seed=3)
    split = split_code(tools.code_of(ask(client, "draft", comp, seed=4)))
    split.sections["DATA"] = split.sections["DATA"].replace(
        'Y = train_df[[t["name"]', 'Y = train_df[["no_such"]'
    )
    broken = split.join()
    failed = tools.run(broken, comp.input_dir, tmp_path / "broken")
    assert failed.returncode != 0 and "no_such" in failed.output
    fixed = tools.code_of(ask(client, "debug", comp, parent_code=broken, parent_output=failed.output))
    assert "no_such" not in fixed
    sample = pd.read_csv(comp.input_dir / "sample_submission.csv")
    check_run(tools.run(fixed, comp.input_dir, tmp_path / "fixed"), comp, sample)


def test_improve_of_a_weak_parent_runs_and_keeps_the_rest(competitions, tools, tmp_path):
    comp = competitions["titanic"]
    client = OfflineClient(seed=8)
    parent = tools.code_of(ask(client, "draft", comp, seed=3))
    child = tools.code_of(ask(client, "improve", comp, node="i1", parent_code=parent))
    changed = [s for s in GENE_SECTIONS if split_code(parent).sections[s] != split_code(child).sections[s]]
    assert len(changed) == 1
    check_run(
        tools.run(child, comp.input_dir, tmp_path),
        comp,
        pd.read_csv(comp.input_dir / "sample_submission.csv"),
    )


def test_without_input_dir_the_code_infers_the_task_at_run_time(competitions, tools, tmp_path):
    comp = competitions["churn"]
    code = tools.code_of(ask(OfflineClient(seed=1), "draft", seed=2))
    assert "infer_task_from_dir" in code
    metric = check_run(
        tools.run(code, comp.input_dir, tmp_path), comp, pd.read_csv(comp.input_dir / "sample_submission.csv")
    )
    assert metric.name == "auc"


@pytest.mark.skipif(
    importlib.util.find_spec("swarm.competitions") is None, reason="swarm.competitions not built yet"
)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("competition_id", ["titanic", "house-prices", "telco-churn"])
def test_drafts_beat_the_sample_submission_on_bundled_competitions(bundled, tools, competition_id, seed):
    from swarm.competitions import grade_submission

    comp = bundled.competition(competition_id)
    reply = OfflineClient(seed=seed).complete(
        [],
        CallContext(stage="code", kind="draft", node_id="d0", hints=bundled.hints(competition_id, seed=seed)),
    )
    ours = bundled.run(competition_id, tools.code_of(reply))
    assert ours.returncode == 0, ours.output[-3000:]
    assert ours.metric is not None and ours.report is not None
    sample = grade_submission(comp, comp.sample_submission)
    assert ours.report.valid, ours.report.reason
    better = (
        ours.report.score < sample.score if ours.report.lower_is_better else ours.report.score > sample.score
    )
    assert better, (ours.report.score, sample.score)


def test_wide_probability_and_multi_target_formats(tmp_path, tools):
    """sklearn's bundled wine (class columns, log loss) and linnerud (three regression targets, MAE)."""
    from sklearn.datasets import load_linnerud, load_wine

    wine = load_wine(as_frame=True).frame.rename(columns={"target": "cultivar"})
    wine["cultivar"] = wine["cultivar"].map({0: "a", 1: "b", 2: "c"})
    linnerud = load_linnerud(as_frame=True).frame
    cases = [
        ("wine", wine, ["cultivar"], {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}, "multi-class log loss", "logloss"),
        ("linnerud", linnerud, ["Weight", "Waist", "Pulse"], dict.fromkeys(["Weight", "Waist", "Pulse"], 0.0),
         "mean absolute error", "mae"),
    ]  # fmt: skip
    for name, frame, targets, sample_values, words, metric_name in cases:
        frame = frame.copy()
        frame.insert(0, "id", range(100, 100 + len(frame)))
        test_rows = np.random.default_rng(0).random(len(frame)) < 0.25
        input_dir = tmp_path / name / "input"
        input_dir.mkdir(parents=True)
        frame[~test_rows].to_csv(input_dir / "train.csv", index=False)
        frame[test_rows].drop(columns=targets).to_csv(input_dir / "test.csv", index=False)
        sample = pd.DataFrame({"id": frame.loc[test_rows, "id"], **sample_values})
        sample.to_csv(input_dir / "sample_submission.csv", index=False)
        (input_dir / "description.md").write_text(f"## Evaluation\nScored by {words}.\n")
        reply = OfflineClient(seed=2).complete(
            [], CallContext(stage="code", kind="draft", node_id=name, hints={"input_dir": str(input_dir)})
        )
        result = tools.run(tools.code_of(reply), input_dir, tmp_path / name / "run")
        assert result.returncode == 0, result.output[-3000:]
        assert parse_metric_line(result.output).name == metric_name
        assert list(result.submission.columns) == list(sample.columns)
        assert result.submission["id"].tolist() == sample["id"].tolist()
        if name == "wine":
            assert np.allclose(result.submission[["a", "b", "c"]].sum(axis=1), 1.0)


@pytest.mark.parametrize("name", ["titanic", "ames"])
def test_blend_family_runs(competitions, tools, tmp_path, name):
    """The blend (boosted trees + linear model, soft voting) that improve reaches from linear and LightGBM."""
    from swarm.offline_coder.client import task_from_hints
    from swarm.offline_coder.genome import safe_genome
    from swarm.offline_coder.render import render_solution

    comp = competitions[name]
    task = task_from_hints({"input_dir": str(comp.input_dir)})
    code = render_solution(task, safe_genome(task) | {"MODEL": {"family": "blend"}})
    sample = pd.read_csv(comp.input_dir / "sample_submission.csv")
    result = tools.run(code, comp.input_dir, tmp_path)
    assert check_run(result, comp, sample).name == TARGET_METRIC[name]
    assert "(holdout, blend)" in result.output
