"""The host's NVIDIA GPUs: what `nvidia-smi` (else /proc/driver/nvidia) lists, and what a solution needs to
use some of them: their device nodes (bwrap) and the `CUDA_VISIBLE_DEVICES` naming them (bwrap, local).

No GPU (no driver, no `nvidia-smi`) is an empty list, never an error.
"""

from __future__ import annotations

import functools
import logging
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger(__name__)

SMI_FIELDS = "index,name,memory.total,uuid,minor_number"
PROC_GPUS = Path("/proc/driver/nvidia/gpus")
# Control nodes every CUDA process opens (each bound when present); /dev/nvidia<minor> is one GPU.
CONTROL_NODES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset")


@dataclass(frozen=True)
class GpuInfo:
    """One GPU: nvidia-smi's index, its name, memory (MB, 0 when unknown), UUID and device minor number."""

    index: str
    name: str = "NVIDIA GPU"
    memory_mb: int = 0
    uuid: str = ""
    minor: int | None = None

    @property
    def device_id(self) -> str:
        """How CUDA and Docker name it whatever the enumeration order: its UUID, else its index."""
        return self.uuid or self.index

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _int(text: str) -> int | None:
    match = re.search(r"\d+", text)
    return int(match.group()) if match else None


def parse_nvidia_smi(text: str) -> list[GpuInfo]:
    """GPUs from `nvidia-smi --query-gpu=index,name,memory.total[,uuid,minor_number] --format=csv,noheader`."""
    gpus = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) < 3 or not cells[0].isdigit():
            continue
        uuid = cells[3] if len(cells) > 3 and cells[3].startswith(("GPU-", "MIG-")) else ""
        minor = _int(cells[4]) if len(cells) > 4 else None
        gpus.append(GpuInfo(cells[0], cells[1], _int(cells[2]) or 0, uuid, minor))
    return gpus


def parse_proc_information(index: int, text: str) -> GpuInfo:
    """One GPU from its /proc/driver/nvidia/gpus/<bus>/information file (no memory size there)."""
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip().lower()] = value.strip()
    uuid = fields.get("gpu uuid", "")
    return GpuInfo(
        str(index),
        fields.get("model") or "NVIDIA GPU",
        0,
        uuid if uuid.startswith("GPU-") else "",
        _int(fields.get("device minor", "")),
    )


def _from_smi(smi: str) -> list[GpuInfo] | None:
    try:
        done = subprocess.run(
            [smi, f"--query-gpu={SMI_FIELDS}", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("nvidia-smi did not run: %s", exc)
        return None
    if done.returncode != 0:  # e.g. "No devices were found", or a driver/library mismatch
        log.info("nvidia-smi found no usable GPU: %s", (done.stderr or done.stdout).strip()[:200])
        return None
    return parse_nvidia_smi(done.stdout)


def _from_proc(root: Path) -> list[GpuInfo]:
    try:
        buses = sorted(entry for entry in root.iterdir() if (entry / "information").is_file())
    except OSError:
        return []
    gpus = []
    for index, bus in enumerate(buses):  # bus-id order, nvidia-smi's default order
        try:
            gpus.append(parse_proc_information(index, (bus / "information").read_text(errors="replace")))
        except OSError:
            continue
    return gpus


@functools.lru_cache(maxsize=1)
def discover_gpus() -> tuple[GpuInfo, ...]:
    """The host's GPUs (cached for the process): nvidia-smi's list, else /proc/driver/nvidia's, else none."""
    smi = shutil.which("nvidia-smi")
    found = _from_smi(smi) if smi else None
    if found is None:
        found = _from_proc(PROC_GPUS)
    return tuple(found)


def describe(gpus: Sequence[GpuInfo]) -> str:
    """'2 GPUs: 0 NVIDIA H100 (81559 MB), 1 ...' or 'no GPU'."""
    if not gpus:
        return "no GPU"
    parts = [f"{g.index} {g.name}" + (f" ({g.memory_mb} MB)" if g.memory_mb else "") for g in gpus]
    return f"{len(gpus)} GPU{'s' if len(gpus) != 1 else ''}: " + ", ".join(parts)


def device_nodes(gpus: Sequence[GpuInfo], dev: Path = Path("/dev")) -> list[str]:
    """The device nodes a solution given `gpus` needs (those present): the control nodes and one
    /dev/nvidia<minor> per GPU. None at all when it is given no GPU."""
    if not gpus:
        return []
    names = [str(dev / Path(node).name) for node in CONTROL_NODES]
    names += [str(dev / f"nvidia{g.minor if g.minor is not None else g.index}") for g in gpus]
    return [name for name in names if Path(name).exists()]


def cuda_environment(gpus: Sequence[GpuInfo]) -> dict[str, str]:
    """CUDA_VISIBLE_DEVICES naming exactly `gpus` ("" hides every GPU), in nvidia-smi's (bus id) order."""
    return {
        "CUDA_VISIBLE_DEVICES": ",".join(g.device_id for g in gpus),
        "CUDA_DEVICE_ORDER": "PCI_BUS_ID",
    }
