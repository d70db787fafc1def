"""The sandbox is the lower layer: it owns its settings and imports nothing of `swarm`."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import sandbox
from sandbox.config import ExecutionConfig

REPO = Path(__file__).resolve().parents[2]


def test_swarm_config_uses_the_sandbox_settings():
    from swarm.config import Config

    assert Config().execution.__class__ is ExecutionConfig
    import swarm.config

    assert swarm.config.ExecutionConfig is ExecutionConfig


def test_importing_every_sandbox_module_loads_no_swarm_module():
    unimportable = {"hidden_package"}  # raises on import by design: it stands in for hidden packages
    names = [
        f"sandbox.{m.name}" for m in pkgutil.iter_modules(sandbox.__path__) if m.name not in unimportable
    ]
    assert "sandbox.config" in names
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m == 'swarm' or m.startswith('swarm.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
