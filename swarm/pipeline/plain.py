"""Run search steps without Prefect: the step functions the tasks wrap, chained by plain calls.

    rc, journal, state = open_run(run_dir)
    summary = run_epoch(rc, journal, state, epoch=1, steps_wanted=8, parallel=2)

    summary = run_to_end(open_run(run_dir)[0])   # the competition flow's whole run: epochs, then finalize

The epoch flow's scheduler (`swarm.pipeline.schedule`) drives it, with a thread pool in place of the flow's
task runner: a step is planned (parent, agent and prompt, saved as pending) and recorded in the calling
thread, and the step's chain (`swarm.pipeline.chain`, the flow's too: generate -> execute -> adopt_outputs ->
review, here the step functions called as they are) runs in a pool of `parallel` threads, so one step's model
call overlaps another's execution. Steps a killed run left pending are replayed first, as the flow does.
The journal, state and experience pool end up as the flow leaves them. What it leaves out is Prefect's: no
task runs, no result cache, no retries, no artifacts. `run_to_end` runs epochs until a limit and then ends the
run as the competition flow does (`swarm.pipeline.lifecycle`). Tests and the orchestration benchmarks
(`benchmarks/`) use it.
"""

from __future__ import annotations

import concurrent.futures as cf
from dataclasses import dataclass, field
from typing import Any

from swarm.journal import Journal, Node
from swarm.pipeline import steps
from swarm.pipeline.chain import plain_stages, run_chain
from swarm.pipeline.context import RunContext
from swarm.pipeline.lifecycle import finish_run, next_epoch
from swarm.pipeline.schedule import finish_epoch, run_steps, start_epoch
from swarm.pipeline.state import RunState, load_state
from swarm.pipeline.stopping import stop_on_signals


@dataclass
class PlainEpoch:
    """What `run_epoch` did."""

    epoch: int
    nodes: list[str] = field(default_factory=list)
    stopped_reason: str | None = None
    evolved: list[str] = field(default_factory=list)


def run_pooled(
    rc: RunContext,
    journal: Journal,
    state: RunState,
    wanted: int,
    parallel: int,
    replay: list[steps.PlannedStep] | None = None,
    started: int = 0,
) -> tuple[list[Node], str | None]:
    """The scheduler on a thread pool of `parallel` threads: the recorded nodes and why it stopped early (a
    step, time or spend limit, or repeated step failures), None when all wanted steps started."""
    if parallel < 1:
        raise ValueError(f"parallel must be >= 1, got {parallel}")
    stages = plain_stages(rc)
    with cf.ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="plain-step") as pool:
        done = run_steps(
            rc,
            journal,
            state,
            submit=lambda planned: pool.submit(run_chain, rc, planned, stages),
            wanted=wanted,
            parallel=parallel,
            replay=replay or [],
            started=started,
        )
    return done.nodes, done.stopped_reason


def run_epoch(
    rc: RunContext,
    journal: Journal,
    state: RunState,
    epoch: int,
    steps_wanted: int | None = None,
    parallel: int | None = None,
) -> PlainEpoch:
    """One epoch as the epoch flow runs it: its steps (pending ones first), the GA population update, agent
    evolution when due, the epoch snapshot. Defaults: `evolution.steps_per_epoch` steps, `search.parallel`
    at a time."""
    wanted = steps_wanted if steps_wanted is not None else rc.cfg.evolution.steps_per_epoch
    parallel = parallel if parallel is not None else rc.cfg.search.parallel
    if wanted < 1 or parallel < 1:
        raise ValueError(f"steps and parallel must be >= 1, got {wanted} and {parallel}")
    start = start_epoch(rc, journal, state, epoch)
    nodes, stopped = run_pooled(rc, journal, state, wanted, parallel, start.replay, start.recorded)
    summary = PlainEpoch(epoch=epoch, nodes=[n.id for n in nodes], stopped_reason=stopped)

    def evolve(done: int) -> list[str]:
        report = steps.evolve_if_due(rc, done)
        return report.evolved if report else []

    summary.evolved = finish_epoch(rc, journal, state, epoch, stopped, evolve)
    return summary


def run_to_end(rc: RunContext) -> dict[str, Any]:
    """The competition flow's run without Prefect: epochs (`run_epoch`) until a limit stops the run, then its
    end (`swarm.pipeline.lifecycle.finish_run`: blend or refit, deliver, grade, report); returns the summary."""
    with stop_on_signals():  # a SIGTERM or Ctrl-C stops it within seconds, whatever step it is in
        while (epoch := next_epoch(rc)) is not None:
            journal = Journal.load(rc.paths.journal)
            if run_epoch(rc, journal, load_state(rc.paths), epoch).stopped_reason:
                break
        return finish_run(rc)[0]
