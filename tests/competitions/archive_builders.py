"""Real zip and tar archives built in a test's tmp dir, with members as given (also unsafe ones)."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path


def make_zip(path: Path, members: dict[str, bytes | None], links: dict[str, str] | None = None) -> Path:
    """A zip of `members` (name -> bytes; None makes a folder entry) and symlink members (name -> target)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            if data is None:
                archive.writestr(zipfile.ZipInfo(name.rstrip("/") + "/"), b"")
            else:
                archive.writestr(zipfile.ZipInfo(name), data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return path


def make_tar(path: Path, members: dict[str, bytes], special: list[tarfile.TarInfo] | None = None) -> Path:
    """A tar (compressed by `path`'s suffix: .tar.gz, .tar.bz2, .tar.xz, .tar) of `members` and of any
    `special` entries (links, devices) as given."""
    path.parent.mkdir(parents=True, exist_ok=True)
    name = path.name
    mode = "w:gz" if name.endswith((".tar.gz", ".tgz")) else "w:bz2" if name.endswith(".bz2") else "w"
    mode = "w:xz" if name.endswith(".xz") else mode
    with tarfile.open(path, mode) as archive:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for info in special or []:
            archive.addfile(info)
    return path


def tar_entry(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    """A tar entry of type `kind` (tarfile.SYMTYPE, LNKTYPE, CHRTYPE, ...) without data."""
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info
