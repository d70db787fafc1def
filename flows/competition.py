"""The competition flow: create (or resume) a run, run epochs until a limit, then select, grade, report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger
from pydantic import BaseModel, Field

from flows.artifacts import publish_final_artifacts
from flows.epoch import EpochParams, epoch_flow, step_task_runner
from swarm.atomic import write_text_atomic
from swarm.config import Config
from swarm.journal import Journal
from swarm.pipeline.context import create_run
from swarm.pipeline.finalize import finalize
from swarm.pipeline.preflight import check_request
from swarm.pipeline.progress import PROGRESS
from swarm.pipeline.snapshots import write_snapshot
from swarm.pipeline.state import RunPaths, load_state, save_state
from tasks.runs import forget_context, get_context


class CompetitionParams(BaseModel):
    """Parameters of a competition run (the Prefect UI shows them as a form)."""

    competition: str | None = Field(None, description="A bundled competition id (e.g. titanic).")
    data_dir: str | None = Field(None, description="An MLE-bench prepared competition dir, instead of an id.")
    config_path: str | None = Field(None, description="A YAML config file.")
    overrides: list[str] = Field(default_factory=list, description="Config overrides: section.field=value.")
    run_dir: str | None = Field(None, description="Where the run lives (default: project.runs_dir/<run id>).")
    resume: bool = Field(False, description="Continue the run in run_dir from its last completed step.")
    max_steps: int | None = Field(
        None, ge=1, description="Step limit (agent.max_steps); wins over overrides."
    )
    time_limit_s: float | None = Field(
        None, gt=0, description="Time limit in seconds (agent.time_limit_s); wins over overrides."
    )

    def all_overrides(self) -> list[str]:
        """The overrides with the explicit limits appended (they win)."""
        limits = [f"agent.max_steps={self.max_steps}"] if self.max_steps is not None else []
        if self.time_limit_s is not None:
            limits.append(f"agent.time_limit_s={self.time_limit_s}")
        return [*self.overrides, *limits]


def check_params(params: CompetitionParams) -> Config:
    """The run's checked config; raises on the first problem (config, competition, models), writes nothing."""
    return check_request(
        competition=params.competition,
        data_dir=params.data_dir,
        config_path=params.config_path,
        overrides=params.all_overrides(),
        run_dir=params.run_dir,
        resume=params.resume,
    )


def prepare_run(params: CompetitionParams) -> RunPaths:
    """Check the inputs, then create the run dir, or apply the overrides to the one to resume."""
    cfg = check_params(params)
    if params.resume:
        paths = RunPaths(Path(params.run_dir))
        if params.all_overrides():
            write_text_atomic(paths.config, cfg.to_yaml())
        state = load_state(paths)
        if state.stopped_reason is not None or state.finished:
            state.stopped_reason, state.finished = None, False
            save_state(paths, state)
        return paths
    paths = create_run(cfg, Path(params.run_dir) if params.run_dir else None)
    write_snapshot(paths, 0, Journal.load(paths.journal), load_state(paths))
    return paths


def announce(lines: list[str]) -> None:
    """Say how the run is evaluated before its first step: on the terminal (stderr, so `--json` output stays
    JSON) and in the flow run's log."""
    logger = get_run_logger()
    for line in lines:
        sys.stderr.write(line + "\n")
        logger.info(line)
    sys.stderr.flush()


@flow(name="competition", log_prints=True)
def competition_flow(params: CompetitionParams) -> dict[str, Any]:
    paths = prepare_run(params)
    run_dir = str(paths.root)
    forget_context(run_dir)
    rc = get_context(run_dir)
    announce(rc.evaluation.lines())
    PROGRESS.update(run_dir=run_dir, competition=rc.competition.id)
    run_epoch = epoch_flow.with_options(task_runner=step_task_runner(rc.cfg))
    while True:
        state = load_state(paths)
        # Steps planned before a kill are finished first, even past a limit: their model calls are made.
        state.stopped_reason = state.stopped_reason or (None if state.pending else rc.limit_reason(state))
        if state.stopped_reason:
            save_state(paths, state)
            break
        summary = run_epoch(EpochParams(run_dir=run_dir, epoch=state.epochs_done + 1))
        if summary.stopped_reason:
            break
    state = load_state(paths)
    journal = Journal.load(paths.journal)
    result = finalize(rc, journal, state)
    state.finished = True
    save_state(paths, state)
    publish_final_artifacts(journal, state, result)
    get_run_logger().info(
        "delivered: %s submission %s", result.get("delivered") or "no", result.get("submission")
    )
    return result
