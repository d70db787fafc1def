"""A public dir whose inputs ship in archives, read once into a cached view with the archives extracted.

MLE-bench competitions often ship their inputs only as archives (aerial-cactus-identification's `train.zip`
of images, text-normalization's `en_train.csv.zip`). So that the harness split, the preflight checks and every
solution see the files themselves, `public_view` makes a view dir under the cache dir: every public file
(hard-linked, or copied where a hard link cannot be made, never symlinked: a sandbox binds only the view, so a
link out of it would dangle there), the archives kept too, and each top-level archive's contents beside it:

- members all under one top folder (`train/...`) give that folder (`train/`);
- a single file (`train.json.zip` holding `train.json`) gives that file;
- anything else goes into a folder named after the archive (`images.tar.gz` -> `images/`).

A name the public dir (or an earlier archive, by name order) already holds is never replaced: the plain file
wins and a warning says so. macOS's `__MACOSX/` resource folders are dropped.

The view is built once and reused, by later runs and by every load of the competition within one: it is keyed
by the public dir's path and the name, type, size and mtime of each of its top-level entries (so a changed or
added archive, or file, gives a new view and the old one is removed). It is built under a lock into a temp dir
beside it and renamed into place, so two processes at once or a crash midway never leave a half view that is
then reused; a crash's temp dir is removed by the next build. A dir without archives is its own view.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

from swarm.atomic import PUBLIC, write_text_atomic
from swarm.competitions.archive_extract import (
    MAX_EXTRACTED_BYTES,
    ArchiveError,
    ExtractBudget,
    archive_kind,
    archive_stem,
    extract_archive,
    member_path,
)
from swarm.competitions.errors import CompetitionError

log = logging.getLogger(__name__)

VIEWS_DIR = "public_views"  # under the cache dir
VIEW_FORMAT = 1  # part of the key: a change to how views are made gives new ones
STAGING_DIR = ".swarm-extracting"  # inside a view being built, removed before it is renamed into place
JUNK_FOLDERS = ("__MACOSX",)


def find_archives(public: Path) -> list[Path]:
    """The archives at the top of `public` (zip, tar, tar.gz/tgz, tar.bz2, tar.xz, 7z), by name."""
    return sorted(entry for entry in public.iterdir() if entry.is_file() and archive_kind(entry) is not None)


def public_view(public: Path, cache_dir: str | Path, *, max_bytes: int = MAX_EXTRACTED_BYTES) -> Path:
    """The dir a run should read `public` through: `public` itself when it holds no archive, else its view
    under `cache_dir/public_views/` (built now, once). ArchiveError naming the archive when one cannot be read
    safely or would extract to more than `max_bytes` (with the others)."""
    public = Path(public).resolve()
    archives = find_archives(public)
    if not archives:
        return public
    views = Path(cache_dir).expanduser().resolve() / VIEWS_DIR
    if views == public or public in views.parents:
        raise CompetitionError(
            f"the cache dir {views.parent} lies inside the public dir {public}; move it out"
        )
    prefix = _view_prefix(public)
    view = views / f"{prefix}-{_fingerprint(public)}"
    if not view.is_dir():
        views.mkdir(parents=True, exist_ok=True)
        with _locked(views / f"{view.name}.lock"):
            if not view.is_dir():
                _build(public, archives, view, max_bytes)
        _drop_stale(views, prefix, view.name)
    return view


def view_manifest(view: Path) -> dict[str, str | None]:
    """What each archive of a view gave: its name -> the top-level entry extracted from it (None when that name
    was taken); empty for a dir that is not a view."""
    path = view.parent / f"{view.name}.json"
    try:
        return dict(json.loads(path.read_text(encoding="utf-8"))["archives"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _view_prefix(public: Path) -> str:
    """`<competition>-<hash of the public dir's path>`: the same for every view of one public dir."""
    label = public.parent.parent.name if public.parts[-2:] == ("prepared", "public") else public.name
    label = "".join(c if c.isalnum() or c in "._-" else "_" for c in label)[:60] or "public"
    return f"{label}-{hashlib.sha256(str(public).encode()).hexdigest()[:10]}"


def _fingerprint(public: Path) -> str:
    """A hash of what the view is made from: the name, type, size and mtime of each top-level public entry."""
    digest = hashlib.sha256(f"{VIEW_FORMAT}\n{public}\n".encode())
    for entry in sorted(public.iterdir()):
        info = entry.stat() if entry.exists() else entry.lstat()
        kind = "d" if entry.is_dir() else "f"
        digest.update(f"{entry.name}\0{kind}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


@contextlib.contextmanager
def _locked(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """An exclusive `flock` on `path` while inside; yields False (holding nothing) when `wait` is False and
    another process holds it. The kernel drops the lock of a process that dies."""
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _build(public: Path, archives: list[Path], view: Path, max_bytes: int) -> None:
    """Make `view` (the caller holds its lock): mirror, extract and place into a temp dir, then rename it."""
    for abandoned in view.parent.glob(f".{view.name}.*.tmp"):  # a crashed build's (the lock is ours)
        shutil.rmtree(abandoned, ignore_errors=True)
    temp = view.parent / f".{view.name}.{os.getpid()}.tmp"
    temp.mkdir()
    temp.chmod(0o755)
    log.info(
        "reading the %d archive(s) of %s into %s (once: later loads reuse it)", len(archives), public, view
    )
    try:
        _mirror(public, temp)
        budget = ExtractBudget(limit=max_bytes, disk=temp)
        placed = {archive.name: _extract_and_place(archive, temp, budget) for archive in archives}
        shutil.rmtree(temp / STAGING_DIR, ignore_errors=True)
        write_text_atomic(
            view.parent / f"{view.name}.json",
            json.dumps({"public_dir": str(public), "archives": placed}, indent=1),
            mode=PUBLIC,
        )
        os.rename(temp, view)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def _link(source: Path, target: Path) -> None:
    """Hard-link `source` at `target`, or copy it where a link cannot be made (another disk, a read-only
    mount's files). Never a symlink: the sandbox binds only the view, where one would dangle."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _mirror(public: Path, dest: Path) -> None:
    """Every public file linked into `dest` at its place (folders made; symlinked folders followed)."""
    for folder, names, files in os.walk(public, followlinks=True):
        here = dest / Path(folder).relative_to(public)
        for name in sorted(names):
            (here / name).mkdir(mode=0o755, exist_ok=True)
        for name in sorted(files):
            if not (Path(folder) / name).exists():  # a broken symlink in the public dir
                log.warning("%s is a link to nothing: left out of the view", Path(folder) / name)
                continue
            _link(Path(folder) / name, here / name)


def _extract_and_place(archive: Path, view: Path, budget: ExtractBudget) -> str | None:
    """Extract `archive` into a staging folder and move what it gave to the top of `view` (the module
    docstring's rules); the name it got, or None when the view already held that name (or it was empty)."""
    planned = _zip_top_name(archive)
    if planned is not None and (view / planned).exists():
        _say_taken(archive, planned)  # known from the zip's listing: not extracted at all
        return None
    staging = view / STAGING_DIR / archive.name
    staging.mkdir(parents=True)
    extract_archive(archive, staging, budget)
    for junk in JUNK_FOLDERS:
        if (staging / junk).is_dir() and not (staging / junk).is_symlink():
            shutil.rmtree(staging / junk)
    entries = list(staging.iterdir())
    if not entries:
        log.warning("%s is empty: nothing extracted from it", archive.name)
        return None
    single = entries[0] if len(entries) == 1 and not entries[0].is_symlink() else None
    source, name = (single, single.name) if single is not None else (staging, archive_stem(archive))
    target = view / name
    if target.exists() or target.is_symlink():
        _say_taken(archive, name)
        shutil.rmtree(staging)
        return None
    _open_modes(source)
    os.rename(source, target)
    return name


def _zip_top_name(archive: Path) -> str | None:
    """The name a zip's contents get at the top of the view, read from its listing alone (its one top entry,
    else its stem); None for another kind of archive, or a zip whose listing `extract_archive` will refuse."""
    if archive_kind(archive) != "zip":
        return None
    try:
        with zipfile.ZipFile(archive) as zipped:
            paths = [member_path(archive, name) for name in zipped.namelist()]
    except (OSError, zipfile.BadZipFile, ArchiveError):
        return None
    tops = {path.parts[0] for path in paths if path is not None} - set(JUNK_FOLDERS)
    return tops.pop() if len(tops) == 1 else archive_stem(archive)


def _say_taken(archive: Path, name: str) -> None:
    log.warning(
        "%s is not extracted as %s: the public dir already holds %s (the plain one wins; the archive is kept "
        "beside it)",
        archive.name,
        name,
        name,
    )


def _open_modes(path: Path) -> None:
    """Extracted folders 0755 and files 0644 (0755 when executable), so a sandbox's other uid reads them."""
    paths = [path, *path.rglob("*")] if path.is_dir() else [path]
    for entry in paths:
        if entry.is_symlink():
            continue
        if entry.is_dir():
            entry.chmod(0o755)
        else:
            entry.chmod(0o755 if entry.stat().st_mode & 0o100 else 0o644)


def _drop_stale(views: Path, prefix: str, keep: str) -> None:
    """Remove the older views of the same public dir (its archives or files changed since), each only when no
    process is building it."""
    for old in views.glob(f"{prefix}-*"):
        if old.name == keep or not old.is_dir():
            continue
        lock = views / f"{old.name}.lock"
        with _locked(lock, wait=False) as held:
            if not held:
                continue
            shutil.rmtree(old, ignore_errors=True)
            (views / f"{old.name}.json").unlink(missing_ok=True)
        lock.unlink(missing_ok=True)
        log.info("removed %s, a view of an older version of the same public dir", old)
