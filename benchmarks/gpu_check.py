"""GPU check: a short solution trains a small torch model on the GPU inside the sandbox and says what it saw.

    python -m benchmarks.gpu_check [--sandbox bwrap|local|docker] [--gpus all] [--json out.json]

It runs through the same sandbox the search uses, with `execution.gpus` (default `all`), and prints the
solution's output: `torch.cuda.is_available()`, the device name, CUDA_VISIBLE_DEVICES and the loss of a few
training steps on the GPU. Exit 0 when torch trained on a GPU there, 1 when it could not, 2 when this host has
no GPU at all (nvidia-smi / /proc/driver/nvidia) or the sandbox cannot start.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from sandbox import ExecutionConfig, GpuUnavailable, SandboxUnavailable, Workspace, make_sandbox
from sandbox.gpus import describe, discover_gpus

TAG = "GPU_CHECK "
SOLUTION = f"""\
import json, os, time

facts = {{"visible": os.environ.get("CUDA_VISIBLE_DEVICES")}}
import torch

facts["torch"] = torch.__version__
facts["cuda_available"] = torch.cuda.is_available()
print("torch.cuda.is_available():", facts["cuda_available"])
if facts["cuda_available"]:
    device = torch.device("cuda")
    facts["device_name"] = torch.cuda.get_device_name(0)
    print("device:", facts["device_name"])
    torch.manual_seed(0)
    x = torch.randn(4096, 64, device=device)
    y = (x[:, :1] * 2 + x[:, 1:2]).sin()
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    start = time.perf_counter()
    losses = []
    for _ in range(200):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    torch.cuda.synchronize()
    facts.update(first_loss=losses[0], last_loss=losses[-1], train_s=round(time.perf_counter() - start, 3))
    facts["param_device"] = str(next(model.parameters()).device)
    print(f"trained 200 steps on {{facts['param_device']}}: loss {{losses[0]:.4f}} -> {{losses[-1]:.4f}}")
print({TAG!r} + json.dumps(facts))
"""


def run_check(sandbox_kind: str, gpus: str) -> tuple[int, dict]:
    """Run the check solution; (exit code, what it reported)."""
    found = discover_gpus()
    if not found:
        return 2, {"error": "this host has no GPU (nvidia-smi and /proc/driver/nvidia list none)"}
    print(f"host: {describe(found)}")
    try:
        sandbox = make_sandbox(ExecutionConfig(sandbox=sandbox_kind, gpus=gpus, timeout_s=600))
    except (SandboxUnavailable, GpuUnavailable) as exc:
        return 2, {"error": f"the {sandbox_kind} sandbox cannot run: {exc}"}
    print(f"sandbox: {sandbox.description}; GPUs for the solution: {sandbox.gpu_plan.describe()}")
    with tempfile.TemporaryDirectory(prefix="swarm-gpu-check-") as tmp:
        Path(tmp).chmod(0o711)  # the local backend's slot uids pass through it to the run dirs
        public = Path(tmp) / "public"
        public.mkdir()
        (public / "README.txt").write_text("no data: the GPU check needs none\n")
        workspace = Workspace(Path(tmp) / "run", public)
        try:
            result = sandbox.run(SOLUTION, workspace.node_dirs("gpu-check"))
        except OSError as exc:  # e.g. the local backend's uids cannot reach the dirs
            return 2, {"error": f"the {sandbox_kind} sandbox cannot run: {exc}"}
    print(result.output)
    line = next((x for x in reversed(result.output.splitlines()) if x.startswith(TAG)), None)
    facts = (
        json.loads(line[len(TAG) :])
        if line
        else {"error": f"the solution printed no report (exit {result.exit_code}, {result.exc_type})"}
    )
    ok = bool(facts.get("cuda_available")) and str(facts.get("param_device", "")).startswith("cuda")
    return (0 if ok else 1), facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", default="bwrap", choices=["bwrap", "local", "docker", "unsafe-local"])
    parser.add_argument("--gpus", default="all", help="execution.gpus for the check (default: all)")
    parser.add_argument("--json", type=Path, help="also write what the solution reported here")
    args = parser.parse_args(argv)
    code, facts = run_check(args.sandbox, args.gpus)
    print(json.dumps({"exit": code, **facts}, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"exit": code, **facts}, indent=2) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
