"""The best candidates scored on further folds of the harness split, where `evaluation.folds` > 1.

One held-out split is one draw: a block of days that happens to hold a heatwave, 196 passengers of titanic. With
`evaluation.folds` = K (`auto`: 3 where the budget allows for a blocks split, or where the best node's held-out rows
are too few for the metric; else 1), the end of the search builds K - 1 further splits of the same kind beside the search's
(`swarm.layouts.holdout.build_holdout` with `fold`: each run of training days' next edge block for a blocks split,
other seeded rows, groups or days for the others; none for a time split, whose latest span alone stands to the
kept rows as the test does), reruns the `evaluation.fold_candidates` best deliverable nodes on each view in the
sandbox, scores each run with that fold's harness (in the bounded review child, as every review), and delivers
the candidate with the best mean over the folds, the search's counted first. A fold that holds out the same rows as one before it is not
built again. A candidate that fails a fold is not picked while one scored on every fold exists. The mean comes
with its 95% interval, from each fold's bootstrap standard error.

Every fold's labels stay under `<run>/harness/folds/<k>/` (owner-only, never mounted); the sandbox sees only its
public view. What each fold held out and each candidate's scores go to `<run>/folds.json` and the report.
"""

from __future__ import annotations

import logging
import math
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sandbox.tree_ops import remove_tree
from swarm.atomic import write_json_atomic
from swarm.evaluation.harness import Harness
from swarm.evaluation.holdout_record import Holdout, NoHoldout, harness_root
from swarm.journal import Journal, Node
from swarm.layouts.holdout import build_holdout
from swarm.metric import with_interval
from swarm.pipeline.bounded_review import CheckRequest, check_bounded
from swarm.pipeline.context import STEP_LIMIT, RunContext
from swarm.pipeline.steps import clear_outputs

log = logging.getLogger(__name__)

FOLDS_FILE = "folds.json"
AUTO_FOLDS = 3
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


@dataclass
class CandidateFolds:
    """One candidate's harness score on each fold (the search's first), or why a fold gave none, and each
    score's bootstrap standard error where it has one."""

    node_id: str
    scores: list[float | None]
    problems: list[str | None]
    ses: list[float | None] = field(default_factory=list)

    def mean(self) -> float | None:
        """The mean over every fold, or None where a fold gave no score."""
        if not self.scores or any(s is None for s in self.scores):
            return None
        return float(statistics.fmean(s for s in self.scores if s is not None))

    def mean_se(self) -> float | None:
        """The mean's standard error from the folds' own (sqrt of their summed variances over the folds' count:
        each fold's held-out rows are other rows, scored apart); None where a fold's score or error is unknown."""
        if self.mean() is None or len(self.ses) != len(self.scores) or any(se is None for se in self.ses):
            return None
        return math.sqrt(sum(se * se for se in self.ses if se is not None)) / len(self.ses)

    def mean_interval(self) -> list[float] | None:
        """The mean's 95% interval (mean ± 1.96 standard errors), or None where its error is unknown."""
        mean, se = self.mean(), self.mean_se()
        if mean is None or se is None:
            return None
        return [mean - Z95 * se, mean + Z95 * se]


@dataclass
class FoldResult:
    """What the folds decided: each fold's split (as `Holdout.describe` says it), each candidate's scores, the
    candidate picked (None: the usual pick stands) and why folds were fewer than asked."""

    folds: list[str]
    candidates: list[CandidateFolds]
    picked: str | None
    notes: list[str] = field(default_factory=list)

    def picked_row(self) -> CandidateFolds | None:
        found = [c for c in self.candidates if c.node_id == self.picked]
        return found[0] if found else None

    def picked_mean(self) -> float | None:
        row = self.picked_row()
        return row.mean() if row else None

    def picked_interval(self) -> list[float] | None:
        row = self.picked_row()
        return row.mean_interval() if row else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["means"] = {c.node_id: c.mean() for c in self.candidates}
        data["mean_intervals"] = {c.node_id: c.mean_interval() for c in self.candidates}
        return data

    def report_lines(self) -> list[str]:
        """The report's section: each fold's split, then a table of the candidates' scores and means."""
        lines = [f"- fold {k}: {text}" for k, text in enumerate(self.folds)]
        lines += [f"- {note}" for note in self.notes]
        if not self.candidates:
            return lines
        header = " | ".join(f"fold {k}" for k in range(len(self.folds)))
        lines += ["", f"| node | {header} | mean [95% interval] |", "|---|" + "---|" * (len(self.folds) + 1)]
        for row in self.candidates:
            cells = " | ".join(_cell(s, p) for s, p in zip(row.scores, row.problems, strict=True))
            mark = " (delivered)" if row.node_id == self.picked else ""
            lines.append(f"| {row.node_id[:8]}{mark} | {cells} | {_mean_cell(row)} |")
        lines += ["", MEAN_INTERVAL_NOTE]
        return lines


MEAN_INTERVAL_NOTE = (
    "The mean's interval: mean ± 1.96 standard errors, its error from each fold's bootstrap error (each fold's "
    "held-out rows scored apart). It spans the noise of the rows scored, not how the folds' models differ."
)


def fold_count(rc: RunContext, stopped_reason: str | None, best: Node | None = None) -> int:
    """How many folds the end of the run scores on: `evaluation.folds`, or for `auto`, `AUTO_FOLDS` where the
    run ended by its step limit or its schedule (not its time or spend limit, nor a stop) and one draw of
    held-out rows is a weak figure: the split holds out blocks of days (the same blocks for every seed, so a
    lumpy draw is never averaged away), or the best node's held-out rows are too few for the metric (its score
    carries that warning) on a split that can draw other rows (not a time split's one latest span); else 1."""
    setting = rc.cfg.evaluation.folds
    if setting != "auto":
        return setting
    if rc.harness is None or stopped_reason not in (None, STEP_LIMIT):
        return 1
    split = rc.harness.holdout.split
    too_few = best is not None and bool(best.meta.score_warning) and not split.startswith("time:")
    return AUTO_FOLDS if split.startswith("blocks:") or too_few else 1


def confirm_on_folds(
    rc: RunContext, journal: Journal, best: Node, stopped_reason: str | None = None
) -> FoldResult | None:
    """Score the best candidates (`best` among them) on further folds and pick by the mean; None where the run
    scores on one fold (`fold_count`) or has no harness split. Saved in `<run>/folds.json`."""
    count = fold_count(rc, stopped_reason, best)
    if count <= 1 or rc.harness is None or best.metric is None:
        return None
    holdouts, notes = further_folds(rc, count)
    candidates = _candidates(journal, best, rc.cfg.evaluation.fold_candidates)
    rows = [_score_candidate(rc, node, holdouts) for node in candidates]
    picked = pick_by_mean(rows, best.metric.lower_is_better)
    folds = [rc.harness.holdout.describe(), *(fold_line(h) for h in holdouts)]
    result = FoldResult(folds, rows, picked, notes)
    write_json_atomic(rc.paths.root / FOLDS_FILE, result.to_dict())
    return result


def pick_by_mean(rows: list[CandidateFolds], lower_is_better: bool) -> str | None:
    """The candidate with the best mean among those scored on every fold (the first listed on ties); None where
    none was."""
    means = [(r.mean(), i) for i, r in enumerate(rows)]
    ranked = [(m if lower_is_better else -m, i) for m, i in means if m is not None]
    return rows[min(ranked)[1]].node_id if ranked else None


def further_folds(rc: RunContext, count: int) -> tuple[list[Holdout], list[str]]:
    """Up to `count` - 1 further folds of the run's split, built under `<run>/harness/folds/<k>/`, and a note for
    each fold not built (its rows those of an earlier fold, or the split's reason)."""
    base = rc.harness.holdout if rc.harness else None
    assert base is not None
    seen = [held_rows(base)]
    built: list[Holdout] = []
    notes: list[str] = []
    for fold in range(1, count):
        root = harness_root(rc.paths.root) / "folds" / str(fold)
        try:
            holdout = build_holdout(
                rc.competition,
                root,
                fraction=base.fraction,
                split=base.split,
                seed=base.seed,
                max_train_mb=rc.cfg.evaluation.max_train_mb,
                labels_table=rc.cfg.evaluation.labels_table,
                fold=fold,
            )
        except (NoHoldout, ValueError) as exc:  # the next folds' blocks lie further still: none is built
            which = f"fold {fold}" if fold == count - 1 else f"folds {fold}-{count - 1}"
            notes.append(f"{which} not built: {exc}")
            break
        rows = held_rows(holdout)
        if rows in seen:
            notes.append(f"fold {fold} was not used: the split {base.split} holds out the same rows again")
            remove_tree(root, ignore_errors=True)
            continue
        seen.append(rows)
        built.append(holdout)
    return built, notes


def fold_line(holdout: Holdout) -> str:
    """A further fold in one line: how many rows, of which split, and how they stand to the kept ones."""
    held = [line.split(": ", 1)[1] for line in holdout.relation if line.startswith("held-out rows")]
    beside = f"; beside the kept ones: {held[0]}" if held else ""
    return (
        f"{len(holdout.ids)} labelled rows of {holdout.table} ({holdout.fraction:.0%}), the same split "
        f"({holdout.split}) drawn further{beside}"
    )


def held_rows(holdout: Holdout) -> frozenset[str]:
    """The held-out rows' own ids (their view ids may be fresh in each fold)."""
    own = holdout.own_ids("held")
    return frozenset(own.get(i, i) for i in holdout.ids)


def _candidates(journal: Journal, best: Node, count: int) -> list[Node]:
    """`best` and the next best deliverable nodes by the search's harness score, `count` in all."""
    ranked = sorted(
        (n for n in journal.deliverable_nodes() if n.metric is not None and n.metric.is_valid),
        key=lambda n: (n.metric.sort_key(), n.step or 0),  # type: ignore[union-attr]
    )
    others = [n for n in ranked if n.id != best.id]
    return [best, *others[: count - 1]]


def _score_candidate(rc: RunContext, node: Node, holdouts: list[Holdout]) -> CandidateFolds:
    """The node's search score, then its score on each further fold (its code rerun on that fold's view)."""
    row = CandidateFolds(node.id, [node.metric.value if node.metric else None], [None], [node.meta.score_se])
    for fold, holdout in enumerate(holdouts, start=1):
        score, se, problem = _run_on_fold(rc, node, holdout, fold)
        row.scores.append(score)
        row.ses.append(se)
        row.problems.append(problem)
        if problem:
            log.info("node %s on fold %d: %s", node.id[:8], fold, problem)
    return row


def _run_on_fold(
    rc: RunContext, node: Node, holdout: Holdout, fold: int
) -> tuple[float | None, float | None, str | None]:
    """(the fold harness's score of the node's code run on the fold's view, its standard error, None) or (None,
    None, why none)."""
    spec = rc.competition.metric
    assert spec is not None
    dirs = rc.workspace.node_dirs(f"fold{fold}-{node.id}", input_dir=holdout.public_dir)
    clear_outputs(dirs)
    try:
        result = rc.sandbox.run(node.code, dirs, timeout_s=rc.cfg.execution.timeout_s)
        why = result.why_no_submission()
        if why is not None or result.submission_path is None:
            return None, None, why
        request = CheckRequest(
            submission=Path(result.submission_path),
            kept=holdout.root / f"{node.id}_test.csv",
            heldout=None,
            sample=rc.competition.sample_submission,
            spec=spec,
            harness=Harness(holdout, spec, rc.competition.sample_submission),
        )
        evaluation = rc.cfg.evaluation
        checks = check_bounded(request, evaluation.review_timeout_s, evaluation.review_memory_mb)
    except Exception as exc:  # noqa: BLE001 - an engine fault costs the candidate this fold, not the run
        return None, None, f"could not run ({type(exc).__name__}: {exc})"
    finally:
        remove_tree(dirs.root, ignore_errors=True)
    if checks.problem or checks.score is None:
        return None, None, checks.problem or "no score"
    return checks.score, checks.interval.se if checks.interval else None, None


def _mean_cell(row: CandidateFolds) -> str:
    mean = row.mean()
    return "-" if mean is None else with_interval(mean, row.mean_interval())


def _cell(score: float | None, problem: str | None) -> str:
    if score is None:
        return f"- ({problem})" if problem else "-"
    return f"{score:.6g}"
