"""The plain runner: the steps without Prefect leave the run as the epoch flow does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.competition import CompetitionParams, prepare_run
from flows.epoch import EpochParams, epoch_flow
from swarm.config import load_config
from swarm.journal import Journal
from swarm.llm.base import LLMError
from swarm.pipeline.context import create_run, open_run
from swarm.pipeline.plain import run_epoch
from swarm.pipeline.state import load_state


def new_run(tmp_path: Path, overrides: list[str], name: str = "run") -> Path:
    return create_run(load_config(None, overrides), tmp_path / name).root


@pytest.mark.slow
def test_plain_epoch_records_every_step(tmp_path: Path, base_overrides: list[str]) -> None:
    run_dir = new_run(tmp_path, [*base_overrides, "agent.max_steps=10"])
    rc, journal, state = open_run(run_dir)
    summary = run_epoch(rc, journal, state, epoch=1, steps_wanted=3, parallel=2)

    saved = Journal.load(run_dir / "journal.jsonl")  # validates: ids, steps, parents, no cycle
    assert [n.id for n in saved] == summary.nodes and len(saved) == 3
    assert summary.stopped_reason is None
    assert sum(n.task_type == "draft" for n in saved) >= 2  # search.num_drafts=2 first
    assert sorted(n.meta.plan_step for n in saved) == [0, 1, 2]
    assert all(n.is_evaluated and n.epoch == 1 and n.agent_id in rc.agent_ids for n in saved)
    assert saved.good_nodes()
    for node in saved.good_nodes():
        assert Path(node.meta.submission_path).is_file()
        assert f"nodes/{node.id}/" in node.meta.solution_submission_path
    after = load_state(rc.paths)
    assert (after.steps_done, after.next_step, after.epochs_done, after.pending) == (3, 3, 1, [])
    assert not list((run_dir / "pending").glob("*.json"))
    assert [r.node_id for r in rc.pool.records()] == summary.nodes
    snapshot = json.loads((run_dir / "epochs" / "1" / "state.json").read_text())
    assert snapshot["state"]["epochs_done"] == 1 and snapshot["journal_nodes"] == 3


@pytest.mark.slow
def test_plain_epoch_stops_at_the_step_limit(tmp_path: Path, base_overrides: list[str]) -> None:
    run_dir = new_run(tmp_path, [*base_overrides, "agent.max_steps=1"])
    summary = run_epoch(*open_run(run_dir), epoch=1, steps_wanted=3, parallel=1)
    assert len(summary.nodes) == 1 and summary.stopped_reason == "step limit reached"
    assert load_state(open_run(run_dir)[0].paths).stopped_reason == "step limit reached"


def test_failing_model_is_recorded_and_stops_the_epoch(tmp_path: Path, base_overrides: list[str]) -> None:
    run_dir = new_run(tmp_path, [*base_overrides, "agent.max_steps=10"])
    rc, journal, state = open_run(run_dir)

    class Broken:
        provider, model = "broken", "broken"

        def complete(self, messages, ctx):  # noqa: ANN001, ANN201
            raise LLMError("the model is down")

    rc.clients["code"] = Broken()
    summary = run_epoch(rc, journal, state, epoch=1, steps_wanted=5, parallel=1)
    assert summary.nodes == [] and summary.stopped_reason.startswith("3 steps in a row failed")
    failed = load_state(rc.paths).meta["failed_steps"]
    assert len(failed) == 3 and all("the model is down" in f["error"] for f in failed)


def test_wrong_epoch_and_parallel_are_refused(tmp_path: Path, base_overrides: list[str]) -> None:
    run_dir = new_run(tmp_path, base_overrides)
    with pytest.raises(ValueError, match="finished 0 epochs"):
        run_epoch(*open_run(run_dir), epoch=2)
    with pytest.raises(ValueError, match="parallel must be >= 1, got 2 and 0"):
        run_epoch(*open_run(run_dir), epoch=1, parallel=0)


@pytest.mark.slow
@pytest.mark.usefixtures("prefect_server")
def test_plain_and_flow_write_the_same_nodes(tmp_path: Path, base_overrides: list[str]) -> None:
    overrides = [*base_overrides, "agent.max_steps=10", "search.parallel=1", "project.seed=7"]
    flow_dir = prepare_run(CompetitionParams(run_dir=str(tmp_path / "flow"), overrides=overrides)).root
    epoch_flow(EpochParams(run_dir=str(flow_dir), epoch=1, steps=3))
    plain_dir = new_run(tmp_path, overrides, "plain")
    run_epoch(*open_run(plain_dir), epoch=1, steps_wanted=3)

    by_flow, by_plain = Journal.load(flow_dir / "journal.jsonl"), Journal.load(plain_dir / "journal.jsonl")

    def shape(journal: Journal) -> list[tuple]:
        steps = {n.id: n.step for n in journal}
        return [
            (n.task_type, n.agent_id, n.code, n.metric, n.is_buggy, [steps[p] for p in n.parent_ids])
            for n in journal
        ]

    assert len(by_flow) == 3 and shape(by_plain) == shape(by_flow)
    population = {
        name: [journal.get(i).step for i in load_state(open_run(root)[0].paths).population]
        for name, root, journal in (("flow", flow_dir, by_flow), ("plain", plain_dir, by_plain))
    }
    assert population["plain"] == population["flow"] and population["flow"]
