"""The overall disk cap: many files below the per-file limit still stop the run (both backends)."""

from __future__ import annotations

import os
import re
import textwrap
import time
from pathlib import Path

import pytest

from sandbox.disk_usage import MIN_ENTRY_BYTES, total_bytes, tree_bytes
from sandbox.disk_watch import DiskWatcher
from sandbox.shared_tmp import owned_entries
from sandbox.slots import SLOTS

BACKENDS = ["local", "bwrap", pytest.param("docker", marks=pytest.mark.docker)]

MANY_FILES = textwrap.dedent(
    """
    import os, sys, time
    target = sys.argv[1] if len(sys.argv) > 1 else "working"
    os.makedirs(target, exist_ok=True)
    chunk = b"0" * (1024 * 1024)
    for i in range(400):  # 400 MB if nothing stopped it; each file is far below the 16 MB per-file limit
        with open(os.path.join(target, f"part-{i:04d}.bin"), "wb") as f:
            f.write(chunk)
        print("wrote", i + 1, flush=True)
        time.sleep(0.01)
    print("never stopped", flush=True)
    """
)


def _count_written(output: str) -> int:
    """The largest count of a `wrote <n>` line; a last line cut off when the solution was stopped (`wrote ` alone,
    as a loaded machine leaves it) counts for nothing."""
    counts = [re.fullmatch(r"wrote (\d+)\b.*", line) for line in output.splitlines()]
    return max((int(found.group(1)) for found in counts if found), default=0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_many_small_files_hit_the_overall_cap(backend, make_backend, workspace):
    sb = make_backend(backend, disk_mb=16)
    node = workspace.node_dirs("many-files")
    result = sb.run(MANY_FILES, node, timeout_s=60)
    assert result.disk_exceeded, result.output[-500:]
    assert not result.succeeded and not result.timed_out
    assert result.exit_code != 0
    assert result.exc_type == "DiskLimitExceeded"
    assert "16 MB disk limit" in result.exc_info
    assert "never stopped" not in result.output
    # Stopped within about one poll of crossing 16 MB, not after hundreds of MB.
    assert 16 <= _count_written(result.output) < 120, result.output[-300:]
    assert total_bytes([node.working]) < 120 * 1024 * 1024


@pytest.mark.skipif(os.geteuid() != 0, reason="the local backend has a uid of its own only as root")
def test_local_temp_files_count_and_are_removed(make_backend, workspace):
    """Files written straight to /tmp (not TMPDIR) count against the cap and do not outlive the run."""
    sb = make_backend("local", disk_mb=16)
    assert sb.drop_privileges
    code = MANY_FILES.replace(
        'sys.argv[1] if len(sys.argv) > 1 else "working"', '"/tmp/swarm-fill-" + str(os.getuid())'
    )
    result = sb.run(code, workspace.node_dirs("tmp-filler"), timeout_s=60)
    assert result.disk_exceeded, result.output[-500:]
    assert 16 <= _count_written(result.output) < 120
    leftovers = [path for uid in SLOTS.uids for path, _ in owned_entries(uid, ("/tmp",))]
    assert not [p for p in leftovers if "swarm-fill-" in p], leftovers


def test_tree_bytes_charges_every_entry_and_follows_no_symlink(tmp_path):
    for i in range(100):
        (tmp_path / f"empty-{i}").touch()
    (tmp_path / "big").write_bytes(b"x" * 100_000)
    (tmp_path / "to-root").symlink_to("/usr", target_is_directory=True)
    used = tree_bytes(tmp_path)
    assert used >= 101 * MIN_ENTRY_BYTES + 100_000
    assert used < 50 * 1024 * 1024  # /usr itself was not counted
    assert tree_bytes(tmp_path / "missing") == 0


def test_disk_watcher_fires_once_when_over_and_never_when_under(tmp_path):
    fired: list[float] = []
    with DiskWatcher(
        lambda: total_bytes([tmp_path]), 1024 * 1024, lambda: fired.append(time.monotonic())
    ) as w:
        time.sleep(0.6)
        assert fired == [] and not w.exceeded
        (tmp_path / "blob").write_bytes(b"x" * 2 * 1024 * 1024)
        start = time.monotonic()
        deadline = start + 60  # a loaded machine may delay the poll; only "fires, and once" is asserted
        while not fired and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.6)
    assert len(fired) == 1 and w.exceeded
    assert w.peak_bytes > 2 * 1024 * 1024


def test_disk_watcher_survives_a_failing_stop(tmp_path, caplog):
    def boom() -> None:
        raise RuntimeError("could not stop")

    with DiskWatcher(lambda: 10, 1, boom, poll_s=0.05) as watcher:
        time.sleep(0.3)
    assert watcher.exceeded
    assert "stopping a run over its disk limit failed" in caplog.text
    assert not watcher._thread.is_alive()  # its own thread: other tests' watchers may still be stopping


def test_total_bytes_of_nothing_is_zero(tmp_path):
    assert total_bytes([]) == 0
    assert total_bytes([Path(tmp_path) / "nope"]) == 0


def test_disk_watcher_reports_a_run_that_ends_between_two_polls(tmp_path):
    fired: list[int] = []
    with DiskWatcher(lambda: total_bytes([tmp_path]), 1024 * 1024, lambda: fired.append(1), poll_s=30) as w:
        (tmp_path / "blob").write_bytes(b"x" * 2 * 1024 * 1024)  # written and done before the first poll
    assert w.exceeded and fired == []  # nothing left to stop, but the overshoot is reported
    assert w.peak_bytes >= 2 * 1024 * 1024
