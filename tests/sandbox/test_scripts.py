"""The engine-setup and image-build scripts: syntax, argument errors, no hard-coded mirror hosts."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "sandbox"


@pytest.mark.parametrize("name", ["setup_engine.sh", "build_image.sh"])
def test_script_parses_and_names_no_hosts(name):
    script = SCRIPTS / name
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    text = script.read_text()
    assert not re.search(r"https?://", text), f"{name} hard-codes a URL"


def test_build_image_rejects_unknown_arguments():
    done = subprocess.run(
        ["bash", str(SCRIPTS / "build_image.sh"), "--bogus"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "unknown argument --bogus" in done.stderr
