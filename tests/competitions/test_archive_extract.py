"""Reading one archive safely: what lands where, and what is refused with a sentence naming the archive."""

from __future__ import annotations

import re
import subprocess
import tarfile
from pathlib import Path

import pytest

from swarm.competitions.archive_extract import (
    ArchiveError,
    ExtractBudget,
    archive_kind,
    archive_stem,
    extract_archive,
    seven_zip_program,
)
from tests.competitions.archive_builders import make_tar, make_zip, tar_entry


def _extract(archive: Path, dest: Path, limit: int = 10**9) -> None:
    dest.mkdir(parents=True)
    extract_archive(archive, dest, ExtractBudget(limit=limit, disk=dest))


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def test_kinds_and_stems() -> None:
    assert [
        archive_kind(Path(n)) for n in ("a.zip", "a.TAR.GZ", "a.tgz", "a.tar.bz2", "a.tar.xz", "a.7z")
    ] == [
        "zip",
        "tar",
        "tar",
        "tar",
        "tar",
        "7z",
    ]
    assert archive_kind(Path("train.csv")) is None and archive_kind(Path("train.csv.gz")) is None
    assert archive_stem(Path("train.json.zip")) == "train.json"
    assert archive_stem(Path("images.tar.gz")) == "images"


def test_zip_and_tar_members_land_where_they_say(tmp_path: Path) -> None:
    zipped = make_zip(tmp_path / "a.zip", {"train/x.jpg": b"x", "train/sub/": None, "train/sub/y.jpg": b"yy"})
    _extract(zipped, tmp_path / "z")
    assert _files(tmp_path / "z") == {"train/x.jpg", "train/sub/y.jpg"}
    assert (tmp_path / "z" / "train" / "sub" / "y.jpg").read_bytes() == b"yy"
    for suffix in (".tar", ".tar.gz", ".tar.bz2", ".tar.xz"):
        tarred = make_tar(tmp_path / f"b{suffix}", {"d/1.txt": b"one", "2.txt": b"two"})
        _extract(tarred, tmp_path / f"t{suffix}")
        assert _files(tmp_path / f"t{suffix}") == {"d/1.txt", "2.txt"}


def test_links_inside_the_archive_are_kept(tmp_path: Path) -> None:
    links = [
        tar_entry("alias.txt", tarfile.SYMTYPE, "d/1.txt"),
        tar_entry("hard.txt", tarfile.LNKTYPE, "d/1.txt"),
    ]
    _extract(make_tar(tmp_path / "a.tar", {"d/1.txt": b"one"}, links), tmp_path / "t")
    assert (tmp_path / "t" / "alias.txt").is_symlink() and (
        tmp_path / "t" / "alias.txt"
    ).read_bytes() == b"one"
    assert (tmp_path / "t" / "hard.txt").read_bytes() == b"one"
    _extract(make_zip(tmp_path / "l.zip", {"d/1.txt": b"one"}, {"d/alias.txt": "1.txt"}), tmp_path / "z")
    assert (tmp_path / "z" / "d" / "alias.txt").read_bytes() == b"one"


@pytest.mark.parametrize(
    ("name", "said"),
    [("../evil", "points outside it ('../evil')"), ("/abs/evil", "absolute path ('/abs/evil')")],
)
def test_members_outside_the_archive_are_refused(tmp_path: Path, name: str, said: str) -> None:
    zipped = make_zip(tmp_path / "pub" / "train.zip", {"ok.txt": b"ok", name: b"evil"})
    with pytest.raises(ArchiveError, match=r"^train\.zip holds a member .*" + re.escape(said)):
        _extract(zipped, tmp_path / "out" / "z")
    tarred = make_tar(tmp_path / "pub" / "train.tar.gz", {"ok.txt": b"ok", name: b"evil"})
    with pytest.raises(ArchiveError, match=r"^train\.tar\.gz holds a member"):
        _extract(tarred, tmp_path / "out" / "t")
    assert not (tmp_path / "out" / "evil").exists() and not (tmp_path / "evil").exists()


@pytest.mark.parametrize(
    "entries",
    [
        [tar_entry("up", tarfile.SYMTYPE, "../../outside")],
        [tar_entry("abs", tarfile.SYMTYPE, "/etc/passwd")],
        [tar_entry("hard", tarfile.LNKTYPE, "../outside")],
        # Each link inside where it is made, outside once the second exists: a -> q/.. with q -> "."
        [tar_entry("a", tarfile.SYMTYPE, "q/.."), tar_entry("q", tarfile.SYMTYPE, ".")],
    ],
)
def test_links_pointing_outside_are_refused(tmp_path: Path, entries: list[tarfile.TarInfo]) -> None:
    tarred = make_tar(tmp_path / "links.tar", {"f.txt": b"f"}, entries)
    with pytest.raises(ArchiveError, match=r"^links\.tar holds a (hard )?link .* points outside it"):
        _extract(tarred, tmp_path / "t")


def test_zip_symlink_outside_and_device_files_are_refused(tmp_path: Path) -> None:
    zipped = make_zip(tmp_path / "l.zip", {"f.txt": b"f"}, {"up": "../../etc/passwd"})
    with pytest.raises(
        ArchiveError, match=r"^l\.zip holds a link 'up' -> '\.\./\.\./etc/passwd' that points outside"
    ):
        _extract(zipped, tmp_path / "z")
    tarred = make_tar(tmp_path / "dev.tar", {}, [tar_entry("null", tarfile.CHRTYPE)])
    with pytest.raises(ArchiveError, match=r"^dev\.tar holds 'null', a device file"):
        _extract(tarred, tmp_path / "t")


def test_over_the_cap_is_refused_naming_the_archive(tmp_path: Path) -> None:
    zipped = make_zip(tmp_path / "bomb.zip", {"zeros.bin": b"\0" * 50_000})
    with pytest.raises(ArchiveError, match=r"^bomb\.zip expands to more than .* zip bomb"):
        _extract(zipped, tmp_path / "z", limit=10_000)
    assert not (tmp_path / "z" / "zeros.bin").exists()  # refused from the zip's own sizes, before writing
    tarred = make_tar(tmp_path / "bomb.tar.gz", {"zeros.bin": b"\0" * 50_000})
    with pytest.raises(ArchiveError, match=r"^bomb\.tar\.gz expands to more than"):
        _extract(tarred, tmp_path / "t", limit=10_000)  # a stream: stopped while writing


def test_the_cap_counts_every_archive_of_a_budget(tmp_path: Path) -> None:
    budget = ExtractBudget(limit=15_000, disk=tmp_path)
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    extract_archive(make_zip(tmp_path / "a.zip", {"x": b"1" * 10_000}), tmp_path / "a", budget)
    with pytest.raises(ArchiveError, match=r"^b\.zip expands"):
        extract_archive(make_zip(tmp_path / "b.zip", {"x": b"1" * 10_000}), tmp_path / "b", budget)


def test_damaged_archive_says_it_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "broken.zip").write_bytes(b"not a zip at all")
    with pytest.raises(ArchiveError, match=r"^broken\.zip cannot be read"):
        _extract(tmp_path / "broken.zip", tmp_path / "z")


def test_7z_without_a_program_is_one_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    (tmp_path / "train.7z").write_bytes(b"7z\xbc\xaf\x27\x1c fake")
    with pytest.raises(ArchiveError) as caught:
        _extract(tmp_path / "train.7z", tmp_path / "z")
    message = str(caught.value)
    assert message.startswith("train.7z is a 7z archive and no 7z program (7z, 7za or 7zr) is on PATH")
    assert "install one" in message and message.count(". ") == 0


def _seven_zip(archive: Path, source: Path, *options: str) -> Path:
    """`archive` made by the 7z program from the folder `train` in `source` (a.txt in it, big enough to be
    compressed)."""
    (source / "train").mkdir(parents=True)
    (source / "train" / "a.txt").write_text("a" * 5000)
    command = [str(seven_zip_program()), "a", *options, str(archive), "train"]
    subprocess.run(command, cwd=source, check=True, capture_output=True)
    return archive


needs_7z = pytest.mark.skipif(seven_zip_program() is None, reason="no 7z program on PATH")


@needs_7z
def test_7z_is_read_with_the_program(tmp_path: Path) -> None:
    _extract(_seven_zip(tmp_path / "train.7z", tmp_path / "src"), tmp_path / "z")
    assert _files(tmp_path / "z") == {"train/a.txt"}
    assert (tmp_path / "z" / "train" / "a.txt").read_text() == "a" * 5000


@needs_7z
def test_7z_with_a_link_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "train").mkdir(parents=True)
    (source / "train" / "up").symlink_to("/etc/passwd")
    command = [str(seven_zip_program()), "a", "-snl", str(tmp_path / "l.7z"), "train"]
    subprocess.run(command, cwd=source, check=True, capture_output=True)
    with pytest.raises(ArchiveError, match=r"^l\.7z holds a link 'train/up'"):
        _extract(tmp_path / "l.7z", tmp_path / "z")


@needs_7z
def test_a_zip_python_cannot_read_goes_through_7z(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = _seven_zip(tmp_path / "d64.zip", tmp_path / "src", "-tzip", "-mm=Deflate64")
    _extract(archive, tmp_path / "z")
    assert (tmp_path / "z" / "train" / "a.txt").read_text() == "a" * 5000
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    with pytest.raises(ArchiveError, match=r"^d64\.zip uses a zip compression Python cannot read"):
        _extract(archive, tmp_path / "z2")
