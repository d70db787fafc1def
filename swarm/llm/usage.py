"""Usage accounting: one record per model-call attempt, priced from the config's price table.

`UsageLedger` appends each record as a JSON line to a file in the run dir (thread-safe), keeps running totals
by stage / agent / model, and enforces the run's spend cap: once the total cost reaches the cap,
`cap_reached` is true and `check_cap()` raises `SpendCapReached`.
"""

from __future__ import annotations

import fcntl
import json
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from swarm.config import LLMConfig, ModelPrice
from swarm.llm.base import CallContext, SpendCapReached

USAGE_FILE = "llm_usage.jsonl"
# Prompt-cache prices as multiples of the input price, when the price table gives none of its own.
# Anthropic's published rule: cache reads cost 0.1x, cache writes (5-minute TTL) 1.25x the input price.
# Other providers' cached tokens are priced at the full input price (an upper bound) unless configured.
CACHE_FACTORS: dict[str, tuple[float, float]] = {"anthropic": (0.1, 1.25)}
GroupBy = Literal["stage", "agent", "model", "provider", "kind"]


@dataclass(frozen=True)
class UsageRecord:
    """One attempt at a model call, successful or not. Tokens are what the server reported, or estimates
    (`estimated`) when it reported none; 0 for failed requests.

    `prompt_tokens` counts every input token; `cache_read_tokens` and `cache_creation_tokens` are the parts
    of it the provider read from / wrote to its prompt cache (priced differently, see `cost_usd`).
    """

    ts: float
    provider: str
    model: str
    stage: str
    kind: str
    run_id: str | None
    epoch: int | None
    node_id: str | None
    agent_id: str | None
    mode: str
    attempt: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cost_usd: float
    priced: bool
    ok: bool
    error: str | None = None
    status: int | None = None
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    estimated: bool = False  # the endpoint reported no usage; tokens estimated (see swarm.llm.estimate)

    @classmethod
    def for_call(cls, ctx: CallContext, provider: str, model: str, **fields: Any) -> UsageRecord:
        """A record attributed from `ctx` (hints are never copied)."""
        return cls(
            provider=provider,
            model=model,
            stage=ctx.stage,
            kind=ctx.kind,
            run_id=ctx.run_id,
            epoch=ctx.epoch,
            node_id=ctx.node_id,
            agent_id=ctx.agent_id,
            **fields,
        )

    @classmethod
    def priced_call(
        cls, ctx: CallContext, provider: str, model: str, prices: Mapping[str, ModelPrice], **fields: Any
    ) -> UsageRecord:
        """A record from `for_call` whose cost comes from its tokens and `prices` (see `cost_usd`)."""
        cost, priced = cost_usd(
            model,
            fields.get("prompt_tokens", 0),
            fields.get("completion_tokens", 0),
            prices,
            provider=provider,
            cache_read_tokens=fields.get("cache_read_tokens", 0),
            cache_creation_tokens=fields.get("cache_creation_tokens", 0),
        )
        return cls.for_call(ctx, provider, model, cost_usd=cost, priced=priced, **fields)


@dataclass
class UsageTotals:
    """Sums over a group of records."""

    calls: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    latency_s: float = 0.0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    estimated_calls: int = 0  # calls whose tokens (so cost) are estimates: the endpoint reported no usage

    def add(self, record: UsageRecord) -> None:
        self.calls += 1
        self.estimated_calls += 1 if record.estimated else 0
        self.failed += 0 if record.ok else 1
        self.prompt_tokens += record.prompt_tokens
        self.completion_tokens += record.completion_tokens
        self.cache_read_tokens += record.cache_read_tokens
        self.cache_creation_tokens += record.cache_creation_tokens
        self.cost_usd += record.cost_usd
        self.latency_s += record.latency_s
        if not record.priced and (record.prompt_tokens or record.completion_tokens):
            self.unpriced_calls += 1


def find_price(model: str, prices: Mapping[str, ModelPrice]) -> ModelPrice | None:
    """The price of `model`: an exact entry, else the longest entry that prefixes it (dated snapshots)."""
    if model in prices:
        return prices[model]
    matches = [name for name in prices if model.startswith(name)]
    return prices[max(matches, key=len)] if matches else None


def cost_usd(
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    prices: Mapping[str, ModelPrice],
    *,
    provider: str | None = None,
    cache_read_tokens: int = 0,
    cache_creation_tokens: int = 0,
) -> tuple[float, bool]:
    """(cost in USD, whether the model was in the price table). Unknown models cost 0.

    `prompt_tokens` includes the cache tokens. Cache reads and writes are priced by the price entry's
    `cache_read_per_mtok` / `cache_write_per_mtok` when it has them, else by CACHE_FACTORS[provider] times the
    input price (the full input price for providers without a rule).
    """
    price = find_price(model, prices)
    if price is None:
        return 0.0, False
    read_price, write_price = cache_prices(price, provider)
    uncached = max(prompt_tokens - cache_read_tokens - cache_creation_tokens, 0)
    cost = (
        uncached * price.input_per_mtok
        + cache_read_tokens * read_price
        + cache_creation_tokens * write_price
        + completion_tokens * price.output_per_mtok
    ) / 1e6
    return cost, True


def cache_prices(price: ModelPrice, provider: str | None) -> tuple[float, float]:
    """(cache-read, cache-write) USD per million tokens for `price` at `provider`."""
    read_factor, write_factor = CACHE_FACTORS.get(provider or "", (1.0, 1.0))
    read = getattr(price, "cache_read_per_mtok", None)
    write = getattr(price, "cache_write_per_mtok", None)
    return (
        price.input_per_mtok * read_factor if read is None else float(read),
        price.input_per_mtok * write_factor if write is None else float(write),
    )


_GROUP_FIELDS: dict[str, str] = {
    "stage": "stage",
    "agent": "agent_id",
    "model": "model",
    "provider": "provider",
    "kind": "kind",
}


@dataclass
class UsageLedger:
    """All attempts of a run. `path=None` keeps records in memory only.

    With `resume=True` an existing file is read first, so totals and the spend cap carry over a restart.
    Several processes may share one file (e.g. Dask workers running steps): each appends its records under
    an `fcntl` lock in one write, and every reader follows the lines the others appended, so totals and the
    spend cap count the whole run's spend.
    """

    path: Path | None = None
    spend_cap_usd: float | None = None
    resume: bool = True
    _records: list[UsageRecord] = field(default_factory=list, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _total_cost: float = field(default=0.0, init=False)
    _offset: int = field(default=0, init=False, repr=False)  # bytes of the file already read

    def __post_init__(self) -> None:
        if self.spend_cap_usd is not None and self.spend_cap_usd < 0:
            raise ValueError(f"spend_cap_usd must be >= 0, got {self.spend_cap_usd}")
        if self.path is not None:
            self.path = Path(self.path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists():
                if self.resume:
                    self._follow()
                else:
                    self._offset = self.path.stat().st_size

    def _follow(self) -> None:
        """Take in the complete lines appended to the file since the last read (the caller holds _lock)."""
        if self.path is None or not self.path.exists():
            return
        with self.path.open("rb") as fh:
            fh.seek(self._offset)
            chunk = fh.read()
        end = chunk.rfind(b"\n") + 1  # a line still being written is read next time
        for record in parse_lines(chunk[:end].decode("utf-8"), self.path):
            self._records.append(record)
            self._total_cost += record.cost_usd
        self._offset += end

    def record(self, record: UsageRecord) -> None:
        """Append one record (to memory and, when a path is set, as one JSON line)."""
        line = (json.dumps(asdict(record), sort_keys=True) + "\n").encode("utf-8")
        with self._lock:
            if self.path is None:
                self._records.append(record)
                self._total_cost += record.cost_usd
                return
            with self.path.open("ab") as fh:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
                try:
                    self._follow()  # others' lines first, so the offset stays at a line boundary
                    fh.write(line)
                    fh.flush()
                finally:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
            self._records.append(record)
            self._total_cost += record.cost_usd
            self._offset += len(line)

    @property
    def records(self) -> list[UsageRecord]:
        with self._lock:
            self._follow()
            return list(self._records)

    @property
    def total_cost_usd(self) -> float:
        with self._lock:
            self._follow()
            return self._total_cost

    @property
    def cap_reached(self) -> bool:
        return self.spend_cap_usd is not None and self.total_cost_usd >= self.spend_cap_usd

    def check_cap(self) -> None:
        """Raise SpendCapReached when the spend cap is reached."""
        if self.cap_reached:
            raise SpendCapReached(
                f"spend cap reached: ${self.total_cost_usd:.4f} spent of a ${self.spend_cap_usd:.4f} cap"
            )

    def totals(self, by: GroupBy | None = None) -> dict[str, UsageTotals]:
        """Totals per group (`stage`, `agent`, `model`, `provider`, `kind`); `by=None` gives {"all": ...}."""
        if by is not None and by not in _GROUP_FIELDS:
            raise ValueError(f"cannot group usage by {by!r}; expected one of {', '.join(_GROUP_FIELDS)}")
        groups: dict[str, UsageTotals] = {}
        for record in self.records:
            key = "all" if by is None else str(getattr(record, _GROUP_FIELDS[by]))
            groups.setdefault(key, UsageTotals()).add(record)
        return groups

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary: overall totals and totals by stage, agent and model."""
        overall = self.totals().get("all", UsageTotals())
        return {
            "total": asdict(overall),
            "spend_cap_usd": self.spend_cap_usd,
            "cap_reached": self.cap_reached,
            **{
                f"by_{by}": {k: asdict(v) for k, v in self.totals(by).items()}
                for by in ("stage", "agent", "model")
            },
        }


def ledger_for_run(run_dir: Path, llm: LLMConfig) -> UsageLedger:
    """The ledger of a run: `<run_dir>/llm_usage.jsonl`, capped at `llm.spend_cap_usd`, resumed if present."""
    return UsageLedger(Path(run_dir) / USAGE_FILE, spend_cap_usd=llm.spend_cap_usd)


def read_records(path: Path) -> list[UsageRecord]:
    """Records from a ledger file; a line that does not parse raises ValueError naming the line."""
    return parse_lines(Path(path).read_text(encoding="utf-8"), path)


def parse_lines(text: str, path: Path) -> list[UsageRecord]:
    """Records from ledger lines; a line that does not parse raises ValueError naming the file."""
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(UsageRecord(**json.loads(line)))
        except (json.JSONDecodeError, TypeError) as exc:
            raise ValueError(f"{path}:{number} is not a usage record: {exc}") from None
    return records
