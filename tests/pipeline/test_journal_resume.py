"""A run dir from before the append-only journal (journal.json) resumes: its journal is migrated once, the old
file kept, and the run's next steps append to the new file; a recorded step writes its node, not the journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import ExecutionResult
from swarm.config import load_config
from swarm.evaluation.review import ReviewOutcome
from swarm.journal import Journal, Node
from swarm.journal.step_record import Review
from swarm.metric import MetricValue
from swarm.pipeline import steps
from swarm.pipeline.context import create_run, open_run
from swarm.pipeline.plain import run_epoch
from swarm.pipeline.state import RunPaths, load_journal, load_state, save_state


def old_run(tmp_path: Path, overrides: list[str], nodes: int) -> RunPaths:
    """A run dir as runs were laid out before journal.jsonl: `nodes` nodes in a whole-document journal.json."""
    paths = create_run(load_config(None, overrides), tmp_path / "run")
    journal = Journal()
    for i in range(nodes):
        parent = journal.nodes[-1].id if journal.nodes else None
        journal.append(
            Node(
                code=f"print({i})\n",
                task_type="improve" if parent else "draft",
                parent_ids=(parent,) if parent else (),
                epoch=1,
                fitness=i / 10,
                review=Review(is_buggy=False, metric=MetricValue(0.5 + i / 100, False)),
            )
        )
    paths.legacy_journal.write_text(journal.to_json())
    paths.journal.unlink()
    state = load_state(paths)
    state.next_step = state.steps_done = nodes
    state.epochs_done = 1 if nodes else 0
    save_state(paths, state)
    return paths


def outcome_for(planned: steps.PlannedStep) -> steps.StepOutcome:
    code = "# DATA\nprint('SWARM_METRIC 0.9')\n"
    return steps.StepOutcome(
        planned=planned,
        generation=steps.Generation(node_id=planned.plan.node_id, raw=code, plan_text="plan", code=code),
        result=ExecutionResult(output="SWARM_METRIC 0.9\n", exit_code=0, exec_time=1.0, backend="local"),
        outcome=ReviewOutcome(
            is_buggy=False, bug_reason=None, metric=0.9, lower_is_better=False, summary="ok"
        ),
    )


def test_an_old_run_dir_is_migrated_when_opened_and_steps_append(
    tmp_path: Path, base_overrides: list[str]
) -> None:
    paths = old_run(tmp_path, [*base_overrides, "agent.max_steps=10"], nodes=3)
    before = Journal.load(paths.legacy_journal)
    old_text = paths.legacy_journal.read_text()

    rc, journal, state = open_run(paths.root)

    assert journal == before and [n.fitness for n in journal] == [0.0, 0.1, 0.2]
    assert not paths.legacy_journal.exists() and paths.migrated_journal.read_text() == old_text
    lines = paths.journal.read_bytes()
    planned = steps.select_parent(rc, journal, state)
    node = steps.update_population(rc, journal, state, outcome_for(planned))
    after = paths.journal.read_bytes()
    assert after.startswith(lines) and after[len(lines) :].count(b"\n") == 1  # the step wrote its node only
    again = load_journal(paths)
    assert [n.id for n in again] == [*(n.id for n in before), node.id]
    _, reopened, _ = open_run(paths.root)  # a second open finds nothing to migrate
    assert reopened == again and paths.migrated_journal.read_text() == old_text


@pytest.mark.slow
def test_an_old_run_resumes_and_branches(tmp_path: Path, base_overrides: list[str]) -> None:
    """A real epoch on a migrated run, and a rerun of it from its snapshot, which rebuilds the journal as it
    was before the epoch (the old nodes, with their fitness of then)."""
    from swarm.pipeline.snapshots import branch_from_snapshot, write_snapshot

    paths = old_run(tmp_path, [*base_overrides, "agent.max_steps=10"], nodes=2)
    rc, journal, state = open_run(paths.root)
    write_snapshot(paths, 1, journal, state)
    then = [(n.id, n.fitness) for n in journal]
    summary = run_epoch(rc, journal, state, epoch=2, steps_wanted=2, parallel=1)
    assert len(summary.nodes) == 2
    saved = load_journal(paths)
    assert [n.id for n in saved] == [*(i for i, _ in then), *summary.nodes]
    journal.nodes[0].fitness = 0.75  # a later epoch's end sets the population's fitness again
    journal.save(paths.journal)
    branch = branch_from_snapshot(paths, 2, "again")
    assert [(n.id, n.fitness) for n in load_journal(branch)] == then
    assert load_journal(paths).nodes[0].fitness == 0.75
