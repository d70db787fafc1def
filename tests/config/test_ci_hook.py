"""tests/conftest.py's `pytest_sessionfinish`: with CI=true a run in which no test passed fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT_CONFTEST = Path(__file__).parents[1] / "conftest.py"
HOOK_ONLY = f"""
import importlib.util

_spec = importlib.util.spec_from_file_location("swarm_root_conftest", {str(ROOT_CONFTEST)!r})
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
pytest_sessionfinish = _module.pytest_sessionfinish
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ci", "tests", "expected"),
    [
        ("true", "def test_skipped():\n    pytest.skip('no engine')\n", 1),
        ("true", "def test_skipped():\n    pytest.skip('no engine')\n\ndef test_ok():\n    pass\n", 0),
        (None, "def test_skipped():\n    pytest.skip('no engine')\n", 0),
    ],
)
def test_no_passed_test_fails_only_in_ci(tmp_path: Path, ci: str | None, tests: str, expected: int) -> None:
    (tmp_path / "conftest.py").write_text(HOOK_ONLY, encoding="utf-8")
    (tmp_path / "test_sample.py").write_text("import pytest\n\n" + tests, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    if ci is not None:
        env["CI"] = ci
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == expected, result.stdout + result.stderr
    assert ("no test passed" in result.stdout) == (expected == 1)
