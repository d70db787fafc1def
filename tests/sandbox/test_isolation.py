"""Executions are isolated from each other: no writes across nodes, no shared process budget."""

from __future__ import annotations

import json
import os
import textwrap
import threading
import time

import pytest

BACKENDS = ["local", "bwrap", pytest.param("docker", marks=pytest.mark.docker)]

VICTIM = textwrap.dedent(
    """
    import time
    open("working/secret.txt", "w").write("victim's scratch")
    with open("submission/submission.csv", "w") as f:
        f.write("id,y\\n1,victim\\n")
    time.sleep(float(open("working/hold").read()))
    print("victim sees:", open("submission/submission.csv").read().splitlines()[-1])
    """
)


def _attacker(victim) -> str:
    probes = {
        "overwrite_submission": f"open({str(victim.submission_file)!r}, 'w').write('id,y\\n1,forged\\n')",
        "create_in_working": f"open({str(victim.working / 'planted.py')!r}, 'w').write('x')",
        "read_working": f"open({str(victim.working / 'secret.txt')!r}).read()",
        "list_submission": f"os.listdir({str(victim.submission)!r})",
    }
    code = "import json, os\nout = {}\n"
    for name, expr in probes.items():
        code += f"try:\n    {expr}\n    out[{name!r}] = 'ok'\nexcept OSError as e:\n    out[{name!r}] = type(e).__name__\n"
    return code + "print('PROBES=' + json.dumps(out))\n"


def _probe_outcomes(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.output.split("PROBES=", 1)[1].splitlines()[0])


def _skip_unisolated_local(backend: str) -> None:
    if backend == "local" and os.geteuid() != 0:
        pytest.skip("the local backend isolates executions only when it can switch uids (root)")
    if backend == "bwrap" and os.geteuid() != 0:
        pytest.skip("as a plain user bwrap runs every execution as that user: no per-run process budget")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_node_cannot_touch_another_nodes_dirs(backend, make_backend, workspace):
    """While the victim runs (its uid owns its dirs) and after it finished (the caller owns them)."""
    _skip_unisolated_local(backend)
    sb = make_backend(backend)
    victim, attacker = workspace.node_dirs("victim"), workspace.node_dirs("attacker")
    (victim.working / "hold").write_text("3")
    results: dict = {}
    thread = threading.Thread(target=lambda: results.update(victim=sb.run(VICTIM, victim)))
    thread.start()
    deadline = time.monotonic() + 30
    while not victim.submission_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert victim.submission_file.exists(), "the victim never started"
    during = _probe_outcomes(sb.run(_attacker(victim), attacker))
    thread.join(timeout=60)
    after = _probe_outcomes(sb.run(_attacker(victim), attacker))
    # Locally the paths exist and only their owner may enter; in Docker and bwrap they are not mounted at all.
    expected = "PermissionError" if backend == "local" else "FileNotFoundError"
    for when, outcomes in (("during", during), ("after", after)):
        assert outcomes == dict.fromkeys(outcomes, expected), f"{when} the victim's run: {outcomes}"
    assert "victim sees: 1,victim" in results["victim"].output
    assert victim.submission_file.read_text() == "id,y\n1,victim\n"
    assert not (victim.working / "planted.py").exists()


FORK_BOMB = textwrap.dedent(
    """
    import os, time
    open("working/started", "w").write("1")
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.01)
    """
)
FORKS_A_FEW = textwrap.dedent(
    """
    import os
    pids = []
    for _ in range(8):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    print("forked", len(pids))
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_fork_bomb_does_not_starve_a_parallel_run(backend, make_backend, workspace):
    """The process limit is each execution's own (a uid or a pids cgroup each), not a shared budget."""
    _skip_unisolated_local(backend)
    sb = make_backend(backend, pids_limit=32)
    bomb = workspace.node_dirs("bomb")
    results: dict = {}
    thread = threading.Thread(target=lambda: results.update(bomb=sb.run(FORK_BOMB, bomb, timeout_s=8)))
    thread.start()
    deadline = time.monotonic() + 30
    while not (bomb.working / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # let it use up its budget
    neighbour = sb.run(FORKS_A_FEW, workspace.node_dirs("neighbour"), timeout_s=30)
    thread.join(timeout=60)
    assert neighbour.exit_code == 0, neighbour.output
    assert "forked 8" in neighbour.output
    assert results["bomb"].timed_out
