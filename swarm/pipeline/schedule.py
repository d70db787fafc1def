"""The one scheduler of a run's search steps, for the epoch flow and the plain runner alike.

    start = start_epoch(rc, journal, state, epoch)
    done = run_steps(rc, journal, state, submit=..., wanted=8, parallel=2, replay=start.replay, ...)
    finish_epoch(rc, journal, state, epoch, done.stopped_reason, evolve=...)

`run_steps` keeps `parallel` steps in flight: it replays the steps a killed run planned and did not record
(with their saved prompts, so their model calls hit the cache), then plans new ones until a limit
(`rc.limit_reason`) or the epoch's `wanted` steps have started. Planning and recording run in the calling
thread, the only one that touches the journal and the state; what runs elsewhere is the chain
generate -> execute -> review of one planned step, started by the caller's `submit`. `submit` returns a
future (`concurrent.futures.Future`, or a Prefect future from a flow's task runner): anything with
`result()` and `add_done_callback(fn)`. Finished steps are recorded in the order they finished. A step that
raises counts as failed (`MAX_CONSECUTIVE_STEP_FAILURES` in a row stop the epoch); `SpendCapReached` stops
it. Callers see progress through `StepHooks`.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from swarm.atomic import read_json
from swarm.journal import Journal, Node
from swarm.llm.base import SpendCapReached
from swarm.pipeline import steps
from swarm.pipeline.context import RunContext
from swarm.pipeline.heap import freeze_long_lived
from swarm.pipeline.policy import begin_epoch
from swarm.pipeline.snapshots import write_snapshot
from swarm.pipeline.state import RunState, save_state

MAX_CONSECUTIVE_STEP_FAILURES = 3
SPEND_CAP = "spend cap reached"
EPOCH_DONE = "epoch done"


class StepFuture(Protocol):
    """A step running somewhere: what `submit` returns."""

    def result(self) -> steps.StepOutcome: ...

    def add_done_callback(self, fn: Callable[[Any], None]) -> None: ...


def _ignore(*_: object) -> None:
    return None


@dataclass
class StepHooks:
    """Called in the scheduling thread: a step submitted, a node recorded, a step given up (with why)."""

    on_start: Callable[[steps.PlannedStep], None] = _ignore
    on_recorded: Callable[[Node], None] = _ignore
    on_failed: Callable[[steps.PlannedStep, str], None] = _ignore


@dataclass
class Scheduled:
    """What `run_steps` did: the nodes recorded (in order) and why it stopped early (None: all started)."""

    nodes: list[Node] = field(default_factory=list)
    stopped_reason: str | None = None


@dataclass
class EpochStart:
    """An epoch about to run: the steps to replay first and the steps it has already recorded."""

    replay: list[steps.PlannedStep]
    recorded: int


@dataclass(frozen=True)
class LiveRun:
    """A run as its running epoch holds it: the context, and the journal and state in memory, which only the
    scheduling thread touches. The epoch flow hands it to its select_parent and update_population tasks."""

    rc: RunContext
    journal: Journal
    state: RunState


def plan_step(rc: RunContext, journal: Journal, state: RunState) -> steps.PlannedStep:
    """Plan the next step and save it as pending before any model call (the select_parent step). Only the
    state and the pending prompt changed, so only they are written."""
    planned = steps.select_parent(rc, journal, state)
    rc.save_pending(planned)
    state.pending.append(planned.plan)
    save_state(rc.paths, state)
    return planned


def pending_steps(rc: RunContext, journal: Journal, state: RunState) -> list[steps.PlannedStep]:
    """Steps planned before a crash and not recorded, with their saved prompts; drops from `state.pending`
    the ones already recorded or whose prompt was never saved."""
    replay = []
    for plan in list(state.pending):
        saved = rc.pending_path(plan.node_id)
        if plan.node_id in journal or not saved.is_file():
            state.pending.remove(plan)
            continue
        replay.append(steps.PlannedStep.model_validate(read_json(saved)))
    return replay


def start_epoch(rc: RunContext, journal: Journal, state: RunState, epoch: int) -> EpochStart:
    """Check that `epoch` is the run's next, find what a killed run left of it, and start its GA generation
    when due (saved before any of its steps). The first epoch of a process freezes its long-lived objects
    (`swarm.pipeline.heap`)."""
    if state.epochs_done != epoch - 1:
        raise ValueError(
            f"{rc.paths.root} has finished {state.epochs_done} epochs, so the next is "
            f"{state.epochs_done + 1}, not {epoch}; to run epoch {epoch} again pass rerun=True"
        )
    freeze_long_lived()  # the process's imports and the opened run, out of the collector's full walks
    replay = pending_steps(rc, journal, state)
    recorded = sum(1 for node in journal if node.epoch == epoch)  # a resumed epoch counts its steps
    if begin_epoch(state, epoch, rc.cfg, resumed=bool(recorded or replay)):
        rc.save(journal, state)
    return EpochStart(replay=replay, recorded=recorded)


def finish_epoch(
    rc: RunContext,
    journal: Journal,
    state: RunState,
    epoch: int,
    stopped_reason: str | None,
    evolve: Callable[[int], list[str]],
) -> list[str]:
    """Close `epoch`: the GA population update, agent evolution (`evolve`, returns the agents changed), the
    epoch snapshot, then the run saved. The snapshot first: a kill between the two leaves state.json at the
    previous epoch, so a resume finishes this epoch again (with no step left) and rewrites both."""
    if stopped_reason is not None:
        state.stopped_reason = stopped_reason
    steps.end_epoch(rc, journal, state, epoch)
    state.epochs_done = epoch
    evolved = evolve(epoch)
    write_snapshot(rc.paths, epoch, journal, state)
    rc.save(journal, state)
    return evolved


def run_steps(
    rc: RunContext,
    journal: Journal,
    state: RunState,
    *,
    submit: Callable[[steps.PlannedStep], StepFuture],
    wanted: int,
    parallel: int,
    replay: Sequence[steps.PlannedStep] = (),
    started: int = 0,
    plan: Callable[[], steps.PlannedStep] | None = None,
    record: Callable[[steps.StepOutcome], Node] | None = None,
    hooks: StepHooks | None = None,
) -> Scheduled:
    """Run steps until `wanted` have started (counting `started`, and `replay`, which run first, even past a
    limit), `parallel` at a time. `plan` and `record` default to `plan_step` and `steps.update_population`
    on this journal and state; a flow passes its tasks."""
    if parallel < 1:
        raise ValueError(f"parallel must be >= 1, got {parallel}")
    plan = plan or (lambda: plan_step(rc, journal, state))
    record = record or (lambda outcome: steps.update_population(rc, journal, state, outcome))
    hooks = hooks or StepHooks()
    waiting = list(replay)
    finished: queue.SimpleQueue[StepFuture] = queue.SimpleQueue()
    inflight: dict[StepFuture, steps.PlannedStep] = {}
    done = Scheduled()
    failures = 0
    stopped: str | None = None
    while True:
        while len(inflight) < parallel and stopped is None:
            if waiting:
                planned = waiting.pop(0)
            else:
                stopped = rc.limit_reason(state) or (EPOCH_DONE if started >= wanted else None)
                if stopped is not None:
                    break
                planned = plan()
            started += 1
            hooks.on_start(planned)
            future = submit(planned)
            inflight[future] = planned
            future.add_done_callback(finished.put)
        if not inflight:
            break
        future = finished.get()  # the next step to finish, in the order they finish
        planned = inflight.pop(future)
        try:
            outcome = future.result()
        except SpendCapReached:
            stopped = SPEND_CAP
            hooks.on_failed(planned, SPEND_CAP)
            continue
        except Exception as exc:  # a model or engine fault that outlived its retries
            failures += 1
            steps.record_failure(rc, journal, state, planned.plan, exc)
            hooks.on_failed(planned, f"step failed: {exc}")
            if failures >= MAX_CONSECUTIVE_STEP_FAILURES:
                stopped = f"{failures} steps in a row failed; last: {type(exc).__name__}: {exc}"
            continue
        failures = 0
        node = record(outcome)
        done.nodes.append(node)
        hooks.on_recorded(node)
    done.stopped_reason = None if stopped == EPOCH_DONE else stopped
    return done
