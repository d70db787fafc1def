"""GPU slots for parallel executions: each running execution holds its GPU set for its whole lifetime.

One pool per process (`GPU_POOL`): a run's steps are threads of one flow process, so an in-process pool is
exact. A GPU carries `1/shares` of load per holder and never more than 1 in all, so with shares = 1 no two
executions ever hold the same GPU. Waiters are served first come, first served (a step needing two GPUs is
not starved by a stream of one-GPU steps). Processes on one machine (several workers) must be given disjoint
`execution.gpus`: this pool does not see across processes.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections import deque
from collections.abc import Callable, Iterator
from fractions import Fraction

from sandbox.gpu_plan import GpuPlan
from sandbox.gpus import GpuInfo

WAIT_SLICE_S = 0.5  # waits in slices so an exception raised into the thread (a cancelled task) arrives
WaitCallback = Callable[[bool], None]  # called with True when an execution starts waiting, False once served


class GpuPool:
    """Hands out GPU sets; a set is held for the duration of the `acquire` block."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._load: dict[str, Fraction] = {}
        self._queue: deque[int] = deque()
        self._tickets = itertools.count()

    def load(self, device_id: str) -> Fraction:
        """How much of a GPU is held now (1 = taken exclusively or by all its shares)."""
        with self._cond:
            return self._load.get(device_id, Fraction(0))

    def _pick(self, plan: GpuPlan) -> tuple[GpuInfo, ...] | None:
        share = Fraction(1, plan.shares)
        free = [g for g in plan.devices if self._load.get(g.device_id, Fraction(0)) + share <= 1]
        if len(free) < plan.per_step:
            return None
        order = sorted(range(len(free)), key=lambda i: (self._load.get(free[i].device_id, Fraction(0)), i))
        return tuple(free[i] for i in sorted(order[: plan.per_step]))

    def _take(self, plan: GpuPlan, on_wait: WaitCallback | None) -> tuple[GpuInfo, ...]:
        ticket = next(self._tickets)
        waiting = False
        with self._cond:
            self._queue.append(ticket)
            try:
                while True:
                    chosen = self._pick(plan) if self._queue[0] == ticket else None
                    if chosen is not None:
                        break
                    if not waiting and on_wait is not None:
                        on_wait(True)
                    waiting = True
                    self._cond.wait(WAIT_SLICE_S)
                for gpu in chosen:
                    self._load[gpu.device_id] = self._load.get(gpu.device_id, Fraction(0)) + Fraction(
                        1, plan.shares
                    )
            finally:
                self._queue.remove(ticket)
                self._cond.notify_all()
        if waiting and on_wait is not None:
            on_wait(False)
        return chosen

    def _give_back(self, plan: GpuPlan, gpus: tuple[GpuInfo, ...]) -> None:
        with self._cond:
            for gpu in gpus:
                left = self._load.get(gpu.device_id, Fraction(0)) - Fraction(1, plan.shares)
                if left > 0:
                    self._load[gpu.device_id] = left
                else:
                    self._load.pop(gpu.device_id, None)
            self._cond.notify_all()

    @contextlib.contextmanager
    def acquire(self, plan: GpuPlan, on_wait: WaitCallback | None = None) -> Iterator[tuple[GpuInfo, ...]]:
        """Hold `plan.per_step` GPUs of `plan` (none when the plan has none) for the block; `on_wait(True)`
        when they are busy and the caller waits, `on_wait(False)` when it got them."""
        if not plan.enabled:
            yield ()
            return
        gpus = self._take(plan, on_wait)
        try:
            yield gpus
        finally:
            self._give_back(plan, gpus)


GPU_POOL = GpuPool()
