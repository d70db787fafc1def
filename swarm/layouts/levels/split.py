"""The harness split of examples at two levels (`swarm.layouts.levels.reader`): siim-covid19-detection.

The sample has a row per test study (`<study>_study`) and per test image (`<image>_image`); the study table
(`train_study_level.csv`) a row per study with 0/1 class columns, the image table (`train_image_level.csv`) a row
per image with its boxes as the submission's string and its study (`StudyInstanceUID`); each study's images lie in
its folder (`train/<study>/<series>/<image>.dcm`). The split holds out whole studies, as MLE-bench's `prepare.py`
draws its test: a held-out study leaves the study table and its images the image table (the view's training
tables name no held-out study or image), its folder goes where the test's are (`test/<study>/...`), the sample
lists the study and its images with the sample's dummy strings of their level, and `labels.csv` holds their
strings as `prepare.py` writes the answers (`swarm.layouts.levels.reader.level_strings`).

So that no id tells a held-out study from a test one (a held-out study would keep its training UIDs), every test
and held-out study, image and series gets a fresh id of the test ids' own format (12 hex digits;
`fresh_ids.draw_fresh_ids`, seeded by the run's seed, none of them a key the competition's data uses), the rows'
ids ascending in the sample's shuffled order; the harness keeps which is which (`view_ids.csv`) and maps the test
rows back. The view's test folder is rebuilt under the fresh names: each file is copied (a new file, never a link,
since its bytes change) to `test/<fresh study>/<fresh series>/<fresh image>.dcm`, the UIDs in its DICOM header
that name an old id (StudyInstanceUID, SeriesInstanceUID, SOPInstanceUID, MediaStorageSOPInstanceUID) patched in
the copy at the same length (`swarm.layouts.levels.dicom_uids`), and each study's files and folders stamped with the
mtime of a public test file drawn at random, so mtimes, inodes, link counts and sizes are alike on both sides. A
file whose header cannot be walked (big endian, deflated, not DICOM) is copied as it is, and one that does not
name its own UIDs where its path says is rewritten where it does: the run's note on its ids says how many of
each. competition.json's `keep_ids: true` keeps the ids (the files are then copied anew under them).

What it costs: every file of the view's test side (the test studies' and the held-out studies') is copied once,
streamed, whatever their size (unlike `fresh_files.COPY_LIMIT_BYTES`'s links: a linked file's header could not be
rewritten, nor its inode and mtime told from a test file's): on MLE-bench some 10 GB of test studies and the
held-out share of train/'s, so the run's disk needs room for them: where it has not (with a margin), the ids are
kept and the run says why. Each copy's header is read up to the end of
group 0020 (a few hundred bytes) and a few of those bytes written; the pixel data is never read but by the copy.
Listing train/ and test/ for the keys taken costs a walk of their names.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_files import STAGING_SUFFIX, drawn_stamp, place_file, short_of_room
from swarm.evaluation.fresh_ids import FreshIds, draw_fresh_ids, keep_ids_reason, kept_ids, test_folder_of
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.new_ids import check_apart_from_test
from swarm.evaluation.split import described_split, split_whole
from swarm.evaluation.table_io import read_csv_as_text, write_public_csv
from swarm.evaluation.view_files import HeldKeys, extracted_archives, fresh_view, link_held_inputs
from swarm.evaluation.view_tables import write_sample
from swarm.layouts.levels.dicom_uids import (
    MAGIC,
    MEDIA_SOP,
    PREAMBLE,
    SERIES,
    SOP,
    STUDY,
    Unwalkable,
    rewrite_uids,
)
from swarm.layouts.levels.reader import LEVEL_COLUMN, id_levels, level_strings

DICOM_SUFFIXES = (".dcm", ".dicom")


def split_levels(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out whole parents (studies) with their children (images) and write the view (see the module
    docstring); NoHoldout saying why where a held-out id is also a test id or nothing is left to train on."""
    competition, spec, sample = request.competition, request.spec, request.sample
    id_col = spec.id_column
    target = next(c for c in sample.columns if c != id_col)
    levels = _read_levels(competition.public_dir, fields)
    held = _held_levels(request, levels, fields, target)
    test_ids = [str(i).strip() for i in sample[id_col]]
    check_apart_from_test(held.rows[id_col], set(test_ids), id_col)
    ids = held.rows[id_col].tolist()
    test_keys = [i[: -len(levels.parent) - 1] for i in test_ids if i.endswith("_" + levels.parent)]
    dest = fresh_view(request.root)
    file_dirs, hidden = _link_held_parents(request, levels, held, test_keys, dest)
    order = np.random.default_rng(request.seed + 1).permutation(len(sample) + len(held.rows))
    studies = set(test_keys) | set(held.keys)
    fresh = _fresh_level_ids(request, levels, file_dirs, dest, (test_ids, ids), studies, order)
    view_sample, view_ids = (
        (sample.assign(**{id_col: fresh.test}), fresh.held) if fresh.fresh else (sample, ids)
    )

    # The view's tables: both levels without the held-out rows; the sample with them, each with its level's dummy.
    write_public_csv(held.kept_parents, dest / levels.parent_path.name)
    write_public_csv(levels.children[~held.in_held], dest / levels.child_path.name)
    fillers = _level_fillers(sample, held.rows, id_col, target)
    path = dest / competition.sample_submission.name
    write_sample(view_sample, held.rows, view_ids, spec, order, path, fillers)
    return SplitParts(
        labels=held.rows[[target]],
        held=held.rows.drop(columns=[LEVEL_COLUMN]).assign(**{id_col: view_ids}),
        ids=view_ids,
        split=described_split(
            held.chosen,
            held.why,
            f"each held-out {levels.parent} with its {levels.child}s, its files moved where the test's are",
        ),
        n_train=len(held.kept_parents),
        rekeyed=False,
        classes={target: None},
        table=(
            f"{levels.parent_path.name} ({len(held.held_parents)} rows) and {levels.child_path.name} (their "
            f"{int(held.in_held.sum())} rows), a {target} each"
        ),
        hidden=hidden,
        file_dirs=file_dirs,
        fresh=fresh,
    )


@dataclass(frozen=True)
class _LevelTables:
    """The two levels as read: the parents' (studies) and the children's (images) names in the ids, the
    children's column naming their parent (`link`), and each level's table and its path."""

    parent: str
    child: str
    link: str
    parent_path: Path
    child_path: Path
    parents: pd.DataFrame
    children: pd.DataFrame


def _read_levels(public: Path, fields: dict) -> _LevelTables:
    """Both levels' tables (`swarm.layouts.levels.reader.find_levels`'s fields), read as text."""
    parent, child = fields["parent"], fields["child"]
    parent_path = public / fields["levels"][parent]["table"]
    child_path = public / fields["levels"][child]["table"]
    parents, children = read_csv_as_text(parent_path), read_csv_as_text(child_path)
    return _LevelTables(parent, child, fields["link"], parent_path, child_path, parents, children)


@dataclass(frozen=True)
class _HeldLevels:
    """The held-out parents and the kept ones, by the split chosen and why; the held-out parents' keys (their ids
    less `_<parent>`), which children are theirs, and the held-out rows of both levels (`level_strings`)."""

    chosen: str
    why: str
    held_parents: pd.DataFrame
    kept_parents: pd.DataFrame
    keys: pd.Series
    in_held: pd.Series
    rows: pd.DataFrame


def _held_levels(request: SplitRequest, levels: _LevelTables, fields: dict, target: str) -> _HeldLevels:
    """Whole parents held out (`split_whole`), each with its children; NoHoldout where none is left to train on."""
    id_col, parent = request.spec.id_column, levels.parent
    chosen, why, held_parents, kept_parents = split_whole(request, levels.parents, id_col)
    if kept_parents.empty:
        raise NoHoldout(f"the split {chosen!r} leaves no {parent} of {levels.parent_path.name} to train on")
    keys = held_parents[id_col].str.strip().str[: -len(parent) - 1]  # the study's own key, less `_study`
    in_held = levels.children[levels.link].str.strip().isin(set(keys))
    rows = pd.concat(
        [
            level_strings(held_parents, fields, parent, id_col, target),
            level_strings(levels.children[in_held], fields, levels.child, id_col, target),
        ],
        ignore_index=True,
    )
    return _HeldLevels(chosen, why, held_parents, kept_parents, keys, in_held, rows)


def _link_held_parents(
    request: SplitRequest, levels: _LevelTables, held: _HeldLevels, test_keys: list[str], dest: Path
) -> tuple[list[str], list[str]]:
    """The view's files: each held-out parent's folder where the test's are, side files naming it hidden, the rest
    linked (`link_held_inputs`). Returns the folders involved and the side files hidden."""
    competition, spec = request.competition, request.spec
    public, id_col, keys = competition.public_dir, spec.id_column, held.keys
    skip = {levels.parent_path, levels.child_path, competition.sample_submission, *extracted_archives(public)}
    kept_keys = set(held.kept_parents[id_col].str.strip().str[: -len(levels.parent) - 1])
    held_keys = HeldKeys(
        id_col, pd.DataFrame({id_col: keys.to_numpy()}), list(keys), list(keys), test_keys, kept_keys
    )
    return link_held_inputs(public, dest, spec, levels.parents, held_keys, skip)


def _fresh_level_ids(
    request: SplitRequest,
    levels: _LevelTables,
    file_dirs: list[str],
    dest: Path,
    own: tuple[list[str], list[str]],
    studies: set[str],
    order: np.ndarray,
) -> FreshIds:
    """Every test and held-out study, series and image (`own`: the test rows' and the held-out rows' ids;
    `studies`: both sides' study keys) under a fresh id, the test folder rebuilt under them (`_FreshLevels`) and
    view_ids.csv saved; or the ids kept, where competition.json says so or the disk lacks room."""
    test_ids, ids = own
    id_col, public = request.spec.id_column, request.competition.public_dir
    reason = keep_ids_reason(request.competition, levels.parents, None, id_col)
    if reason is not None:
        return kept_ids(reason)
    row_ids = [*test_ids, *ids]
    columns = [levels.parents[id_col], levels.children[id_col], levels.children[levels.link]]
    taken = _taken_keys(public, file_dirs, columns, row_ids)
    view = _FreshLevels(dest, public, file_dirs, studies, taken)
    fresh = view.draw([row_ids[int(k)] for k in order], test_ids, ids, request.seed)
    if fresh.fresh:
        write_view_ids(
            request.root, {"test": fresh.test, "held": fresh.held}, {"test": test_ids, "held": ids}
        )
    return fresh


def _level_fillers(sample: pd.DataFrame, held: pd.DataFrame, id_col: str, target: str) -> dict[str, list]:
    """The sample's dummy string of each held-out row's level (a study's and an image's differ)."""
    shown = sample.assign(**{LEVEL_COLUMN: id_levels(sample[id_col])}).drop_duplicates(LEVEL_COLUMN)
    dummy = dict(zip(shown[LEVEL_COLUMN], shown[target], strict=True))
    return {target: [dummy[level] for level in held[LEVEL_COLUMN]]}


def _key(row_id: str) -> str:
    """A row's key: its id less `_<level>` (`00086460a852` of `00086460a852_study`)."""
    return row_id.rsplit("_", 1)[0]


def _taken_keys(public: Path, file_dirs: list[str], columns: list[pd.Series], row_ids: list[str]) -> set[str]:
    """Every key the competition's own data uses, which no fresh id may be: the tables' keys (less their level),
    the link column's, the sample's and every name and stem under the folders the keys name files in (train/'s
    series and images too)."""
    taken = {_key(str(i).strip()) for column in columns[:2] for i in column}
    taken |= {str(i).strip() for column in columns[2:] for i in column}
    taken |= {_key(i) for i in row_ids}
    for folder in file_dirs:
        taken |= {n for path in (public / folder).rglob("*") for n in (path.name, path.stem)}
    return taken


class _FreshLevels:
    """Fresh ids for the test side of the view (see the module docstring): each study and image a row of the
    sample names and each series and file under the test folder's study folders, and the files copied under
    them with their headers' UIDs rewritten."""

    def __init__(
        self, dest: Path, public: Path, file_dirs: list[str], studies: set[str], taken: set[str]
    ) -> None:
        self.folder = test_folder_of(dest, file_dirs)
        self.dest, self.public, self.studies, self.taken = dest, public, studies, taken

    def draw(self, shown: list[str], test_ids: list[str], held_ids: list[str], seed: int) -> FreshIds:
        """The fresh ids of the test rows and the held-out rows (`shown`: every row's id in the view's order,
        which the fresh ids ascend with); the test folder rebuilt under them, or the ids kept saying why."""
        room = self._room_problem()
        if room:
            return kept_ids(room)
        rng = np.random.default_rng(seed + 2)
        rows = list(dict.fromkeys(_key(i) for i in shown))
        inside = self._keys_inside(set(rows))
        drawn = draw_fresh_ids(np.arange(len(rows) + len(inside)), rows + inside, self.taken, 0, rng)
        if not drawn.fresh:
            return drawn
        # The rows' ids ascend in the view's order, interleaved at random with the series' and the files'.
        slots = np.sort(rng.choice(len(drawn.test), size=len(rows), replace=False))
        rest = rng.permutation(np.setdiff1d(np.arange(len(drawn.test)), slots))
        renamed = {
            **{key: drawn.test[int(k)] for key, k in zip(rows, slots, strict=True)},
            **{key: drawn.test[int(k)] for key, k in zip(inside, rest, strict=True)},
        }
        note = self._copy(self.folder, renamed, rng) if self.folder is not None else ""

        def fresh(row_ids: list[str]) -> list[str]:
            return [f"{renamed[_key(i)]}_{i.rsplit('_', 1)[1]}" for i in row_ids]

        return FreshIds(fresh(test_ids), fresh(held_ids), note=note)

    def _room_problem(self) -> str:
        """Why the test side cannot be copied (the disk lacks room for it, with a margin), or ""."""
        if self.folder is None:
            return ""
        size = sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())
        free = short_of_room(self.dest, size)
        if free is None:
            return ""
        return (
            f"the view's test side ({size / 1e9:.1f} GB) would be copied under fresh ids, and the disk has "
            f"{free / 1e9:.1f} GB free"
        )

    def _study_folders(self, folder: Path) -> list[Path]:
        return sorted(p for p in folder.iterdir() if p.is_dir() and p.name in self.studies)

    def _keys_inside(self, rows: set[str]) -> list[str]:
        """The names of the folders (series) and the stems of the files (images) under the test folder's study
        folders that no row names (every series; an image the sample does not list), in a stable order."""
        if self.folder is None:
            return []
        found = {
            name
            for study in self._study_folders(self.folder)
            for path in study.rglob("*")
            for name in ([path.name] if path.is_dir() else [path.stem])
        }
        return sorted(found - rows)

    def _copy(self, folder: Path, renamed: dict[str, str], rng: np.random.Generator) -> str:
        """The test folder (`folder`) rebuilt: each study folder's files copied under the fresh names (the folders', the
        files' stems), in the order of the fresh study ids, each DICOM header's UIDs rewritten in the copy
        (`dicom_uids.rewrite_uids`), every file and folder of a study stamped with the mtime of a public test file
        drawn at random; other entries copied as they are. The linked entries are then unlinked, never written
        through. A note on the DICOM files whose headers could not be rewritten as expected, or ""."""
        stamps_from = self.public / folder.relative_to(self.dest)
        mtimes = (
            [p.stat().st_mtime_ns for p in sorted(stamps_from.rglob("*")) if p.is_file()]
            if stamps_from.is_dir()
            else []
        )
        staging = folder.with_name(folder.name + STAGING_SUFFIX)
        os.rename(folder, staging)
        folder.mkdir()
        studies = self._study_folders(staging)
        report = _HeaderReport()
        for study in sorted(studies, key=lambda p: renamed[p.name]):
            stamp = drawn_stamp(mtimes, rng)
            target = folder / renamed[study.name]
            made = [target]
            for path in sorted(study.rglob("*")):
                relative = path.relative_to(study)
                parts = [renamed.get(part, part) for part in relative.parts[:-1]]
                if path.is_dir():
                    made.append(target.joinpath(*parts, renamed.get(path.name, path.name)))
                    made[-1].mkdir(parents=True, exist_ok=True)
                    continue
                name = renamed.get(path.stem, path.stem) + path.suffix
                copied = target.joinpath(*parts, name)
                place_file(path, copied, True, None)  # stamped once its header is rewritten
                expected = {STUDY: study.name, SOP: path.stem, MEDIA_SOP: path.stem}
                if len(relative.parts) > 1:
                    expected[SERIES] = relative.parts[-2]
                report.rewrite(copied, renamed, expected, str(copied.relative_to(self.dest)))
                if stamp is not None:
                    os.utime(copied, ns=(stamp, stamp))
            for made_folder in sorted(made, key=lambda p: len(p.parts), reverse=True):
                if stamp is not None:  # a folder's mtime changes as entries are made in it: stamped last
                    os.utime(made_folder, ns=(stamp, stamp))
        renamed_studies = {study.name for study in studies}
        for path in sorted(p for p in staging.rglob("*") if p.is_file()):
            if path.relative_to(staging).parts[0] not in renamed_studies:
                stamp = drawn_stamp(mtimes, rng)
                place_file(path, folder / path.relative_to(staging), True, stamp)
        shutil.rmtree(staging)  # links removed: the public files they linked are as they were
        return report.note()


class _HeaderReport:
    """The DICOM files of the test side whose headers were rewritten, and those that were not as expected."""

    def __init__(self) -> None:
        self.total = 0
        self.unwalkable: list[tuple[str, str]] = []  # (file in the view, why)
        self.unexpected: list[str] = []

    def rewrite(
        self, path: Path, renamed: dict[str, str], expected: dict[tuple[int, int], str], shown: str
    ) -> None:
        """Rewrite the UIDs of `path` (the view's own copy) where it is a DICOM file (named `.dcm`/`.dicom`, or
        `DICM` after its preamble); note it where its header cannot be walked (left as copied) or does not name
        the `expected` old ids (tag -> id) where it should (what it names of the old ids is rewritten still)."""
        if path.suffix.lower() not in DICOM_SUFFIXES:
            with open(path, "rb") as handle:
                if handle.read(PREAMBLE + len(MAGIC))[PREAMBLE:] != MAGIC:
                    return
        self.total += 1
        try:
            uids = rewrite_uids(path, renamed)
        except Unwalkable as exc:
            self.unwalkable.append((shown, str(exc)))
            return
        if uids.misfits or any(uids.found.get(tag) != value for tag, value in expected.items()):
            self.unexpected.append(shown)

    def note(self) -> str:
        notes = []
        if self.unwalkable:
            shown, why = self.unwalkable[0]
            notes.append(
                f"{len(self.unwalkable)} of the {self.total} DICOM files on the test side are copied as they are, "
                f"their headers not rewritten, so these may name their own UIDs ({shown}: {why})"
            )
        if self.unexpected:
            notes.append(
                f"{len(self.unexpected)} of the {self.total} DICOM files on the test side do not name their study, "
                f"series and image in their headers as their paths do (e.g. {self.unexpected[0]}); what they name "
                "of the renamed ids is rewritten"
            )
        return "; ".join(notes)
