"""The scheduler (`swarm.pipeline.schedule.run_steps`) on a plain thread pool, with scripted steps.

Steps are ordered by events, never by sleeps: a step that must wait for another waits on an event the other
(or a scheduler hook) sets; the waits' timeouts only turn a scheduler bug into a failure instead of a hang.
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from swarm.evaluation.review import ReviewOutcome
from swarm.journal import Journal, Node
from swarm.llm.base import SpendCapReached
from swarm.pipeline import steps
from swarm.pipeline.schedule import MAX_CONSECUTIVE_STEP_FAILURES, StepHooks, run_steps
from swarm.pipeline.state import RunState, StepPlan

GUARD_S = 30  # only reached when the scheduler is wrong


class FakeRun:
    """What the scheduler asks of a run context: its limits, and a save (after a failed step)."""

    def __init__(self, max_steps: int = 100) -> None:
        self.max_steps = max_steps
        self.saves = 0

    def limit_reason(self, state: RunState) -> str | None:
        return "step limit reached" if state.next_step >= self.max_steps else None

    def save(self, journal: Journal, state: RunState) -> None:
        self.saves += 1


def planned_step(step: int) -> steps.PlannedStep:
    return steps.PlannedStep(
        plan=StepPlan(step=step, epoch=1, task_type="draft", node_id=f"n{step}"), messages=[]
    )


def step_of(node: Node) -> int:
    """The planned step a node was recorded for (the journal numbers nodes by arrival instead)."""
    return int(node.id.removeprefix("n"))


def outcome_of(planned: steps.PlannedStep) -> steps.StepOutcome:
    review = ReviewOutcome(
        is_buggy=True, bug_reason="scripted", metric=None, lower_is_better=False, summary="scripted"
    )
    generation = steps.Generation(node_id=planned.plan.node_id, raw="")
    return steps.StepOutcome(planned=planned, generation=generation, result=None, outcome=review)


@dataclass
class Script:
    """A run whose steps do what `behave(step)` says, on a pool of `parallel` threads."""

    parallel: int
    behave: Callable[[int], None] = lambda step: None
    run: FakeRun = field(default_factory=FakeRun)
    journal: Journal = field(default_factory=Journal)
    state: RunState = field(default_factory=lambda: RunState(run_id="r", competition="c"))
    started: list[int] = field(default_factory=list)
    recorded: list[int] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)
    planned: int = 0
    recorded_event: dict[int, threading.Event] = field(default_factory=dict)
    started_event: dict[int, threading.Event] = field(default_factory=dict)
    failed_event: threading.Event = field(default_factory=threading.Event)

    def event(self, events: dict[int, threading.Event], step: int) -> threading.Event:
        return events.setdefault(step, threading.Event())

    def plan(self) -> steps.PlannedStep:
        self.planned += 1
        planned = planned_step(self.state.next_step)
        self.state.next_step += 1
        self.state.pending.append(planned.plan)
        return planned

    def work(self, planned: steps.PlannedStep) -> steps.StepOutcome:
        self.event(self.started_event, planned.plan.step).set()
        self.behave(planned.plan.step)
        return outcome_of(planned)

    def record(self, outcome: steps.StepOutcome) -> Node:
        return self.journal.append(Node(id=outcome.planned.plan.node_id, epoch=1))

    def hooks(self) -> StepHooks:
        def recorded(node: Node) -> None:
            self.recorded.append(step_of(node))
            self.event(self.recorded_event, step_of(node)).set()

        def failed(planned: steps.PlannedStep, why: str) -> None:
            self.failed.append((planned.plan.step, why))
            self.failed_event.set()

        return StepHooks(
            on_start=lambda planned: self.started.append(planned.plan.step),
            on_recorded=recorded,
            on_failed=failed,
        )

    def wait_recorded(self, step: int) -> None:
        assert self.event(self.recorded_event, step).wait(GUARD_S), f"step {step} was never recorded"

    def wait_started(self, step: int) -> None:
        assert self.event(self.started_event, step).wait(GUARD_S), f"step {step} never started"

    def go(self, wanted: int, replay: list[steps.PlannedStep] | None = None, started: int = 0):  # noqa: ANN201
        with cf.ThreadPoolExecutor(max_workers=self.parallel) as pool:
            return run_steps(
                self.run,  # type: ignore[arg-type]
                self.journal,
                self.state,
                submit=lambda planned: pool.submit(self.work, planned),
                wanted=wanted,
                parallel=self.parallel,
                replay=replay or [],
                started=started,
                plan=self.plan,
                record=self.record,
                hooks=self.hooks(),
            )


def test_all_wanted_steps_run_and_nothing_more() -> None:
    script = Script(parallel=2)
    done = script.go(wanted=5)
    assert done.stopped_reason is None and script.planned == 5
    assert sorted(step_of(n) for n in done.nodes) == [0, 1, 2, 3, 4] == sorted(script.recorded)


def test_steps_already_recorded_count_towards_the_epoch() -> None:
    script = Script(parallel=2)
    done = script.go(wanted=3, started=2)
    assert [step_of(n) for n in done.nodes] == [0] and done.stopped_reason is None


def test_outcomes_are_recorded_in_the_order_steps_finish() -> None:
    # Step 0 finishes only after step 1 is recorded, step 1 only after step 2: the reverse of their start.
    script = Script(parallel=3)
    script.behave = lambda step: script.wait_recorded(step + 1) if step < 2 else None
    done = script.go(wanted=3)
    assert script.started == [0, 1, 2]
    assert [step_of(n) for n in done.nodes] == [2, 1, 0] == script.recorded


def test_a_finished_step_is_replaced_at_once_so_parallel_steps_stay_in_flight() -> None:
    # Step 0 runs until step 2 has started, which needs step 1's slot to be refilled while step 0 still runs.
    script = Script(parallel=2)
    script.behave = lambda step: script.wait_started(2) if step == 0 else None
    done = script.go(wanted=3)
    # step 0 was recorded at all, so step 2 started while it ran (else its wait failed the step)
    assert script.recorded[0] == 1 and sorted(script.recorded) == [0, 1, 2] and len(done.nodes) == 3
    assert not script.failed


def test_never_more_than_parallel_in_flight() -> None:
    running, peak, lock = [0], [0], threading.Lock()

    def behave(step: int) -> None:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        if step < 3:  # the first three meet: all three must be running at once
            barrier.wait(GUARD_S)
        with lock:
            running[0] -= 1

    barrier = threading.Barrier(3)
    script = Script(parallel=3, behave=behave)
    done = script.go(wanted=7)
    assert len(done.nodes) == 7 and peak[0] == 3


def test_pending_steps_are_replayed_first_even_past_a_limit() -> None:
    script = Script(parallel=1, run=FakeRun(max_steps=2))
    replay = [planned_step(0), planned_step(1)]
    script.state.next_step = 2  # both were planned before the crash; the step limit is reached
    script.state.pending = [p.plan for p in replay]
    done = script.go(wanted=4, replay=replay)
    assert script.started == [0, 1] and script.planned == 0
    assert [step_of(n) for n in done.nodes] == [0, 1] and done.stopped_reason == "step limit reached"


def test_replayed_steps_come_before_new_ones_and_count_as_started() -> None:
    script = Script(parallel=2)
    script.state.next_step = 5
    done = script.go(wanted=3, replay=[planned_step(3), planned_step(4)])
    assert script.started == [3, 4, 5] and script.planned == 1 and len(done.nodes) == 3


def test_the_step_limit_stops_planning() -> None:
    script = Script(parallel=2, run=FakeRun(max_steps=3))
    done = script.go(wanted=10)
    assert script.planned == 3 and len(done.nodes) == 3 and done.stopped_reason == "step limit reached"


def test_a_limit_reached_with_the_epoch_is_reported() -> None:
    script = Script(parallel=1, run=FakeRun(max_steps=2))
    assert script.go(wanted=2).stopped_reason == "step limit reached"


def fail_steps(failing: set[int]) -> Callable[[int], None]:
    def behave(step: int) -> None:
        if step in failing:
            raise RuntimeError(f"engine down at {step}")

    return behave


def test_consecutive_failures_stop_the_epoch() -> None:
    script = Script(parallel=1, behave=fail_steps(set(range(100))))
    done = script.go(wanted=10)
    assert done.nodes == [] and script.planned == MAX_CONSECUTIVE_STEP_FAILURES
    assert done.stopped_reason == "3 steps in a row failed; last: RuntimeError: engine down at 2"
    failed = script.state.meta["failed_steps"]
    assert [f["node_id"] for f in failed] == ["n0", "n1", "n2"] and script.state.pending == []
    assert [s for s, _ in script.failed] == [0, 1, 2] and "engine down at 0" in script.failed[0][1]
    assert script.run.saves == 3  # each failure is saved


def test_a_success_resets_the_failure_count() -> None:
    script = Script(parallel=1, behave=fail_steps({0, 1, 3, 4, 6, 7}))
    done = script.go(wanted=9)
    assert done.stopped_reason is None and [step_of(n) for n in done.nodes] == [2, 5, 8]
    assert len(script.state.meta["failed_steps"]) == 6


def test_the_spend_cap_stops_planning_and_steps_in_flight_are_still_recorded() -> None:
    def behave(step: int) -> None:
        if step == 0:
            script.wait_started(1)
            raise SpendCapReached("cap of $1 reached")
        # step 1 finishes after the scheduler has seen step 0's cap
        assert script.failed_event.wait(GUARD_S), "the spend cap was never reported"

    script = Script(parallel=2, behave=behave)
    done = script.go(wanted=10)
    assert done.stopped_reason == "spend cap reached" and script.planned == 2
    assert [step_of(n) for n in done.nodes] == [1] and script.failed == [(0, "spend cap reached")]
    assert "failed_steps" not in script.state.meta  # the cap is not a step failure


def test_parallel_must_be_positive() -> None:
    script = Script(parallel=0)
    with pytest.raises(ValueError, match="parallel must be >= 1"):
        run_steps(
            script.run,  # type: ignore[arg-type]
            script.journal,
            script.state,
            submit=lambda planned: cf.Future(),
            wanted=1,
            parallel=0,
            plan=script.plan,
            record=script.record,
        )
    assert script.planned == 0
