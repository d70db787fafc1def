"""Pick the submission to hand in, check it with the grading server, and write the agent's outputs.

Candidates come from the run's journal: good nodes best first, then any other node that still wrote a
submission file (newest first), so some submission is left whenever any node produced one.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from swarm.journal import Journal, Node
from swarm.mlebench.validate import Verdict
from swarm.pipeline.state import RunPaths

log = logging.getLogger(__name__)

# The run's record, copied to <logs dir>/run/ (whichever exist: a run stopped by the clock has no report).
RUN_FILES = (
    "report.md",
    "journal.jsonl",
    "journal.fields.json",
    "state.json",
    "config.yaml",
    "evaluation.json",
    "llm_usage.jsonl",
    "grade.json",
    "dispatcher.json",
    "llm_endpoints.json",
)
RUN_DIRS = ("exchanges",)  # every model exchange, per node: what the model said where the logs are read
Validator = Callable[[Path, float], Verdict]


@dataclass(frozen=True)
class Candidate:
    """A node that left a submission file."""

    node_id: str
    step: int | None
    code: str
    submission: Path
    metric: float | None
    good: bool

    @property
    def label(self) -> str:
        score = "no metric" if self.metric is None else f"metric {self.metric:.5g}"
        return f"node {self.node_id[:8]} (step {self.step}, {score}{'' if self.good else ', buggy'})"


@dataclass
class Choice:
    """The candidate handed in, and what the grading server said along the way."""

    candidate: Candidate | None
    checked: list[tuple[str, Verdict]] = field(default_factory=list)
    validated: bool = False
    note: str = ""


def _candidate(node: Node) -> Candidate | None:
    source = node.meta.submission_path
    if not source or not Path(source).is_file():
        return None
    metric = node.metric.value if node.metric is not None else None
    return Candidate(node.id, node.step, node.code, Path(source), metric, node.is_good)


def candidates(journal: Journal, paths: RunPaths | None = None) -> list[Candidate]:
    """Nodes with a submission file: good ones best first, then the rest newest first. When the run finished
    with a refit of its best node (trained on every row, `<run>/harness/refit_submission.csv`), that comes first,
    and a blend the run delivered (`<run>/harness/ensemble_submission.csv`) before it."""
    ranked = journal.best_k(len(journal), only_good=True)
    deliverable = {n.id for n in journal.deliverable_nodes()}
    ranked.sort(key=lambda n: n.id not in deliverable)  # flagged nodes last, as the run end chose
    ranked_ids = {n.id for n in ranked}
    unscored = [n for n in journal.good_nodes() if n.id not in ranked_ids]
    rest = sorted((n for n in journal if not n.is_good), key=lambda n: n.step or 0, reverse=True)
    found = [c for c in (_candidate(n) for n in [*ranked, *unscored, *rest]) if c is not None]
    refit = _refit_candidate(paths, found) if paths is not None and found else None
    blend = _ensemble_candidate(paths) if paths is not None else None
    return [c for c in (blend, refit) if c is not None] + found


def _ensemble_candidate(paths: RunPaths) -> Candidate | None:
    """The blended submission, when the run delivered one (its best_solution names `ensemble`)."""
    best = paths.workspace / "best_solution"
    blend = paths.root / "harness" / "ensemble_submission.csv"
    promoted = best / "node_id.txt"
    if (
        not blend.is_file()
        or not promoted.is_file()
        or promoted.read_text(encoding="utf-8").strip() != "ensemble"
    ):
        return None
    code = (best / "solution.py").read_text(encoding="utf-8") if (best / "solution.py").is_file() else ""
    return Candidate("ensemble", None, code, blend, None, True)


def _refit_candidate(paths: RunPaths, found: list[Candidate]) -> Candidate | None:
    """The refit submission of the node the run promoted (its best_solution names it): the best good node, or
    the simplest of those tied with it within noise (`evaluation.ties_within_noise`)."""
    refit = paths.root / "harness" / "refit_submission.csv"
    promoted = paths.workspace / "best_solution" / "node_id.txt"
    if not refit.is_file() or not promoted.is_file():
        return None
    node_id = promoted.read_text(encoding="utf-8").strip()
    best = next((c for c in found if c.node_id == node_id and c.good), None)
    if best is None:
        return None
    return Candidate(best.node_id, best.step, best.code, refit, best.metric, True)


def load_journal(paths: RunPaths) -> Journal:
    """The run's journal; empty when the run never got that far (or it cannot be read)."""
    if not paths.journal.is_file():
        return Journal()
    try:
        return Journal.load(paths.journal)
    except (OSError, ValueError) as exc:
        log.warning("cannot read %s: %s", paths.journal, exc)
        return Journal()


def choose(
    found: list[Candidate],
    validator: Validator | None,
    time_left: Callable[[], float | None],
    timeout_s: float,
) -> Choice:
    """The first candidate the server calls valid; without a verdict, the best one not called invalid."""
    if not found:
        return Choice(None, note="no node wrote a submission")
    if validator is None:
        return Choice(found[0], note="validation is off")
    checked: list[tuple[str, Verdict]] = []
    note = ""
    for cand in found:
        left = time_left()
        if left is not None and left < 1.0:
            note = "time ran out before every candidate was checked"
            break
        verdict = validator(cand.submission, timeout_s if left is None else min(timeout_s, left))
        checked.append((cand.node_id, verdict))
        if verdict.status == "valid":
            log.info("grading server: %s is valid", cand.label)
            return Choice(cand, checked, validated=True, note="the grading server called it valid")
        if verdict.status == "invalid":
            log.warning("grading server REJECTED %s: %s", cand.label, verdict.message)
            continue
        log.info("validation skipped: %s", verdict.message)
        note = f"not validated: {verdict.message}"
        break
    rejected = {node_id for node_id, v in checked if v.status == "invalid"}
    remaining = [c for c in found if c.node_id not in rejected]
    if remaining:
        return Choice(remaining[0], checked, note=note or "not validated")
    log.warning("the grading server rejected every candidate; handing in the best one anyway")
    return Choice(found[0], checked, note="every candidate was rejected by the grading server")


def write_code(code_dir: Path, chosen: Candidate, journal: Journal, all_code: bool) -> list[Path]:
    """The chosen node's code as solution.py (and, with `all_code`, every node's under nodes/)."""
    code_dir.mkdir(parents=True, exist_ok=True)
    written = [code_dir / "solution.py"]
    written[0].write_text(chosen.code, encoding="utf-8")
    (code_dir / "node_id.txt").write_text(chosen.node_id + "\n", encoding="utf-8")
    if all_code:
        nodes = code_dir / "nodes"
        nodes.mkdir(exist_ok=True)
        for node in journal:
            path = nodes / f"{node.step or 0:04d}-{node.task_type}-{node.id[:8]}.py"
            path.write_text(node.code, encoding="utf-8")
            written.append(path)
    return written


def copy_run_record(paths: RunPaths, logs_dir: Path) -> list[Path]:
    """Copy the run's report, journal, state, config, usage and model exchanges into <logs_dir>/run/."""
    dest = logs_dir / "run"
    dest.mkdir(parents=True, exist_ok=True)
    copied = []
    for name in RUN_FILES:
        source = paths.root / name
        if source.is_file():
            shutil.copyfile(source, dest / name)
            copied.append(dest / name)
    for name in RUN_DIRS:
        if (paths.root / name).is_dir():
            shutil.copytree(paths.root / name, dest / name, dirs_exist_ok=True)
            copied.append(dest / name)
    return copied
