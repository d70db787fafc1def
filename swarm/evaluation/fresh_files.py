"""The view's test files under the rows' fresh ids (`swarm.evaluation.fresh_ids`): copied, not linked.

Where ids name the test inputs (`test/<id>.png`, `test/<id>/`, `test/<c>/<id>.npy`), each test and held-out example's files are
renamed after its fresh id. A linked file shares its inode and mtime with the file it links, so a held-out
example's file (a link of a training file) would differ from a test file in both; every one is copied instead,
in the order of the fresh ids, each stamped with the mtime of a test file drawn at random. Test inputs larger in
all than COPY_LIMIT_BYTES are linked under the new names instead (their inodes could then tell held-out files
apart), and the run says so.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from swarm.evaluation.view_files import TAIL_STARTS

COPY_LIMIT_BYTES = 16 * 2**30
STAGING_SUFFIX = ".before-fresh-ids"
DISK_MARGIN = 1.1  # room asked for beyond the bytes a split copies


def short_of_room(where: Path, size: float) -> int | None:
    """The free bytes at `where` where they are fewer than `size` bytes (a split's copies) with DISK_MARGIN, else
    None."""
    free = shutil.disk_usage(where).free
    return free if size * DISK_MARGIN > free else None


@dataclass(frozen=True)
class TestFiles:
    """The view's test folder and each example's entries in it: id -> [(entry, what follows the id in its
    name)], filed under folders of their first `filed` characters (seti's `test/<c>/<id>.npy`: 1) or not (0);
    files no id names stay as they are."""

    folder: Path
    entries: dict[str, list[tuple[Path, str]]]
    others: list[Path]
    filed: int = 0

    @property
    def size(self) -> int:
        return sum(_size(path) for found in self.entries.values() for path, _ in found)


def find_test_files(folder: Path, ids: set[str]) -> TestFiles | str:
    """Each id's files (`<id>`, `<id>.png`, `<id>-mask.png`) or folder (`<id>/`) in the view's test folder, or
    its files filed under folders of their first characters; a reason where some id names none there (files
    filed otherwise are not renamed)."""
    entries: dict[str, list[tuple[Path, str]]] = {}
    others: list[Path] = []
    children = sorted(folder.iterdir())
    filed = _character_depth(folder, children, ids)
    for path in sorted(p for p in folder.rglob("*") if p.is_file()) if filed else children:
        name = path.name
        if name in ids:
            entries.setdefault(name, []).append((path, ""))
            continue
        cuts = [i for i, char in enumerate(name) if char in TAIL_STARTS and name[:i] in ids]
        if cuts and path.is_file():
            entries.setdefault(name[: cuts[-1]], []).append((path, name[cuts[-1] :]))
        else:
            others.append(path)
    missing = len(ids) - len(entries)
    if missing:
        return f"{missing} of the {len(ids)} ids name no file or folder in {folder.name}/ as the harness renames them"
    return TestFiles(folder, entries, others, filed)


def other_test_folders(dest: Path, test_folder: Path | None, test_ids: set[str]) -> list[Path]:
    """The view's folders on the test side, besides `test_folder` and the folders in it, holding files named by
    test ids (siim-isic's `test/<id>.dcm` beside `jpeg/test/<id>.jpg`): their files must follow fresh ids too."""
    found = []
    for folder in sorted(p for p in dest.rglob("*") if p.is_dir()):
        inside = test_folder is not None and (folder == test_folder or test_folder in folder.parents)
        if inside or not any(part.lower().startswith("test") for part in folder.relative_to(dest).parts):
            continue
        if any(p.is_file() and (p.name in test_ids or p.stem in test_ids) for p in folder.iterdir()):
            found.append(folder)
    return found


def bring_held_files(folder: Path, dest: Path, public: Path, held: dict[str, str]) -> str | None:
    """Copy each held-out example's file from the training twin of a view's test folder (`test/` -> `train/`,
    in the public dir) into that folder under its id in the view (`held`: its own id -> that id), as the test
    examples have theirs there; None, or why not (no twin, or an example without its file there)."""
    twin = public / str(folder.relative_to(dest)).lower().replace("test", "train")
    if not twin.is_dir():
        return f"{folder.relative_to(dest)}/ names the test rows' files, and no training twin holds the held-out rows'"
    by_stem = {p.stem: p for p in twin.iterdir() if p.is_file()}
    for own, new in held.items():
        source = by_stem.get(own)
        if source is None:
            return f"{twin.relative_to(public)}/ has no file of held-out row {own}, as {folder.relative_to(dest)}/ has the test rows'"
        shutil.copyfile(source, folder / f"{new}{source.suffix}")
    return None


def _character_depth(folder: Path, children: list[Path], ids: set[str]) -> int:
    """How many folders of first characters file the test files (seti's `test/<c>/<id>.npy`: 1): where every
    entry is a folder no id names and each file lies under the folders of its name's first characters; else 0."""
    if not children or not all(p.is_dir() and p.name not in ids for p in children):
        return 0
    depths = set()
    for path in (p for p in folder.rglob("*") if p.is_file()):
        parents = path.relative_to(folder).parent.parts
        if any(len(part) != 1 for part in parents) or not path.name.startswith("".join(parents)):
            return 0
        depths.add(len(parents))
    return depths.pop() if len(depths) == 1 else 0


def rename_test_files(
    files: TestFiles, renamed: dict[str, str], test_ids: set[str], rng: np.random.Generator
) -> str:
    """Put every example's entries in the test folder under its fresh id (`renamed`), copied in the order of the
    fresh ids, with a test example's mtime drawn at random; "" or, where they are linked instead (too large to
    copy), a note saying so."""
    size = files.size
    copy = size <= COPY_LIMIT_BYTES
    folder = files.folder
    staging = folder.with_name(folder.name + STAGING_SUFFIX)
    os.rename(folder, staging)
    folder.mkdir()
    moved = {
        old: [(staging / path.relative_to(folder), tail) for path, tail in found]
        for old, found in files.entries.items()
    }
    mtimes = [os.stat(path).st_mtime_ns for old in test_ids for path, _ in moved.get(old, [])]
    for old, new in sorted(renamed.items(), key=lambda pair: pair[1]):
        stamp = drawn_stamp(mtimes, rng)
        for path, tail in moved.get(old, []):
            place_file(path, folder.joinpath(*new[: files.filed], f"{new}{tail}"), copy, stamp)
    for path in files.others:
        target = folder / path.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(staging / path.relative_to(folder), target)
    shutil.rmtree(staging)
    return "" if copy else _linked_note(size)


def copy_under_names(pairs: list[tuple[Path, Path]], test_files: list[Path], rng: np.random.Generator) -> str:
    """Put each source file at its target (the view's test files and held-out files under fresh names: COCO-style
    images), copied in the targets' order, each with the mtime of one of `test_files` drawn at random; "" or,
    where they are linked instead (too large to copy), a note saying so."""
    size = sum(_size(source) for source, _ in pairs)
    copy = size <= COPY_LIMIT_BYTES
    mtimes = [os.stat(path).st_mtime_ns for path in test_files]
    for source, target in sorted(pairs, key=lambda pair: str(pair[1])):
        stamp = drawn_stamp(mtimes, rng)
        place_file(source, target, copy, stamp)
    return "" if copy else _linked_note(size)


def copy_test_side(folder: Path, stamps_from: Path | None, rng: np.random.Generator) -> str:
    """Every file under a view's test folder, test and held-out examples' alike, copied anew in a random order
    (folders made as their first file comes), each with the mtime of a file of `stamps_from` (the public test
    folder) drawn at random: where ids are kept, a held-out example's file would otherwise be a link of a
    training file, its inode and mtime telling it apart. "" or, where the folder is too large to copy, a note
    saying its files stay linked."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in files)
    if size > COPY_LIMIT_BYTES:
        return f"the test inputs in {folder.name}/ ({size / 2**30:.1f} GiB) stay linked, so their inodes could tell held-out files apart"
    stamps = (
        sorted(p for p in stamps_from.rglob("*") if p.is_file())
        if stamps_from is not None and stamps_from.is_dir()
        else []
    )
    mtimes = [os.stat(path).st_mtime_ns for path in stamps]
    staging = folder.with_name(folder.name + STAGING_SUFFIX)
    os.rename(folder, staging)
    folder.mkdir()
    for k in rng.permutation(len(files)):
        relative = files[int(k)].relative_to(folder)
        stamp = drawn_stamp(mtimes, rng)
        place_file(staging / relative, folder / relative, True, stamp)
    shutil.rmtree(staging)
    return ""


def _linked_note(size: int) -> str:
    return (
        f"the test inputs ({size / 2**30:.1f} GiB) are linked under the fresh ids, not copied, so their "
        "inodes could tell held-out files apart"
    )


def drawn_stamp(mtimes: list[int], rng: np.random.Generator) -> int | None:
    """One of the test files' mtimes drawn at random (None where there are none): what each copy is stamped
    with, so that no mtime tells a held-out file from a test file."""
    return int(mtimes[rng.integers(len(mtimes))]) if mtimes else None


def place_file(source: Path, target: Path, copy: bool, mtime_ns: int | None) -> None:
    """`source` (a file or folder) at `target`: copied (readable by any uid) or linked, stamped `mtime_ns`."""
    if source.is_dir():  # a folder per example: each of its files placed alike (seal opens the folders)
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            place_file(path, target / path.relative_to(source), copy, mtime_ns)
        if mtime_ns is not None:
            os.utime(target, ns=(mtime_ns, mtime_ns))
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if copy:
        shutil.copyfile(source, target)
        target.chmod(0o644)
    else:
        os.link(source, target)
    if mtime_ns is not None and copy:
        os.utime(target, ns=(mtime_ns, mtime_ns))


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size
