"""The GPUs a solution has, as the prompts state them: probed once per run inside the run's sandbox.

With no GPU in the run's plan (`execution.gpus`, sandbox.gpu_plan) nothing runs: a solution has none. Else a
tiny script runs through the sandbox with one step's GPU settings and reports what torch sees there; the host's
nvidia-smi facts fill in what it cannot say. The result is cached in `<run>/gpu_probe.json` (probed again when
the run's GPU plan or sandbox changes, e.g. on a resume with other settings).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sandbox import Sandbox, Workspace
from sandbox.gpus import GpuInfo
from sandbox.tree_ops import remove_tree
from swarm.atomic import write_json_atomic

log = logging.getLogger(__name__)

PROBE_FILE = "gpu_probe.json"
PROBE_NODE = "gpu-probe"
PROBE_TAG = "SWARM_GPU_PROBE "
PROBE_TIMEOUT_S = 120.0
PROBE_CODE = f"""\
import json, os

facts = {{"visible": os.environ.get("CUDA_VISIBLE_DEVICES"), "torch": None, "torch_cuda": False, "gpus": []}}
try:
    import torch

    facts["torch"] = torch.__version__
    facts["torch_cuda"] = bool(torch.cuda.is_available())
    for i in range(torch.cuda.device_count() if facts["torch_cuda"] else 0):
        props = torch.cuda.get_device_properties(i)
        facts["gpus"].append({{"name": props.name, "memory_mb": int(props.total_memory // 2**20)}})
except Exception as exc:  # no torch, or a CUDA that cannot start here
    facts["error"] = f"{{type(exc).__name__}}: {{exc}}"[:300]
print({PROBE_TAG!r} + json.dumps(facts))
"""


@dataclass
class GpuFacts:
    """What one step's solution has: its GPUs (name, memory) and whether torch can use them there."""

    gpus: list[dict[str, Any]] = field(default_factory=list)
    torch_cuda: bool | None = None  # None: not probed (no GPU), or torch missing in the sandbox
    note: str = ""
    signature: dict[str, Any] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.gpus)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GpuFacts:
        return cls(
            gpus=list(data.get("gpus") or []),
            torch_cuda=data.get("torch_cuda"),
            note=str(data.get("note") or ""),
            signature=dict(data.get("signature") or {}),
        )

    def hints(self) -> dict[str, Any]:
        """For coders that read hints (the offline one): how many GPUs a step's solution can use."""
        return {"gpus": self.count} if self.count else {}


def _host_view(gpus: tuple[GpuInfo, ...]) -> list[dict[str, Any]]:
    return [{"name": g.name, "memory_mb": g.memory_mb} for g in gpus]


def parse_probe(output: str) -> dict[str, Any] | None:
    """The probe's JSON line, or None when it printed none."""
    for line in reversed(output.splitlines()):
        if line.startswith(PROBE_TAG):
            try:
                return json.loads(line[len(PROBE_TAG) :])
            except json.JSONDecodeError:
                return None
    return None


def facts_from_probe(probed: dict[str, Any] | None, host: tuple[GpuInfo, ...]) -> GpuFacts:
    """What the prompts say, from the probe's report and the host's facts on the step's GPUs."""
    if probed is None:
        return GpuFacts(_host_view(host), None, "the GPU probe printed nothing; torch's view is unknown")
    if probed.get("torch_cuda") and probed.get("gpus"):
        return GpuFacts(list(probed["gpus"]), True)
    if probed.get("torch") is None:
        return GpuFacts(_host_view(host), None, "torch is not installed in the sandbox")
    why = probed.get("error") or "torch.cuda.is_available() is False there"
    return GpuFacts(_host_view(host), False, f"torch {probed['torch']} cannot use them ({why})")


def probe_gpus(sandbox: Sandbox, workspace: Workspace, run_dir: Path) -> GpuFacts:
    """The GPU facts of this run, from `<run_dir>/gpu_probe.json` or a fresh probe through `sandbox`."""
    plan = sandbox.gpu_plan
    signature = {"sandbox": sandbox.name, **plan.signature()}
    cache = Path(run_dir) / PROBE_FILE
    if cache.is_file():
        try:
            cached = GpuFacts.from_dict(json.loads(cache.read_text(encoding="utf-8")))
            if cached.signature == signature:
                return cached
        except (OSError, ValueError, TypeError):
            log.info("ignoring an unreadable %s", cache)
    if not plan.enabled:
        facts = GpuFacts([], None, "no GPU in this run (execution.gpus)")
    else:
        node_dirs = workspace.node_dirs(PROBE_NODE)
        try:
            result = sandbox.run(PROBE_CODE, node_dirs, timeout_s=PROBE_TIMEOUT_S)
            facts = facts_from_probe(parse_probe(result.output), plan.step_gpus())
        finally:
            remove_tree(node_dirs.root, ignore_errors=True)
        log.info("GPU probe: %s", describe_facts(facts))
    facts.signature = signature
    write_json_atomic(cache, facts.to_dict())
    return facts


def describe_facts(facts: GpuFacts) -> str:
    """One line: '1 GPU: NVIDIA H100 (81559 MB), torch can use it' or 'no GPU'."""
    if not facts.count:
        return "no GPU"
    names = ", ".join(
        f"{g.get('name', 'GPU')}" + (f" ({g['memory_mb']} MB)" if g.get("memory_mb") else "")
        for g in facts.gpus
    )
    torch = {True: "torch can use them", False: "torch cannot use them", None: "torch's view unknown"}
    line = f"{facts.count} GPU{'s' if facts.count != 1 else ''}: {names}; {torch[facts.torch_cuda]}"
    shares = int(facts.signature.get("shares") or 1)
    if shares > 1:
        memory = [int(g["memory_mb"]) // shares for g in facts.gpus if g.get("memory_mb")]
        budget = (
            f"use at most {min(memory)} MB of its memory"
            if memory
            else f"use at most 1/{shares} of its memory"
        )
        line += f"; {shares} steps share each GPU at once, so {budget}"
    return line


_RUN_FACTS: dict[str, GpuFacts] = {}


def run_gpu_facts(rc: Any) -> GpuFacts:
    """The run's GPU facts, probed once per process and run dir (`rc`: its RunContext)."""
    key = str(rc.paths.root)
    facts = _RUN_FACTS.get(key)
    if facts is None or facts.signature.get("sandbox") != rc.sandbox.name:
        facts = probe_gpus(rc.sandbox, rc.workspace, rc.paths.root)
        _RUN_FACTS[key] = facts
    return facts
