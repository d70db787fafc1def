"""Picking a backend from the config; never a silent fallback to unconfined execution.

docker: the Docker backend, or SandboxUnavailable (no engine, or no image).
bwrap: bubblewrap (sandbox.bwrap_backend), or SandboxUnavailable (no user namespaces here, say).
local: the slot-uid supervisor (root, with an interpreter the slot uids can run), else bwrap, else refuses.
unsafe-local: the caller's own rights, NOT isolated: warns on every run (the explicit opt-in).
auto: docker, then bwrap, then refuses with one sentence naming the ways out.
"""

from __future__ import annotations

import logging

from sandbox.base import Sandbox, SandboxUnavailable
from sandbox.config import ExecutionConfig
from sandbox.local import LocalSandbox
from sandbox.unsafe_local import UnsafeLocalSandbox

log = logging.getLogger(__name__)


def _docker(cfg: ExecutionConfig, parallel: int) -> Sandbox:
    from sandbox.docker_backend import DockerSandbox

    return DockerSandbox(cfg, parallel)


def _bwrap(cfg: ExecutionConfig, parallel: int) -> Sandbox:
    from sandbox.bwrap_backend import BwrapSandbox

    return BwrapSandbox(cfg, parallel)


def no_sandbox_message(docker_reason: str, bwrap_reason: str) -> str:
    """The one sentence `auto` refuses with."""
    return (
        f"No sandbox can run solutions here (Docker: {docker_reason}; bubblewrap: {bwrap_reason}): start a "
        "Docker engine (sandbox/setup_engine.sh), or allow unprivileged user namespaces "
        "(sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0), "
        "or run solutions unconfined with your own rights by setting execution.sandbox=unsafe-local."
    )


def make_sandbox(cfg: ExecutionConfig, parallel: int = 1) -> Sandbox:
    """The backend `cfg.sandbox` asks for (see the module doc); raises SandboxUnavailable when it cannot run.

    `parallel` is how many executions run at once (`search.parallel`): `auto` CPUs, memory and GPU shares are
    the host's divided between them."""
    if not isinstance(cfg, ExecutionConfig):
        raise TypeError(f"make_sandbox needs an ExecutionConfig, got {type(cfg).__name__}")
    if cfg.sandbox == "unsafe-local":
        sandbox = UnsafeLocalSandbox(cfg, parallel)
        log.warning("execution.sandbox=unsafe-local: %s", sandbox.description)
        return sandbox
    if cfg.sandbox == "docker":
        return _docker(cfg, parallel)
    if cfg.sandbox == "bwrap":
        return _bwrap(cfg, parallel)
    if cfg.sandbox == "local":
        try:
            return LocalSandbox(cfg, parallel)
        except SandboxUnavailable as exc:
            log.info("execution.sandbox=local: %s; using bubblewrap instead", exc)
            return _bwrap(cfg, parallel)
    try:
        return _docker(cfg, parallel)
    except SandboxUnavailable as exc:
        docker_reason = str(exc)
    try:
        sandbox = _bwrap(cfg, parallel)
    except SandboxUnavailable as exc:
        raise SandboxUnavailable(no_sandbox_message(docker_reason, str(exc))) from None
    log.info("execution.sandbox=auto: Docker is not usable (%s); using bubblewrap", docker_reason)
    return sandbox
