"""The packages told to the model: the image's pins for Docker, the interpreter's own for local."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from sandbox.packages import REQUIREMENTS, interpreter_packages, pinned_packages


def test_pins_are_read_and_other_lines_skipped(tmp_path: Path) -> None:
    req = tmp_path / "requirements.txt"
    req.write_text(
        "# a comment\nnumpy==2.4.6\n\nscikit-learn == 1.9.1  # why\ntorch>=2\nxgboost-cpu==3.2.0; python_version>'3'\n"
    )
    assert pinned_packages(req) == ["numpy 2.4.6", "scikit-learn 1.9.1", "xgboost-cpu 3.2.0"]


def test_the_image_list_is_the_shared_requirements_file() -> None:
    pins = pinned_packages()
    names = [p.split()[0] for p in pins]
    assert "pandas" in names and "scikit-learn" in names
    assert len(pins) == sum(1 for line in REQUIREMENTS.read_text().splitlines() if "==" in line.split("#")[0])


def test_an_interpreter_reports_its_own_versions_and_not_missing_packages() -> None:
    found = interpreter_packages(sys.executable, ["pandas", "no-such-package-xyz", "numpy"])
    assert found == [f"pandas {metadata.version('pandas')}", f"numpy {metadata.version('numpy')}"]


def test_a_missing_interpreter_gives_an_empty_list(tmp_path: Path) -> None:
    assert interpreter_packages(str(tmp_path / "no-python"), ["pandas"]) == []
