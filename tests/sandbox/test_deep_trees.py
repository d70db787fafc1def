"""Attacker-shaped trees: deeper than the recursion limit and PATH_MAX, symlinks, hard links, shared dirs."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from sandbox.result import list_files
from sandbox.shared_tmp import SHARED_TMP_DIRS, owned_entries, remove_owned
from sandbox.slots import SLOTS
from sandbox.tree_ops import chown_tree, remove_tree

BACKENDS = ["local", "bwrap", pytest.param("docker", marks=pytest.mark.docker)]
DEPTH = 1500  # far past Python's recursion limit (1000)


def make_deep(top: Path, depth: int, name: str = "d") -> Path:
    """A chain of `depth` dirs under `top` with a file at each level (made relative to a dir fd: any depth)."""
    top.mkdir(parents=True, exist_ok=True)
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
            os.close(os.open("f", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    return top


@pytest.mark.slow
def test_remove_and_chown_deeper_than_recursion_and_path_max(tmp_path):
    deep = make_deep(tmp_path / "deep", 2500, name="abc")  # 2500 * 4 chars > PATH_MAX (4096)
    if os.geteuid() == 0:
        chown_tree(deep, 10101, 10101)
        assert (deep / "abc" / "f").stat().st_uid == 10101
    remove_tree(deep)
    assert not deep.exists()


def test_walks_follow_no_symlink_and_skip_hard_links(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    linked = tmp_path / "linked.txt"
    linked.write_text("mine")
    tree = make_deep(tmp_path / "tree", 3)
    (tree / "d" / "to-outside").symlink_to(outside, target_is_directory=True)
    os.link(linked, tree / "d" / "hard.txt")
    if os.geteuid() == 0:
        chown_tree(tree, 10101, 10101)
        assert outside.stat().st_uid == 0 and (outside / "keep.txt").stat().st_uid == 0
        assert linked.stat().st_uid == 0  # a hard link to a file elsewhere is not handed over
    assert list_files(tmp_path, ("tree",)) == ["tree/d/d/d/f", "tree/d/d/f", "tree/d/f", "tree/d/hard.txt"]
    remove_tree(tree)
    assert (outside / "keep.txt").read_text() == "keep" and linked.read_text() == "mine"


def test_list_files_of_a_deep_tree_does_not_recurse(tmp_path):
    make_deep(tmp_path / "working", DEPTH)
    try:
        files = list_files(tmp_path, ("working",), limit=50)
        assert len(files) == 50 and all(f.endswith("/f") for f in files)
    finally:  # pytest's own clean-up of old temp dirs recurses: leave no deep tree behind
        remove_tree(tmp_path / "working", ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="slot uids need root")
def test_shared_dir_cleanup_removes_a_deep_tree_of_a_slot_uid():
    uid = SLOTS.base + SLOTS.count - 1
    top = Path("/tmp") / f"swarm-deep-test-{os.getpid()}"
    make_deep(top, DEPTH)
    chown_tree(top, uid, uid)
    try:
        assert "/run/lock" in SHARED_TMP_DIRS
        assert str(top) in [path for path, _ in owned_entries(uid, ("/tmp",))]
        assert remove_owned(uid, ("/tmp",)) >= 1
        assert not top.exists()
    finally:
        remove_tree(top, ignore_errors=True)


DEEP_SOLUTION = textwrap.dedent(
    f"""
    import os
    os.chdir("working")
    for _ in range({DEPTH}):
        os.mkdir("d")
        os.chdir("d")
    open("f", "w").write("x")
    print("DEEP DONE", flush=True)
    """
)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_deep_tree_breaks_no_later_step(backend, make_backend, workspace):
    """Handing the dirs back, listing the outputs, archiving and cleaning up a 1500-deep tree all work, and
    the next execution (the same slot uid, for local) runs normally."""
    sb = make_backend(backend)
    node = workspace.node_dirs("deep")
    result = sb.run(DEEP_SOLUTION, node)
    assert result.exit_code == 0, result.output
    assert "DEEP DONE" in result.output and result.files[-1].endswith("/d/f")
    if os.geteuid() == 0:
        assert node.working.stat().st_uid == 0  # handed back to the caller, all the way down
    workspace.archive("deep", result)
    again = sb.run("print('next run fine')", workspace.node_dirs("after-deep"))
    assert again.exit_code == 0 and "next run fine" in again.output
    workspace.cleanup("deep")
    assert not node.root.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="the local backend runs (isolated) only as root")
def test_local_run_lock_counts_and_hard_links_there_are_removed(make_backend, workspace):
    """/run/lock is world-writable: what a local solution writes there counts against the disk cap, and a
    hard link it leaves there to its own submission is gone before the submission is handed back."""
    if not Path("/run/lock").is_dir():
        pytest.skip("no /run/lock here")
    sb = make_backend("local", disk_mb=16)
    node = workspace.node_dirs("runlock")
    code = textwrap.dedent(
        """
        import os
        open("submission/submission.csv", "w").write("id,y\\n1,1\\n")
        mine = f"/run/lock/swarm-test-{os.getuid()}"
        os.link("submission/submission.csv", mine + ".csv")
        print("LINKED", flush=True)
        with open(mine + ".fill", "wb") as f:
            for _ in range(64):
                f.write(b"0" * (1024 * 1024))
                f.flush()
        print("NEVER STOPPED", flush=True)
        """
    )
    result = sb.run(code, node, timeout_s=120)
    assert "LINKED" in result.output, result.output
    assert result.disk_exceeded or "File too large" in result.output, result.output[-500:]
    assert "NEVER STOPPED" not in result.output
    assert not [p for uid in SLOTS.uids for p, _ in owned_entries(uid, ("/run/lock",))]
    info = node.submission_file.stat()
    assert info.st_nlink == 1 and info.st_uid == os.geteuid()
