"""The epoch flow: N search steps, `search.parallel` of them in flight at once.

Each step is a chain select_parent -> generate -> execute -> review -> update_population. The scheduler of
`swarm.pipeline.schedule` (the plain runner's too) runs the epoch in the flow's thread: select_parent and
update_population are tasks called there, on the run the flow holds in memory (`LiveRun`: its journal and
state, handed to them explicitly), and each planned step's generate -> execute -> review (the chain of
`swarm.pipeline.chain`, here with the tasks as its stages: `task_stages`) runs as one `step` task submitted to
the flow's task runner: its threads (`ThreadPoolTaskRunner(max_workers=search.parallel)`, `step_task_runner`)
or a Dask cluster (`search.task_runner=dask`), so one step's model call overlaps another's execution. Steps left
pending by a killed run are replayed first, with their saved prompts, so their model calls hit the cache.

The steps' values (the live run, planned step, generation, execution result, outcome) go to their tasks wrapped
in Prefect's `opaque`: Prefect takes them as they are instead of walking every field for futures and states,
twice per task run (they never hold a future; what a walk costs is in benchmarks/README.md, "Orchestration
overhead"). The task run graph keeps its edges: Prefect still sees which task run returned each value.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from prefect import Task, flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.results import ResultRecord
from prefect.states import State
from prefect.task_runners import ThreadPoolTaskRunner
from prefect.utilities.annotations import opaque
from pydantic import BaseModel, Field

from flows.artifacts import publish_epoch_artifacts
from flows.runners import dask_task_runner
from sandbox import ExecutionResult
from swarm.config import Config
from swarm.journal import Journal, Node
from swarm.metric import with_interval
from swarm.pipeline import steps
from swarm.pipeline.chain import StepStages, run_chain
from swarm.pipeline.context import RunContext
from swarm.pipeline.progress import PROGRESS
from swarm.pipeline.schedule import LiveRun, StepHooks, finish_epoch, run_steps, start_epoch
from swarm.pipeline.snapshots import branch_from_snapshot
from swarm.pipeline.state import RunPaths, RunState, load_state
from swarm.pipeline.stopping import stop_on_signals
from tasks import evolve_agents, execute, generate, review, select_parent, update_population
from tasks.naming import step_name
from tasks.runs import cache_storage, get_context


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


def finished_value(state: State) -> Any:
    """What a finished task run returned, or the exception it failed with. A state made in this process holds
    its value in memory; reading it there skips `State.result`'s round trip through Prefect's event loop."""
    if isinstance(state.data, ResultRecord):
        return state.data.result
    return state.result(raise_on_failure=False)


@functools.lru_cache(maxsize=64)
def storing(task: Task, storage: Path, refresh: bool = False) -> Task:
    """`task` persisting its results in `storage` (and refreshing its cache entry when `refresh`), made once
    per run: `Task.with_options` builds a whole new task, which would otherwise happen three times a step."""
    return task.with_options(result_storage=storage, refresh_cache=refresh or None)


def _run_execute(run_dir: str, planned: steps.PlannedStep, generation: steps.Generation, refresh: bool):
    task = storing(execute, cache_storage(run_dir), refresh)
    result = finished_value(task(run_dir, opaque(planned), opaque(generation), return_state=True))
    if isinstance(result, BaseException):
        raise result
    if result is not None and not isinstance(result, ExecutionResult):
        raise TypeError(f"execute returned {type(result).__name__}, expected ExecutionResult")
    return result


def _execute_with_files(run_dir: str, planned: steps.PlannedStep, generation: steps.Generation):
    """The execute task; run again past its cache where the cached run's submission file is gone."""
    result = _run_execute(run_dir, planned, generation, refresh=False)
    if result is not None and result.submission_path and not Path(result.submission_path).is_file():
        result = _run_execute(run_dir, planned, generation, refresh=True)
    return result


def task_stages(run_dir: str) -> StepStages:
    """The chain's stages as this flow's tasks: cached, retried, their results persisted in the run's cache."""
    storage = cache_storage(run_dir)
    return StepStages(
        generate=lambda planned: storing(generate, storage)(run_dir, opaque(planned)),
        execute=lambda planned, generation: _execute_with_files(run_dir, planned, generation),
        review=lambda planned, generation, result: storing(review, storage)(
            run_dir, opaque(planned), opaque(generation), opaque(result)
        ),
    )


def note_in_task(line: str) -> None:
    """A step event: on the progress board (the main job prints it without its live view) and in the step
    task run's log (the Prefect UI shows it: `flows.prefect_env` keeps task runs' logs at INFO)."""
    PROGRESS.note(line)
    get_run_logger().info(line)


@task(task_run_name=step_name("step"), cache_policy=NO_CACHE, persist_result=False)
def run_step(run_dir: str, planned: steps.PlannedStep) -> steps.StepOutcome:
    """One step's chain, submitted to the flow's task runner (its threads, or Dask workers elsewhere)."""
    return run_chain(get_context(run_dir), planned, task_stages(run_dir), notify=note_in_task)


def submit_step(run_dir: str, planned: steps.PlannedStep, task_runner: str) -> Any:
    """`run_step` submitted to the flow's task runner. On threads the planned step goes in `opaque`; a Dask
    worker would receive the annotation as a bare tuple, so Dask gets the value itself."""
    return run_step.submit(run_dir, planned if task_runner == "dask" else opaque(planned))


def step_task_runner(cfg: Config) -> Any:
    """The task runner an epoch's steps run on: `search.parallel` threads, or Dask (`search.task_runner`)."""
    if cfg.search.task_runner == "dask":
        return dask_task_runner(cfg)
    return ThreadPoolTaskRunner(max_workers=cfg.search.parallel)


@flow(name="epoch", flow_run_name="epoch-{params.epoch}", log_prints=True)
def epoch_flow(params: EpochParams) -> EpochSummary:
    """Run one epoch of search steps and snapshot the run afterwards."""
    # The body is a module-level function: a task runner that ships tasks to other processes (Dask) pickles
    # this flow's function by value, and the body's globals (the progress board's lock) would not pickle.
    # Prefect's own SIGTERM handler is put back for a subflow: the stop's is installed again over it.
    with stop_on_signals():
        return run_epoch(params)


def run_epoch(params: EpochParams) -> EpochSummary:
    """The epoch flow's body (see `epoch_flow`)."""
    run_dir = params.run_dir
    if params.rerun:
        run_dir = str(branch_from_snapshot(RunPaths(Path(run_dir)), params.epoch, params.branch).root)
    rc = get_context(run_dir)
    journal, state = Journal.load(rc.paths.journal), load_state(rc.paths)
    start = start_epoch(rc, journal, state, params.epoch)
    PROGRESS.update(epoch=params.epoch, max_steps=rc.cfg.agent.max_steps, lower_is_better=rc.lower_is_better)
    live = LiveRun(rc, journal, state)
    done = run_steps(
        rc,
        journal,
        state,
        submit=lambda planned: submit_step(run_dir, planned, rc.cfg.search.task_runner),
        wanted=params.steps or rc.cfg.evolution.steps_per_epoch,
        parallel=rc.cfg.search.parallel,
        replay=start.replay,
        started=start.recorded,
        plan=lambda: select_parent(opaque(live), state.next_step),
        record=lambda outcome: journal.get(update_population(opaque(live), opaque(outcome))),
        hooks=progress_hooks(rc, journal, state),
    )
    finish_epoch(rc, journal, state, params.epoch, done.stopped_reason, lambda e: evolve_agents(run_dir, e))
    publish_epoch_artifacts(rc, journal, state, params.epoch)
    best = journal.best_node(only_good=True)
    return EpochSummary(
        run_dir=run_dir,
        epoch=params.epoch,
        steps_done=len(done.nodes),
        nodes=[node.id for node in done.nodes],
        best_node=best.id if best else None,
        best_metric=best.metric.value if best and best.metric else None,
        stopped_reason=state.stopped_reason,
    )


def progress_hooks(rc: RunContext, journal: Journal, state: RunState) -> StepHooks:
    """The terminal's live view (`PROGRESS`): steps running, each finished step's event, the best so far."""

    def recorded(node: Node) -> None:
        best = journal.best_node(only_good=True)
        event = f"{node.task_type} by {node.agent_id}: " + (
            f"buggy ({node.bug_reason})"
            if node.is_buggy
            else f"metric {with_interval(node.metric.value, node.meta.score_interval, '.5g')}"
        )
        PROGRESS.update(
            steps_done=state.steps_done,
            best_metric=best.metric.value if best and best.metric else None,
            best_interval=best.meta.score_interval if best else None,
            best_warning=best.meta.score_warning if best else None,
            best_node=best.id if best else None,
            spend_usd=rc.ledger.total_cost_usd,
        )
        PROGRESS.finish(node.id, event)

    return StepHooks(
        on_start=lambda planned: PROGRESS.start(planned.plan.node_id, planned.plan.label()),
        on_recorded=recorded,
        on_failed=lambda planned, why: PROGRESS.finish(planned.plan.node_id, why),
    )
