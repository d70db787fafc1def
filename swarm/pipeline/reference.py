"""The harness's reference model: the offline coder's simplest pipeline, run once per run on the view like any
solution, its held-out and test predictions kept where no sandbox reaches (`<run>/harness/reference/`).

Each node's predictions are compared with it on held-out and on test rows (`swarm.evaluation.consistency`): a
node honest only where it is scored agrees with it far less on the test rows. The reference runs at the first
review that needs it (a file lock keeps parallel reviews, threads or processes, to one run); a run that failed
is not tried again, and `reason` says why in the report. Nothing here is trusted more than a solution: the
reference runs in the same sandbox, on the same view, and its submission is split by the same harness.
"""

from __future__ import annotations

import fcntl
import logging
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from sandbox.tree_ops import remove_tree
from swarm.atomic import write_text_atomic
from swarm.evaluation.consistency import Consistency, Predictions, consistency
from swarm.evaluation.holdout_record import harness_root
from swarm.evaluation.review import ReviewOutcome
from swarm.journal import Journal
from swarm.offline_coder.client import task_from_hints
from swarm.offline_coder.genome import safe_genome
from swarm.offline_coder.render import render_solution
from swarm.pipeline.context import RunContext

log = logging.getLogger(__name__)

REFERENCE_NODE = "harness-reference"
HELDOUT, TEST, FAILED = "heldout.csv", "test.csv", "failed.txt"


@dataclass(frozen=True)
class Reference:
    """The reference model's predictions, or why there are none."""

    predictions: Predictions | None
    reason: str | None = None


def reference_dir(run_dir: Path) -> Path:
    return harness_root(run_dir) / "reference"


def reference_code(rc: RunContext) -> str:
    """The offline coder's simplest pipeline for the view the solutions see, with the run's metric."""
    hints = {"input_dir": str(rc.workspace.input_dir)}
    if rc.competition.metric is not None:
        hints["metric"] = rc.competition.metric.name
    task = task_from_hints(hints)
    return render_solution(task, safe_genome(task))


def run_reference(rc: RunContext) -> Reference:
    """The reference's predictions from `<run>/harness/reference/`, run first where they are not there yet."""
    root = reference_dir(rc.paths.root)
    if (root / TEST).is_file():  # run already: no lock to wait for
        return read_reference(root)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one run of the reference, whichever review asks first
        if not (root / TEST).is_file() and not (root / FAILED).is_file():
            failure = _run(rc, root)
            if failure:
                write_text_atomic(root / FAILED, failure + "\n")
                log.warning("the harness's reference model did not run: %s", failure)
        return read_reference(root)


# Predictions read, by their test file (path, inode, modification time): written once, read at every review.
_READ: dict[tuple[str, int, int], Reference] = {}
READ_RUNS = 4


def read_reference(root: Path) -> Reference:
    """What a reference run left in `root` (its predictions read once per process)."""
    if (root / FAILED).is_file():
        return Reference(None, (root / FAILED).read_text(encoding="utf-8").strip())
    try:
        info = (root / TEST).stat()
    except FileNotFoundError:
        return Reference(None, "the reference model has not run")
    key = (str(root.resolve()), info.st_ino, info.st_mtime_ns)
    if key not in _READ:
        if len(_READ) >= READ_RUNS:  # a process that runs many runs keeps the latest ones only
            del _READ[next(iter(_READ))]
        frames = [pd.read_csv(root / name, dtype=str, keep_default_na=False) for name in (HELDOUT, TEST)]
        _READ[key] = Reference(Predictions(*frames))
    return _READ[key]


def _run(rc: RunContext, root: Path) -> str | None:
    """Run the reference in the sandbox and split its submission with the harness; why not, or None."""
    assert rc.harness is not None
    try:
        code = reference_code(rc)
    except Exception as exc:  # noqa: BLE001 - a view the offline coder cannot read: no reference
        return f"the offline coder cannot write it for this data ({type(exc).__name__}: {exc})"
    dirs = rc.workspace.node_dirs(REFERENCE_NODE)
    try:
        result = rc.sandbox.run(code, dirs, timeout_s=rc.cfg.execution.timeout_s)
        why = result.why_no_submission()
        if why is not None or result.submission_path is None:
            return f"it {why}"
        scored = rc.harness.evaluate(result.submission_path, root / TEST, root / HELDOUT)
    except Exception as exc:  # noqa: BLE001 - an engine fault: the run goes on without the check
        return f"it could not run ({type(exc).__name__}: {exc})"
    finally:
        remove_tree(dirs.root, ignore_errors=True)
    if scored.problem or not (root / HELDOUT).is_file():
        (root / TEST).unlink(missing_ok=True)
        return f"its submission was refused: {scored.problem or 'no held-out row was scored'}"
    log.info("the harness's reference model scored %s on the held-out rows", scored.score)
    return None


def node_consistency(rc: RunContext, node_id: str) -> tuple[Consistency | None, str | None]:
    """How the node's kept predictions (`rc.harness_heldout`, `rc.harness_submission`) agree with the
    reference's on held-out and test rows: (the figures, None), or (None, why they are not known)."""
    spec = rc.competition.metric
    heldout, test = rc.harness_heldout(node_id), rc.harness_submission(node_id)
    if rc.harness is None or spec is None or not heldout.is_file() or not test.is_file():
        return None, "the harness kept no held-out and test predictions of this node"
    reference = run_reference(rc)
    if reference.predictions is None:
        return None, f"no reference model: {reference.reason}"
    frames = [pd.read_csv(path, dtype=str, keep_default_na=False) for path in (heldout, test)]
    found = consistency(Predictions(*frames), reference.predictions, spec)
    if found is None:
        return None, "the reference model's predictions share no row or varied column with the node's"
    return found, None


def flag_inconsistent(rc: RunContext, node_id: str, outcome: ReviewOutcome) -> ReviewOutcome:
    """The review of a good, harness-scored node with its consistency figures (`evaluation.consistency`), its
    summary saying so where its test predictions are unlike its held-out ones."""
    if outcome.is_buggy or outcome.metric_source != "harness" or not rc.cfg.evaluation.consistency:
        return outcome
    found, why = node_consistency(rc, node_id)
    if found is None:
        log.info("node %s: consistency not checked: %s", node_id, why)
        return outcome
    summary = outcome.summary
    if not found.consistent:
        summary = (
            f"{summary} Flagged by the harness: its test predictions are unlike its held-out ones ("
            f"{found.describe()}); it is not delivered while a consistent node exists."
        ).strip()
        log.warning("node %s: %s", node_id, found.describe())
    return replace(outcome, consistency=found.to_dict(), summary=summary)


def consistency_lines(rc: RunContext, journal: Journal) -> list[str]:
    """The report's section on held-out and test rows alike: the reference's state and each flagged node."""
    if rc.harness is None or not rc.cfg.evaluation.consistency:
        return []
    reference = read_reference(reference_dir(rc.paths.root))
    checked = [n for n in journal.good_nodes() if n.meta.consistency]
    out = ["## Held-out and test rows alike", ""]
    if reference.predictions is None:
        return [*out, f"Not checked: {reference.reason}.", ""]
    flagged = [n for n in checked if n.inconsistent]
    out.append(
        f"Each good node's agreement with the harness's reference model (the offline coder's simplest pipeline) "
        f"on held-out and on test rows: {len(checked)} checked, {len(flagged)} flagged (its agreement on test "
        "rows far below its agreement on held-out rows: honest where scored, not elsewhere)."
    )
    out += ["", *(f"- `{n.id[:8]}`: {Consistency.from_dict(n.meta.consistency).describe()}" for n in flagged)]
    if flagged and len(journal.deliverable_nodes()) == len(journal.good_nodes()):
        out.append("- every good node is flagged, so the flags do not change what is delivered")
    return [*out, ""]
