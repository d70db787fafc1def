"""The end of a run's members' refits: real sandbox executions, `search.parallel` at a time, with the same
notes, member order and fall-back as one after another."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from swarm.config import load_config
from swarm.evaluation.ensemble import ENSEMBLE, SINGLE, EnsembleChoice
from swarm.evaluation.harness import file_sha256
from swarm.journal import Journal, Node
from swarm.layouts.holdout import harness_root
from swarm.pipeline.context import RunContext, create_run, open_run
from swarm.pipeline.ensembling import Delivery, blend_members
from swarm.pipeline.parallel import run_parallel

# Writes the competition's sample submission: a valid submission for the harness's check and the blend.
GOOD = (
    "import shutil\n"
    "shutil.copyfile('./input/sample_submission.csv', './submission/submission.csv')\n"
    "print('refit done')\n"
)
BAD = "raise SystemExit('this member cannot refit')\n"
# Writes the sample with every label turned: a refit whose test predictions disagree with its scored run's.
SWAPPED = (
    "import csv\n"
    "rows = list(csv.DictReader(open('./input/sample_submission.csv')))\n"
    "with open('./submission/submission.csv', 'w') as f:\n"
    "    f.write('PassengerId,Survived\\n')\n"
    "    for r in rows:\n"
    "        f.write('%s,%d\\n' % (r['PassengerId'], 1 - int(r['Survived'])))\n"
)
REFIT_NOTE = "refit on every train row"


class Recorder:
    """Wraps the sandbox's real `run`: records which node dirs ran, in call order, and the most executions in
    flight at once; with a barrier every execution waits there first, so a run gets through only when
    `barrier.parties` executions are in flight together (sequential refits break it on its timeout)."""

    def __init__(self, run: Callable[..., Any], barrier: threading.Barrier | None = None) -> None:
        self._run = run
        self.barrier = barrier
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.calls: list[str] = []

    def __call__(self, code: str, node_dirs: Any, *args: Any, **kwargs: Any) -> Any:
        with self.lock:
            self.calls.append(node_dirs.node_id)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.barrier is not None:
                self.barrier.wait()
            return self._run(code, node_dirs, *args, **kwargs)
        finally:
            with self.lock:
                self.in_flight -= 1


def open_context(tmp_path: Path, overrides: list[str], parallel: int) -> RunContext:
    cfg = load_config(None, [*overrides, f"search.parallel={parallel}"])
    rc, _, _ = open_run(create_run(cfg, tmp_path / f"run-p{parallel}").root)
    assert rc.harness is not None and rc.cfg.evaluation.refit and rc.cfg.ensemble.refit_members
    return rc


def members(rc: RunContext, codes: list[str], scored: list[bool]) -> tuple[Journal, Delivery, list[str]]:
    """Nodes with `codes`, each with a scored run's submission when `scored` says so, a chosen blend of them,
    heaviest first, and their ids in the weights' order (not sorted, so insertion order is what is checked)."""
    journal = Journal()
    weights: dict[str, float] = {}
    for i, (code, has_submission) in enumerate(zip(codes, scored, strict=True)):
        node = Node(code=code, id=f"{9 - i}member{i}")
        if has_submission:
            kept = rc.paths.root / "scored" / f"{node.id}.csv"
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(rc.competition.sample_submission, kept)
            node.meta.submission_path, node.meta.submission_sha256 = str(kept), file_sha256(kept)
        journal.append(node)
        weights[node.id] = round(0.4 - 0.1 * i, 2)
    choice = EnsembleChoice(chosen=ENSEMBLE, reason="the blend estimates better", single_node=None)
    choice.weights = weights
    choice.single_node = next(iter(weights))
    return journal, Delivery(choice), list(weights)


def test_members_refit_parallel_at_a_time_on_the_sandbox(
    tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc = open_context(tmp_path, base_overrides, parallel=4)
    barrier = threading.Barrier(4, timeout=60)
    recorder = Recorder(rc.sandbox.run, barrier)
    monkeypatch.setattr(rc.sandbox, "run", recorder)
    journal, delivery, ids = members(rc, [GOOD] * 4, [True] * 4)

    blend_members(rc, journal, delivery)

    assert recorder.max_in_flight == 4 and not barrier.broken
    assert sorted(recorder.calls) == sorted(f"refit-{node_id}" for node_id in ids)
    assert list(delivery.members.items()) == [(node_id, REFIT_NOTE) for node_id in ids]
    refits = harness_root(rc.paths.root) / "refit"
    assert list(delivery.member_submissions.items()) == [(i, str(refits / f"{i}.csv")) for i in ids]
    assert delivery.submission is not None and delivery.delivered == ENSEMBLE


def test_with_parallel_1_members_refit_one_after_another_in_weights_order(
    tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rc = open_context(tmp_path, base_overrides, parallel=1)
    recorder = Recorder(rc.sandbox.run)
    monkeypatch.setattr(rc.sandbox, "run", recorder)
    journal, delivery, ids = members(rc, [GOOD] * 3, [True] * 3)

    blend_members(rc, journal, delivery)

    assert recorder.max_in_flight == 1
    assert recorder.calls == [f"refit-{node_id}" for node_id in ids]
    assert list(delivery.members.items()) == [(node_id, REFIT_NOTE) for node_id in ids]
    assert delivery.submission is not None and delivery.delivered == ENSEMBLE


@pytest.mark.parametrize("parallel", [1, 4])
def test_the_first_failing_member_in_weights_order_decides_the_fall_back(
    tmp_path: Path, base_overrides: list[str], monkeypatch: pytest.MonkeyPatch, parallel: int
) -> None:
    rc = open_context(tmp_path, base_overrides, parallel=parallel)
    recorder = Recorder(rc.sandbox.run)
    monkeypatch.setattr(rc.sandbox, "run", recorder)
    # member 0 falls back to its scored run's predictions; members 1 and 3 have none: member 1 decides
    journal, delivery, ids = members(rc, [BAD, BAD, GOOD, BAD], [True, False, True, False])

    blend_members(rc, journal, delivery)

    choice = delivery.choice
    assert choice is not None and choice.chosen == SINGLE and delivery.submission is None
    assert choice.reason == (
        f"the blend estimates better; but member {ids[1]} has no usable test submission, "
        "so the best single node is delivered"
    )
    assert list(delivery.members) == ids[:2]
    first = delivery.members[ids[0]]
    assert first.startswith("its scored run's test predictions (refit not used: the refit failed: ")
    assert "this member cannot refit" in first
    assert delivery.members[ids[1]] == "no usable test submission"
    assert list(delivery.member_submissions) == ids[:1]
    if parallel == 1:  # one after another: nothing runs after the member that decides the fall-back
        assert recorder.calls == [f"refit-{ids[0]}", f"refit-{ids[1]}"]


def test_a_member_whose_refit_disagrees_with_its_scored_run_keeps_its_scored_predictions(
    tmp_path: Path, base_overrides: list[str]
) -> None:
    rc = open_context(tmp_path, base_overrides, parallel=2)
    journal, delivery, ids = members(rc, [GOOD, SWAPPED], [True, True])

    blend_members(rc, journal, delivery)

    assert delivery.members[ids[0]] == REFIT_NOTE
    swapped = delivery.members[ids[1]]
    assert swapped.startswith(
        "its scored run's test predictions (refit rejected: label agreement 0.000 < 0.84"
    )
    assert delivery.member_submissions[ids[1]] == journal.get(ids[1]).meta.submission_path
    assert delivery.submission is not None and delivery.delivered == ENSEMBLE


def test_run_parallel_keeps_input_order_and_runs_lazily_with_one_worker() -> None:
    assert list(run_parallel([3, 1, 2], lambda x: x * 10, workers=4)) == [30, 10, 20]
    assert list(run_parallel([], lambda x: x, workers=4)) == []

    seen: list[tuple[int, str]] = []

    def record(x: int) -> int:
        seen.append((x, threading.current_thread().name))
        return x

    with closing(run_parallel([1, 2, 3], record, workers=1)) as results:
        assert next(results) == 1
    assert seen == [(1, threading.current_thread().name)]  # in the caller's thread, nothing after the stop


def test_run_parallel_raises_in_input_order_and_waits_for_running_calls() -> None:
    started = threading.Barrier(2, timeout=60)
    finished: list[int] = []

    def work(x: int) -> int:
        started.wait()  # both calls are in flight before either ends
        if x == 1:
            raise ValueError("one")
        finished.append(x)
        return x

    results = run_parallel([1, 2], work, workers=2)
    with pytest.raises(ValueError, match="one"), closing(results):
        next(results)
    assert finished == [2]  # closing waited for the call still running
