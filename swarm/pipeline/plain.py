"""Run search steps without Prefect: the step functions the tasks wrap, chained by plain calls.

    rc, journal, state = open_run(run_dir)
    summary = run_epoch(rc, journal, state, epoch=1, steps=8, parallel=2)

This mirrors `flows/epoch.py`: a step is planned (parent, agent and prompt, saved as pending) and recorded in
the calling thread, and generate -> execute -> adopt_outputs -> review run in a pool of `parallel` threads, so
one step's model call overlaps another's execution. The journal, state and experience pool end up as the
flow leaves them. What it leaves out is Prefect's: no task runs, no result cache, no retries, no artifacts.
Tests and the orchestration benchmarks (`benchmarks/`) use it.
"""

from __future__ import annotations

import concurrent.futures as cf
from dataclasses import dataclass, field

from swarm.journal import Journal, Node
from swarm.llm.base import SpendCapReached
from swarm.pipeline import steps
from swarm.pipeline.context import RunContext
from swarm.pipeline.policy import begin_epoch
from swarm.pipeline.snapshots import write_snapshot
from swarm.pipeline.state import RunState

MAX_CONSECUTIVE_STEP_FAILURES = 3  # as in flows/epoch.py


@dataclass
class PlainEpoch:
    """What `run_epoch` did."""

    epoch: int
    nodes: list[str] = field(default_factory=list)
    stopped_reason: str | None = None
    evolved: list[str] = field(default_factory=list)


def plan(rc: RunContext, journal: Journal, state: RunState) -> steps.PlannedStep:
    """Plan the next step and save it as pending before any model call (the select_parent task)."""
    planned = steps.select_parent(rc, journal, state)
    rc.save_pending(planned)
    state.pending.append(planned.plan)
    rc.save(journal, state)
    return planned


def run_chain(rc: RunContext, planned: steps.PlannedStep) -> steps.StepOutcome:
    """generate -> execute -> adopt_outputs -> review for one planned step (safe in a worker thread)."""
    generation = steps.generate(rc, planned)
    result = steps.execute(rc, planned.plan, generation)
    result = steps.adopt_outputs(rc, planned.plan, result)
    outcome = steps.review(rc, planned.plan, generation, result)
    return steps.StepOutcome(planned=planned, generation=generation, result=result, outcome=outcome)


def run_steps(
    rc: RunContext, journal: Journal, state: RunState, steps_wanted: int, parallel: int = 1
) -> tuple[list[Node], str | None]:
    """Run up to `steps_wanted` steps, `parallel` at a time; the recorded nodes and why it stopped early
    (a step, time or spend limit, or repeated step failures), None when all steps ran."""
    if parallel < 1:
        raise ValueError(f"parallel must be >= 1, got {parallel}")
    nodes: list[Node] = []
    started, failures = 0, 0
    stopped: str | None = None
    with cf.ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="plain-step") as pool:
        inflight: dict[cf.Future[steps.StepOutcome], steps.PlannedStep] = {}
        while True:
            while len(inflight) < parallel and stopped is None and started < steps_wanted:
                stopped = rc.limit_reason(state)
                if stopped is None:
                    planned = plan(rc, journal, state)
                    inflight[pool.submit(run_chain, rc, planned)] = planned
                    started += 1
            if not inflight:
                return nodes, stopped
            done, _ = cf.wait(inflight, return_when=cf.FIRST_COMPLETED)
            for future in done:
                planned = inflight.pop(future)
                try:
                    outcome = future.result()
                except SpendCapReached:
                    stopped = "spend cap reached"
                    continue
                except Exception as exc:  # as the flow does once a task's retries are spent
                    failures += 1
                    steps.record_failure(rc, journal, state, planned.plan, exc)
                    if failures >= MAX_CONSECUTIVE_STEP_FAILURES:
                        stopped = f"{failures} steps in a row failed; last: {type(exc).__name__}: {exc}"
                    continue
                failures = 0
                nodes.append(steps.update_population(rc, journal, state, outcome))


def run_epoch(
    rc: RunContext,
    journal: Journal,
    state: RunState,
    epoch: int,
    steps_wanted: int | None = None,
    parallel: int | None = None,
) -> PlainEpoch:
    """One epoch as the epoch flow runs it: its steps, the GA population update, agent evolution when due,
    the epoch snapshot. Defaults: `evolution.steps_per_epoch` steps, `search.parallel` at a time."""
    wanted = steps_wanted if steps_wanted is not None else rc.cfg.evolution.steps_per_epoch
    parallel = parallel if parallel is not None else rc.cfg.search.parallel
    if wanted < 1 or parallel < 1:
        raise ValueError(f"steps and parallel must be >= 1, got {wanted} and {parallel}")
    if state.epochs_done != epoch - 1:
        raise ValueError(f"the run has finished {state.epochs_done} epochs, so the next is not {epoch}")
    if state.pending:
        raise ValueError("the run has pending steps (a killed run); resume it with the epoch flow")
    if begin_epoch(state, epoch, rc.cfg, resumed=any(node.epoch == epoch for node in journal)):
        rc.save(journal, state)
    nodes, stopped = run_steps(rc, journal, state, wanted, parallel)
    if stopped is not None:
        state.stopped_reason = stopped
    steps.end_epoch(rc, journal, state, epoch)
    state.epochs_done = epoch
    summary = PlainEpoch(epoch=epoch, nodes=[n.id for n in nodes], stopped_reason=stopped)
    report = steps.evolve_if_due(rc, epoch)
    summary.evolved = report.evolved if report else []
    write_snapshot(rc.paths, epoch, journal, state)
    rc.save(journal, state)
    return summary
