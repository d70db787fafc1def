"""Picking a backend from the config."""

from __future__ import annotations

import logging

from sandbox.base import Sandbox, SandboxUnavailable
from sandbox.local import LocalSandbox
from swarm.config import ExecutionConfig

log = logging.getLogger(__name__)


def make_sandbox(cfg: ExecutionConfig) -> Sandbox:
    """The backend `cfg.sandbox` asks for.

    docker: raise SandboxUnavailable when no engine answers or the image is missing.
    local: always works (isolated only when running as root).
    auto: docker when possible, else local with a warning that local execution is not isolated like Docker.
    """
    if not isinstance(cfg, ExecutionConfig):
        raise TypeError(f"make_sandbox needs an ExecutionConfig, got {type(cfg).__name__}")
    if cfg.sandbox == "local":
        return LocalSandbox(cfg)
    try:
        from sandbox.docker_backend import DockerSandbox

        return DockerSandbox(cfg)
    except SandboxUnavailable as exc:
        if cfg.sandbox == "docker":
            raise
        log.warning(
            "sandbox=auto: Docker is not usable (%s); falling back to the LOCAL backend, which has no "
            "network or filesystem isolation. Untrusted code runs on this machine.",
            exc,
        )
        return LocalSandbox(cfg)
