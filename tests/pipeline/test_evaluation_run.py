"""How a whole run is evaluated: its metric and where it came from, the harness split or the honest fallback,
and competitions the project has never seen (no competition.json) graded through `--metric`."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from flows.competition import CompetitionParams, competition_flow
from flows.run_competition import main
from swarm.competitions import load_competition
from swarm.config import load_config
from swarm.journal import Journal
from swarm.metric import with_interval
from swarm.pipeline.context import create_run, open_run
from swarm.pipeline.finalize import promote
from tests.pipeline.plain_runs import plain_competition_run

pytestmark = pytest.mark.usefixtures("prefect_server")
QUICK = ["agent.max_steps=2", "search.num_drafts=2", "search.parallel=2"]


def unknown_competition(cache: Path, target: Path, description: str) -> Path:
    """The bundled titanic as a stranger's MLE-bench dir: no competition.json, its own description."""
    source = load_competition("titanic", cache).root
    shutil.copytree(source / "prepared", target / "prepared")
    (target / "prepared" / "public" / "description.md").write_text(description, encoding="utf-8")
    return target


def test_harness_scores_every_node_and_the_run_says_so(
    tmp_path: Path, base_overrides: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    summary = competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=[*base_overrides, *QUICK]))
    said = capsys.readouterr().err
    assert "metric: accuracy (higher is better), from bundled competition" in said
    assert "--metric NAME" in said and "the harness holds out" in said
    assert summary["validation_source"] == "harness"
    assert summary["metric"]["name"] == "accuracy" and summary["metric"]["source"] == "bundled competition"
    assert summary["refit"].startswith("used") and summary["grade"]["valid"]
    assert summary["sandbox"]["isolated"] is True
    assert json.loads((run_dir / "sandbox.json").read_text()) == summary["sandbox"]
    saved = json.loads((run_dir / "evaluation.json").read_text())
    assert saved["validation_source"] == "harness" and saved["metric"]["name"] == "accuracy"
    best = Journal.load(run_dir / "journal.jsonl").get(summary["best_node"])
    assert best.meta.validation_source == "harness"
    assert summary["validation_metric"] == best.metric.value
    low, high = summary["validation_interval"]  # the harness score's 95% bootstrap interval, kept on the node
    assert [low, high] == best.meta.score_interval and low <= best.metric.value <= high
    assert summary["validation_se"] == best.meta.score_se > 0
    report = (run_dir / "report.md").read_text()
    assert "harness score" in report and "Refit: used" in report
    assert (
        f"validation metric {with_interval(best.metric.value, [low, high], '.5g')} (harness score)" in report
    )
    assert "the score's 95% interval, from a bootstrap of the held-out rows" in report
    given = summary["sandbox"]
    cpus = f"{given['cpus']:g} CPU{'' if given['cpus'] == 1 else 's'}"
    assert (
        f"- each solution: {cpus}, {given['memory_mb']} MB of memory (held by {given['memory_guard']})"
        in report
    )


def test_without_a_split_scores_are_marked_unverified(
    tmp_path: Path, base_overrides: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    overrides = [*base_overrides, *QUICK, "evaluation.holdout_fraction=0", "execution.sandbox=unsafe-local"]
    summary = competition_flow(CompetitionParams(run_dir=str(run_dir), overrides=overrides))
    assert "UNVERIFIED" in capsys.readouterr().err
    assert summary["validation_source"] == "solution"
    assert summary["refit"].startswith("not needed")
    nodes = Journal.load(run_dir / "journal.jsonl").good_nodes()
    assert nodes and all(n.meta.validation_source == "solution" for n in nodes)
    for node in nodes:  # the reviewed submission was copied out of the node's dir and hashed
        kept = Path(node.meta.submission_path)
        assert kept == run_dir / "harness" / "submissions" / f"{node.id}.csv"
        assert hashlib.sha256(kept.read_bytes()).hexdigest() == node.meta.submission_sha256
    report = (run_dir / "report.md").read_text()
    assert "UNVERIFIED" in report and "(unverified)" in report
    # the explicit opt-in to unconfined execution is recorded where a reader of the run sees it
    assert summary["sandbox"]["isolated"] is False and "NOT isolated" in report
    assert not (run_dir / "harness" / "labels.csv").exists()


def run_stranger(tmp_path: Path, base_overrides: list[str], cache: Path, *flags: str) -> int:
    """The main job's CLI on a titanic copy without competition.json whose description names no metric."""
    data = unknown_competition(cache, tmp_path / "stranger", "# Who survived?\n\nPredict it.\n")
    overrides = [o for o in base_overrides if not o.startswith("data.competition")]
    sets = [arg for o in [*overrides, *QUICK] for arg in ("--set", o)]
    return main(["--data-dir", str(data), "--run-dir", str(tmp_path / "run"), "--no-live", *flags, *sets])


def test_unknown_competition_is_graded_through_the_metric_flag(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_stranger(tmp_path, base_overrides, competition_cache, "--metric", "accuracy", "--json")
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    assert summary["metric"]["source"] == "--metric / data.metric"
    assert summary["grade"]["valid"] and summary["grade"]["metric"] == "accuracy"
    assert summary["grade_error"] is None


def test_unknown_metric_stops_the_run_in_one_sentence(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_stranger(tmp_path, base_overrides, competition_cache)
    err = capsys.readouterr().err
    assert code == 2
    line = next(x for x in err.splitlines() if x.startswith("error:"))
    assert "--metric NAME" in line and "accuracy" in line
    assert not (tmp_path / "run").exists()


def test_metric_read_from_the_description(
    tmp_path: Path, base_overrides: list[str], competition_cache: Path
) -> None:
    description = (
        "# Who survived?\n\n## Evaluation\n\nSubmissions are evaluated on classification accuracy.\n"
    )
    data = unknown_competition(competition_cache, tmp_path / "stranger", description)
    overrides = [o for o in base_overrides if not o.startswith("data.competition")]
    summary = plain_competition_run([*overrides, *QUICK], tmp_path / "run", data)  # a core choice: no flow
    assert summary["metric"]["name"] == "accuracy"
    assert summary["metric"]["source"] == "description.md (rules)"  # the offline coder's rules, not a model
    assert summary["grade"]["valid"]


def test_a_submission_changed_after_its_review_is_not_promoted(
    tmp_path: Path, base_overrides: list[str]
) -> None:
    run_dir = tmp_path / "run"
    summary = plain_competition_run([*base_overrides, *QUICK], run_dir)  # finalize's check: no flow needed
    rc, journal, _ = open_run(run_dir)
    best = journal.get(summary["best_node"])
    Path(best.meta.submission_path).write_text("PassengerId,Survived\n", encoding="utf-8")
    with pytest.raises(ValueError, match="changed after it was reviewed"):
        promote(rc, best)


def test_a_run_dir_from_before_evaluation_json_still_opens(tmp_path: Path, base_overrides: list[str]) -> None:
    cfg = load_config(None, [*base_overrides, *QUICK])
    paths = create_run(cfg, tmp_path / "old")
    (paths.root / "evaluation.json").unlink()  # what an older run dir looks like
    rc, _, _ = open_run(paths.root)
    assert rc.evaluation.validation_source == "solution" and rc.harness is None
    assert rc.evaluation.metric.name == "accuracy" and rc.lower_is_better is False
    assert rc.workspace.input_dir.resolve() == rc.competition.public_dir
