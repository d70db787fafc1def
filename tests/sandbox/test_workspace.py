"""Workspace layout, path safety, archives and cleanup."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from sandbox import ExecutionResult, Workspace, WorkspaceError


def test_layout_and_node_dirs(workspace: Workspace, comp_dir: Path):
    assert workspace.input_dir.resolve() == (comp_dir / "public").resolve()
    assert (workspace.input_dir / "train.csv").is_file()
    assert not (workspace.root / "input" / "answers.csv").exists()
    a, b = workspace.node_dirs("node-a"), workspace.node_dirs("node-b")
    assert a.root == workspace.root / "nodes" / "node-a"
    assert a.working.is_dir() and a.submission.is_dir()
    assert (a.input / "test.csv").read_text() == (comp_dir / "public" / "test.csv").read_text()
    assert a.submission_file == a.root / "submission" / "submission.csv"
    assert len({a.working, b.working, a.submission, b.submission}) == 4
    assert workspace.best_solution_dir.is_dir() and workspace.archives_dir.is_dir()


@pytest.mark.parametrize("bad", ["../evil", "..", "a/b", "", ".hidden", "x" * 200, "a\x00b", "/abs"])
def test_bad_node_ids_are_refused(workspace: Workspace, bad: str):
    with pytest.raises(WorkspaceError, match="invalid node id"):
        workspace.node_dirs(bad)


def test_paths_escaping_the_workspace_are_refused(workspace: Workspace):
    with pytest.raises(WorkspaceError, match="escapes the workspace"):
        workspace.resolve("../outside")
    with pytest.raises(WorkspaceError, match="escapes the workspace"):
        workspace.resolve("/etc/passwd")
    (workspace.root / "sneaky").symlink_to("/etc")
    with pytest.raises(WorkspaceError, match="escapes the workspace"):
        workspace.resolve("sneaky/passwd")
    assert workspace.resolve("nodes/x") == workspace.root / "nodes" / "x"


def test_public_dir_holding_private_answers_is_refused(comp_dir: Path):
    with pytest.raises(WorkspaceError, match="contains a 'private' dir"):
        Workspace(comp_dir / "ws2", comp_dir)
    with pytest.raises(WorkspaceError, match="is not a directory"):
        Workspace(comp_dir / "ws3", comp_dir / "nope")


def test_copy_input_makes_a_readable_copy(comp_dir: Path):
    ws = Workspace(comp_dir / "wscopy", comp_dir / "public", copy_input=True)
    assert not ws.input_dir.is_symlink()
    assert (ws.input_dir / "train.csv").read_text().startswith("id,x,y")
    assert (ws.input_dir / "train.csv").stat().st_mode & 0o777 == 0o644


def test_archive_holds_code_result_outputs_and_skips_symlinks(workspace: Workspace):
    node = workspace.node_dirs("n1")
    node.code_path.write_text("print(1)\n")
    (node.working / "model.txt").write_text("weights")
    (node.working / "sub").mkdir()
    (node.working / "sub" / "deep.txt").write_text("deep")
    node.submission_file.write_text("id,y\n1,0\n")
    (node.working / "leak").symlink_to("/etc/passwd")
    result = ExecutionResult(output="1\n", exit_code=0, exec_time=0.1, backend="local")
    path = workspace.archive("n1", result, extra={"score": 0.9})
    assert path == workspace.archives_dir / "n1.zip"
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        assert names == {
            "solution.py",
            "result.json",
            "meta.json",
            "working/model.txt",
            "working/sub/deep.txt",
            "submission/submission.csv",
        }
        assert json.loads(zf.read("result.json"))["exit_code"] == 0
        assert json.loads(zf.read("meta.json")) == {"score": 0.9}


def test_archive_and_cleanup(workspace: Workspace):
    node = workspace.node_dirs("best-1")
    node.code_path.write_text("print('best')\n")
    (workspace.best_solution_dir / "solution.py").write_text("print('best')\n")  # cleanup leaves it
    workspace.archive("best-1")
    workspace.cleanup("best-1")
    assert not node.root.exists()
    assert (workspace.archives_dir / "best-1.zip").exists()
    workspace.node_dirs("other")
    workspace.cleanup(keep_archives=False)
    assert list(workspace.nodes_dir.iterdir()) == []
    assert list(workspace.archives_dir.iterdir()) == []
    assert (workspace.best_solution_dir / "solution.py").exists()
