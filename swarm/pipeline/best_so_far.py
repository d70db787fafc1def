"""`<run>/workspace/best_solution/`: the best solution found so far, on disk from the first good node on.

After every step whose node becomes the best deliverable one by the harness's score (not flagged as unlike its
held-out rows on the test rows), the directory is replaced, in one step (`swarm.atomic.replace_dir_atomic`), by
that node's scored test submission (the harness's copy, checked against its sha256), its code, its id and
`best.json` (what it is: the best so far, its score and interval). A run killed at any moment, a node's crash or
a pre-empted server, so leaves a valid submission once one node was good. The end of the run replaces it in the
same way with what it delivers (the refit, the scored run or the blend; `swarm.pipeline.finalize`), and
`best.json` then says which. Without a harness split no score is trusted, and only the end of the run writes it.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from swarm.atomic import replace_dir_atomic, write_json_atomic, write_text_atomic
from swarm.evaluation.harness import file_sha256
from swarm.journal import Journal, Node
from swarm.pipeline.context import RunContext

log = logging.getLogger(__name__)

SUBMISSION = "submission.csv"
ABOUT = "best.json"
SO_FAR = "the best node so far, its scored run's test predictions (the end of the run replaces them)"


def keep_best_so_far(rc: RunContext, journal: Journal, node: Node) -> bool:
    """Write `node` into best_solution/ when it is now the best deliverable node by the harness's score; whether
    it was written. A fault here costs the copy, never the step."""
    if rc.harness is None or not node.is_good or node.metric is None:
        return False
    best = journal.best_deliverable(rc.cfg.evaluation.ties_within_noise)
    if best is None or best.id != node.id:
        return False
    source = scored_submission(node)
    if source is None:
        return False
    try:
        write_best(rc, node, source, SO_FAR)
    except OSError as exc:
        log.warning("best_solution/ was not replaced with node %s: %s", node.id[:8], exc)
        return False
    return True


def write_best(rc: RunContext, node: Node, submission: Path, what: str) -> Path:
    """best_solution/ replaced by `submission`, the node's code, id and `best.json` (`what` it is)."""

    def fill(dest: Path) -> None:
        shutil.copyfile(submission, dest / SUBMISSION)
        write_text_atomic(dest / "solution.py", node.code)
        write_text_atomic(dest / "node_id.txt", node.id + "\n")
        write_json_atomic(dest / ABOUT, about(node, what))

    return replace_best(rc, fill)


def replace_best(rc: RunContext, fill: Callable[[Path], Any]) -> Path:
    """best_solution/ replaced, whole, by the directory `fill` writes; its submission's path."""
    best = rc.workspace.best_solution_dir
    replace_dir_atomic(best, fill)
    return best / SUBMISSION


def about(node: Node, what: str) -> dict[str, Any]:
    """`best.json`: which node, what the submission is, and the node's harness score with its interval."""
    return {
        "node_id": node.id,
        "step": node.step,
        "submission": what,
        "harness_score": node.metric.value if node.metric else None,
        "score_interval": node.meta.score_interval,
    }


def scored_submission(node: Node) -> Path | None:
    """The test predictions of the node's scored run, as the harness kept them; None where the file is gone or
    changed since its review (its sha256)."""
    source = node.meta.submission_path
    expected = node.meta.submission_sha256
    if not source or not Path(source).is_file() or (expected and file_sha256(Path(source)) != expected):
        return None
    return Path(source)
