"""Resources follow the machine: `auto` CPUs and memory from the host and `search.parallel`, what a solution
sees of them (thread variables, the cores it is pinned to), and GPUs shared when there are fewer than the
parallel steps."""

from __future__ import annotations

import threading

import pytest

import sandbox.gpus
from sandbox.config import ExecutionConfig
from sandbox.docker_backend import container_kwargs
from sandbox.gpus import GpuInfo
from sandbox.resources import (
    CoreSlots,
    HostResources,
    auto_cpus,
    auto_memory_mb,
    cgroup_memory_limit_mb,
    host_resources,
    resolve_resources,
)

GUARD_S = 60  # only a guard against a hang: the barrier below is released by the runs meeting, never by time
GPU_SERVER = HostResources(tuple(range(16)), 128 * 1024)  # the GPU machine of FACTS.md: 16 cores, 128 GB
LAPTOP = HostResources((0, 1), 24 * 1024)


@pytest.mark.parametrize(
    ("host", "parallel", "cpus", "memory_mb"),
    [
        (GPU_SERVER, 1, 16.0, 104857),
        (GPU_SERVER, 4, 4.0, 26214),
        (GPU_SERVER, 3, 5.0, 34952),
        (LAPTOP, 1, 2.0, 19660),
        (LAPTOP, 4, 1.0, 4915),  # fewer cores than steps: one each, at least
    ],
)
def test_auto_divides_the_host_between_parallel_steps(host, parallel, cpus, memory_mb):
    resolved = resolve_resources(ExecutionConfig(), parallel, host)
    assert (resolved.cpus, resolved.memory_mb) == (cpus, memory_mb)
    assert resolved.cpus == auto_cpus(host, parallel) and resolved.memory_mb == auto_memory_mb(host, parallel)
    # About 80% of the memory in all, never more than the host has.
    assert resolved.memory_mb * parallel <= 0.8 * host.memory_mb


def test_auto_is_the_default_and_numbers_are_kept():
    default = ExecutionConfig()
    assert (default.cpus, default.memory_mb, default.gpus_per_step) == ("auto", "auto", "auto")
    fixed = ExecutionConfig(cpus=3, memory_mb=2048, gpus_per_step=1)
    assert resolve_resources(fixed, 4, GPU_SERVER) is fixed
    assert "auto" not in (fixed.cpus, fixed.memory_mb, fixed.gpus_per_step)
    half = resolve_resources(ExecutionConfig(cpus=2), 4, GPU_SERVER)
    assert (half.cpus, half.memory_mb) == (2.0, 26214)


@pytest.mark.parametrize(("field", "value"), [("cpus", 0), ("cpus", -1), ("memory_mb", 10), ("cpus", True)])
def test_bad_resource_settings_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        ExecutionConfig(**{field: value})


def test_auto_strings_from_the_command_line_are_accepted():
    cfg = ExecutionConfig(cpus="AUTO", memory_mb="auto", gpus_per_step="auto")
    assert (cfg.cpus, cfg.memory_mb, cfg.gpus_per_step) == ("auto", "auto", "auto")
    assert ExecutionConfig(cpus="2.5", memory_mb="3000").cpus == 2.5


def test_this_host_is_read_from_affinity_and_meminfo():
    host = host_resources()
    assert host.cpu_count >= 1 and host.memory_mb > 256
    assert set(host.cores) == set(__import__("os").sched_getaffinity(0))


def test_a_containers_memory_limit_is_the_hosts_memory(tmp_path):
    root = tmp_path / "cgroup"
    (root / "memory" / "box").mkdir(parents=True)
    (root / "memory" / "box" / "memory.limit_in_bytes").write_text(str(8 << 30))
    v1 = tmp_path / "v1"
    v1.write_text("4:memory:/box\n3:cpu:/\n0::/\n")
    assert cgroup_memory_limit_mb(v1, root) == 8192
    (root / "lim").mkdir()
    (root / "lim" / "memory.max").write_text(str(3 << 30))
    v2 = tmp_path / "v2"
    v2.write_text("0::/lim\n")
    assert cgroup_memory_limit_mb(v2, root) == 3072
    (root / "lim" / "memory.max").write_text("max\n")
    assert cgroup_memory_limit_mb(v2, root) is None


def test_core_slots_give_running_executions_disjoint_cores_then_share_evenly():
    slots = CoreSlots(tuple(range(8)))
    with slots.acquire(4) as first, slots.acquire(4) as second:
        assert len(first) == len(second) == 4 and not set(first) & set(second)
        with slots.acquire(4) as third:  # more than fit: on the least used cores
            assert len(third) == 4 and max(slots.in_use().values()) == 2
    assert set(slots.in_use().values()) == {0}
    with slots.acquire(99) as everything:
        assert everything == tuple(range(8))


SHOW_RESOURCES = (
    "import os\n"
    "print('THREADS', os.environ['OMP_NUM_THREADS'], os.environ['OPENBLAS_NUM_THREADS'], "
    "os.environ['MKL_NUM_THREADS'])\n"
    "print('CORES', len(os.sched_getaffinity(0)))\n"
)


@pytest.mark.parametrize("backend", ["local", "bwrap", "unsafe-local"])
def test_a_solution_sees_its_cpus_in_threads_and_affinity(backend, make_backend, workspace):
    sb = make_backend(backend, cpus="auto", memory_mb="auto")
    expected = int(auto_cpus(host_resources(), 1))
    assert sb.cfg.cpus == expected and sb.cfg.memory_mb == auto_memory_mb(host_resources(), 1)
    result = sb.run(SHOW_RESOURCES, workspace.node_dirs("cpus"))
    assert result.exit_code == 0, result.output
    assert f"THREADS {expected} {expected} {expected}" in result.output
    assert f"CORES {expected}" in result.output
    one = make_backend(backend, cpus=1)
    result = one.run(SHOW_RESOURCES, workspace.node_dirs("one-cpu"))
    assert "THREADS 1 1 1" in result.output and "CORES 1" in result.output, result.output


def test_docker_gets_the_resolved_cpus_and_memory(workspace):
    from sandbox.docker_backend import DockerSandbox  # noqa: F401 - the module's container_kwargs is what runs

    kwargs = container_kwargs(ExecutionConfig(), workspace.node_dirs("docker"), 60)
    host = host_resources()
    assert kwargs["nano_cpus"] == int(auto_cpus(host, 1) * 1e9)
    assert kwargs["mem_limit"] == f"{auto_memory_mb(host, 1)}m"
    resolved = resolve_resources(ExecutionConfig(), 4, GPU_SERVER)
    kwargs = container_kwargs(resolved, workspace.node_dirs("docker"), 60)
    assert kwargs["nano_cpus"] == 4 * 10**9 and kwargs["mem_limit"] == "26214m"
    assert kwargs["environment"]["OMP_NUM_THREADS"] == "4"


ONE_GPU = (GpuInfo("0", "NVIDIA H200", 143771, "GPU-fake-h200", 0),)
SHOW_GPU = "import os\nprint('CUDA=[' + os.environ['CUDA_VISIBLE_DEVICES'] + ']')\n"


@pytest.mark.parametrize("backend", ["local", "bwrap"])
def test_parallel_4_on_one_gpu_runs_4_executions_at_once(backend, make_backend, workspace, monkeypatch):
    """With gpus_per_step=auto four parallel steps share the one GPU: all four hold it at once (each run waits
    at a barrier inside its GPU hold, so a pool that made them take turns would never let them meet), and
    none of them ever waits for it."""
    monkeypatch.setattr(sandbox.gpus, "discover_gpus", lambda: ONE_GPU)
    sb = make_backend(backend, gpus="auto", gpus_per_step="auto")
    from sandbox.gpu_plan import resolve_plan

    sb.gpu_plan = resolve_plan(sb.cfg, ONE_GPU, parallel=4)
    assert (sb.gpu_plan.per_step, sb.gpu_plan.shares) == (1, 4)
    barrier = threading.Barrier(4)
    execute = sb._execute

    def meet_then_execute(node_dirs, timeout_s, gpus=()):
        barrier.wait(GUARD_S)
        return execute(node_dirs, timeout_s, gpus)

    monkeypatch.setattr(sb, "_execute", meet_then_execute)
    waits: list[bool] = []
    results = [None] * 4

    def one(i: int) -> None:
        results[i] = sb.run(SHOW_GPU, workspace.node_dirs(f"share-{i}"), on_gpu_wait=waits.append)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(GUARD_S * 2)
    assert not barrier.broken
    assert waits == []
    for result in results:
        assert result is not None and result.exit_code == 0, result
        assert "CUDA=[GPU-fake-h200]" in result.output


def test_the_gpu_share_of_memory_is_in_the_prompt_line():
    from swarm.pipeline.gpu_probe import GpuFacts, describe_facts

    shared = GpuFacts([{"name": "NVIDIA H200", "memory_mb": 143771}], True, signature={"shares": 4})
    line = describe_facts(shared)
    assert "4 steps share each GPU" in line and "35942 MB" in line
    whole = GpuFacts([{"name": "NVIDIA H200", "memory_mb": 143771}], True, signature={"shares": 1})
    assert "share" not in describe_facts(whole)
