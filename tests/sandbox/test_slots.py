"""Slot uids: one execution per uid across threads and processes; leftovers of a slot are scrubbed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from sandbox.process_tree import kill_uid, uid_members
from sandbox.shared_tmp import owned_entries, remove_owned
from sandbox.slots import SLOTS, UidSlots

# These tests share a uid range of their own, each with its own lock dir: they run one after another on one worker
# when the suite runs in parallel, so one's scrub never kills another's processes.
pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="slot uids are used (and testable) only as root"),
    pytest.mark.xdist_group("test-slot-uids"),
]

# A uid range of its own, outside the real slots, so these tests never touch a running execution.
TEST_BASE = SLOTS.base + SLOTS.count + 20


def _slots(tmp_path: Path, count: int = 3) -> UidSlots:
    return UidSlots(base=TEST_BASE, count=count, lock_dir=tmp_path / "locks")


def test_threads_get_distinct_uids(tmp_path):
    slots = _slots(tmp_path, count=8)
    held: list[int] = []
    barrier = threading.Barrier(8)
    lock = threading.Lock()

    def worker() -> None:
        with slots.acquire() as uid:
            with lock:
                held.append(uid)
            barrier.wait(timeout=10)  # all eight hold a slot at the same time

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(held) == list(slots.uids)


def test_a_slot_held_by_another_process_is_skipped_and_freed_when_it_dies(tmp_path):
    slots = _slots(tmp_path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys
                from pathlib import Path
                from sandbox.slots import UidSlots
                with UidSlots(base={TEST_BASE}, count=3, lock_dir=Path({str(tmp_path / "locks")!r})).acquire() as uid:
                    print(uid, flush=True)
                    sys.stdin.read()
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        theirs = int(holder.stdout.readline())
        with slots.acquire() as mine:
            assert mine != theirs
    finally:
        holder.kill()  # dies holding the slot: the kernel drops its flock
        holder.wait()
    with slots.acquire() as first, slots.acquire() as second:
        assert {first, second} == {TEST_BASE, TEST_BASE + 1}


def test_all_slots_busy_times_out(tmp_path):
    slots = _slots(tmp_path, count=1)
    with (
        slots.acquire(),
        pytest.raises(TimeoutError, match="no free sandbox uid slot"),
        slots.acquire(wait_s=0.3),
    ):
        pass


def test_acquire_and_release_scrub_processes_and_temp_files(tmp_path):
    slots = _slots(tmp_path, count=1)
    uid = TEST_BASE
    # Leftovers of a holder that died: a process of the uid and a file of it in /tmp.
    stray = subprocess.Popen(["sleep", "300"], user=uid, group=uid, extra_groups=[])
    left = subprocess.run(
        ["mktemp", "/tmp/swarm-slot-test.XXXXXX"],
        user=uid,
        group=uid,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    try:
        with slots.acquire() as got:
            assert got == uid
            assert stray.wait(timeout=5) == -9
            assert not Path(left).exists()
            during = subprocess.Popen(["sleep", "300"], user=uid, group=uid, extra_groups=[])
            subprocess.run(["touch", f"/tmp/swarm-slot-test-{uid}"], user=uid, group=uid, check=True)
            assert uid_members(uid) == {during.pid}
        assert during.wait(timeout=5) == -9
        assert uid_members(uid) == set()
        assert [p for p, _ in owned_entries(uid, ("/tmp",))] == []
    finally:
        kill_uid(uid)
        remove_owned(uid)


def test_kill_uid_refuses_root_and_us():
    with pytest.raises(ValueError, match="refusing"):
        kill_uid(0)
    with pytest.raises(ValueError, match="refusing"):
        remove_owned(os.geteuid())


def test_lock_dir_must_be_private(tmp_path):
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o777)
    loose.chmod(0o777)
    with pytest.raises(PermissionError, match="0700"), UidSlots(TEST_BASE, 1, loose).acquire():
        pass


def test_slot_uids_stay_clear_of_the_container_uid():
    from sandbox.base import SANDBOX_UID

    assert SANDBOX_UID not in SLOTS.uids
