"""Running untrusted solution code: Docker, bwrap and local backends behind one interface, and per-run workspaces.

from sandbox import ExecutionResult, Workspace, make_sandbox

ws = Workspace(root, public_dir)
sb = make_sandbox(cfg.execution)
result = sb.run(code, ws.node_dirs("node-1"))
"""

from sandbox.base import Sandbox, SandboxUnavailable
from sandbox.config import ExecutionConfig
from sandbox.factory import make_sandbox
from sandbox.gpu_plan import GpuPlan, GpuUnavailable
from sandbox.local import LocalSandbox
from sandbox.result import ExecutionResult, StackFrame
from sandbox.unsafe_local import UnsafeLocalSandbox
from sandbox.workspace import NodeDirs, Workspace, WorkspaceError

__all__ = [
    "ExecutionConfig",
    "ExecutionResult",
    "GpuPlan",
    "GpuUnavailable",
    "LocalSandbox",
    "NodeDirs",
    "Sandbox",
    "SandboxUnavailable",
    "StackFrame",
    "UnsafeLocalSandbox",
    "Workspace",
    "WorkspaceError",
    "make_sandbox",
]
