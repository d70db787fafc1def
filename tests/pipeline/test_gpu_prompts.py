"""The GPUs a solution has, as its prompts state them: probed once per run inside the run's sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandbox import GpuPlan
from sandbox.gpus import GpuInfo
from swarm.config import load_config
from swarm.pipeline import gpu_probe, steps
from swarm.pipeline.context import RunContext, create_run, open_run
from swarm.pipeline.gpu_probe import PROBE_TAG, facts_from_probe, parse_probe

FAKE = GpuInfo("0", "Fake GPU", 1024, "GPU-fake0", 0)


def _plan_first_step(run_dir: Path) -> tuple[RunContext, steps.PlannedStep]:
    rc, journal, state = open_run(run_dir)
    gpu_probe._RUN_FACTS.clear()
    return rc, steps.select_parent(rc, journal, state)


def _user(planned: steps.PlannedStep) -> str:
    return next(m["content"] for m in planned.messages if m["role"] == "user")


def test_a_run_without_gpus_says_so_and_runs_no_probe(tmp_path: Path, base_overrides: list[str]) -> None:
    run_dir = create_run(load_config(None, [*base_overrides, "execution.gpus=none"]), tmp_path / "run").root
    rc, planned = _plan_first_step(run_dir)
    assert "- No GPU: every script runs on the CPU alone" in _user(planned) and "gpus" not in planned.hints
    saved = json.loads((run_dir / "gpu_probe.json").read_text())
    assert saved["gpus"] == [] and "no GPU" in saved["note"]
    assert not (rc.workspace.root / "nodes" / gpu_probe.PROBE_NODE).exists()


@pytest.mark.slow
def test_a_run_with_a_gpu_probes_it_in_the_sandbox_and_states_it(
    tmp_path: Path, base_overrides: list[str]
) -> None:
    run_dir = create_run(load_config(None, [*base_overrides, "execution.gpus=none"]), tmp_path / "run").root
    rc, journal, state = open_run(run_dir)
    rc.sandbox.gpu_plan = GpuPlan((FAKE,), 1, 1)  # as if the host had one GPU
    gpu_probe._RUN_FACTS.clear()
    planned = steps.select_parent(rc, journal, state)
    guidelines = _user(planned)[_user(planned).index("# GUIDELINES") :]
    # torch is not in this interpreter, so the probe (run in the bwrap sandbox) reports the host's facts
    assert "- GPUs: 1 GPU: Fake GPU (1024 MB); torch's view unknown." in guidelines
    assert "No GPU" not in guidelines and planned.hints["gpus"] == 1
    saved = json.loads((run_dir / "gpu_probe.json").read_text())
    assert saved["note"] == "torch is not installed in the sandbox"
    assert saved["signature"]["devices"] == ["GPU-fake0"]
    assert not (rc.workspace.root / "nodes" / gpu_probe.PROBE_NODE).exists()  # the probe's dirs are removed


def test_probe_reports_are_read_into_facts() -> None:
    line = PROBE_TAG + json.dumps(
        {
            "visible": "GPU-x",
            "torch": "2.5",
            "torch_cuda": True,
            "gpus": [{"name": "H100", "memory_mb": 81559}],
        }
    )
    probed = parse_probe(f"noise\n{line}\n")
    facts = facts_from_probe(probed, (FAKE,))
    assert facts.torch_cuda is True and facts.gpus == [{"name": "H100", "memory_mb": 81559}]
    assert gpu_probe.describe_facts(facts) == "1 GPU: H100 (81559 MB); torch can use them"
    cannot = facts_from_probe(
        {"torch": "2.5", "torch_cuda": False, "gpus": [], "error": "no driver"}, (FAKE,)
    )
    assert cannot.torch_cuda is False and cannot.count == 1 and "no driver" in cannot.note
    assert parse_probe("nothing here") is None
    assert facts_from_probe(None, (FAKE,)).note.startswith("the GPU probe printed nothing")
