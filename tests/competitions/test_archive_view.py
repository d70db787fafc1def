"""The cached view of a public dir with its archives extracted: naming, clashes, refusals, reuse, atomicity."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest

from swarm.competitions import archive_view
from swarm.competitions.archive_extract import ArchiveError
from swarm.competitions.archive_view import VIEWS_DIR, find_archives, public_view, view_manifest
from tests.competitions.archive_builders import make_tar, make_zip


def _public(tmp_path: Path) -> Path:
    public = tmp_path / "comp" / "prepared" / "public"
    public.mkdir(parents=True)
    (public / "description.md").write_text("# Toy\n")
    (public / "train.csv").write_text("id,y\na,1\n")
    return public


def _listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) + ("/" if p.is_dir() else "") for p in folder.rglob("*")}


def test_a_dir_without_archives_is_its_own_view(tmp_path: Path) -> None:
    public = _public(tmp_path)
    assert public_view(public, tmp_path / "cache") == public.resolve()
    assert not (tmp_path / "cache").exists()


def test_each_kind_of_archive_lands_by_the_naming_rules(tmp_path: Path) -> None:
    public = _public(tmp_path)
    make_zip(public / "train.zip", {"train/": None, "train/a1.jpg": b"A", "train/b2.jpg": b"B"})
    make_zip(public / "images.zip", {"x.png": b"x", "y.png": b"y"})
    make_zip(public / "train.json.zip", {"train.json": b"[]"})
    make_tar(public / "extra.tar.gz", {"d/1.txt": b"one", "2.txt": b"two", "__MACOSX/._2.txt": b"junk"})
    before = _listing(public)
    view = public_view(public, tmp_path / "cache")
    assert view.parent == (tmp_path / "cache" / VIEWS_DIR).resolve() and view.name.startswith("comp-")
    assert _listing(view) == before | {
        "train/",
        "train/a1.jpg",
        "train/b2.jpg",
        "images/",
        "images/x.png",
        "images/y.png",
        "train.json",
        "extra/",
        "extra/d/",
        "extra/d/1.txt",
        "extra/2.txt",
    }
    assert (view / "train" / "b2.jpg").read_bytes() == b"B" and (view / "train.json").read_text() == "[]"
    # Public files are hard links (same inode), the archives kept; the public dir itself is untouched.
    assert (view / "train.csv").stat().st_ino == (public / "train.csv").stat().st_ino
    assert (view / "train.zip").stat().st_ino == (public / "train.zip").stat().st_ino
    assert _listing(public) == before
    assert view_manifest(view) == {
        "extra.tar.gz": "extra",
        "images.zip": "images",
        "train.json.zip": "train.json",
        "train.zip": "train",
    }
    assert oct((view / "train" / "a1.jpg").stat().st_mode & 0o777) == "0o644"


def _never(*args: object) -> None:
    raise AssertionError("extracted")


def test_a_public_name_that_exists_wins(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    public = _public(tmp_path)
    (public / "train").mkdir()
    (public / "train" / "plain.jpg").write_bytes(b"P")
    (public / "train.json").write_text('["plain"]')
    make_zip(public / "train.zip", {"train/zipped.jpg": b"Z"})
    make_zip(public / "train.json.zip", {"train.json": b'["zipped"]'})
    make_tar(public / "test.tar.gz", {"a.txt": b"a", "b.txt": b"b"})
    (public / "test").mkdir()
    (public / "test" / "plain.txt").write_text("p")
    real = archive_view.extract_archive
    # A zip's name is known from its listing: a taken one is never extracted; a tar's is known once extracted.
    monkeypatch.setattr(
        archive_view, "extract_archive", lambda a, *rest: (_never if a.suffix == ".zip" else real)(a, *rest)
    )
    with caplog.at_level(logging.WARNING, logger=archive_view.__name__):
        view = public_view(public, tmp_path / "cache")
    assert sorted(os.listdir(view / "train")) == ["plain.jpg"]
    assert (view / "train.json").read_text() == '["plain"]'
    assert (view / "train.zip").is_file() and (view / "train.json.zip").is_file()
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert (
        "train.zip is not extracted as train: the public dir already holds train (the plain one wins"
        in warned
    )
    assert "train.json.zip is not extracted as train.json" in warned
    assert "test.tar.gz is not extracted as test" in warned and sorted(os.listdir(view / "test")) == [
        "plain.txt"
    ]
    assert view_manifest(view) == {"test.tar.gz": None, "train.json.zip": None, "train.zip": None}


@pytest.mark.parametrize("bad", ["../evil", "/tmp/evil-abs"])
def test_a_member_outside_is_refused_and_leaves_no_view(tmp_path: Path, bad: str) -> None:
    public = _public(tmp_path)
    make_zip(public / "test.zip", {"test/ok.jpg": b"ok", bad: b"evil"})
    with pytest.raises(
        ArchiveError, match=r"^test\.zip holds a member (with an absolute path|that points outside)"
    ):
        public_view(public, tmp_path / "cache")
    views = tmp_path / "cache" / VIEWS_DIR
    assert [p.name for p in views.iterdir() if p.is_dir()] == []  # no view, no temp dir left
    assert not (views / "evil").exists() and not Path("/tmp/evil-abs").exists()


def test_over_the_cap_is_refused_naming_the_archive(tmp_path: Path) -> None:
    public = _public(tmp_path)
    make_zip(public / "bomb.zip", {"zeros.bin": b"\0" * 200_000})
    with pytest.raises(ArchiveError, match=r"^bomb\.zip expands to more than .*zip bomb"):
        public_view(public, tmp_path / "cache", max_bytes=100_000)
    assert [p for p in (tmp_path / "cache" / VIEWS_DIR).iterdir() if p.is_dir()] == []


def test_the_view_is_reused_and_rebuilt_when_an_archive_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    public = _public(tmp_path)
    archive = make_zip(public / "train.zip", {"train/a.jpg": b"old"})
    first = public_view(public, tmp_path / "cache")
    inode = (first / "train" / "a.jpg").stat().st_ino

    with monkeypatch.context() as patched:
        patched.setattr(archive_view, "extract_archive", _never)
        again = public_view(public, tmp_path / "cache")
    assert again == first and (again / "train" / "a.jpg").stat().st_ino == inode

    make_zip(archive, {"train/a.jpg": b"new!"})
    os.utime(archive, ns=(1, 1))  # a different mtime, whatever the clock's resolution
    rebuilt = public_view(public, tmp_path / "cache")
    assert rebuilt != first and (rebuilt / "train" / "a.jpg").read_bytes() == b"new!"
    assert not first.exists()  # the stale view of the same public dir is gone
    assert {p.name for p in rebuilt.parent.iterdir() if p.is_dir()} == {rebuilt.name}


def test_a_crash_midway_leaves_nothing_to_reuse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    public = _public(tmp_path)
    make_zip(public / "a.zip", {"a/1.txt": b"1"})
    make_zip(public / "b.zip", {"b/2.txt": b"2"})
    real = archive_view.extract_archive

    def crash_on_b(archive: Path, *args: object) -> None:
        if archive.name == "b.zip":
            raise KeyboardInterrupt
        real(archive, *args)

    monkeypatch.setattr(archive_view, "extract_archive", crash_on_b)
    with pytest.raises(KeyboardInterrupt):
        public_view(public, tmp_path / "cache")
    views = tmp_path / "cache" / VIEWS_DIR
    assert [p for p in views.iterdir() if p.is_dir()] == []
    # A temp dir left by a killed build (no cleanup ran) is removed by the next build.
    monkeypatch.setattr(archive_view, "extract_archive", real)
    view_name = f"{archive_view._view_prefix(public.resolve())}-{archive_view._fingerprint(public.resolve())}"
    (views / f".{view_name}.999999.tmp" / "a").mkdir(parents=True)
    view = public_view(public, tmp_path / "cache")
    assert (view / "a" / "1.txt").is_file() and (view / "b" / "2.txt").is_file()
    assert [p.name for p in views.iterdir() if p.is_dir()] == [view.name]


def test_two_loads_at_once_extract_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    public = _public(tmp_path)
    make_zip(public / "train.zip", {"train/a.jpg": b"A"})
    real, calls = archive_view.extract_archive, []
    started = threading.Barrier(2)

    def counted(*args: object) -> None:
        calls.append(args)
        real(*args)

    monkeypatch.setattr(archive_view, "extract_archive", counted)
    views: list[Path] = []

    def load() -> None:
        started.wait()
        views.append(public_view(public, tmp_path / "cache"))

    threads = [threading.Thread(target=load) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len(set(views)) == 1 and (views[0] / "train" / "a.jpg").is_file()


def test_cache_inside_the_public_dir_is_refused(tmp_path: Path) -> None:
    public = _public(tmp_path)
    make_zip(public / "train.zip", {"train/a.jpg": b"A"})
    with pytest.raises(Exception, match="lies inside the public dir"):
        public_view(public, public / "cache")
    assert find_archives(public) == [public / "train.zip"]
