"""The one atomic-write policy: old content survives a failed write, no temp file is left, modes are honoured."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from swarm import atomic
from swarm.atomic import (
    PRIVATE,
    PUBLIC,
    append_bytes_durable,
    copy_file_atomic,
    copy_tree_atomic,
    write_bytes_atomic,
    write_json_atomic,
    write_text_atomic,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_writes_replace_content_and_create_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "file.json"
    write_json_atomic(target, {"x": 1})
    write_json_atomic(target, {"x": 2})
    assert json.loads(target.read_text()) == {"x": 2}
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.json"]


def test_files_are_private_unless_asked(tmp_path: Path) -> None:
    private = tmp_path / "private.txt"
    public = tmp_path / "public.txt"
    write_text_atomic(private, "secret")
    write_text_atomic(public, "hello", mode=PUBLIC)
    assert _mode(private) == PRIVATE
    assert _mode(public) == PUBLIC
    write_text_atomic(public, "again")  # a rewrite takes the mode it asks for, not the old file's
    assert _mode(public) == PRIVATE


def test_failure_mid_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "journal.json"
    write_text_atomic(target, "old", mode=PUBLIC)

    class Boom(Exception):
        pass

    def half_then_fail(handle) -> None:
        handle.write(b"new but cut o")
        raise Boom

    with pytest.raises(Boom):
        atomic._replace_with(target, half_then_fail, PRIVATE)
    assert target.read_text() == "old"
    assert _mode(target) == PUBLIC
    assert [p.name for p in tmp_path.iterdir()] == ["journal.json"]


def test_failed_rename_leaves_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "state.json"
    write_bytes_atomic(target, b"old")

    def refuse(src, dst) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_copy_streams_the_source_with_its_own_mode(tmp_path: Path) -> None:
    source = tmp_path / "source.csv"
    source.write_bytes(b"id,y\n" + b"1,0\n" * 100_000)
    os.chmod(source, 0o640)
    dest = tmp_path / "out" / "submission.csv"
    copy_file_atomic(source, dest)
    assert dest.read_bytes() == source.read_bytes()
    assert _mode(dest) == PRIVATE
    with pytest.raises(FileNotFoundError):
        copy_file_atomic(tmp_path / "missing.csv", dest)
    assert dest.read_bytes() == source.read_bytes()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["submission.csv"]


def test_tree_copy_shows_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "templates"
    (source / "prompts").mkdir(parents=True)
    (source / "prompts" / "draft.j2").write_text("draft")
    (source / ".hidden").write_text("x")
    copy_tree_atomic(
        source, tmp_path / "copy", ignore=lambda _dir, names: [n for n in names if n.startswith(".")]
    )
    assert (tmp_path / "copy" / "prompts" / "draft.j2").read_text() == "draft"
    assert not (tmp_path / "copy" / ".hidden").exists()

    monkeypatch.setattr(atomic.os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        copy_tree_atomic(source, tmp_path / "second")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy", "templates"]  # no partial copy, no temp dir


def test_append_creates_only_when_asked(tmp_path: Path) -> None:
    log = tmp_path / "pool.jsonl"
    with pytest.raises(FileNotFoundError):
        append_bytes_durable(log, b"a\n")
    assert append_bytes_durable(log, b"a\n", create_mode=PUBLIC) == 2
    assert append_bytes_durable(log, b"bc\n") == 5
    assert log.read_bytes() == b"a\nbc\n" and _mode(log) == PUBLIC
