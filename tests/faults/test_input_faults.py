"""Wrong inputs to the main job: a competition dir without a sample submission, an empty train file, a test
file that does not match, a config value of the wrong type (YAML and --set), a model the endpoint does not
serve. Each fails before any run dir, model call or execution, with one sentence on stderr and no traceback,
and leaves an existing run dir byte for byte as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest

from flows.competition import CompetitionParams, competition_flow
from swarm.competitions import load_competition
from tests.doubles.loopback_server import LoopbackServer, Reply

from .conftest import (
    MODEL_KEY,
    MODEL_KEY_ENV,
    QUICK_SOLUTION,
    refused_main_job,
    stage_overrides,
    tree_digest,
)

# A Prefect API nobody answers: a run that got as far as its flow would fail on it, with another message.
NO_PREFECT = "http://127.0.0.1:9/api"


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    """The code model's endpoint: it serves gpt-4o-mini only, and answers every prompt with a solution."""
    reply = Reply.say(QUICK_SOLUTION.format(tag="input-faults"))
    with LoopbackServer(models=["gpt-4o-mini"], default_reply=reply) as srv:
        yield srv


@pytest.fixture(scope="module")
def world(tmp_path_factory, competition_cache, server, prefect_server) -> dict[str, Path]:
    """A competition dir to break (copied per test) and a finished one-step run of it, made once."""
    base = tmp_path_factory.mktemp("input-faults")
    competition = base / "titanic"
    shutil.copytree(load_competition("titanic", competition_cache).root, competition)
    runs = base / "runs"
    os.environ[MODEL_KEY_ENV] = MODEL_KEY
    try:
        competition_flow(
            CompetitionParams(
                data_dir=str(competition),
                run_dir=str(runs / "existing"),
                overrides=[*common_overrides(runs, server), "agent.max_steps=1", "search.parallel=1"],
            )
        )
    finally:
        del os.environ[MODEL_KEY_ENV]
    return {"base": base, "competition": competition, "runs": runs, "run": runs / "existing"}


def common_overrides(runs: Path, server: LoopbackServer) -> list[str]:
    return [
        f"project.runs_dir={runs}",
        "execution.sandbox=local",
        "llm.feedback.provider=offline",
        "llm.evolution.provider=offline",
        *stage_overrides(server),
    ]


@pytest.fixture
def cli(world, server) -> Callable[..., subprocess.CompletedProcess]:
    """Run the main job with `args`; assert it failed early, said why in one line, and changed nothing."""

    def run(*args: str, expect_usage: bool = False) -> subprocess.CompletedProcess:
        before = tree_digest(world["base"])
        asked = len(server.requests)
        env = {**os.environ, MODEL_KEY_ENV: MODEL_KEY, "PREFECT_API_URL": NO_PREFECT}
        done = refused_main_job(*args, env=env)
        lines = done.stderr.strip().splitlines()
        if expect_usage:  # argparse: its usage lines, then the error
            assert lines[-1].startswith("run_competition.py: error: ")
        else:
            assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
        assert len(server.requests) == asked, "a model was asked"
        assert tree_digest(world["base"]) == before, "a file changed (or a run dir appeared)"
        return done

    return run


@pytest.fixture
def broken(world, tmp_path) -> Path:
    """A fresh copy of the competition, to break."""
    return Path(shutil.copytree(world["competition"], tmp_path / "titanic"))


def new_run(world, server, data_dir: Path, *overrides: str) -> list[str]:
    """The arguments of a new run of `data_dir` in the runs dir that holds the existing run."""
    sets = [*common_overrides(world["runs"], server), *overrides]
    return ["--data-dir", str(data_dir), *[a for o in sets for a in ("--set", o)]]


def test_a_competition_without_a_sample_submission(cli, world, server, broken) -> None:
    (broken / "prepared" / "public" / "sample_submission.csv").unlink()
    done = cli(*new_run(world, server, broken))
    assert "prepared/public/sample_submission.csv is missing, and no other table there" in done.stderr
    assert done.stderr.rstrip().endswith("the dir holds description.md, test.csv, train.csv")


def test_an_empty_train_file(cli, world, server, broken) -> None:
    (broken / "prepared" / "public" / "train.csv").write_text("")
    assert "prepared/public/train.csv is empty" in cli(*new_run(world, server, broken)).stderr


def test_a_test_file_with_columns_train_lacks(cli, world, server, broken) -> None:
    test = broken / "prepared" / "public" / "test.csv"
    pd.read_csv(test).assign(Cabin="C85").to_csv(test, index=False)
    done = cli(*new_run(world, server, broken))
    assert "test.csv does not match train.csv: it has column(s) 'Cabin' that train.csv lacks" in done.stderr


def test_a_test_file_whose_ids_are_not_the_sample_submissions(cli, world, server, broken) -> None:
    test = broken / "prepared" / "public" / "test.csv"
    frame = pd.read_csv(test)
    frame.loc[:9, "PassengerId"] += 100_000
    frame.to_csv(test, index=False)
    done = cli(*new_run(world, server, broken))
    assert "'PassengerId' ids of" in done.stderr and "do not match sample_submission.csv's" in done.stderr


def test_a_yaml_config_with_a_wrong_type(cli, world, server, tmp_path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text("search:\n  num_drafts: many\n")
    done = cli("--config", str(config), *new_run(world, server, world["competition"]))
    assert "invalid configuration: search.num_drafts: Input should be a valid integer" in done.stderr


def test_a_set_override_with_a_wrong_type(cli, world, server) -> None:
    done = cli(*new_run(world, server, world["competition"], "execution.timeout_s=soon"))
    assert "invalid configuration: execution.timeout_s: Input should be a valid number" in done.stderr


def test_a_model_the_endpoint_does_not_serve(cli, world, server) -> None:
    done = cli(*new_run(world, server, world["competition"], "llm.code.model=no-such-model"))
    assert "llm.code.model 'no-such-model' is not served by the openai endpoint at" in done.stderr
    assert done.stderr.strip().endswith("it serves gpt-4o-mini")


def test_resuming_with_a_wrong_override_or_model_leaves_the_run_as_it_was(cli, world) -> None:
    run = str(world["run"])
    assert "search.num_drafts" in cli("--resume", run, "--set", "search.num_drafts=many").stderr
    assert "is not served" in cli("--resume", run, "--set", "llm.code.model=no-such-model").stderr
    assert "applies to new runs" in cli("--resume", run, "--config", "x.yaml", expect_usage=True).stderr


def test_resuming_a_run_whose_competition_broke_leaves_the_run_as_it_was(cli, world) -> None:
    sample = world["competition"] / "prepared" / "public" / "sample_submission.csv"
    kept = sample.read_bytes()
    sample.unlink()
    try:
        assert "sample_submission.csv is missing" in cli("--resume", str(world["run"])).stderr
    finally:
        sample.write_bytes(kept)


def test_a_new_run_into_an_existing_run_dir_or_a_resume_of_no_run(cli, world, server) -> None:
    args = new_run(world, server, world["competition"])
    done = cli("--run-dir", str(world["run"]), *args)
    assert f"{world['run']} already holds a run; resume it with --resume" in done.stderr
    done = cli("--resume", str(world["runs"]))
    assert f"{world['runs']} is not a run dir: state.json is missing" in done.stderr
