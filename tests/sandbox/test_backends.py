"""Every backend against real processes / a real engine: results, limits and isolation."""

from __future__ import annotations

import json
import os
import textwrap
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sandbox.process_tree import real_uid
from sandbox.slots import SLOTS

from .conftest import processes_under

BACKENDS = ["local", "bwrap", pytest.param("docker", marks=pytest.mark.docker)]
SECRET = "sk-swarm-test-secret-0123456789"


def src(code: str) -> str:
    return textwrap.dedent(code).lstrip()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.parametrize("backend", BACKENDS)
def test_hello_world_reads_input_and_writes_submission(backend, make_backend, workspace):
    sb = make_backend(backend)
    code = src(
        """
        import csv
        rows = list(csv.DictReader(open("input/test.csv")))
        with open("submission/submission.csv", "w") as f:
            f.write("id,y\\n" + "".join(f"{r['id']},1\\n" for r in rows))
        open("working/notes.txt", "w").write("scratch")
        print("hello from", len(rows), "rows")
        """
    )
    result = sb.run(code, workspace.node_dirs("hello"))
    assert result.exit_code == 0, result.output
    assert result.succeeded
    assert "hello from 2 rows" in result.output
    assert result.exc_type is None and result.exc_stack == []
    assert result.backend == backend
    assert result.files == ["submission/submission.csv", "working/notes.txt"]
    assert result.submission_path == workspace.node_dirs("hello").submission_file
    assert result.submission_path.read_text() == "id,y\n3,1\n4,1\n"
    assert 0 < result.exec_time < 20
    assert json.loads(result.model_dump_json())["backend"] == backend


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_solution_has_a_user_name_and_a_writable_home(backend, make_backend, workspace):
    """As root the solution runs as a slot uid with no passwd entry: getpass.getuser(), which torch calls when it
    imports its compiler (torch.optim does), must still answer, and the home must be writable."""
    sb = make_backend(backend)
    code = src(
        """
        import getpass, os
        name = getpass.getuser()
        home = os.path.expanduser("~")
        open(os.path.join(home, ".probe"), "w").write("x")
        print("user", name, "home ok")
        """
    )
    result = sb.run(code, workspace.node_dirs("whoami"))
    assert result.exit_code == 0, result.output
    assert "home ok" in result.output
    assert result.output.split()[1]  # a non-empty name


@pytest.mark.parametrize("backend", BACKENDS)
def test_exception_gives_type_message_and_stack(backend, make_backend, workspace):
    sb = make_backend(backend)
    code = src(
        """
        def load(name):
            return {"a": 1}[name]

        print("before")
        load("missing-key")
        """
    )
    result = sb.run(code, workspace.node_dirs("boom"))
    assert result.exit_code == 1
    assert not result.succeeded
    assert result.exc_type == "KeyError"
    assert result.exc_info == "'missing-key'"
    assert [(f.function, f.line) for f in result.exc_stack] == [("<module>", 5), ("load", 2)]
    assert result.exc_stack[-1].code == 'return {"a": 1}[name]'
    assert result.output.startswith("before\n")
    assert result.submission_path is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_timeout_kills_the_whole_tree(backend, make_backend, workspace):
    sb = make_backend(backend)
    code = src(
        """
        import os, subprocess, sys, time
        pids = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                time.sleep(1000)
                os._exit(0)
            pids.append(pid)
        # a grandchild that leaves the process group and session
        p = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(1000)"])
        pids.append(p.pid)
        open("working/pids.txt", "w").write(" ".join(map(str, pids)))
        print("children started", flush=True)
        time.sleep(1000)
        """
    )
    node = workspace.node_dirs("sleepy")
    result = sb.run(code, node, timeout_s=3)
    assert result.timed_out
    assert result.exc_type == "TimeoutError"
    assert 2.5 < result.exec_time < 15
    assert "children started" in result.output
    if backend != "docker":
        pids = [int(p) for p in (node.working / "pids.txt").read_text().split()]
        assert len(pids) == 4
        if backend == "local":
            assert [pid for pid in pids if _alive(pid)] == []
        assert processes_under(workspace.root) == []  # bwrap's pids are its namespace's: find them by cwd
    else:
        assert _own_containers(sb.client) == [], "a timed-out container was left behind"


def _own_containers(client) -> list:
    from sandbox.docker_backend import LABEL, LABEL_PID

    return client.containers.list(all=True, filters={"label": [f"{LABEL}=1", f"{LABEL_PID}={os.getpid()}"]})


@pytest.mark.parametrize("backend", BACKENDS)
def test_memory_bomb_is_reported_as_oom(backend, make_backend, workspace):
    sb = make_backend(backend, memory_mb=256)
    code = src(
        """
        hog = []
        while True:
            hog.append(b"x" * (32 * 1024 * 1024))
        """
    )
    result = sb.run(code, workspace.node_dirs("hog"), timeout_s=60)
    assert result.oom_killed, result.output
    assert not result.timed_out
    assert result.exit_code != 0
    assert result.exc_type is not None and result.exc_type.endswith("MemoryError")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigkill_is_not_mistaken_for_oom(backend, make_backend, workspace):
    """Exit status 137 alone means SIGKILL, not OOM: only the kernel's OOM report may set oom_killed."""
    sb = make_backend(backend)
    code = "import os, signal\nprint('going', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n"
    result = sb.run(code, workspace.node_dirs("selfkill"))
    assert result.exit_code == 137
    assert "going" in result.output
    assert not result.oom_killed
    assert not result.timed_out and not result.disk_exceeded
    assert result.exc_type is None


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_fork_bomb_is_contained(backend, make_backend, workspace):
    sb = make_backend(backend, pids_limit=32)
    code = src(
        """
        import os, time
        failures = 0
        while True:
            try:
                os.fork()
            except OSError:
                failures += 1
                if failures == 1:
                    print("fork refused", flush=True)
                time.sleep(0.01)
        """
    )
    result = sb.run(code, workspace.node_dirs("forkbomb"), timeout_s=4)
    assert result.timed_out
    assert "fork refused" in result.output
    if backend != "docker":
        leftovers = [
            p for p in Path("/proc").iterdir() if p.name.isdigit() and _owned_by_sandbox(p, workspace.root)
        ]
        assert leftovers == []


def _owned_by_sandbox(proc: Path, under: Path) -> bool:
    """A live process running as a local-backend slot uid in `under` (other test runs may share the host)."""
    if real_uid(int(proc.name)) not in SLOTS.uids:
        return False
    try:
        cwd = Path(os.readlink(proc / "cwd"))
    except OSError:
        return False
    return cwd == under or under in cwd.parents


@pytest.mark.parametrize("backend", BACKENDS)
def test_disk_fill_is_stopped(backend, make_backend, workspace):
    sb = make_backend(backend, disk_mb=16)
    code = src(
        """
        import os
        chunk = b"0" * (1024 * 1024)
        # The temp file first, removed before the next: the two never add up past the overall disk cap
        # (which the watcher enforces, racing this script), so only the per-file limit stops each.
        for target in (os.path.join(os.environ.get("TMPDIR", "/tmp"), "tmpfill.bin"), "working/fill.bin"):
            written = 0
            try:
                with open(target, "wb") as f:
                    for _ in range(200):
                        f.write(chunk)
                        f.flush()
                        written += 1
            except OSError as exc:
                print(target, "stopped after", written, "MB:", type(exc).__name__, flush=True)
            finally:
                if target.endswith("tmpfill.bin"):
                    os.remove(target)
        """
    )
    node = workspace.node_dirs("filler")
    result = sb.run(code, node, timeout_s=60)
    # A 16 MB file plus its dir entries is just over the overall cap: if the watcher polls while one exists, it
    # stops the run (a race with the script, so either outcome is right); the per-file limit holds either way.
    assert result.exit_code == 0 or result.disk_exceeded, result.output
    fill = node.working / "fill.bin"
    assert not fill.exists() or fill.stat().st_size <= 16 * 1024 * 1024
    assert result.disk_exceeded or result.output.count("stopped after 16 MB") == 2, result.output


@pytest.mark.parametrize("backend", BACKENDS)
def test_output_flood_is_trimmed_with_bounded_memory(backend, make_backend, workspace):
    max_chars = 10_000
    sb = make_backend(backend, max_output_chars=max_chars)
    code = src(
        """
        import sys
        print("FIRST-LINE")
        line = "y" * 999 + "\\n"
        for _ in range(20_000):
            sys.stdout.write(line)
        print("LAST-LINE")
        """
    )
    tracemalloc.start()
    try:
        result = sb.run(code, workspace.node_dirs("flood"), timeout_s=120)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0
    assert result.output_truncated
    assert result.output.startswith("FIRST-LINE\n")
    assert result.output.rstrip().endswith("LAST-LINE")
    assert "characters cut]" in result.output
    assert len(result.output) <= max_chars + 100
    assert peak < 8 * 1024 * 1024, f"peak Python memory {peak} bytes for 20 MB of output"


@pytest.mark.parametrize("backend", BACKENDS)
def test_secrets_private_files_and_outside_writes_are_denied(
    backend, make_backend, workspace, comp_dir, monkeypatch
):
    if backend == "bwrap" and os.geteuid() != 0:
        pytest.skip("as a plain user bwrap's own dirs (/etc, /root) are the user's: the probes assume root")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("SWARM_TEST_TOKEN", SECRET)
    sb = make_backend(backend)
    node = workspace.node_dirs("thief")
    private = comp_dir / "private" / "answers.csv"
    # Another user's home with a key in a 0700 .ssh, under a dir everyone can traverse: only the
    # permission check (local) or the missing mount (docker) can stop the read, not a missing file.
    home = comp_dir / "home-of-someone"
    (home / ".ssh").mkdir(parents=True, mode=0o700)
    home.chmod(0o755)
    planted = home / ".ssh" / "id_ed25519"
    planted.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nplanted\n", encoding="utf-8")
    planted.chmod(0o600)
    probes = {
        "read_planted_key": f"open({str(planted)!r}).read()",
        "read_private": f"open({str(private)!r}).read()",
        "list_root_home": "os.listdir('/root')",
        "read_ssh_key": "open('/root/.ssh/id_rsa').read()",
        "read_shadow": "open('/etc/shadow').read()",
        "write_node_root": "open('stolen.py', 'w').write('x')",
        "write_input": "open('input/train.csv', 'a').write('x')",
        "write_best": f"open({str(workspace.best_solution_dir / 'x.py')!r}, 'w').write('x')",
        "write_etc": "open('/etc/evil', 'w').write('x')",
    }
    code = "import json, os\nout = {}\n"
    for name, expr in probes.items():
        code += f"try:\n    {expr}\n    out[{name!r}] = 'ok'\nexcept Exception as e:\n    out[{name!r}] = type(e).__name__\n"
    code += "print('ENV', json.dumps(dict(os.environ)))\nprint('PROBES', json.dumps(out))\n"
    result = sb.run(code, node)
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    line = next(ln for ln in result.output.splitlines() if ln.startswith("PROBES "))
    outcomes = json.loads(line[len("PROBES ") :])
    allowed = {name: outcome for name, outcome in outcomes.items() if outcome == "ok"}
    assert allowed == {}, f"the solution could do: {sorted(allowed)}"
    # Locally the files exist and only permissions stop the solution; in Docker and bwrap they are not there.
    expected = "PermissionError" if backend == "local" else "FileNotFoundError"
    assert outcomes["read_planted_key"] == expected
    assert outcomes["read_private"] == expected
    assert not (node.root / "stolen.py").exists()
    assert (comp_dir / "public" / "train.csv").read_text() == "id,x,y\n1,0.5,1\n2,0.1,0\n"


@pytest.mark.parametrize("backend", BACKENDS)
def test_four_parallel_executions_keep_their_own_submission(backend, make_backend, workspace):
    sb = make_backend(backend)
    code = src(
        """
        import time
        tag = open("working/tag.txt").read()
        time.sleep(0.5)
        with open("submission/submission.csv", "w") as f:
            f.write("id,y\\n" + tag + "\\n")
        """
    )
    nodes = [workspace.node_dirs(f"par-{i}") for i in range(4)]
    for i, node in enumerate(nodes):
        (node.working / "tag.txt").write_text(f"{i},{i * 11}")
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda n: sb.run(code, n), nodes))
    for i, (node, result) in enumerate(zip(nodes, results, strict=True)):
        assert result.exit_code == 0, result.output
        assert result.submission_path == node.submission_file
        assert node.submission_file.read_text() == f"id,y\n{i},{i * 11}\n"
