"""The epoch flow: N search steps, `search.parallel` of them in flight at once.

Each step is a chain select_parent -> generate -> execute -> review -> update_population. Chains run in
threads (with the flow's context), so one step's model call overlaps another's execution; the journal is only
touched from the flow's own thread. Steps left pending by a killed run are replayed first, with their saved
prompts, so their model calls hit the cache.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextvars
from collections.abc import Callable
from pathlib import Path

from prefect import flow, task
from pydantic import BaseModel, Field

from flows.artifacts import publish_epoch_artifacts
from sandbox import ExecutionResult
from swarm.atomic import read_json
from swarm.journal import Journal
from swarm.llm.base import SpendCapReached
from swarm.pipeline import steps
from swarm.pipeline.policy import begin_epoch
from swarm.pipeline.progress import PROGRESS
from swarm.pipeline.snapshots import branch_from_snapshot, write_snapshot
from swarm.pipeline.state import RunPaths, RunState, load_state
from tasks import evolve_agents, execute, generate, review, select_parent, update_population
from tasks.naming import step_name
from tasks.runs import cache_storage, get_context

MAX_CONSECUTIVE_STEP_FAILURES = 3


class EpochParams(BaseModel):
    """Parameters of one epoch (the Prefect UI shows them as a form)."""

    run_dir: str = Field(description="The run dir (created by the competition flow).")
    epoch: int = Field(ge=1, description="Which epoch (1-based).")
    steps: int | None = Field(
        None, ge=1, description="Steps in this epoch; default evolution.steps_per_epoch."
    )
    rerun: bool = Field(
        False,
        description="Rerun this epoch from the snapshot of the one before, into a new branch of the run.",
    )
    branch: str | None = Field(None, description="Name of the rerun branch (default: a new one).")


class EpochSummary(BaseModel):
    run_dir: str
    epoch: int
    steps_done: int
    nodes: list[str]
    best_node: str | None
    best_metric: float | None
    stopped_reason: str | None


def _run_execute(run_dir: str, planned: steps.PlannedStep, generation: steps.Generation, refresh: bool):
    task = execute.with_options(result_storage=cache_storage(run_dir), refresh_cache=refresh or None)
    result = task(run_dir, planned, generation, return_state=True).result(raise_on_failure=False)
    if isinstance(result, BaseException):
        raise result
    if result is not None and not isinstance(result, ExecutionResult):
        raise TypeError(f"execute returned {type(result).__name__}, expected ExecutionResult")
    return result


def run_step_chain(run_dir: str, planned: steps.PlannedStep) -> steps.StepOutcome:
    """generate -> execute -> review for one planned step (runs in a worker thread)."""
    storage = cache_storage(run_dir)
    generation = generate.with_options(result_storage=storage)(run_dir, planned)
    result = _run_execute(run_dir, planned, generation, refresh=False)
    if result is not None and result.submission_path and not Path(result.submission_path).is_file():
        result = _run_execute(run_dir, planned, generation, refresh=True)  # a cached run whose files are gone
    result = steps.adopt_outputs(get_context(run_dir), planned.plan, result)
    outcome = review.with_options(result_storage=storage)(run_dir, planned, generation, result)
    return steps.StepOutcome(planned=planned, generation=generation, result=result, outcome=outcome)


@task(task_run_name=step_name("step"))
def run_step(run_dir: str, planned: steps.PlannedStep) -> steps.StepOutcome:
    """One step chain as a task of its own, so the flow's task runner (e.g. Dask) can run it elsewhere."""
    return run_step_chain(run_dir, planned)


def step_runner(run_dir: str, on_task_runner: bool) -> Callable[[steps.PlannedStep], steps.StepOutcome]:
    """How a worker thread runs one step: in the thread itself, or on the flow's task runner."""
    if on_task_runner:
        return lambda planned: run_step.submit(run_dir, planned).result()
    return lambda planned: run_step_chain(run_dir, planned)


def _limit_reason(run_dir: str, state: RunState, steps_started: int, steps_wanted: int) -> str | None:
    reason = get_context(run_dir).limit_reason(state)
    if reason is None and steps_started >= steps_wanted:
        return "epoch done"
    return reason


def _replay_pending(run_dir: str, journal: Journal, state: RunState) -> list[steps.PlannedStep]:
    """Steps planned before a crash and not recorded: replay them with their saved prompts."""
    replay = []
    for plan in list(state.pending):
        saved = get_context(run_dir).pending_path(plan.node_id)
        if plan.node_id in journal or not saved.is_file():
            state.pending.remove(plan)
            continue
        replay.append(steps.PlannedStep.model_validate(read_json(saved)))
    return replay


@flow(name="epoch", flow_run_name="epoch-{params.epoch}", log_prints=True)
def epoch_flow(params: EpochParams) -> EpochSummary:
    """Run one epoch of search steps and snapshot the run afterwards."""
    # The body is a module-level function: a task runner that ships tasks to other processes (Dask) pickles
    # this flow's function by value, and the body's globals (the progress board's lock) would not pickle.
    return run_epoch(params)


def run_epoch(params: EpochParams) -> EpochSummary:
    """The epoch flow's body (see `epoch_flow`)."""
    run_dir = params.run_dir
    if params.rerun:
        run_dir = str(branch_from_snapshot(RunPaths(Path(run_dir)), params.epoch, params.branch).root)
    rc = get_context(run_dir)
    paths = rc.paths
    journal, state = Journal.load(paths.journal), load_state(paths)
    if state.epochs_done != params.epoch - 1:
        raise ValueError(
            f"{run_dir} has finished {state.epochs_done} epochs, so the next is {state.epochs_done + 1}, "
            f"not {params.epoch}; to run epoch {params.epoch} again pass rerun=True"
        )
    wanted = params.steps or rc.cfg.evolution.steps_per_epoch
    parallel = rc.cfg.search.parallel
    queue = _replay_pending(run_dir, journal, state)
    # A resumed epoch counts the steps it already recorded before the run was killed.
    started = sum(1 for node in journal if node.epoch == params.epoch)
    if begin_epoch(state, params.epoch, rc.cfg, resumed=bool(started or queue)):
        rc.save(journal, state)  # the generation this epoch runs, before any of its steps
    new_nodes: list[str] = []
    failures = 0
    stopped: str | None = None
    PROGRESS.update(epoch=params.epoch, max_steps=rc.cfg.agent.max_steps, lower_is_better=rc.lower_is_better)
    run_one = step_runner(run_dir, rc.cfg.search.task_runner == "dask")

    with cf.ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="step") as pool:
        inflight: dict[cf.Future[steps.StepOutcome], steps.PlannedStep] = {}
        while True:
            while len(inflight) < parallel and stopped is None:
                if queue:
                    planned = queue.pop(0)
                else:
                    stopped = _limit_reason(run_dir, state, started, wanted)
                    if stopped is not None:
                        break
                    planned = select_parent(run_dir, journal, state)
                started += 1
                PROGRESS.start(planned.plan.node_id, planned.plan.label())
                ctx = contextvars.copy_context()
                inflight[pool.submit(ctx.run, run_one, planned)] = planned
            if not inflight:
                break
            done, _ = cf.wait(inflight, return_when=cf.FIRST_COMPLETED)
            for future in done:
                planned = inflight.pop(future)
                try:
                    outcome = future.result()
                except SpendCapReached:
                    stopped = "spend cap reached"
                    PROGRESS.finish(planned.plan.node_id, "spend cap reached")
                    continue
                except Exception as exc:  # a model or engine fault that outlived its retries
                    failures += 1
                    steps.record_failure(rc, journal, state, planned.plan, exc)
                    PROGRESS.finish(planned.plan.node_id, f"step failed: {exc}")
                    if failures >= MAX_CONSECUTIVE_STEP_FAILURES:
                        stopped = f"{failures} steps in a row failed; last: {type(exc).__name__}: {exc}"
                    continue
                failures = 0
                node = update_population(run_dir, journal, state, outcome)
                new_nodes.append(node.id)
                _report_progress(journal, state, rc, node)

    if stopped not in (None, "epoch done"):
        state.stopped_reason = stopped
    steps.end_epoch(rc, journal, state, params.epoch)
    state.epochs_done = params.epoch
    evolve_agents(run_dir, params.epoch)
    # The snapshot first: a kill between the two leaves state.json at the previous epoch, so a resume
    # finishes this epoch again (with no step left) and rewrites both.
    write_snapshot(paths, params.epoch, journal, state)
    rc.save(journal, state)
    publish_epoch_artifacts(rc, journal, state, params.epoch)
    best = journal.best_node(only_good=True)
    return EpochSummary(
        run_dir=run_dir,
        epoch=params.epoch,
        steps_done=len(new_nodes),
        nodes=new_nodes,
        best_node=best.id if best else None,
        best_metric=best.metric.value if best and best.metric else None,
        stopped_reason=state.stopped_reason,
    )


def _report_progress(journal: Journal, state: RunState, rc, node) -> None:  # noqa: ANN001
    best = journal.best_node(only_good=True)
    event = f"{node.task_type} by {node.agent_id}: " + (
        f"buggy ({node.bug_reason})" if node.is_buggy else f"metric {node.metric.value:.5g}"
    )
    PROGRESS.update(
        steps_done=state.steps_done,
        best_metric=best.metric.value if best and best.metric else None,
        best_node=best.id if best else None,
        spend_usd=rc.ledger.total_cost_usd,
    )
    PROGRESS.finish(node.id, event)
