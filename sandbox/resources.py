"""What one solution may use on this host: `auto` CPUs and memory resolved from the machine and the number of
steps that run at once, and the CPU cores each running execution is pinned to.

A run gives every parallel step the same share: the host's cores divided by `search.parallel` (at least one),
and about 80% of its memory divided by `search.parallel` (the rest stays for the flow, the model clients and
the page cache). "The host" is what this process may use: its CPU affinity and, when smaller than the
machine's memory, the memory limit of the cgroup it runs in (a container's).
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sandbox.config import ExecutionConfig

MEMORY_SHARE = 0.8  # of the host's memory, split between the parallel steps
MIN_AUTO_MEMORY_MB = 256
CGROUP_ROOT = Path("/sys/fs/cgroup")
UNLIMITED = 1 << 60  # cgroup v1 reports "no limit" as a huge number near 2**63


@dataclass(frozen=True)
class HostResources:
    """The CPU cores this process may run on and the memory it may use (MB)."""

    cores: tuple[int, ...]
    memory_mb: int

    @property
    def cpu_count(self) -> int:
        return len(self.cores)


def _meminfo_total_mb(meminfo: Path = Path("/proc/meminfo")) -> int:
    for line in meminfo.read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    raise RuntimeError(f"{meminfo} has no MemTotal line")


def own_cgroups(proc_cgroup: Path = Path("/proc/self/cgroup")) -> dict[str, str]:
    """This process's cgroups: controller list ("" for v2) -> its path in that hierarchy."""
    own = {}
    for line in proc_cgroup.read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        own[controllers] = path
    return own


def cgroup_memory_limit_mb(
    proc_cgroup: Path = Path("/proc/self/cgroup"), root: Path = CGROUP_ROOT
) -> int | None:
    """The memory limit of the cgroup this process runs in (v2 `memory.max`, v1 `memory.limit_in_bytes`), in
    MB; None when there is none or it cannot be read."""
    try:
        own = own_cgroups(proc_cgroup)
    except OSError:
        return None
    for controllers, path in own.items():
        if controllers == "":
            candidates = [root / path.lstrip("/") / "memory.max", root / "memory.max"]
        elif "memory" in controllers.split(","):
            base = root / "memory"
            candidates = [base / path.lstrip("/") / "memory.limit_in_bytes", base / "memory.limit_in_bytes"]
        else:
            continue
        for candidate in candidates:
            with contextlib.suppress(OSError, ValueError):
                text = candidate.read_text().strip()
                if text != "max" and int(text) < UNLIMITED:
                    return int(text) // (1024 * 1024)
    return None


def host_resources() -> HostResources:
    """This process's CPU affinity and memory (the machine's, or its cgroup's limit when smaller)."""
    cores = tuple(sorted(os.sched_getaffinity(0)))
    memory = _meminfo_total_mb()
    limit = cgroup_memory_limit_mb()
    if limit is not None:
        memory = min(memory, limit)
    return HostResources(cores, memory)


def auto_cpus(host: HostResources, parallel: int) -> float:
    """The host's cores divided by the parallel steps, at least one."""
    return float(max(1, host.cpu_count // max(1, parallel)))


def auto_memory_mb(host: HostResources, parallel: int) -> int:
    """About 80% of the host's memory divided by the parallel steps (at least MIN_AUTO_MEMORY_MB)."""
    return max(MIN_AUTO_MEMORY_MB, int(host.memory_mb * MEMORY_SHARE / max(1, parallel)))


def resolve_resources(
    cfg: ExecutionConfig, parallel: int = 1, host: HostResources | None = None
) -> ExecutionConfig:
    """`cfg` with `auto` CPUs and memory turned into numbers for `parallel` steps at once on `host` (this
    one by default). `gpus_per_step=auto` needs the GPUs found, so sandbox.gpu_plan resolves it."""
    if cfg.cpus != "auto" and cfg.memory_mb != "auto":
        return cfg
    host = host or host_resources()
    update: dict[str, object] = {}
    if cfg.cpus == "auto":
        update["cpus"] = auto_cpus(host, parallel)
    if cfg.memory_mb == "auto":
        update["memory_mb"] = auto_memory_mb(host, parallel)
    return cfg.model_copy(update=update)


def thread_count(cpus: float) -> int:
    """The threads a solution given `cpus` CPUs should use (and the cores it is pinned to)."""
    return max(1, math.ceil(cpus))


# Thread pools that read their size from the environment (OpenMP: torch, LightGBM, XGBoost; BLAS; numexpr).
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def thread_environment(cpus: float) -> dict[str, str]:
    """The variables that size a solution's thread pools to its CPUs."""
    return dict.fromkeys(THREAD_VARS, str(thread_count(cpus)))


class CoreSlots:
    """Pins running executions to cores: each takes the `n` least-used cores, so executions that fit the host
    get disjoint cores and more than fit share them evenly. Never blocks."""

    def __init__(self, cores: tuple[int, ...] | None = None) -> None:
        self.cores = cores if cores is not None else tuple(sorted(os.sched_getaffinity(0)))
        self._use = dict.fromkeys(self.cores, 0)
        self._lock = threading.Lock()

    def in_use(self) -> dict[int, int]:
        with self._lock:
            return dict(self._use)

    @contextlib.contextmanager
    def acquire(self, count: int) -> Iterator[tuple[int, ...]]:
        """Hold `count` cores (all of them when count exceeds the host's) for the block."""
        with self._lock:
            order = sorted(self.cores, key=lambda core: (self._use[core], core))
            chosen = tuple(sorted(order[: max(1, min(count, len(order)))]))
            for core in chosen:
                self._use[core] += 1
        try:
            yield chosen
        finally:
            with self._lock:
                for core in chosen:
                    self._use[core] -= 1


CORE_SLOTS = CoreSlots()
