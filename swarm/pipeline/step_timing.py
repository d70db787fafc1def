"""Where a step's time goes: the phases of one step, timed where they run and kept in its node's
`meta.timings` (seconds), so a slow step, or a regression, shows where its time went.

The chain (`swarm.pipeline.chain.run_chain`) times each stage as its caller sees it (`generate`, `execute`,
`review`: in the epoch flow that includes the Prefect task around the function, its cache and persisted result),
and copies in what each stage timed inside itself: `prompt` (choosing the step and building its prompt, before
the stage), `model` (waiting for the code model), `sandbox` (the solution's process, start to exit, as the
sandbox timed it), `harness` (the submission's checks and the harness's scoring of the held-out rows, in the
bounded review child) and `review_model` (the feedback model's call). `breakdown` turns a journal's timings into
one row per phase; what is left of a step's wall time (the journal and pool writes, scheduling, the flow) is
the wall time less their sum, which only a sequential run can say.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from swarm.journal import Node

# (phase, what it is): in the order a step goes through them. Stage overheads are a stage's wall time less the
# work inside it.
PHASES = (
    ("prompt", "choose the step, build its prompt"),
    ("model", "wait for the code model"),
    ("generate_overhead", "generate stage less the model wait (parsing; the task, cache and result store)"),
    ("sandbox", "the solution's process, start to exit (interpreter start, imports, its own run)"),
    ("execute_overhead", "execute stage less the process (view, slot, files; the task)"),
    ("harness", "submission checks and harness scoring of the held-out rows"),
    ("review_model", "the review call to the feedback model"),
    ("review_overhead", "review stage less the two above (the task, cache and result store)"),
)


def stage_timings(
    prompt_s: float,
    walls: dict[str, float],
    model_s: float,
    sandbox_s: float | None,
    review: dict[str, float],
) -> dict[str, float]:
    """One step's phases from its stages' wall times (`walls`: generate, execute, review) and what each timed
    inside itself."""
    sandbox = sandbox_s or 0.0
    inner_review = sum(review.values())
    return {
        "prompt": prompt_s,
        "model": model_s,
        "generate_overhead": max(0.0, walls["generate"] - model_s),
        "sandbox": sandbox,
        "execute_overhead": max(0.0, walls["execute"] - sandbox),
        **review,
        "review_overhead": max(0.0, walls["review"] - inner_review),
    }


def breakdown(nodes: Iterable[Node]) -> dict[str, float]:
    """The median seconds of each phase over the nodes that timed their steps (phases none timed: absent)."""
    timed = [node.meta.timings for node in nodes if node.meta.timings]
    return {
        phase: statistics.median(t[phase] for t in timed if phase in t)
        for phase, _ in PHASES
        if any(phase in t for t in timed)
    }


def step_total(timings: dict[str, float]) -> float:
    """The seconds of a step its phases account for."""
    return sum(timings.get(phase, 0.0) for phase, _ in PHASES)
