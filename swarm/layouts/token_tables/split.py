"""The harness split of examples whose inputs are records of JSON tables linked by tokens:
3d-object-detection-for-autonomous-vehicles.

train.csv has only the ids (sample tokens) and labels; the inputs are nuScenes-style tables in `train_data/` and
`test_data/` (lists of records, each with a `token`; `sample.json` a record per sample, `sample_data.json` a record
per lidar sweep or image naming its `sample_token` and its file, `ego_pose.json`, `calibrated_sensor.json`,
`scene.json`, `log.json` the records those name), the files in `train_lidar/`, `train_images/` and their `test_`
twins. The split holds out whole groups of samples (scenes: the field of the samples' records that the most of
them share), as MLE-bench's `prepare.py` holds out whole logs: every record that names a held-out token (the
samples, their scene, their sample data, their annotations; then whatever names those) leaves the training
tables; those the test tables also have join them, with the records they name (poses, calibrations, logs),
copied; tables only the training side has (annotations, instances: the labels) just lose them; and each file a
moved record names (by its base name) moves to the test twin of its folder. Every test and held-out sample then
gets a fresh token (`swarm.evaluation.fresh_ids`), and each test table is written again with every string that
named one of them renamed alike (`_rename_tokens`), so no token tells a held-out sample from a test one; the
files, named by their sweeps, are copied anew by the harness.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_ids import FreshIds, draw_fresh_ids, keep_ids_reason, kept_ids
from swarm.evaluation.holdout_record import TRAIN, NoHoldout, SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.split import described_split, split_whole
from swarm.evaluation.table_io import read_csv_as_text, write_public_csv
from swarm.evaluation.view_files import FILE_MATCH_SHARE, extracted_archives, fresh_view, link, mirror
from swarm.evaluation.view_tables import block_order, write_sample
from swarm.formats.records import read_records, write_records

KEY = "token"  # the field that names each record
UNIT = "unit"  # the column of the groups of samples held out whole
MAX_TABLE_MB = 2048  # a JSON table larger than this is not read (and the layout not split)
OWNER_PASSES = 3  # rounds of "a record naming a held-out record is held out too"


def _records(path: Path) -> list[dict] | None:
    """A JSON table's records (`swarm.formats.records.read_records`), or None where it cannot be read as a list of them."""
    try:
        records = read_records(str(path))
    except (OSError, ValueError):
        return None
    return records or None


def _tables(folder: Path) -> dict[str, list[dict]]:
    """The JSON tables of a folder that are lists of records (name -> records); {} where one is too large."""
    tables = {}
    for path in sorted(folder.glob("*.json")):
        if path.stat().st_size > MAX_TABLE_MB * 1e6:
            return {}
        records = _records(path)
        if records is not None:
            tables[path.name] = records
    return tables


def _twin(public: Path, folder: Path, side: str, other: str) -> str:
    """The name of the top-level folder that is `folder`'s twin on the other side (`test_data` for `train_data`,
    in the case the public dir spells it), or the lower-case name where there is none."""
    name = folder.name.lower().replace(side, other)
    return next((p.name for p in public.iterdir() if p.name.lower() == name), name)


def token_tables_layout(public: Path, test_ids: list[str]) -> dict | None:
    """{"train_dir", "test_dir", "table"} where train.csv has no inputs besides the ids and labels (the caller
    checks) and a top-level folder with "test" in its name holds a JSON table (`table`) whose records' tokens are
    most of the test ids, beside a "train" twin holding the same table; None otherwise."""
    wanted = set(test_ids)
    for test_dir in sorted(p for p in public.iterdir() if p.is_dir() and "test" in p.name.lower()):
        train_dir = public / _twin(public, test_dir, "test", "train")
        if not train_dir.is_dir():
            continue
        for path in sorted(test_dir.glob("*.json")):
            if path.stat().st_size > MAX_TABLE_MB * 1e6 or not (train_dir / path.name).is_file():
                continue
            tokens = {str(r.get(KEY)) for r in _records(path) or []}
            if wanted and len(tokens & wanted) >= FILE_MATCH_SHARE * len(wanted):
                return {"train_dir": train_dir, "test_dir": test_dir, "table": path.name}
    return None


def _unit_field(records: list[dict], ids: set[str]) -> str | None:
    """The field of the examples' records, besides the token, that groups them: shared by several examples, with
    the fewest distinct values (at least two)."""
    frame = pd.DataFrame([r for r in records if str(r.get(KEY)) in ids])
    best, fewest = None, len(frame)
    for column in frame.columns:
        if column == KEY or not frame[column].map(lambda v: isinstance(v, str)).all():
            continue
        distinct = frame[column].nunique()
        if 2 <= distinct < fewest and distinct < len(frame):
            best, fewest = column, distinct
    return best


def _owned(tables: dict[str, list[dict]], held: set[str]) -> dict[str, list[bool]]:
    """Per table, whether each record names a held-out token in a text field; a record found so adds its own
    token, for OWNER_PASSES rounds (sample data naming a held-out sample, an instance naming its annotation)."""
    tokens = set(held)
    owned = {name: [False] * len(records) for name, records in tables.items()}
    for _ in range(OWNER_PASSES):
        added = False
        for name, records in tables.items():
            for k, record in enumerate(records):
                if not owned[name][k] and any(isinstance(v, str) and v in tokens for v in record.values()):
                    owned[name][k] = added = True
                    tokens.add(str(record.get(KEY)))
        if not added:
            break
    return owned


def split_token_tables(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out whole groups of examples with their records and files and write the view (see the module
    docstring); NoHoldout saying why where the training tables cannot be read or nothing is left to train on."""
    competition, spec, sample = request.competition, request.spec, request.sample
    id_col, public = spec.id_column, competition.public_dir
    train_dir, test_dir = Path(fields["train_dir"]), Path(fields["test_dir"])
    train = read_csv_as_text(public / TRAIN)
    tables = _training_tables(train_dir, fields["table"])
    unit_field, unit_of = _sample_units(tables[fields["table"]], set(train[id_col].str.strip()))
    units = pd.DataFrame({UNIT: sorted(set(unit_of.values()))})
    chosen, why, held_units, _ = split_whole(request, units, UNIT)
    held_set = set(held_units[UNIT])
    in_held = train[id_col].str.strip().map(unit_of).isin(held_set)
    held, kept = train[in_held].reset_index(drop=True), train[~in_held]

    # The view's tables: the held-out records leave the training tables; the test tables get them and what they name.
    owned = _owned(tables, set(held[id_col].str.strip()) | held_set)
    test_tables = _tables(test_dir)
    dest = fresh_view(request.root)
    skip = {public / TRAIN, competition.sample_submission, *extracted_archives(public)}
    moved_names = _write_view_tables(tables, test_tables, owned, (train_dir, test_dir), dest, skip)
    _move_files(public, dest, moved_names, skip)
    mirror(public, dest, skip)

    # train.csv without the held-out rows; the sample with them, a group's rows together.
    write_public_csv(kept, dest / TRAIN)
    test_ids = sample[id_col].str.strip().tolist()
    held_ids = held[id_col].str.strip().tolist()
    groups = [unit_of.get(i, i) for i in test_ids] + [unit_of[i] for i in held_ids]
    order = block_order([str(g) for g in groups], np.random.default_rng(request.seed + 1))
    taken = _tokens(tables) | _tokens(test_tables)
    fresh = _fresh_tokens(request, train, (test_ids, held_ids), order, taken, dest / test_dir.name)
    if fresh.fresh:
        sample, held_ids = sample.assign(**{id_col: fresh.test}), fresh.held
    write_sample(sample, held, held_ids, spec, order, dest / competition.sample_submission.name)
    target = next(c for c in sample.columns if c != id_col)
    return SplitParts(
        labels=held[[target]],
        held=held.assign(**{id_col: held_ids}),
        ids=held_ids,
        split=described_split(
            chosen,
            why,
            f"whole groups of samples ({unit_field or 'each one'}) held out, their records moved from "
            f"{train_dir.name}/ to {test_dir.name}/ and their files where the test's are",
        ),
        n_train=len(kept),
        classes={target: None},
        table=f"{TRAIN} ({len(train)} samples in {len(units)} groups, their inputs records of {train_dir.name}/)",
        hidden=sorted(n for n in tables if n not in test_tables),
        file_dirs=[test_dir.name],
        fresh=fresh,
    )


def _training_tables(train_dir: Path, table: str) -> dict[str, list[dict]]:
    """The training folder's JSON tables (`_tables`); NoHoldout where they cannot be read or lack `table`, the one
    whose records are the samples."""
    tables = _tables(train_dir)
    if table not in tables:
        raise NoHoldout(
            f"the tables of {train_dir.name}/ cannot be read (over {MAX_TABLE_MB} MB, or not JSON lists)"
        )
    return tables


def _sample_units(records: list[dict], ids: set[str]) -> tuple[str | None, dict[str, str]]:
    """The field grouping the samples' records (`_unit_field`, None where none does) and each labelled sample's
    group: its record's value of that field, else the sample itself."""
    samples = {str(r.get(KEY)): r for r in records if str(r.get(KEY)) in ids}
    unit_field = _unit_field(list(samples.values()), ids)
    unit_of = {i: str(samples[i].get(unit_field)) if unit_field and i in samples else i for i in ids}
    return unit_field, unit_of


def _tokens(tables: dict[str, list[dict]]) -> set[str]:
    """Every record's token in `tables`."""
    return {str(r[KEY]) for records in tables.values() for r in records if KEY in r}


def _write_view_tables(
    tables: dict[str, list[dict]],
    test_tables: dict[str, list[dict]],
    owned: dict[str, list[bool]],
    folders: tuple[Path, Path],
    dest: Path,
    skip: set[Path],
) -> set[str]:
    """Each training table written to the view without the held-out records (`owned`); each table the test side
    has too written with them and the records they name (poses, calibrations, logs) added, where it lacks them;
    the tables only the training side has (annotations, instances: the labels) just lose them. The public tables
    are added to `skip`; returns the base names of the files the held-out records name."""
    train_dir, test_dir = folders
    all_tokens = _tokens(tables)
    named = {  # the tokens the held-out records name: the poses, calibrations and logs the test side needs too
        v
        for name, records in tables.items()
        for r, own in zip(records, owned[name], strict=True)
        if own
        for v in r.values()
        if isinstance(v, str) and v in all_tokens
    }
    moved_names: set[str] = set()
    for name, records in tables.items():
        mine = [r for r, own in zip(records, owned[name], strict=True) if own]
        skip.add(train_dir / name)
        kept_records = [r for r, own in zip(records, owned[name], strict=True) if not own]
        (dest / train_dir.name).mkdir(parents=True, exist_ok=True)
        write_records(kept_records, str(dest / train_dir.name / name), like=str(train_dir / name))
        moved_names |= {Path(v).name for r in mine for v in r.values() if isinstance(v, str) and "/" in v}
        if name not in test_tables:
            continue  # the training side's own (annotations, instances): the held-out records are left out
        present = {str(r.get(KEY)) for r in test_tables[name]}
        added = mine + [
            r for r, own in zip(records, owned[name], strict=True) if not own and str(r.get(KEY)) in named
        ]
        skip.add(test_dir / name)
        joined = test_tables[name] + [r for r in added if str(r.get(KEY)) not in present]
        (dest / test_dir.name).mkdir(parents=True, exist_ok=True)
        write_records(joined, str(dest / test_dir.name / name), like=str(test_dir / name))
    return moved_names


def _fresh_tokens(
    request: SplitRequest,
    train: pd.DataFrame,
    own: tuple[list[str], list[str]],
    order: np.ndarray,
    taken: set[str],
    test_folder: Path,
) -> FreshIds:
    """Every test and held-out sample (`own`: their tokens) under a fresh token, none of those `taken`, the view's
    test tables (in `test_folder`) rewritten alike and view_ids.csv saved; or why the tokens are kept. The files
    are named by their sweeps, not the samples, so none is renamed."""
    test_ids, held_ids = own
    reason = keep_ids_reason(request.competition, train, None, request.spec.id_column)
    rng = np.random.default_rng(request.seed + 2)
    fresh = kept_ids(reason) if reason else draw_fresh_ids(order, test_ids, taken, len(held_ids), rng)
    if not fresh.fresh:
        return fresh
    _rename_tokens(test_folder, fresh.renamed(test_ids, held_ids))
    write_view_ids(
        request.root, {"test": fresh.test, "held": fresh.held}, {"test": test_ids, "held": held_ids}
    )
    return replace(fresh, files_renamed=False)


def _rename_tokens(folder: Path, renamed: dict[str, str]) -> None:
    """Every JSON table of `folder` written again with each string that is a renamed token (at any depth of a
    record: a sample's `token`, `prev`, `next`, a sweep's `sample_token`, a scene's first and last) replaced."""

    def renew(value: Any) -> Any:
        if isinstance(value, str):
            return renamed.get(value, value)
        if isinstance(value, list):
            return [renew(v) for v in value]
        if isinstance(value, dict):
            return {k: renew(v) for k, v in value.items()}
        return value

    for name, records_ in _tables(folder).items():
        renewed = [renew(r) for r in records_]
        if renewed == records_:
            continue
        path = folder / name  # possibly a link of a public file: written beside it, then put in its place
        staged = path.with_name(f".{name}.renamed")
        write_records(renewed, str(staged), like=str(path))
        os.replace(staged, path)


def _move_files(public: Path, dest: Path, names: set[str], skip: set[Path]) -> None:
    """Each training file whose base name a moved record names, linked into the test twin of its top-level folder
    (`train_lidar/x.bin` to `test_lidar/x.bin`) and left out of the training one."""
    for folder in sorted(p for p in public.iterdir() if p.is_dir() and "train" in p.name.lower()):
        twin = _twin(public, folder, "train", "test")
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name in names):
            skip.add(path)
            link(path, dest / twin / path.relative_to(folder))
