"""The experience pool: what each agent did, on which kind of task, and how well it went.

Storage is one JSON Lines file. Every `add` appends one line under an exclusive `fcntl` lock on a sibling
`<file>.lock` (plus a thread lock), with a single `write` and an `fsync`, so a crash loses at most the record
being written. A torn last line (a process killed mid-write) is skipped on load with a warning; the next
writer first terminates it with a newline so it never swallows a good record. When the file holds more than
`max_records * (1 + compact_margin)` lines it is compacted: the newest `max_records` records are rewritten to
a temporary file that atomically replaces the old one.

Readers follow the file incrementally (new bytes since the last read), and reload in full when another
process has compacted it, so several processes can share one pool.

API:
    ExperienceRecord(agent_id, task_type, input_hash, quality, success, strategy_summary, node_id,
                     timestamp=now, metric=None)
    pool = ExperiencePool(path, max_records=10_000, compact_margin=0.2)
    pool.add(record)
    pool.top_k(task_type, k, *, agent_id=None, min_quality=0.0, lower_is_better=None)
        -> list[ExperienceRecord]                       # successes only, best first
    pool.stats(agent_id, *, lower_is_better=None) -> AgentStats(count, success_rate, mean_quality)
    pool.stats_by_agent(*, lower_is_better=None) -> dict[str, AgentStats]
    pool.records() -> list[ExperienceRecord]
    pool.rescored(lower_is_better) -> list[ExperienceRecord]   # qualities as they stand now (see below)
    input_hash(*parts) -> str

Fresh quality. A record's stored `quality` was computed against the good nodes known when it was recorded,
so it goes stale: an early mediocre baseline scored 1.0 while it was the only good node. With
`lower_is_better` given, queries re-score every successful record against all the other successful records
of the pool now (`swarm.ga.fitness.normalise` over their `metric`; a success without a finite metric gets 0.0)
and filter and rank on those fresh scores; the records they return carry the fresh score as `quality`.
Failed records keep their stored quality. With `lower_is_better=None` the stored qualities are used.
A pool holds one run, so one metric; do not share a pool between competitions.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import logging
import math
import os
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from swarm.atomic import PUBLIC, append_bytes_durable, write_bytes_atomic
from swarm.ga.fitness import normalise

log = logging.getLogger(__name__)


class ExperienceError(ValueError):
    """A record or a query is invalid; the message names the field."""


def input_hash(*parts: str) -> str:
    """A short stable hash of what a node was given (e.g. parent code and task type)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class ExperienceRecord:
    """One node's outcome. `quality` is its normalised fitness in [0, 1] (higher is better)."""

    agent_id: str
    task_type: str
    input_hash: str
    quality: float
    success: bool
    strategy_summary: str
    node_id: str
    timestamp: float = field(default_factory=time.time)
    metric: float | None = None

    def __post_init__(self) -> None:
        for name in ("agent_id", "task_type", "node_id"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ExperienceError(f"record field {name} must be a non-empty string, got {value!r}")
        if not isinstance(self.quality, int | float) or not 0.0 <= float(self.quality) <= 1.0:
            raise ExperienceError(f"record field quality must be in [0, 1], got {self.quality!r}")
        if not isinstance(self.success, bool):
            raise ExperienceError(f"record field success must be a bool, got {self.success!r}")
        if self.metric is not None and not math.isfinite(self.metric):
            raise ExperienceError(f"record field metric must be finite or None, got {self.metric!r}")

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict) -> ExperienceRecord:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class AgentStats:
    """Counts over all of an agent's records; `mean_quality` counts failures as their (low) quality."""

    count: int
    success_rate: float
    mean_quality: float


class ExperiencePool:
    """A bounded, persistent, thread- and process-safe pool of `ExperienceRecord`s."""

    def __init__(self, path: str | Path, max_records: int = 10_000, compact_margin: float = 0.2) -> None:
        if max_records < 1:
            raise ExperienceError(f"max_records must be >= 1, got {max_records}")
        if compact_margin < 0:
            raise ExperienceError(f"compact_margin must be >= 0, got {compact_margin}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.max_records = max_records
        self.compact_margin = compact_margin
        self._lock_path = self.path.with_name(self.path.name + ".lock")
        self._thread_lock = threading.RLock()
        self._records: list[ExperienceRecord] = []
        self._offset = 0
        self._lines_on_disk = 0
        self._identity: tuple[int, bytes] | None = None
        self._torn_warned_at = -1
        with self._locked(exclusive=False):
            self._refresh()

    # -- locking and reading -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self, exclusive: bool) -> Iterator[None]:
        with self._thread_lock, open(self._lock_path, "a+b") as lock_file:
            fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            try:
                yield
            finally:
                fcntl.flock(lock_file.fileno(), fcntl.LOCK_UN)

    def _refresh(self) -> None:
        """Read what other writers appended since the last read (the caller holds the lock).

        The file's identity is its inode plus its first line: compaction always drops the oldest line, so a
        compacted file is recognised even if the file system reuses the old inode number."""
        try:
            f = open(self.path, "rb")  # noqa: SIM115 - closed by the `with f:` below
        except FileNotFoundError:
            self._reset(None)
            return
        with f:
            identity = (os.fstat(f.fileno()).st_ino, f.readline())
            size = os.fstat(f.fileno()).st_size
            if identity != self._identity or size < self._offset:
                self._reset(identity)
            if size == self._offset:
                return
            f.seek(self._offset)
            chunk = f.read()
        end = chunk.rfind(b"\n") + 1  # only complete lines; a torn tail is read again next time
        for lineno, raw in enumerate(chunk[:end].splitlines(), start=self._lines_on_disk + 1):
            self._lines_on_disk += 1
            if not raw.strip():
                continue
            try:
                self._records.append(ExperienceRecord.from_dict(json.loads(raw)))
            except (ValueError, TypeError) as exc:
                log.warning("experience pool %s: skipping bad line %d: %s", self.path, lineno, exc)
        self._offset += end
        if end < len(chunk) and self._torn_warned_at != self._offset:
            self._torn_warned_at = self._offset
            log.warning("experience pool %s: ignoring an unterminated last line (a torn write)", self.path)

    def _reset(self, identity: tuple[int, bytes] | None) -> None:
        self._records, self._offset, self._lines_on_disk = [], 0, 0
        self._identity, self._torn_warned_at = identity, -1

    # -- writing -------------------------------------------------------------------------------------

    def add(self, record: ExperienceRecord) -> None:
        """Append `record` durably; compact the file when it has grown past its bound."""
        if not isinstance(record, ExperienceRecord):
            raise ExperienceError(f"add() takes an ExperienceRecord, got {type(record).__name__}")
        line = record.to_json().encode("utf-8") + b"\n"
        with self._locked(exclusive=True):
            size = self.path.stat().st_size if self.path.exists() else 0
            if size and _last_byte(self.path, size) != b"\n":
                line = b"\n" + line  # terminate a torn line left by a killed writer
            append_bytes_durable(self.path, line, create_mode=PUBLIC)
            self._refresh()
            if self._lines_on_disk > self.max_records * (1 + self.compact_margin):
                self._compact()

    def _compact(self) -> None:
        """Rewrite the newest `max_records` records atomically (the caller holds the exclusive lock)."""
        keep = self._records[-self.max_records :]
        data = b"".join(r.to_json().encode("utf-8") + b"\n" for r in keep)
        write_bytes_atomic(self.path, data, mode=PUBLIC)
        self._identity = None
        self._refresh()

    # -- queries -------------------------------------------------------------------------------------

    def records(self) -> list[ExperienceRecord]:
        """All records currently in the pool, oldest first."""
        with self._locked(exclusive=False):
            self._refresh()
            return list(self._records)

    def rescored(self, lower_is_better: bool) -> list[ExperienceRecord]:
        """All records, oldest first, each success re-scored against every other success of the pool now.

        A success's `quality` becomes its `swarm.ga.fitness.normalise` fitness among the `metric`s of all
        successful records (0.0 without a finite metric); failed records keep their stored quality."""
        if not isinstance(lower_is_better, bool):
            raise ExperienceError(f"lower_is_better must be a bool, got {lower_is_better!r}")
        return _rescore(self.records(), lower_is_better)

    def _current(self, lower_is_better: bool | None) -> list[ExperienceRecord]:
        """Records with stored qualities (`None`) or fresh ones (a bool, see `rescored`)."""
        if lower_is_better is None:
            return self.records()
        return self.rescored(lower_is_better)

    def top_k(
        self,
        task_type: str | Iterable[str] | None,
        k: int,
        *,
        agent_id: str | None = None,
        min_quality: float = 0.0,
        lower_is_better: bool | None = None,
    ) -> list[ExperienceRecord]:
        """The `k` best successful records of `task_type` (one type, several, or None for any).

        With `lower_is_better` given, quality is re-scored now across all successful records of the pool
        (every task type and agent), then `min_quality`, `task_type` and `agent_id` filter on the fresh
        scores; with None the stored qualities are used. Ties on quality go to the newest record; the same
        input hash appears at most once."""
        if k < 0:
            raise ExperienceError(f"k must be >= 0, got {k}")
        types = {task_type} if isinstance(task_type, str) else (set(task_type) if task_type else None)
        chosen = [
            r
            for r in self._current(lower_is_better)
            if r.success
            and r.quality >= min_quality
            and (types is None or r.task_type in types)
            and (agent_id is None or r.agent_id == agent_id)
        ]
        chosen.sort(key=lambda r: (r.quality, r.timestamp), reverse=True)
        out: list[ExperienceRecord] = []
        seen: set[str] = set()
        for r in chosen:
            if len(out) >= k:
                break
            if r.input_hash in seen:
                continue
            seen.add(r.input_hash)
            out.append(r)
        return out

    def stats(self, agent_id: str, *, lower_is_better: bool | None = None) -> AgentStats:
        """Count, success rate and mean quality of one agent's records (zeros when it has none).

        `lower_is_better` as in `top_k`: given, mean quality uses the fresh scores of the successes."""
        return _stats([r for r in self._current(lower_is_better) if r.agent_id == agent_id])

    def stats_by_agent(self, *, lower_is_better: bool | None = None) -> dict[str, AgentStats]:
        """`stats` for every agent that has at least one record."""
        by_agent: dict[str, list[ExperienceRecord]] = {}
        for r in self._current(lower_is_better):
            by_agent.setdefault(r.agent_id, []).append(r)
        return {agent: _stats(recs) for agent, recs in sorted(by_agent.items())}

    def __len__(self) -> int:
        return len(self.records())


def _rescore(records: list[ExperienceRecord], lower_is_better: bool) -> list[ExperienceRecord]:
    """`records` with every success's quality replaced by its fitness among all successes' metrics."""
    wins = [i for i, r in enumerate(records) if r.success]
    fresh = normalise([records[i].metric for i in wins], lower_is_better=lower_is_better)
    out = list(records)
    for i, quality in zip(wins, fresh, strict=True):
        if out[i].quality != quality:
            out[i] = dataclasses.replace(out[i], quality=quality)
    return out


def _stats(records: list[ExperienceRecord]) -> AgentStats:
    if not records:
        return AgentStats(count=0, success_rate=0.0, mean_quality=0.0)
    n = len(records)
    return AgentStats(
        count=n,
        success_rate=sum(r.success for r in records) / n,
        mean_quality=sum(r.quality for r in records) / n,
    )


def _last_byte(path: Path, size: int) -> bytes:
    with open(path, "rb") as f:
        f.seek(size - 1)
        return f.read(1)
