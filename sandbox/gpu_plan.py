"""Which GPUs a run may use and how many each execution holds (`execution.gpus`, `execution.gpus_per_step`),
resolved against the GPUs found on the host (sandbox.gpus)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sandbox.config import ExecutionConfig
from sandbox.gpus import GpuInfo, describe


class GpuUnavailable(ValueError):
    """The settings ask for GPUs this host does not have (or more per step than the run may use)."""


@dataclass(frozen=True)
class GpuPlan:
    """The run's GPUs; `per_step` of them go to each execution, `shares` executions may use one at once."""

    devices: tuple[GpuInfo, ...] = ()
    per_step: int = 0
    shares: int = 1

    @property
    def enabled(self) -> bool:
        return bool(self.devices) and self.per_step > 0

    def step_gpus(self) -> tuple[GpuInfo, ...]:
        """What one execution gets when nothing else runs (the GPUs a prompt describes)."""
        return self.devices[: self.per_step]

    def describe(self) -> str:
        if not self.enabled:
            return "no GPU"
        share = f", {self.shares} steps share each GPU" if self.shares > 1 else ""
        return f"{describe(self.devices)}; {self.per_step} per step{share}"

    def signature(self) -> dict[str, object]:
        """What decides what a solution sees (for caches of facts probed inside the sandbox)."""
        return {
            "devices": [g.device_id for g in self.devices],
            "per_step": self.per_step,
            "shares": self.shares,
        }


NO_GPUS = GpuPlan()


def _missing(what: str, found: Sequence[GpuInfo]) -> GpuUnavailable:
    return GpuUnavailable(
        f"execution.gpus asks for {what}, but this host has {describe(found)} (nvidia-smi / "
        "/proc/driver/nvidia); set execution.gpus=none (or auto) to run solutions without GPUs"
    )


def _by_ids(ids: list[str], found: Sequence[GpuInfo]) -> tuple[GpuInfo, ...]:
    chosen, unknown = [], []
    for wanted in ids:
        match = next((g for g in found if wanted in (g.index, g.uuid)), None)
        (chosen.append(match) if match is not None else unknown.append(wanted))
    if unknown:
        raise _missing(f"device{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}", found)
    if len(set(chosen)) != len(chosen):
        raise GpuUnavailable(f"execution.gpus names one GPU twice (by index and UUID): {ids}")
    return tuple(chosen)


def auto_per_step(gpus: int, parallel: int) -> tuple[int, int]:
    """`gpus_per_step=auto` as (GPUs per step, steps per GPU): whole GPUs when there are at least as many as
    the parallel steps (the GPUs split evenly between them), else one GPU shared by ceil(parallel / GPUs)
    steps, so that no step ever waits for a GPU."""
    parallel = max(1, parallel)
    if gpus >= parallel:
        return gpus // parallel, 1
    return 1, math.ceil(parallel / gpus)


def resolve_plan(cfg: ExecutionConfig, found: Sequence[GpuInfo], parallel: int = 1) -> GpuPlan:
    """The run's GpuPlan from the settings, the GPUs `found` and the steps run at once (`parallel`, for
    `gpus_per_step=auto`); GpuUnavailable when they cannot be met."""
    setting = cfg.gpus
    if setting == "none":
        return NO_GPUS
    if setting in ("auto", "all"):
        if setting == "all" and not found:
            raise _missing("all GPUs", found)
        devices = tuple(found)
    elif isinstance(setting, int):
        if setting > len(found):
            raise _missing(f"{setting} GPU{'s' if setting > 1 else ''}", found)
        devices = tuple(found[:setting])
    else:
        devices = _by_ids(list(setting), found)
    if not devices:
        return NO_GPUS
    per_step = cfg.gpus_per_step
    if per_step == "auto":
        whole, shares = auto_per_step(len(devices), parallel)
        return GpuPlan(devices, whole, shares)
    if per_step == "all":
        return GpuPlan(devices, len(devices), 1)
    if per_step >= 1:
        if per_step > len(devices):
            raise GpuUnavailable(
                f"execution.gpus_per_step={per_step} but the run may use only {describe(devices)}; lower "
                "gpus_per_step or give the run more GPUs (execution.gpus)"
            )
        return GpuPlan(devices, int(per_step), 1)
    return GpuPlan(devices, 1, cfg.gpu_shares)
