"""The competition flow: create (or resume) a run, run epochs until a limit, then select, grade, report."""

from __future__ import annotations

import sys
from typing import Any

from prefect import flow, get_run_logger
from pydantic import BaseModel, Field

from flows.artifacts import publish_final_artifacts
from flows.epoch import EpochParams, epoch_flow, step_task_runner
from swarm.pipeline import lifecycle
from swarm.pipeline.lifecycle import finish_run, next_epoch
from swarm.pipeline.progress import PROGRESS
from swarm.pipeline.state import RunPaths
from swarm.pipeline.stopping import stop_on_signals
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


def prepare_run(params: CompetitionParams) -> RunPaths:
    """Check the inputs, then create the run dir, or apply the overrides to the one to resume."""
    return lifecycle.prepare_run(
        competition=params.competition,
        data_dir=params.data_dir,
        config_path=params.config_path,
        overrides=params.all_overrides(),
        run_dir=params.run_dir,
        resume=params.resume,
    )


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
    """A whole run; a SIGTERM or Ctrl-C (a cancellation too) stops it within seconds (`stop_on_signals`)."""
    with stop_on_signals():
        return _run_competition(params)


def _run_competition(params: CompetitionParams) -> dict[str, Any]:
    """The competition flow's body."""
    paths = prepare_run(params)
    run_dir = str(paths.root)
    forget_context(run_dir)
    rc = get_context(run_dir)
    announce(rc.evaluation.lines())
    PROGRESS.update(run_dir=run_dir, competition=rc.competition.id)
    run_epoch = epoch_flow.with_options(task_runner=step_task_runner(rc.cfg))
    while (epoch := next_epoch(rc)) is not None:
        summary = run_epoch(EpochParams(run_dir=run_dir, epoch=epoch))
        if summary.stopped_reason:
            break
    result, journal, state = finish_run(rc)
    publish_final_artifacts(journal, state, result)
    get_run_logger().info(
        "delivered: %s submission %s", result.get("delivered") or "no", result.get("submission")
    )
    return result
