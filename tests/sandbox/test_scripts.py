"""The engine-setup and image-build scripts: syntax, argument errors, no hard-coded mirror hosts."""

from __future__ import annotations

import os
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


def _requirements() -> list[str]:
    lines = (SCRIPTS / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_offline_build_installs_the_shared_package_list_with_the_local_cpu_torch(tmp_path):
    torch_pin = next(line for line in _requirements() if line.startswith("torch=="))
    version = torch_pin.split("==")[1]
    wheel = tmp_path / f"torch-{version}+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    wheel.touch()
    (tmp_path / f"torch-{version}-cp311-cp311-manylinux_2_28_x86_64.whl").touch()  # a CUDA build: never
    env = {**os.environ, "SWARM_TORCH_WHEEL_DIR": str(tmp_path)}
    done = subprocess.run(
        ["bash", str(SCRIPTS / "build_image.sh"), "--print-packages"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout.split()
    assert printed == [line for line in _requirements() if line != torch_pin] + [str(wheel)]
    without = subprocess.run(
        ["bash", str(SCRIPTS / "build_image.sh"), "--print-packages", "--no-torch"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert without.stdout.split() == [line for line in _requirements() if line != torch_pin]


def test_offline_build_without_the_torch_wheel_says_what_to_do(tmp_path):
    env = {**os.environ, "SWARM_TORCH_WHEEL_DIR": str(tmp_path)}
    done = subprocess.run(
        ["bash", str(SCRIPTS / "build_image.sh"), "--print-packages"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 1
    assert "no CPU wheel torch-" in done.stderr and "--no-torch" in done.stderr


def test_dockerfile_reads_the_same_list_and_takes_cpu_torch_by_default():
    text = (SCRIPTS / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim-bookworm$", text, re.M)
    assert "COPY requirements.txt /tmp/requirements.txt" in text
    assert re.search(r"^ARG TORCH=1$", text, re.M)
    assert re.search(r"^ARG TORCH_INDEX_URL=\S+/whl/cpu$", text, re.M)
    assert '--index-url "$TORCH_INDEX_URL"' in text
    assert not re.search(r"pip install[^\n]*\b(numpy|pandas|torch)==\d", text), (
        "pins belong in requirements.txt"
    )
    # Every requirement is pinned, so both recipes install the same versions.
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.+-]*", line) for line in _requirements())
    assert {line.split("==")[0] for line in _requirements()} >= {
        "numpy",
        "pandas",
        "scikit-learn",
        "lightgbm",
        "xgboost-cpu",
        "torch",
    }
