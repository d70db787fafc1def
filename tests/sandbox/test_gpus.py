"""GPU support: settings, the plan resolved against the host's GPUs, GPU discovery parsers, Docker device
requests, the in-process GPU pool, and what a real solution sees (CUDA_VISIBLE_DEVICES, bwrap device nodes)."""

from __future__ import annotations

import shutil
import threading
from fractions import Fraction
from pathlib import Path

import pytest
from docker.types import DeviceRequest
from pydantic import ValidationError

from sandbox.base import SandboxUnavailable
from sandbox.bwrap_mounts import bwrap_argv
from sandbox.config import ExecutionConfig
from sandbox.docker_backend import container_kwargs
from sandbox.docker_gpus import HOOK, check_gpu_support
from sandbox.gpu_plan import NO_GPUS, GpuPlan, GpuUnavailable, resolve_plan
from sandbox.gpu_pool import GpuPool
from sandbox.gpus import GpuInfo, device_nodes, parse_nvidia_smi, parse_proc_information

GUARD_S = 30  # only a guard against a hang: every wait below is released by an event, never by time

G0 = GpuInfo("0", "NVIDIA H100", 81559, "GPU-a", 0)
G1 = GpuInfo("1", "NVIDIA H100", 81559, "GPU-b", 1)
TWO = (G0, G1)


# --- settings ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("auto", "auto"),
        ("none", "none"),
        ("ALL", "all"),
        (None, "none"),
        (0, "none"),
        ("0", "none"),
        (2, 2),
        ("2", 2),
        ("0,1", ["0", "1"]),
        (" 0 , 1 ", ["0", "1"]),
        (["GPU-a"], ["GPU-a"]),
        ("GPU-a", ["GPU-a"]),
    ],
)
def test_gpus_setting_is_normalised(given, expected):
    assert ExecutionConfig(gpus=given).gpus == expected


@pytest.mark.parametrize("given", [-1, True, False, "", " , ", "0,0", ["GPU-a", "GPU-a"], [""], 1.5])
def test_bad_gpus_setting_is_refused(given):
    with pytest.raises(ValidationError, match="execution.gpus"):
        ExecutionConfig(gpus=given)


@pytest.mark.parametrize(
    ("given", "expected", "shares"),
    [
        (1, 1, 1),
        ("2", 2, 1),
        (2.0, 2, 1),
        ("all", "all", 1),
        ("ALL", "all", 1),
        (0.5, 0.5, 2),
        (0.25, 0.25, 4),
    ],
)
def test_gpus_per_step_is_normalised(given, expected, shares):
    cfg = ExecutionConfig(gpus_per_step=given)
    assert cfg.gpus_per_step == expected
    assert cfg.gpu_shares == shares


@pytest.mark.parametrize("given", [0, 0.3, 1.5, True, -1, "half", None])
def test_bad_gpus_per_step_is_refused(given):
    with pytest.raises(ValidationError, match="gpus_per_step"):
        ExecutionConfig(gpus_per_step=given)


# --- the plan ---------------------------------------------------------------------------------------------


def plan_of(found=TWO, parallel=1, **settings) -> GpuPlan:
    return resolve_plan(ExecutionConfig(**settings), found, parallel)


def test_none_and_auto_without_gpus_is_no_plan():
    assert plan_of(gpus="none") == NO_GPUS
    assert plan_of((), gpus="auto") == NO_GPUS
    assert not NO_GPUS.enabled and NO_GPUS.describe() == "no GPU"


def test_auto_takes_every_gpu_one_per_step():
    plan = plan_of(gpus="auto", gpus_per_step=1)
    assert plan == GpuPlan(TWO, 1, 1) and plan.enabled
    assert plan.step_gpus() == (G0,)
    assert plan.signature() == {"devices": ["GPU-a", "GPU-b"], "per_step": 1, "shares": 1}


@pytest.mark.parametrize(
    ("gpus", "parallel", "per_step", "shares"),
    [
        (2, 1, 2, 1),  # one step at a time: it gets both
        (2, 2, 1, 1),  # as many GPUs as steps: one each
        (8, 3, 2, 1),  # whole GPUs, split evenly (two stay free)
        (1, 4, 1, 4),  # one GPU, four steps: each may use a quarter
        (2, 3, 1, 2),  # ceil(3 / 2) = 2 steps share each GPU
        (2, 4, 1, 2),
    ],
)
def test_auto_per_step_follows_gpus_and_parallel(gpus, parallel, per_step, shares):
    found = tuple(GpuInfo(str(i), "NVIDIA H200", 143771, f"GPU-{i}", i) for i in range(gpus))
    plan = plan_of(found, parallel, gpus_per_step="auto")
    assert (plan.per_step, plan.shares) == (per_step, shares)
    # Never fewer GPU slots than steps at once: no step waits for a GPU.
    assert (gpus // per_step) * shares >= parallel


def test_auto_is_the_default_per_step():
    assert ExecutionConfig().gpus_per_step == "auto"
    assert ExecutionConfig(gpus_per_step="AUTO").gpus_per_step == "auto"


def test_all_without_gpus_says_what_is_missing():
    with pytest.raises(GpuUnavailable, match=r"all GPUs.*no GPU.*execution.gpus=none"):
        plan_of((), gpus="all")


def test_count_takes_the_first_and_more_than_found_is_an_error():
    assert plan_of(gpus=1).devices == (G0,)
    with pytest.raises(GpuUnavailable, match=r"3 GPUs.*2 GPUs"):
        plan_of(gpus=3)


@pytest.mark.parametrize(("ids", "expected"), [(["1"], (G1,)), ("GPU-b", (G1,)), ("1,GPU-a", (G1, G0))])
def test_ids_by_index_or_uuid(ids, expected):
    assert plan_of(gpus=ids).devices == expected


def test_unknown_id_is_named():
    with pytest.raises(GpuUnavailable, match=r"device GPU-zzz\b"):
        plan_of(gpus="0,GPU-zzz")


def test_one_gpu_named_by_index_and_uuid_is_an_error():
    with pytest.raises(GpuUnavailable, match="twice"):
        plan_of(gpus=["0", "GPU-a"])


def test_per_step_more_than_devices_is_an_error():
    with pytest.raises(GpuUnavailable, match="gpus_per_step=2"):
        plan_of(gpus=1, gpus_per_step=2)


def test_per_step_all_and_sharing():
    assert plan_of(gpus_per_step="all") == GpuPlan(TWO, 2, 1)
    assert plan_of(gpus_per_step=2) == GpuPlan(TWO, 2, 1)
    shared = plan_of(gpus_per_step=0.5)
    assert shared == GpuPlan(TWO, 1, 2)
    assert "2 steps share each GPU" in shared.describe()


# --- discovery parsers ------------------------------------------------------------------------------------

SMI_OUTPUT = """\
0, NVIDIA H100 80GB HBM3, 81559, GPU-5f3c1a2b-7d4e-11ee-9a0b-0242ac120002, 0
1, NVIDIA H100 80GB HBM3, 81559, GPU-6a4d2b3c-8e5f-11ee-9a0b-0242ac120003, 1
"""


def test_parse_nvidia_smi_reads_each_gpu():
    gpus = parse_nvidia_smi(SMI_OUTPUT)
    assert gpus == [
        GpuInfo("0", "NVIDIA H100 80GB HBM3", 81559, "GPU-5f3c1a2b-7d4e-11ee-9a0b-0242ac120002", 0),
        GpuInfo("1", "NVIDIA H100 80GB HBM3", 81559, "GPU-6a4d2b3c-8e5f-11ee-9a0b-0242ac120003", 1),
    ]
    assert gpus[1].device_id == "GPU-6a4d2b3c-8e5f-11ee-9a0b-0242ac120003"


def test_parse_nvidia_smi_skips_garbage():
    text = (
        "index, name, memory.total [MiB], uuid, minor_number\n"
        "No devices were found\n"
        "\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
        "1, Tesla T4\n"
        "2, Tesla T4, 15360 MiB, [N/A], [N/A]\n"
    )
    assert parse_nvidia_smi(text) == [GpuInfo("2", "Tesla T4", 15360, "", None)]
    assert parse_nvidia_smi("") == []


PROC_INFORMATION = """\
Model: \t\t NVIDIA A100-SXM4-40GB
IRQ:   \t\t 183
GPU UUID: \t GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901
Video BIOS: \t 92.00.36.00.02
Bus Type: \t PCIe
DMA Size: \t 47 bits
DMA Mask: \t 0x7fffffffffff
Bus Location: \t 0000:07:00.0
Device Minor: \t 3
GPU Firmware: \t N/A
GPU Excluded:\t No
"""


def test_parse_proc_information():
    gpu = parse_proc_information(2, PROC_INFORMATION)
    assert gpu == GpuInfo("2", "NVIDIA A100-SXM4-40GB", 0, "GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901", 3)
    assert parse_proc_information(0, "garbage\n") == GpuInfo("0", "NVIDIA GPU", 0, "", None)


# --- Docker -----------------------------------------------------------------------------------------------


def test_container_gets_exactly_its_gpus_by_uuid(workspace):
    kw = container_kwargs(ExecutionConfig(), workspace.node_dirs("gpu-kw"), 10, TWO)
    assert kw["device_requests"] == [
        DeviceRequest(driver="nvidia", device_ids=["GPU-a", "GPU-b"], capabilities=[["gpu"]])
    ]
    request = kw["device_requests"][0]
    assert request["Driver"] == "nvidia" and request["DeviceIDs"] == ["GPU-a", "GPU-b"]
    assert request["Capabilities"] == [["gpu"]] and request.get("Count", 0) == 0
    assert "CUDA_VISIBLE_DEVICES" not in kw["environment"]


def test_container_without_gpus_requests_none(workspace):
    kw = container_kwargs(ExecutionConfig(), workspace.node_dirs("gpu-kw-none"), 10)
    assert "device_requests" not in kw
    assert kw["environment"]["CUDA_VISIBLE_DEVICES"] == ""


class StubEngine:
    """The one call check_gpu_support makes of a docker client: info()."""

    def __init__(self, runtimes: dict) -> None:
        self.runtimes = runtimes

    def info(self) -> dict:
        return {"Runtimes": self.runtimes}


@pytest.fixture
def no_hook(monkeypatch):
    """The NVIDIA prestart hook is not on PATH (whatever this host has)."""
    which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == HOOK else which(name, *a, **k))


def test_explicit_gpus_without_nvidia_runtime_is_unavailable(no_hook):
    plan = GpuPlan(TWO, 1, 1)
    for setting in ("all", 2, "0,1"):
        with pytest.raises(SandboxUnavailable, match=r"NVIDIA runtime \(runtimes: runc"):
            check_gpu_support(StubEngine({"runc": {}}), ExecutionConfig(gpus=setting), plan)


def test_auto_without_nvidia_runtime_runs_without_gpus(no_hook):
    plan = GpuPlan(TWO, 1, 1)
    assert check_gpu_support(StubEngine({"runc": {}}), ExecutionConfig(gpus="auto"), plan) == NO_GPUS


def test_nvidia_runtime_keeps_the_plan(no_hook):
    plan = GpuPlan(TWO, 1, 1)
    engine = StubEngine({"nvidia": {}, "runc": {}})
    assert check_gpu_support(engine, ExecutionConfig(gpus="all"), plan) is plan
    assert check_gpu_support(StubEngine({}), ExecutionConfig(gpus="all"), NO_GPUS) is NO_GPUS


# --- the pool ---------------------------------------------------------------------------------------------


class Holder:
    """A thread that holds GPUs from `pool` until released; meets the test at `barrier` once inside."""

    def __init__(self, pool: GpuPool, plan: GpuPlan, barrier: threading.Barrier | None = None) -> None:
        self.pool, self.plan, self.barrier = pool, plan, barrier
        self.got: tuple[GpuInfo, ...] | None = None
        self.waits: list[bool] = []
        self.waiting = threading.Event()
        self.inside = threading.Event()
        self.release = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _on_wait(self, waiting: bool) -> None:
        self.waits.append(waiting)
        if waiting:
            self.waiting.set()

    def _run(self) -> None:
        try:
            with self.pool.acquire(self.plan, self._on_wait) as gpus:
                self.got = gpus
                self.inside.set()
                if self.barrier is not None:
                    self.barrier.wait(GUARD_S)
                assert self.release.wait(GUARD_S), "never released"
        except BaseException as exc:  # noqa: BLE001 - reported by finish()
            self.error = exc

    def finish(self) -> None:
        self.release.set()
        self.thread.join(GUARD_S)
        assert not self.thread.is_alive(), "holder did not end"
        assert self.error is None, self.error


def test_pool_gives_parallel_executions_disjoint_gpus_and_queues_the_next():
    pool = GpuPool()
    plan = GpuPlan(TWO, 1, 1)
    barrier = threading.Barrier(3)
    first, second = Holder(pool, plan, barrier), Holder(pool, plan, barrier)
    barrier.wait(GUARD_S)  # both are inside acquire at once
    assert {first.got, second.got} == {(G0,), (G1,)}
    assert first.waits == second.waits == []
    assert pool.load("GPU-a") == pool.load("GPU-b") == 1

    third = Holder(pool, plan)
    assert third.waiting.wait(GUARD_S)  # both GPUs are taken: it waits
    assert third.got is None and not third.inside.is_set()
    first.finish()
    assert third.inside.wait(GUARD_S)
    assert third.got == first.got  # the GPU just freed
    assert third.waits == [True, False]
    second.finish()
    third.finish()
    assert pool.load("GPU-a") == pool.load("GPU-b") == 0


def test_pool_shares_a_gpu_between_fractional_steps_and_an_exclusive_step_waits():
    pool = GpuPool()
    shared = GpuPlan((G0,), 1, 2)
    barrier = threading.Barrier(3)
    first, second = Holder(pool, shared, barrier), Holder(pool, shared, barrier)
    barrier.wait(GUARD_S)
    assert first.got == second.got == (G0,)
    assert pool.load("GPU-a") == 1

    exclusive = Holder(pool, GpuPlan((G0,), 1, 1))
    assert exclusive.waiting.wait(GUARD_S)
    first.finish()
    assert pool.load("GPU-a") == Fraction(1, 2)
    assert exclusive.got is None  # half the GPU is still held
    second.finish()
    assert exclusive.inside.wait(GUARD_S)
    assert exclusive.got == (G0,) and exclusive.waits == [True, False]
    assert pool.load("GPU-a") == 1
    exclusive.finish()
    assert pool.load("GPU-a") == 0


def test_pool_without_gpus_yields_nothing():
    pool = GpuPool()
    calls = []
    with pool.acquire(NO_GPUS, calls.append) as gpus:
        assert gpus == ()
    with pool.acquire(GpuPlan(TWO, 0, 1), calls.append) as gpus:
        assert gpus == ()
    assert calls == []


# --- what a solution sees ---------------------------------------------------------------------------------

SHOW_CUDA = "import os\nprint('CUDA=[' + str(os.environ.get('CUDA_VISIBLE_DEVICES')) + ']')\n"
FAKE_PLAN = GpuPlan((GpuInfo("0", uuid="GPU-fake0"),), 1, 1)


@pytest.mark.parametrize("backend", ["local", "bwrap"])
def test_solution_sees_only_its_gpus(backend, make_backend, workspace):
    sb = make_backend(backend, gpus="none")
    assert sb.gpu_plan == NO_GPUS
    result = sb.run(SHOW_CUDA, workspace.node_dirs(f"{backend}-nogpu"))
    assert result.exit_code == 0, result.output
    assert "CUDA=[]" in result.output

    sb.gpu_plan = FAKE_PLAN
    waits = []
    result = sb.run(SHOW_CUDA, workspace.node_dirs(f"{backend}-gpu"), on_gpu_wait=waits.append)
    assert result.exit_code == 0, result.output
    assert "CUDA=[GPU-fake0]" in result.output
    assert waits == []


def test_bwrap_binds_the_gpu_device_nodes(tmp_path: Path):
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ("nvidiactl", "nvidia0"):
        (dev / name).touch()
    gpu = GpuInfo("0", uuid="GPU-fake0", minor=0)
    nodes = device_nodes((gpu,), dev=dev)
    assert nodes == [str(dev / "nvidiactl"), str(dev / "nvidia0")]
    assert device_nodes((GpuInfo("1", minor=1),), dev=dev) == [str(dev / "nvidiactl")]  # nvidia1 absent
    assert device_nodes((), dev=dev) == []

    def argv(devices):
        return bwrap_argv(
            "bwrap", None, python="/usr/bin/python3", hidden=[], tmp_bytes=1 << 20, unshare_user=True,
            devices=devices,
        )  # fmt: skip

    with_gpu = argv(nodes)
    for node in nodes:
        i = with_gpu.index(node)
        assert with_gpu[i - 1 : i + 2] == ["--dev-bind", node, node]
    assert with_gpu.index("--dev") < with_gpu.index("--dev-bind")  # bound into the fresh /dev
    without = argv(device_nodes((), dev=dev))
    assert "--dev-bind" not in without and not any(str(dev) in arg for arg in without)
