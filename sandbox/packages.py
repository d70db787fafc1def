"""Which Python packages a solution can import, as "name version" strings for the prompts.

Docker runs the sandbox image, built from `sandbox/requirements.txt`, so its pins are the answer. The local
backend runs a host interpreter, so that interpreter is asked which of the well-known ML packages it has.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)
REQUIREMENTS = Path(__file__).with_name("requirements.txt")
ASK_TIMEOUT_S = 30.0

# Asked of a local interpreter: the image's packages and other common ML libraries.
WELL_KNOWN = (
    "numpy", "pandas", "scipy", "scikit-learn", "lightgbm", "xgboost", "xgboost-cpu", "catboost", "torch",
    "torchvision", "torchaudio", "timm", "transformers", "sentence-transformers", "tensorflow", "keras",
    "pillow", "opencv-python", "opencv-python-headless", "statsmodels", "optuna", "polars", "pyarrow",
    "joblib", "nltk", "spacy", "librosa", "matplotlib",
)  # fmt: skip

_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;#]+)")
_ASK = (
    "import json, sys\n"
    "from importlib import metadata\n"
    "found = {}\n"
    "for name in sys.argv[1:]:\n"
    "    try:\n"
    "        found[name] = metadata.version(name)\n"
    "    except metadata.PackageNotFoundError:\n"
    "        pass\n"
    "print(json.dumps(found))\n"
)


def pinned_packages(requirements: Path = REQUIREMENTS) -> list[str]:
    """The `name==version` pins of a requirements file, as "name version" (other lines are skipped)."""
    found = []
    for line in requirements.read_text(encoding="utf-8").splitlines():
        match = _PIN.match(line)
        if match:
            found.append(f"{match.group(1)} {match.group(2)}")
    return found


def interpreter_packages(python: str, names: Iterable[str] = WELL_KNOWN) -> list[str]:
    """Which of `names` the interpreter `python` has installed, as "name version" (empty if it cannot say)."""
    wanted = list(names)
    try:
        done = subprocess.run(
            [python, "-I", "-c", _ASK, *wanted], capture_output=True, text=True, timeout=ASK_TIMEOUT_S
        )
        versions = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
        log.warning("could not list the packages of %s: %s", python, exc)
        return []
    if not isinstance(versions, dict):
        log.warning("could not list the packages of %s: %s", python, done.stderr.strip()[-300:])
        return []
    return [f"{name} {versions[name]}" for name in wanted if name in versions]
