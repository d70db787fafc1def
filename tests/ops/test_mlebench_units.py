"""The MLE-bench adapter's parts on their own: settings, the clock, /validate replies, candidate order."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from flows.mlebench_agent import parse_args, settings_for
from swarm.journal import Journal, Node, NodeMeta
from swarm.journal.step_record import Review
from swarm.metric import MetricValue
from swarm.mlebench import (
    SettingsError,
    TimeBudget,
    Verdict,
    default_margin,
    settings_from,
    validate_submission,
)
from swarm.mlebench.agent import build_overrides
from swarm.mlebench.deliver import candidates, choose
from swarm.mlebench.validate import parse_reply


def test_defaults_are_the_mlebench_container_paths() -> None:
    s = settings_from({})
    assert (s.data_dir, s.instructions) == (Path("/home/data"), Path("/home/instructions.txt"))
    assert (s.submission_dir, s.logs_dir, s.code_dir) == (
        Path("/home/submission"),
        Path("/home/logs"),
        Path("/home/code"),
    )
    assert s.work_dir == Path("/home/agent/work") and s.submission_file == Path(
        "/home/submission/submission.csv"
    )
    assert s.validate_url == "http://localhost:5000/validate"
    assert s.time_limit_s is None and s.step_limit is None and s.competition_id is None


def test_environment_then_flags() -> None:
    env = {
        "SUBMISSION_DIR": "/s",
        "LOGS_DIR": "/l",
        "CODE_DIR": "/c",
        "AGENT_DIR": "/a",
        "MLEBENCH_DATA_DIR": "/d",
        "TIME_LIMIT_SECS": "7200",
        "STEP_LIMIT": "500",
        "COMPETITION_ID": "spaceship-titanic",
        "MLEBENCH_VALIDATE_URL": "none",
    }
    s = settings_from(env)
    assert (s.submission_dir, s.logs_dir, s.code_dir, s.data_dir) == tuple(
        map(Path, ("/s", "/l", "/c", "/d"))
    )
    assert s.work_dir == Path("/a/work") and s.time_limit_s == 7200.0 and s.step_limit == 500
    assert s.competition_id == "spaceship-titanic" and s.validate_url is None
    flagged = settings_from(
        env, logs_dir="/x", time_limit_s=60, step_limit=3, validate_url="http://h:1/validate"
    )
    assert flagged.logs_dir == Path("/x") and flagged.time_limit_s == 60.0 and flagged.step_limit == 3
    assert flagged.validate_url == "http://h:1/validate" and flagged.code_dir == Path("/c")


@pytest.mark.parametrize("env", [{"TIME_LIMIT_SECS": "soon"}, {"TIME_LIMIT_SECS": "-5"}, {"STEP_LIMIT": "0"}])
def test_bad_limits_are_named(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match=next(iter(env))):
        settings_from(env)


def test_cli_flags_and_overrides(tmp_path: Path) -> None:
    args = parse_args(
        ["agent.max_steps=7", "--set", "search.parallel=1", "--data-dir", str(tmp_path), "--no-validate"]
        + ["--time-limit", "90", "--all-code"]
    )
    s = settings_for(args, env={"TIME_LIMIT_SECS": "7200", "MLEBENCH_DATA_DIR": "/elsewhere"})
    assert s.overrides == ("agent.max_steps=7", "search.parallel=1")
    assert s.data_dir == tmp_path and s.time_limit_s == 90.0 and s.validate_url is None and s.all_code


@pytest.mark.parametrize(
    ("limit", "margin"), [(1, 0.5), (20, 10), (60, 30), (600, 60), (3600, 360), (86400, 900)]
)
def test_default_margin(limit: float, margin: float) -> None:
    assert default_margin(limit) == pytest.approx(margin)


def test_time_budget() -> None:
    budget = TimeBudget.start(100.0, 20.0, started=1000.0)
    assert (budget.search_end, budget.hard_end) == (1080.0, 1090.0)
    assert (
        budget.left(budget.search_end, now=1075.0) == 5.0 and budget.left(budget.hard_end, now=2000.0) == 0.0
    )
    unlimited = TimeBudget.start(None)
    assert unlimited.search_end is None and unlimited.left(unlimited.hard_end) is None
    with pytest.raises(SettingsError, match="safety margin"):
        TimeBudget.start(10.0, 10.0)


def test_overrides_put_the_clock_on_the_search(tmp_path: Path) -> None:
    s = settings_from({}, data_dir=str(tmp_path), step_limit=40, time_limit_s=100.0, safety_margin_s=10.0)
    s = replace(s, overrides=("agent.max_steps=5", "execution.timeout_s=300"))
    overrides = build_overrides(s, TimeBudget.start(100.0, 10.0))
    assert overrides[:3] == ["agent.max_steps=40", "agent.max_steps=5", "execution.timeout_s=300"]
    assert f"data.data_dir={tmp_path}" in overrides
    limit = float(next(o for o in overrides if o.startswith("agent.time_limit_s=")).split("=")[1])
    timeout = float(overrides[-1].split("=")[1])
    assert overrides[-1].startswith("execution.timeout_s=") and 85 < limit <= 90 and timeout == limit
    unlimited = build_overrides(settings_from({}, data_dir=str(tmp_path)), TimeBudget.start(None))
    assert not any(o.startswith(("agent.time_limit_s", "execution.timeout_s")) for o in unlimited)


def test_replies_like_mlebench_grading_server() -> None:
    assert parse_reply(200, b'{"result": "Submission is valid."}') == Verdict("valid", "Submission is valid.")
    invalid = parse_reply(200, b'{"result": "Submission invalid! The attempt to grade ... Missing ids"}')
    assert invalid.status == "invalid" and "Missing ids" in invalid.message
    failed = parse_reply(500, b'{"error": "An unexpected error occurred.", "details": "no answers"}')
    assert failed.status == "error" and "HTTP 500" in failed.message and "no answers" in failed.message
    assert parse_reply(200, b"<html>").status == "error"
    assert parse_reply(200, b'{"result": "maybe"}').status == "error"


def test_validate_against_a_closed_port_and_a_missing_route(
    tmp_path: Path, closed_url: str, grading_server, titanic
) -> None:
    file = tmp_path / "submission.csv"
    file.write_bytes(titanic.sample_submission.read_bytes())
    assert validate_submission(closed_url, file, timeout_s=2).status == "unreachable"
    assert (
        validate_submission(grading_server.url.replace("/validate", "/nope"), file, 2).status == "unreachable"
    )
    assert validate_submission(grading_server.url, file, 2) == Verdict("valid", "Submission is valid.")
    file.write_text("PassengerId,Survived\n1,0\n")
    verdict = validate_submission(grading_server.url, file, 2)
    assert verdict.status == "invalid" and "rows" in verdict.message
    assert [c["valid"] for c in grading_server.calls] == [True, False]


def _journal(tmp_path: Path) -> Journal:
    """Good nodes scored 0.7, 0.9, 0.8 (higher is better), one good unscored, buggy ones with/without files."""

    def node(name: str, step: int, buggy: bool, metric: float | None, has_file: bool = True) -> Node:
        path = tmp_path / f"{name}.csv"
        if has_file:
            path.write_text(f"id,y\n1,{step}\n")
        value = None if metric is None else MetricValue(metric, False)
        return Node(
            code=name,
            id=name,
            step=step,
            meta=NodeMeta(submission_path=str(path)),
            review=Review(is_buggy=buggy, metric=value),
        )

    return Journal(
        [
            node("g07", 1, False, 0.7),
            node("g09", 2, False, 0.9),
            node("bug-file", 3, True, None),
            node("g08", 4, False, 0.8),
            node("g-nometric", 5, False, None),
            node("bug-nofile", 6, True, None, has_file=False),
            node("g-nofile", 7, False, 0.99, has_file=False),
        ]
    )


def test_candidates_best_first_then_any_other_file(tmp_path: Path) -> None:
    found = candidates(_journal(tmp_path))
    assert [c.node_id for c in found] == ["g09", "g08", "g07", "g-nometric", "bug-file"]
    assert [c.good for c in found] == [True, True, True, True, False]


def test_candidates_put_a_node_flagged_inconsistent_after_the_others(tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    journal.get("g09").meta.consistency = {"consistent": False}  # the best, honest only where it was scored
    assert [c.node_id for c in candidates(journal)][:3] == ["g08", "g07", "g09"]
    for name in ("g07", "g08", "g-nometric"):
        journal.get(name).meta.consistency = {"consistent": False}
    assert [c.node_id for c in candidates(journal)][:3] == ["g09", "g08", "g07"]  # every one flagged


def test_choose_tries_the_next_until_one_is_valid(tmp_path: Path) -> None:
    found = candidates(_journal(tmp_path))
    answers = iter([Verdict("invalid", "bad ids"), Verdict("invalid", "bad ids"), Verdict("valid", "ok")])
    choice = choose(found, lambda path, timeout: next(answers), lambda: None, 5.0)
    assert choice.candidate.node_id == "g07" and choice.validated and len(choice.checked) == 3


def test_choose_without_time_keeps_the_best_not_rejected(tmp_path: Path) -> None:
    found = candidates(_journal(tmp_path))
    clock = iter([100.0, 0.5])
    choice = choose(found, lambda path, timeout: Verdict("invalid", "no"), lambda: next(clock), 5.0)
    assert choice.candidate.node_id == "g08" and not choice.validated
    assert "time ran out" in choice.note and len(choice.checked) == 1


def test_choose_with_no_server_or_nothing(tmp_path: Path) -> None:
    found = candidates(_journal(tmp_path))
    unreachable = choose(found, lambda path, timeout: Verdict("unreachable", "refused"), lambda: None, 5.0)
    assert unreachable.candidate.node_id == "g09" and "refused" in unreachable.note
    assert choose(found, None, lambda: None, 5.0).candidate.node_id == "g09"
    assert choose([], None, lambda: None, 5.0).candidate is None
