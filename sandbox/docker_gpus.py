"""GPUs in Docker containers: the device request of one execution, and whether the engine can honour one.

The engine passes GPUs to a container through NVIDIA's container toolkit: a runtime named `nvidia` in
`docker info`'s Runtimes, or its prestart hook (`nvidia-container-runtime-hook`) on the engine's PATH.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Sequence

import docker
import requests
from docker.errors import DockerException
from docker.types import DeviceRequest

from sandbox.base import SandboxUnavailable
from sandbox.config import ExecutionConfig
from sandbox.gpu_plan import NO_GPUS, GpuPlan
from sandbox.gpus import GpuInfo

log = logging.getLogger(__name__)

HOOK = "nvidia-container-runtime-hook"


def device_requests(gpus: Sequence[GpuInfo]) -> list[DeviceRequest]:
    """The container's GPUs by id (UUID, else index): exactly these, never "all" or a count."""
    if not gpus:
        return []
    return [DeviceRequest(driver="nvidia", device_ids=[g.device_id for g in gpus], capabilities=[["gpu"]])]


def engine_runtimes(client: docker.DockerClient) -> list[str]:
    """The runtimes `docker info` lists (empty when the engine does not say)."""
    try:
        return sorted((client.info() or {}).get("Runtimes") or {})
    except (DockerException, requests.exceptions.RequestException) as exc:
        log.info("docker info failed: %s", exc)
        return []


def has_nvidia_runtime(runtimes: Sequence[str], hook_on_path: bool) -> bool:
    return "nvidia" in runtimes or hook_on_path


def check_gpu_support(client: docker.DockerClient, cfg: ExecutionConfig, plan: GpuPlan) -> GpuPlan:
    """`plan` when the engine can give containers GPUs (or none are wanted). Without an NVIDIA runtime:
    SandboxUnavailable when the settings ask for GPUs, a warning and no GPUs when they are `auto`."""
    if not plan.enabled:
        return plan
    runtimes = engine_runtimes(client)
    if has_nvidia_runtime(runtimes, shutil.which(HOOK) is not None):
        return plan
    found = ", ".join(runtimes) or "none listed"
    if cfg.gpus == "auto":
        log.warning(
            "this host has GPUs but the Docker engine has no NVIDIA runtime (runtimes: %s): solutions run "
            "without GPUs (install the NVIDIA container toolkit, or use execution.sandbox=bwrap)",
            found,
        )
        return NO_GPUS
    raise SandboxUnavailable(
        f"execution.gpus={cfg.gpus} asks for GPUs but the Docker engine has no NVIDIA runtime (runtimes: "
        f"{found}; install nvidia-container-toolkit and run `nvidia-ctk runtime configure --runtime=docker`), "
        "so containers cannot use them; use execution.sandbox=bwrap, or execution.gpus=none"
    )
