"""The interface both backends implement, and the steps they share."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from sandbox import gpus as gpu_host
from sandbox.config import ExecutionConfig
from sandbox.gpu_plan import NO_GPUS, GpuPlan, resolve_plan
from sandbox.gpu_pool import GPU_POOL, WaitCallback
from sandbox.gpus import GpuInfo
from sandbox.resources import resolve_resources
from sandbox.result import ExecutionResult, OutputCollector, list_files, non_file_kind, parse_traceback
from sandbox.workspace import NodeDirs

SANDBOX_UID = 10001  # the Docker container's uid; local executions get a slot uid (sandbox.slots)
DISK_LIMIT_EXC = "DiskLimitExceeded"


class SandboxUnavailable(RuntimeError):
    """The requested backend cannot run here (for example no Docker engine answers)."""


@dataclass
class RawRun:
    """What a backend observed, before it is turned into an ExecutionResult."""

    collector: OutputCollector
    exit_code: int | None
    exec_time: float
    timed_out: bool = False
    oom_killed: bool = False
    disk_exceeded: bool = False
    isolated: bool = True
    memory_held: str = ""  # what held the memory when a watch stopped the run: "620 MB in /dev/shm files"


class Sandbox(ABC):
    """Runs untrusted solution code in a node's dirs and reports what happened."""

    name: str = "abstract"

    def __init__(self, cfg: ExecutionConfig, parallel: int = 1) -> None:
        """`parallel`: how many executions the run starts at once (`search.parallel`); `auto` resources are
        this host's divided between them (sandbox.resources, sandbox.gpu_plan)."""
        self.parallel = max(1, int(parallel))
        self.cfg = resolve_resources(cfg, self.parallel)
        # The run's GPUs (GpuUnavailable when the settings ask for GPUs that are not here).
        self.gpu_plan: GpuPlan = (
            NO_GPUS if cfg.gpus == "none" else resolve_plan(self.cfg, gpu_host.discover_gpus(), self.parallel)
        )

    def resources(self) -> dict[str, object]:
        """What each execution is given (for the run dir, the prompts and the report)."""
        return {
            "cpus": self.cfg.cpus,
            "memory_mb": self.cfg.memory_mb,
            "memory_guard": self.memory_guard,
            "gpus": self.gpu_plan.describe(),
        }

    @property
    def memory_guard(self) -> str:
        """How the memory limit is held: the kernel's (a cgroup) or the supervisor's watch."""
        return "the container's cgroup memory limit"

    def run(
        self,
        code: str,
        node_dirs: NodeDirs,
        timeout_s: float | None = None,
        on_gpu_wait: WaitCallback | None = None,
    ) -> ExecutionResult:
        """Save `code` as the node's solution.py, run it with `python`, and return the result.

        With GPUs (`gpu_plan`) the execution first takes its GPU set from the process's pool and holds it
        until it ends; `on_gpu_wait(True)` is called while it waits for busy GPUs, `on_gpu_wait(False)` when
        it has them.
        """
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, got {type(code).__name__}")
        if not isinstance(node_dirs, NodeDirs):
            raise TypeError(
                f"node_dirs must be a NodeDirs from Workspace.node_dirs, got {type(node_dirs).__name__}"
            )
        timeout = self.cfg.timeout_s if timeout_s is None else float(timeout_s)
        if timeout <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout_s}")
        node_dirs.code_path.write_text(code, encoding="utf-8")
        node_dirs.code_path.chmod(0o644)
        with GPU_POOL.acquire(self.gpu_plan, on_gpu_wait) as gpus:
            raw = self._execute(node_dirs, timeout, gpus)
        return self._finish(raw, node_dirs)

    def packages(self) -> list[str]:
        """The Python packages a solution can import here, as "name version" strings (for the prompts)."""
        return []

    @property
    def isolated(self) -> bool:
        """Whether solutions are confined (False only for unsafe-local: they run with the caller's rights)."""
        return True

    @property
    def description(self) -> str:
        """One line saying how solutions are confined here (for the run dir, the report and the summary)."""
        return self.name

    @abstractmethod
    def _execute(self, node_dirs: NodeDirs, timeout_s: float, gpus: tuple[GpuInfo, ...] = ()) -> RawRun:
        """Run node_dirs.code_path with cwd = node_dirs.root; never leave a process or container behind.

        `gpus` are the GPUs this execution holds: the solution sees those and no other.

        Also enforces the overall disk cap (cfg.disk_mb over everything the run writes) and, as root, owns the
        node's working/ and submission/ by the execution's uid only while it runs (sandbox.ownership).
        """

    def _finish(self, raw: RawRun, node_dirs: NodeDirs) -> ExecutionResult:
        output, truncated = raw.collector.text()
        exc_type = exc_info = None
        stack = []
        if raw.exit_code != 0 or raw.timed_out:
            exc_type, exc_info, stack = parse_traceback(output)
        oom = raw.oom_killed or bool(exc_type and exc_type.endswith("MemoryError"))
        if raw.disk_exceeded:  # the watcher's kill ended the run, whatever it printed before
            exc_type, stack = DISK_LIMIT_EXC, []
            exc_info = (
                f"wrote more than the {self.cfg.disk_mb} MB disk limit (execution.disk_mb, counted over "
                "working/, submission/ and temp files) and was killed"
            )
        elif raw.timed_out and exc_type is None:
            exc_type, exc_info = "TimeoutError", "execution exceeded the time limit and was killed"
        elif oom and exc_type is None:
            exc_type = "MemoryError"
            exc_info = f"killed for exceeding the {self.cfg.memory_mb} MB memory limit"
            if raw.memory_held:
                exc_info += f": {raw.memory_held}"
        submission = node_dirs.submission_file
        return ExecutionResult(
            output=output,
            output_truncated=truncated,
            exit_code=raw.exit_code,
            exc_type=exc_type,
            exc_info=exc_info,
            exc_stack=stack,
            exec_time=round(raw.exec_time, 4),
            timed_out=raw.timed_out,
            oom_killed=oom,
            disk_exceeded=raw.disk_exceeded,
            files=list_files(node_dirs.root, ("working", "submission")),
            submission_path=submission if submission.is_file() and not submission.is_symlink() else None,
            submission_not_file=non_file_kind(submission),
            backend=self.name,
            isolated=raw.isolated,
        )
