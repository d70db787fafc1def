"""The files of the sandbox's view of a harness split (`<run>/harness/public/`), on disk.

The view is the competition's public dir with the held-out examples moved from training to test: every public
file is hard-linked in as it is (`mirror`), but the tables the split rewrites and the files it handles itself.
Where ids key files in a folder (images, audio) or training files are labelled by their names
(`swarm.layouts.file_labels.reader`), each held-out example's file is linked where the test files are, under its new id, and
left out of the training folder. The archives the competition's view extracted stay out, since they hold the
held-out files under their training names. `seal` saves the split and opens the view, and only the view, to
the sandbox's uid.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from swarm.competitions.archive_view import view_manifest
from swarm.competitions.competition import MetricSpec
from swarm.evaluation.holdout_record import Holdout, NoHoldout
from swarm.evaluation.side_files import hide_side_files

FILE_MATCH_SHARE = 0.9  # share of ids that must name files in a folder for the ids to key files
TAIL_STARTS = ".-_"  # what follows an id in the names of an example's files: `<id>.png`, `<id>-mask.png`
EXAMPLE_FOLDERS_PROBED = 200  # training example folders whose files are compared with the test's
MAX_FILING_DEPTH = 3  # folders of first characters above a file (bms: train/a/b/c/<id>.png)

# The test files' folder and the training files' folder, each with id -> file (`keyed_folders`).
KeyedFolders = tuple[tuple[Path, dict[str, Path]], tuple[Path, dict[str, Path]]]


def fresh_view(root: Path) -> Path:
    """An empty `<root>/public` for the sandbox's view (what an earlier build left there is removed)."""
    root.mkdir(parents=True, exist_ok=True)
    dest = root / "public"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir()
    return dest


def extracted_archives(public: Path) -> list[Path]:
    """The archives of a competition's view (swarm.competitions.archive_view) that its files came from."""
    return [public / name for name in view_manifest(public)]


def mirror(public: Path, dest: Path, skip: set[Path]) -> None:
    """Link every public file into `dest` but the ones in `skip` (rewritten or left out)."""
    for path in sorted(public.rglob("*")):
        if path in skip or not path.is_file():
            continue
        link(path, dest / path.relative_to(public))


def link(source: Path, target: Path) -> None:
    """Hard-link `source` to `target` (a copy where links cannot be made)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def seal(holdout: Holdout) -> None:
    """Save the split and open the view to the sandbox (any uid may read public/, nothing else of the root)."""
    holdout.save()
    dest = holdout.public_dir
    for folder in [dest, *(p for p in dest.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    holdout.root.chmod(0o711)  # the sandbox may pass through to public/, never list or read the rest


def move_folders(
    public: Path,
    dest: Path,
    train_dir: Path,
    test_dir: Path,
    folders: Iterable[str],
    skip: set[Path],
    left_out: str = "",
) -> None:
    """Link the files of each training folder (`folders`, relative to `train_dir`) to the same place under
    `test_dir` in the view, but any named `left_out` (the folder's labels); all of them join `skip`, so the
    training side loses them."""
    for relative in folders:
        for path in sorted(p for p in (train_dir / relative).rglob("*") if p.is_file()):
            skip.add(path)
            if path.name != left_out:
                link(path, dest / test_dir.relative_to(public) / path.relative_to(train_dir))


# -- files keyed by ids -----------------------------------------------------------------------------------------


def keyed_folders(public: Path, test_ids: list[str], original: list[str]) -> KeyedFolders | None:
    """The folders whose files the test ids and the held-out rows' ids name, or None when ids key no files."""
    if not original:
        return None
    test_folder = _keyed_folder(public, test_ids, ("test",))
    if test_folder is None:
        return None
    # The held-out examples' inputs: the test folder's twin (test -> train, test_images -> train_images).
    twin = str(test_folder[0].relative_to(public)).lower().replace("test", "train")
    train_folder = _keyed_folder(public, original, (twin, "train", "image"))
    if test_folder is None or train_folder is None:
        return None
    return test_folder, train_folder


def _keyed_folder(
    public: Path, ids: list[str], prefer: tuple[str, ...] = ()
) -> tuple[Path, dict[str, Path]] | None:
    """The folder whose files (or subfolders: nomad2018's `train/<id>/geometry.xyz`; or files filed in
    subfolders, `_filed_in_subfolders`) are named by `ids` (by name or stem), with id -> file or folder;
    None if none is. Among several (images beside masks named alike), the
    first whose path holds the first word of `prefer` that one holds."""
    if not ids:
        return None
    wanted = set(ids)
    matches = []
    for folder in sorted(p for p in public.rglob("*") if p.is_dir()):
        found: dict[str, Path] = {}
        for path in folder.iterdir():
            if path.is_file():
                for key in (path.name, path.stem):
                    if key in wanted:
                        found[key] = path
            elif path.is_dir() and path.name in wanted and any(p.is_file() for p in path.rglob("*")):
                found[path.name] = path
        filed = len(found) < FILE_MATCH_SHARE * len(wanted)
        if filed:
            found.update(_filed_in_subfolders(folder, wanted))
        if len(found) >= FILE_MATCH_SHARE * len(wanted):
            matches.append((filed, folder, found))
    # A folder holding the files itself comes before one filing them deeper (the sort is stable).
    matches.sort(key=lambda match: match[0])
    for word in (*prefer, ""):  # each preferred word in turn: the first folder whose path holds it
        for _, folder, found in matches:
            if word in str(folder.relative_to(public)).lower():
                return folder, found
    return None


def files_ending_with_ids(public: Path, ids: list[str], limit: int = 100_000) -> list[str]:
    """Up to three files (relative paths) whose stems end with one of `ids` without being it (multi-modal-gesture's
    `Sample00300.zip` for the id `0300`), among the first `limit` entries of `public`: files the ids seem to name
    that the harness, matching whole names, does not take for theirs."""
    wanted = {i for i in ids if i}
    found: list[str] = []
    for seen, path in enumerate(public.rglob("*")):
        if seen >= limit:
            break
        stem = path.name.split(".")[0]
        if path.is_file() and stem not in wanted and _tails(stem, wanted):
            found.append(str(path.relative_to(public)))
    return sorted(found)[:3]


def _tails(stem: str, wanted: set[str]) -> list[str]:
    """The ids that end `stem` (each of its suffixes looked up once)."""
    return [stem[k:] for k in range(1, len(stem)) if stem[k:] in wanted]


def _filed_in_subfolders(folder: Path, wanted: set[str]) -> dict[str, Path]:
    """Files filed in subfolders, up to MAX_FILING_DEPTH deep: under folders of their first characters (seti's
    `train/<c>/<id>.npy`, bms's `train/<a>/<b>/<c>/<id>.png`) or of a class or group (hotel-id's
    `train_images/<chain>/<id>.jpg`), id -> file; empty unless every entry of `folder` is a folder."""
    entries = list(folder.iterdir())
    if not entries or not all(e.is_dir() for e in entries):
        return {}
    found: dict[str, Path] = {}
    for path in folder.rglob("*"):
        if path.is_file() and len(path.relative_to(folder).parts) - 1 <= MAX_FILING_DEPTH:
            for key in (path.name, path.stem):
                if key in wanted:
                    if key in found and found[key].parent != path.parent:
                        return {}  # one id in two subfolders (tgs-salt's train/images/ and train/masks/)
                    found[key] = path
    return found


def _character_filing(folder: Path, files: dict[str, Path]) -> int:
    """How many first characters of its name file each of `files` under `folder` (seti's test/<c>/<id>.npy: 1),
    0 where they lie flat or are filed otherwise (a held-out file then lies flat there)."""
    depths = {len(path.relative_to(folder).parts) - 1 for path in files.values()}
    if len(depths) != 1 or 0 in depths:
        return 0
    filed = all(
        path.stem.startswith("".join(path.relative_to(folder).parent.parts)) for path in files.values()
    )
    return depths.pop() if filed else 0


def link_keyed_files(
    public: Path,
    dest: Path,
    folders: KeyedFolders | None,
    original: list[str],
    ids: list[str],
    skip: set[Path],
    kept_ids: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[str]:
    """When ids key files (`folders`, from keyed_folders), link the held-out rows' files where the test files
    are, under their new ids; the train folder keeps only the train rows' files (a file that a kept row names
    too, hms's EEG of several labelled windows, stays for it as well). Returns the folders involved
    (relative)."""
    if folders is None:
        return []
    (test_dir, test_files), (train_dir, train_files) = folders
    any_test = next(iter(test_files.values()))
    by_name = any_test.name in test_files  # ids are file names (with extension), else stems
    filed = _character_filing(test_dir, test_files)  # held-out files are filed as the test files are
    # An example's files named by its id and a tail (hubmap's `<id>.tiff`, `<id>.json`,
    # `<id>-anatomical-structure.json`) go together, those of the tails most test examples have; a kind only
    # training examples have (a mask beside the image) stays out of the view.
    kin = _Kin(set(test_files) | set(original))
    tails = Counter(tail for key, path in test_files.items() for tail in kin.of(path.parent, key))
    companions = {tail for tail, count in tails.items() if count >= FILE_MATCH_SHARE * len(test_files)}
    # A folder per example: its files but those only training examples have (contrails' masks beside the bands).
    labels_inside = _training_only_files(test_files.values(), train_files.values())
    for old, new in zip(original, ids, strict=True):
        source = train_files.get(old)
        if source is None:
            continue
        target = dest / test_dir.relative_to(public)
        shared = old in kept_ids
        if source.is_dir():  # a folder per example: its inputs, under a folder named by the new id
            for path in (p for p in source.rglob("*") if p.is_file()):
                if path.relative_to(source) not in labels_inside:
                    link(path, target / new / path.relative_to(source))
                if not shared:
                    skip.add(path)
            continue
        files = {"": source} if by_name else kin.of(source.parent, old) or {source.suffix: source}
        moved = {tail: path for tail, path in files.items() if by_name or tail in companions}
        for tail, path in (moved or {source.suffix: source}).items():
            link(path, target.joinpath(*new[:filed], new + tail))
        for path in files.values() if not shared else ():
            skip.add(path)  # never left under its train name: moved where the test files are, or left out
    return sorted({str(test_dir.relative_to(public)), str(train_dir.relative_to(public))})


def _training_only_files(test_examples: Iterable[Path], train_examples: Iterable[Path]) -> set[Path]:
    """Where examples are folders: the files (relative to each folder) that most training examples' folders hold
    and no test example's folder does (contrails' `human_pixel_masks.npy` beside the bands): their labels."""
    tests = [path for path in test_examples if path.is_dir()]
    trains = [path for path in train_examples if path.is_dir()][:EXAMPLE_FOLDERS_PROBED]
    if not tests or not trains:
        return set()
    counts = Counter(
        path.relative_to(folder) for folder in trains for path in folder.rglob("*") if path.is_file()
    )
    common = {name for name, count in counts.items() if count >= FILE_MATCH_SHARE * len(trains)}
    return common - {
        path.relative_to(folder) for folder in tests for path in folder.rglob("*") if path.is_file()
    }


class _Kin:
    """An example's files in a folder: those named by its id and a tail (`<id>.tiff`, `<id>.json`,
    `<id>-anatomical-structure.json`: the tail starts with `.`, `-` or `_`), tail -> file, of the longest id a
    name starts with. Each folder is listed once (a folder may hold 100,000 examples)."""

    def __init__(self, ids: set[str]) -> None:
        self._ids = ids
        self._folders: dict[Path, dict[str, dict[str, Path]]] = {}

    def of(self, folder: Path, key: str) -> dict[str, Path]:
        index = self._folders.get(folder)
        if index is None:
            index = {}
            for path in folder.iterdir():
                name = path.name
                cuts = [i for i, char in enumerate(name) if char in TAIL_STARTS and name[:i] in self._ids]
                if cuts and path.is_file():
                    index.setdefault(name[: cuts[-1]], {})[name[cuts[-1] :]] = path
            self._folders[folder] = index
        return index.get(key, {})


def link_column_keyed_files(
    public: Path,
    dest: Path,
    test: pd.DataFrame | None,
    held: pd.DataFrame,
    kept: pd.DataFrame,
    id_col: str,
    skip: set[Path],
) -> list[str]:
    """Files named by another column of the test table (hms's `spectrogram_id` names
    `test_spectrograms/<id>.parquet` for the test rows, `train_spectrograms/<id>.parquet` for the labelled ones):
    each held-out row's file, named by its own value of that column, is linked where the test rows' files are
    (same name; a test file of that name is left as it is) and leaves the training side unless a kept row names
    it too. Returns the folders involved (relative)."""
    if test is None or held.empty:
        return []
    keys: set[str] | None = None
    folders: set[str] = set()
    for column in (c for c in test.columns if c != id_col and c in held.columns):
        test_values = sorted(set(test[column].astype(str).str.strip()) - {"", "nan"})
        if not test_values:
            continue
        keys = keys if keys is not None else _file_keys(public)
        if sum(value in keys for value in test_values) < FILE_MATCH_SHARE * len(test_values):
            continue
        test_folder = _keyed_folder(public, test_values, ("test",))
        if test_folder is None or "test" not in str(test_folder[0].relative_to(public)).lower():
            continue
        held_values = list(dict.fromkeys(held[column].astype(str).str.strip()))
        twin = str(test_folder[0].relative_to(public)).lower().replace("test", "train")
        train_folder = _keyed_folder(public, held_values, (twin, "train"))
        if train_folder is None:
            continue
        in_use = set(kept[column].astype(str).str.strip()) if column in kept.columns else set()
        target_dir = dest / test_folder[0].relative_to(public)
        for value in held_values:
            source = train_folder[1].get(value)
            if source is None or not source.is_file():
                continue
            target = target_dir / source.name
            if not target.exists() and not (test_folder[0] / source.name).exists():
                link(source, target)
            if value not in in_use:
                skip.add(source)
        folders |= {str(test_folder[0].relative_to(public)), str(train_folder[0].relative_to(public))}
    return sorted(folders)


@dataclass(frozen=True)
class FileGroups:
    """Inputs filed by a group column rather than by id (icecube's `batch_id`: `train/batch_<n>.parquet` holds
    the pulses of every event of batch n), as `file_groups` found them."""

    column: str  # the group column, in the labelled table and the test table
    test_dir: Path  # the folder of the test groups' files (`test/`)
    train_files: dict[str, Path]  # each labelled group's file (`train/batch_<n>.parquet`)


def file_groups(
    public: Path, test: pd.DataFrame | None, train: pd.DataFrame, id_col: str
) -> FileGroups | None:
    """A column of both tables, not the id, that several labelled rows share and whose values name the files of a
    test folder, each of them (`batch_<n>.parquet` for n in test's `batch_id`, all sharing the prefix `batch_`,
    or `<n>.parquet`), and of its training twin; None where there is none."""
    if test is None:
        return None
    listed: dict[Path, dict[str, Path]] = {}
    for column in (c for c in test.columns if c != id_col and c in train.columns):
        values = train[column].astype(str).str.strip()
        test_values = set(test[column].astype(str).str.strip()) - {""}
        if test_values and values.duplicated().any():
            found = named_files(public, column, set(values), test_values, listed)
            if found is not None:
                return found
    return None


def named_files(
    public: Path,
    column: str,
    values: set[str],
    test_values: set[str],
    listed: dict[Path, dict[str, Path]] | None = None,
) -> FileGroups | None:
    """The test folder whose files are each named by one of `test_values` (and most of them named), with its
    training twin whose files `values` name (most of them), or None. `listed` keeps the folders' listings
    between calls (the public dir is walked once)."""
    listed = {} if listed is None else listed
    if not listed:
        listed.update({p: {} for p in sorted(public.rglob("*")) if p.is_dir() and "test" in p.name.lower()})
    for test_dir in [p for p in listed if "test" in p.name.lower()]:
        named = listed[test_dir] = listed[test_dir] or _group_files(test_dir)
        if not named or not set(named) <= test_values or len(named) < FILE_MATCH_SHARE * len(test_values):
            continue
        twin = public / str(test_dir.relative_to(public)).lower().replace("test", "train")
        train_files = listed.setdefault(twin, _group_files(twin) if twin.is_dir() else {})
        if len(values & set(train_files)) >= FILE_MATCH_SHARE * len(values):
            return FileGroups(column, test_dir, train_files)
    return None


def _group_files(folder: Path) -> dict[str, Path]:
    """A folder's files by the value naming each: its stem less the prefix all its stems share up to a `_`
    (`batch_1.parquet` -> "1"), else its stem."""
    files = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")]
    prefixes = {p.stem.rpartition("_")[0] for p in files}
    prefix = prefixes.pop() if len(prefixes) == 1 else ""
    cut = len(prefix) + 1 if prefix else 0
    return {p.stem[cut:]: p for p in files}


def link_group_files(
    public: Path, dest: Path, groups: FileGroups, held: pd.DataFrame, kept: pd.DataFrame, skip: set[Path]
) -> list[str]:
    """Link each held-out group's file where the test groups' files are (same name), and leave it out of the
    training folder unless a kept row is of that group too; NoHoldout where a test file has its name. Returns
    the folders involved (relative)."""
    in_use = set(kept[groups.column].astype(str).str.strip())
    target_dir = dest / groups.test_dir.relative_to(public)
    for value in dict.fromkeys(held[groups.column].astype(str).str.strip()):
        source = groups.train_files.get(value)
        if source is None:
            continue
        if (groups.test_dir / source.name).exists():
            raise NoHoldout(
                f"the held-out {groups.column} {value!r} names {source.name}, which the test files have too"
            )
        if not (target_dir / source.name).exists():  # hms's spectrograms: linked already, by column
            link(source, target_dir / source.name)
        if value not in in_use:
            skip.add(source)
    train_dir = next(iter(groups.train_files.values())).parent
    return sorted({str(groups.test_dir.relative_to(public)), str(train_dir.relative_to(public))})


def _file_keys(public: Path) -> set[str]:
    """The names and stems of every file under `public`."""
    return {key for path in public.rglob("*") if path.is_file() for key in (path.name, path.stem)}


# -- examples labelled by their file or folder names -------------------------------------------------------------


def link_labelled_files(
    public: Path, dest: Path, layout: dict, original: list[str], ids: list[str], skip: set[Path]
) -> list[str]:
    """Link each held-out training file where the test files are, named by its new id as they are; it is
    left out of the training folder."""
    test_dir = dest / layout["test"]
    for path, new in zip(original, ids, strict=True):
        source = public / path
        name = new if layout["test_match"] == "name" else new + source.suffix
        link(source, test_dir / name)
        skip.add(source)
    return sorted({layout["test"], layout["train"]})


def keyed_test_inputs(public: Path, keys: list[str]) -> bool:
    """Whether a top-level test folder holds entries (files or folders) named by most of the test keys."""
    wanted = set(keys)
    for folder in (p for p in public.iterdir() if p.is_dir() and p.name.lower().startswith("test")):
        names = {n for entry in folder.iterdir() for n in (entry.name, entry.stem)}
        if len(wanted & names) >= FILE_MATCH_SHARE * len(wanted):
            return True
    return False


@dataclass
class HeldKeys:
    """The keys of a split whose held-out examples' inputs are named by them: the held-out rows (their id column
    set to the names their files have), their keys and those they get in the view, the test's and the kept
    ones."""

    key: str
    held: pd.DataFrame
    original: list[str]
    new: list[str]
    test: list[str]
    kept: set[str]


def link_held_inputs(
    public: Path, dest: Path, spec: MetricSpec, train: pd.DataFrame, keys: HeldKeys, skip: set[Path]
) -> tuple[list[str], list[str]]:
    """The view's files: each held-out example's inputs linked where the test's are under its view key, side files
    named by a held-out key hidden, every other public file linked; (the folders the keys name files in, the
    side files hidden). NoHoldout where the test's inputs are named by the key in a test folder and no folder
    beside it holds the held-out examples' inputs."""
    folders = keyed_folders(public, keys.test, keys.original)
    if folders is None and keyed_test_inputs(public, keys.test):
        raise NoHoldout(
            f"the test's inputs are named by {keys.key} in a test folder, but no folder beside it holds the held-out "
            f"{keys.key}s' inputs (are they in an archive?), so a held-out example would have no input in the sandbox"
        )
    file_dirs = link_keyed_files(public, dest, folders, keys.original, keys.new, skip, keys.kept)
    test_dir = folders[0][0] if folders else None
    hidden = hide_side_files(public, dest, train, keys.held, spec, set(keys.test), test_dir, skip, keys.kept)
    mirror(public, dest, skip)
    return file_dirs, hidden
