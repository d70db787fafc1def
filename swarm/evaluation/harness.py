"""Scoring a solution's submission on the rows the harness held out.

A solution predicts every row of the test set it sees. `Harness.evaluate` reads its submission once (by file
descriptor, a regular file, no symlink), splits it: the held-out rows are scored with the competition's metric
against the labels the harness keeps; the rest is the node's test submission, written to a path the harness
owns (so a later write to the node's dir cannot change what was scored and checked). For a grouped metric
(`log_mae` with `group_column`, champs's coupling `type`), the labels keep that column too, and `score_frame`
passes each held-out row's group in the rows' order. Held-out rows without a label (positions past a
sequence's scored part) must be predicted, and are left out of the score. Where the held-out ids are test ids at
an earlier time (`Holdout.shifted`: a log's last span held out), every row is a test row and those ids are scored.
Where every row has a fresh id in the view (`Holdout.fresh_ids`), the test rows are written under their own ids.
What MLE-bench's graders read past is read past here too, and the result's `note` says what
(`swarm.competitions.tolerance`): columns the sample lacks are dropped, ids spelled as other numbers are read as
the ids they equal, a blank text prediction that the grader scores (its answers hold "NA" tokens, or the column
is free text) is scored, not refused. The test rows are written in the sample's columns, order and id spelling,
so that the file delivered from them is one every grader reads alike. Each score comes with its seeded bootstrap
interval over the rows it was computed from (`swarm.competitions.score_interval`), whole groups resampled where
the split held them out and their values are at hand (`swarm.evaluation.score_groups`), or the reason it has none.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from sandbox.result import non_file_kind
from swarm.atomic import PRIVATE, write_bytes_atomic, write_text_atomic
from swarm.competitions.competition import MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.grading import ScoredRows, scored_parts
from swarm.competitions.metrics import get_metric
from swarm.competitions.score_interval import ScoreInterval, held_out_interval, no_interval
from swarm.competitions.tolerance import (
    extra_columns,
    in_order,
    joined,
    renormalised_rows,
    row_keys,
    tolerate,
)
from swarm.competitions.validation import InvalidSubmission
from swarm.evaluation.holdout_record import Holdout
from swarm.evaluation.score_groups import held_out_groups
from swarm.evaluation.submission_size import SizeLimit, size_limit

MAX_SHOWN = 3


@dataclass(frozen=True)
class HarnessResult:
    """The harness's verdict on one submission: its score on the held-out rows, or why there is none."""

    score: float | None
    problem: str | None
    test_submission: Path | None  # the test rows of the submission (None when it could not be read)
    note: str | None = None  # what the score tolerated: blank text predictions counted wrong, not refused
    interval: ScoreInterval | None = None  # the score's bootstrap interval (or why none), with a score


@contextlib.contextmanager
def open_regular_file(path: Path, limit: SizeLimit | None = None) -> Iterator[BinaryIO]:
    """`path` open for reading, without following a symlink or blocking on a FIFO, and within `limit` (its
    size and header checked before any parse); InvalidSubmission, naming what it is, if it is not a plain file
    or is past the limit."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InvalidSubmission(f"{path.name} does not exist") from None
    except OSError as exc:
        kind = non_file_kind(path)
        if kind:
            raise InvalidSubmission(f"{path.name} is {kind}, not a regular file") from None
        raise InvalidSubmission(f"{path.name} cannot be opened as a regular file: {exc.strerror}") from None
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        kind = non_file_kind(path) or "not a plain file"
        raise InvalidSubmission(f"{path.name} is {kind}, not a regular file")
    with os.fdopen(fd, "rb") as handle:
        if limit is not None:
            limit.check(handle, status.st_size, path.name)
        yield handle


def read_regular_file(path: Path, limit: SizeLimit | None = None) -> bytes:
    """The bytes of `path`, opened without following a symlink; InvalidSubmission if it is not a plain file or
    is past `limit`."""
    with open_regular_file(Path(path), limit) as handle:
        return handle.read()


def keep_copy(
    submission: Path, target: Path, limit: SizeLimit | None = None
) -> tuple[Path | None, str | None]:
    """Copy a submission (a regular file, no symlink, within `limit`) to a path the harness owns: (the copy,
    None), or (None, why it could not be read)."""
    try:
        data = read_regular_file(Path(submission), limit)
    except InvalidSubmission as exc:
        return None, str(exc)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(target, data)
    return target, None


def write_private(path: Path, text: str) -> None:
    """Write atomically into an owner-only dir, readable by the owner only (never by a sandbox)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    write_text_atomic(path, text, mode=PRIVATE)


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def read_frame(source: bytes | BinaryIO, name: str) -> pd.DataFrame:
    """A submission's cells as strings, from its bytes or streamed from an open file."""
    try:
        handle = io.BytesIO(source) if isinstance(source, bytes) else source
        return pd.read_csv(handle, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise InvalidSubmission(f"{name} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidSubmission(f"{name} is not a readable CSV: {str(exc).splitlines()[0]}") from None


def _shown(values: list[str]) -> str:
    return ", ".join(repr(v) for v in values[:MAX_SHOWN]) + (" ..." if len(values) > MAX_SHOWN else "")


class Harness:
    """Scores submissions against the held-out labels of one run."""

    def __init__(self, holdout: Holdout, spec: MetricSpec, sample_submission: Path) -> None:
        self.holdout = holdout
        # A label metric accepts every class of train, not only those the held-out rows happen to hold.
        train_labels = {c: tuple(v) for c, v in holdout.classes.items() if c in spec.target_columns and v}
        free_text = tuple(c for c, v in holdout.classes.items() if c in spec.target_columns and v is None)
        self.spec = replace(spec, labels={**train_labels, **spec.labels}, free_text=free_text)
        self.labels = pd.read_csv(holdout.labels_path, dtype=str, keep_default_na=False)
        self.ids = set(holdout.ids)
        # The rows scored: every held-out row, but where some have no label (stanford-covid-vaccine's positions
        # past `seq_scored`), which must be predicted like the test's and are not scored (as its grade.py).
        self.scored = set(self.labels[spec.id_column].astype(str).str.strip()) & self.ids
        sample = pd.read_csv(sample_submission, dtype=str, keep_default_na=False)
        self.test_ids = sample[spec.id_column].str.strip().tolist()  # the competition's own test ids
        # The sample's rows in order, by the id and the key columns where the id repeats (uw-madison's class).
        self.keyed_by = [spec.id_column, *spec.key_columns]
        self.test_order = (
            row_keys(sample, self.keyed_by).tolist() if set(self.keyed_by) <= set(sample) else []
        )
        # Where every row has a fresh id in the view: the fresh id of each test row -> its own.
        self.own_test_id = holdout.own_ids("test")
        # The columns a submission is read in (others are dropped, as the graders ignore them; the sample's order),
        # and every id of the view, which ids spelled as other numbers are read as.
        named = (spec.id_column, *spec.target_columns, *spec.passthrough_columns, *spec.key_columns)
        self.columns = [str(c) for c in sample.columns] + [c for c in named if c not in sample.columns]
        self.known_ids = sorted(self.ids | set(self.own_test_id or self.test_ids))
        # The largest submission read: the view's test rows are the sample's and the held-out ones.
        rows_per_id = len(sample) / max(1, len(set(self.test_ids)))
        rows = len(sample) + round(rows_per_id * len(self.ids))
        self.size_limit = size_limit(sample, spec.id_column, rows, len(self.columns))
        self.test_size_limit = size_limit(sample, spec.id_column, len(sample), len(self.columns))  # a refit's
        # Each scored row's group where the split held out whole groups: the score's bootstrap resamples them.
        self.groups, self.groups_note = held_out_groups(holdout, self.spec, self.labels)

    def evaluate(self, submission: Path, test_out: Path, heldout_out: Path | None = None) -> HarnessResult:
        """Score the held-out rows of `submission`; write its other rows to `test_out` and, when they are
        scored, its held-out rows to `heldout_out` (owner-only, like the labels: what ensembles are built on)."""
        try:
            with open_regular_file(Path(submission), self.size_limit) as handle:
                frame = read_frame(handle, Path(submission).name)
        except InvalidSubmission as exc:
            return HarnessResult(None, str(exc), None)
        id_col = self.spec.id_column
        if id_col not in frame.columns:
            return HarnessResult(
                None, f"it has no {id_col!r} column, so the harness cannot find its rows", None
            )
        fills = get_metric(self.spec.name).blank_fills
        tolerated = tolerate(frame, id_col, self.columns, known_ids=self.known_ids, blank_fills=fills)
        ids = tolerated.frame[id_col].astype(str).str.strip()
        frame = tolerated.frame.assign(**{id_col: ids})
        held = ids.isin(self.ids)
        test = (
            ~held if not self.holdout.shifted else pd.Series(True, index=frame.index)
        )  # test ids scored too
        test_rows, test_ids = frame[test], ids[test]
        if self.own_test_id:  # the test rows under their own ids, as the competition grades them
            test_ids = test_ids.map(self.own_test_id).fillna(test_ids)
            test_rows = test_rows.assign(**{id_col: test_ids})
        test_rows, renormalised = renormalised_rows(
            test_rows, get_metric(self.spec.name), self.spec.target_columns
        )
        write_text_atomic(test_out, self._in_test_order(test_rows).to_csv(index=False))
        missing = sorted(self.ids - set(ids[held]))
        if missing:
            return HarnessResult(
                None,
                f"{len(missing)} of the {len(self.ids)} test rows the harness scores have no prediction "
                f"(ids {_shown(missing)}); predict every row of test.csv",
                test_out,
            )
        scored = held & ids.isin(self.scored)
        try:
            result, rows = scored_parts(frame[scored], self.labels, self.spec)
        except (InvalidSubmission, CompetitionError) as exc:
            return HarnessResult(
                None, f"its predictions for the rows the harness scores are invalid: {exc}", test_out
            )
        if heldout_out is not None:
            write_private(heldout_out, frame[scored].to_csv(index=False))
        notes = (*tolerated.notes, result.note or "", renormalised)
        interval = self.interval(rows, result.score)
        return HarnessResult(result.score, None, test_out, joined(notes), interval)

    def interval(self, rows: ScoredRows, score: float) -> ScoreInterval:
        """The score's bootstrap interval over the rows it came from (`swarm.competitions.score_interval`), or
        why there is none; never an exception, so that an interval's fault cannot cost a node its score."""
        try:
            return held_out_interval(rows, score, self.spec.labels, self.groups, self.groups_note)
        except Exception as exc:  # noqa: BLE001 - the score stands without its interval
            return no_interval(f"the interval could not be computed ({type(exc).__name__}: {exc})")

    def _in_test_order(self, rows: pd.DataFrame) -> pd.DataFrame:
        """The test rows (under the competition's own ids) in the sample's column order and, when they are
        exactly its rows, in its row order (else as written, for the submission check to report)."""
        rows = rows[
            [c for c in self.columns if c in rows.columns] + extra_columns(rows.columns, self.columns)
        ]
        if not set(self.keyed_by) <= set(rows.columns):
            return rows
        return in_order(rows, row_keys(rows, self.keyed_by), self.test_order)
