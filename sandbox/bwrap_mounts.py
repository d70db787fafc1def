"""The bubblewrap command line of one execution: namespaces and the whole mount view a solution sees.

Only: the system dirs and a few /etc files read-only, the interpreter's installation read-only with the hidden
packages blanked out (sandbox.hidden), a fresh /proc and /dev, size-limited private /tmp and /dev/shm, and the
node dir rebuilt from parts: solution.py and the competition's public files read-only (the input link's
target, bound at `input`; never the dir beside it), working/ and submission/ read-write; an execution given
GPUs also gets their device nodes and NVIDIA's control nodes (the driver's libraries are under /usr). No home,
run dir, cache dir, repo, /run, /sys or sockets.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path

from sandbox.workspace import CODE_FILE, NodeDirs

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = (
    "alternatives", "ca-certificates", "ca-certificates.conf", "debian_version", "fonts", "group", "host.conf",
    "hosts", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "locale.alias", "localtime", "mime.types",
    "nsswitch.conf", "os-release", "passwd", "ssl", "timezone",
)  # fmt: skip
NAMESPACES = (
    "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    "--die-with-parent", "--new-session",
)  # fmt: skip
HIDDEN_INIT = str(Path(__file__).with_name("hidden_package.py"))
# As root bwrap keeps only what setpriv needs to become the slot uid and to empty the bounding set
# (CAP_SETPCAP: without it a strict setpriv refuses `--bounding-set=-all`, "apply bounding set: Operation not
# permitted", and an older one silently leaves the whole bounding set); setpriv then drops everything.
ROOT_CAPS = (
    "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP",
)  # fmt: skip


@functools.lru_cache(maxsize=16)
def interpreter_roots(python: str) -> tuple[str, ...]:
    """The real dirs an interpreter needs: its prefix, base prefix and exec prefixes."""
    ask = (
        "import json, sys; "
        "print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]))"
    )
    done = subprocess.run([python, "-I", "-c", ask], capture_output=True, text=True, timeout=60, cwd="/")
    if done.returncode != 0:
        raise RuntimeError(f"{python} does not run: {done.stderr.strip()[-300:]}")
    roots = {os.path.realpath(path) for path in json.loads(done.stdout)}
    roots.add(os.path.dirname(os.path.dirname(os.path.realpath(python))))
    return tuple(sorted(root for root in roots if not _under_system(root)))


def _under_system(path: str) -> bool:
    return path == "/" or any(path == top or path.startswith(top + "/") for top in SYSTEM_DIRS)


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


class MountPlan:
    """Builds the bwrap arguments; parent dirs of every bind are created 0711 (enter, not list: bwrap would
    copy the host's 0700s, which a slot uid cannot enter)."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self._dirs: set[str] = {"/"}

    def parents(self, path: str) -> None:
        missing = [str(p) for p in reversed(Path(path).parents) if str(p) not in self._dirs]
        for parent in missing:
            if not _under_system(parent):
                self.args += ["--perms", "0711", "--dir", parent]
            self._dirs.add(parent)

    def add(self, *args: str) -> None:
        self.args += args

    def bind(self, flag: str, source: str, dest: str) -> None:
        self.parents(dest)
        self.args += [flag, source, dest]
        self._dirs.add(dest)


def system_mounts(plan: MountPlan) -> None:
    """The system dirs (symlinks kept as symlinks, as on merged-/usr hosts) and the /etc allow-list."""
    for top in SYSTEM_DIRS:
        if os.path.islink(top):
            plan.add("--symlink", os.readlink(top), top)
        elif os.path.isdir(top):
            plan.bind("--ro-bind", top, top)
    for name in ETC_FILES:
        path = f"/etc/{name}"
        if os.path.exists(path):
            plan.bind("--ro-bind", path, path)


def bwrap_argv(
    bwrap: str,
    node_dirs: NodeDirs | None,
    *,
    python: str,
    hidden: list[str],
    tmp_bytes: int,
    unshare_user: bool,
    devices: list[str] | None = None,
) -> list[str]:
    """bwrap and its options up to (not including) "--"; without node_dirs, the view of a probe. `devices`
    are host device nodes (the execution's GPUs) bound into its otherwise minimal /dev."""
    plan = MountPlan()
    plan.add(bwrap, *(["--unshare-user"] if unshare_user else ROOT_CAPS), *NAMESPACES)
    system_mounts(plan)
    plan.add("--proc", "/proc", "--dev", "/dev")
    for tmp in ("/tmp", "/dev/shm"):  # before the binds: an interpreter (a venv) under /tmp is bound on top
        plan.add("--perms", "1777", "--size", str(tmp_bytes), "--tmpfs", tmp)
        plan._dirs.add(tmp)
    roots = interpreter_roots(python)
    for root in roots:
        plan.bind("--ro-bind", root, root)
    for path in hidden:
        if not _under(path, roots) and not _under_system(path):
            continue  # not mounted at all
        if os.path.isdir(path) and not os.path.islink(path):
            plan.add("--tmpfs", path)
            if not path.endswith((".dist-info", ".egg-info")):  # else an empty dir imports as a namespace
                plan.add("--ro-bind", HIDDEN_INIT, f"{path}/__init__.py")
            plan.add("--remount-ro", path)
        else:
            plan.add("--ro-bind", "/dev/null", path)
    for device in devices or ():
        plan.add("--dev-bind", device, device)
    if node_dirs is not None:
        root = str(node_dirs.root)
        plan.parents(root)
        plan.add("--perms", "0755", "--dir", root)
        plan._dirs.add(root)
        plan.bind("--ro-bind", str(node_dirs.code_path), f"{root}/{CODE_FILE}")
        source = node_dirs.input.resolve()
        if source.is_dir():
            plan.bind("--ro-bind", str(source), f"{root}/input")
        plan.bind("--bind", str(node_dirs.working), f"{root}/working")
        plan.bind("--bind", str(node_dirs.submission), f"{root}/submission")
        plan.add("--chdir", root)
    return plan.args
