"""Where a step's time goes: each node records its step's phases (`meta.timings`), a journal's breakdown is
their medians, and a review cached by an older version still loads."""

from __future__ import annotations

import pickle
from pathlib import Path

from swarm.config import load_config
from swarm.evaluation.review import ReviewOutcome
from swarm.journal import Journal, Node, NodeMeta
from swarm.pipeline.context import create_run, open_run
from swarm.pipeline.plain import run_epoch
from swarm.pipeline.step_timing import PHASES, breakdown, stage_timings, step_total


def test_each_step_records_its_phases_in_its_node(tmp_path: Path, base_overrides: list[str]) -> None:
    overrides = [*base_overrides, "agent.max_steps=2"]
    run_dir = create_run(load_config(None, overrides), tmp_path / "run").root
    run_epoch(*open_run(run_dir), epoch=1)
    journal = Journal.load(run_dir / "journal.jsonl")
    assert len(journal) == 2
    for node in journal:
        timings = node.meta.timings
        assert timings is not None and set(timings) == {phase for phase, _ in PHASES}, timings
        assert all(seconds >= 0 for seconds in timings.values()), timings
        assert timings["sandbox"] == round(node.exec_time, 4) > 0  # the process the sandbox timed
        assert timings["harness"] > 0  # the harness scored the held-out rows
    table = breakdown(journal)
    assert list(table) == [phase for phase, _ in PHASES]


def test_stage_overheads_are_the_walls_less_the_work_inside() -> None:
    walls = {"generate": 2.5, "execute": 3.0, "review": 1.0}
    timings = stage_timings(0.1, walls, 2.0, 2.25, {"harness": 0.5, "review_model": 0.25})
    assert timings == {
        "prompt": 0.1,
        "model": 2.0,
        "generate_overhead": 0.5,
        "sandbox": 2.25,
        "execute_overhead": 0.75,
        "harness": 0.5,
        "review_model": 0.25,
        "review_overhead": 0.25,
    }
    assert step_total(timings) == 6.6
    no_code = stage_timings(0.1, {"generate": 1.0, "execute": 0.0, "review": 0.0}, 1.0, None, {})
    assert no_code["sandbox"] == 0.0 and "harness" not in no_code


def test_breakdown_is_the_median_of_each_phase_over_the_timed_nodes() -> None:
    nodes = [Node(meta=NodeMeta(timings={"model": m, "sandbox": s})) for m, s in ((1, 4), (2, 5), (9, 6))]
    nodes.append(Node())  # a node from before timings: not counted
    assert breakdown(nodes) == {"model": 2, "sandbox": 5}


def test_a_review_cached_before_timings_existed_still_loads() -> None:
    outcome = ReviewOutcome(is_buggy=False, bug_reason=None, metric=0.8, lower_is_better=False, summary="ok")
    old = pickle.dumps(outcome)
    state = dict(outcome.__dict__)
    del state["timings"]  # as an older version pickled it
    restored = ReviewOutcome.__new__(ReviewOutcome)
    restored.__setstate__(state)
    assert restored.timings == {} and restored.metric == 0.8
    assert pickle.loads(old) == outcome
