"""A run from its start to its end, for the competition flow and the plain runner alike.

    paths = prepare_run(data_dir=..., overrides=[...])     # checked, then created (or resumed)
    while (epoch := next_epoch(rc)) is not None:             # rc: the run's context
        ... run `epoch` (the epoch flow, or `swarm.pipeline.plain.run_epoch`) ...
    summary, journal, state = finish_run(rc)               # blend or refit, deliver, grade, report

What runs each epoch is the caller's: the competition flow hands it to the epoch flow, the plain runner to its
thread pool (`swarm.pipeline.plain.run_to_end`). Everything else a run does between its request and its summary
is here, so that the two run the same core in the same order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from swarm.atomic import write_text_atomic
from swarm.journal import Journal
from swarm.pipeline.context import RunContext, create_run
from swarm.pipeline.finalize import finalize
from swarm.pipeline.preflight import check_request
from swarm.pipeline.snapshots import write_snapshot
from swarm.pipeline.state import RunPaths, RunState, load_state, save_state


def prepare_run(
    *,
    competition: str | None = None,
    data_dir: str | None = None,
    config_path: str | Path | None = None,
    overrides: list[str] | None = None,
    run_dir: str | Path | None = None,
    resume: bool = False,
) -> RunPaths:
    """Check the request (`check_request`: nothing is written on a problem), then create the run dir and its
    epoch-0 snapshot, or apply the overrides to the run to resume and clear its stop."""
    overrides = list(overrides or [])
    cfg = check_request(
        competition=competition,
        data_dir=data_dir,
        config_path=config_path,
        overrides=overrides,
        run_dir=run_dir,
        resume=resume,
    )
    if resume:  # check_request refused a resume without its run dir
        paths = RunPaths(Path(run_dir))
        if overrides:
            write_text_atomic(paths.config, cfg.to_yaml())
        state = load_state(paths)
        if state.stopped_reason is not None or state.finished:
            state.stopped_reason, state.finished = None, False
            save_state(paths, state)
        return paths
    paths = create_run(cfg, Path(run_dir) if run_dir else None)
    write_snapshot(paths, 0, Journal.load(paths.journal), load_state(paths))
    return paths


def next_epoch(rc: RunContext) -> int | None:
    """The epoch the run goes on with, or None when it must stop (the reason saved in its state). Steps planned
    before a kill are finished first, even past a limit: their model calls are made."""
    state = load_state(rc.paths)
    state.stopped_reason = state.stopped_reason or (None if state.pending else rc.limit_reason(state))
    if state.stopped_reason:
        save_state(rc.paths, state)
        return None
    return state.epochs_done + 1


def finish_run(rc: RunContext) -> tuple[dict[str, Any], Journal, RunState]:
    """The end of the run: `finalize` (blend or refit, deliver, grade, report), then the run marked finished.
    Returns the summary, and the journal and state it was made from."""
    state = load_state(rc.paths)
    journal = Journal.load(rc.paths.journal)
    summary = finalize(rc, journal, state)
    state.finished = True
    save_state(rc.paths, state)
    return summary, journal, state
