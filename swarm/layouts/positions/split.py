"""The harness split of a per-position records layout (`swarm.layouts.positions.records`:
stanford-covid-vaccine's `train.json` of sequences whose targets are arrays, one value per scored position).

Whole records are held out, so that no sequence has positions on both sides; as MLE-bench drew its test
sequences among those passing the data's quality filter (`SN_filter`), `auto` draws among the records whose
0/1 field named with "filter", known only for labelled records, is 1. The held-out records leave `train.json`
and join `test.json` with the test records' fields only (no target, error or filter field), shuffled in; every
record of the view's `test.json`, test and held-out alike, gets a fresh id in the test ids' format
(`swarm.evaluation.fresh_ids`; where ids are kept, held-out records get new ids only where theirs could collide
with a test id); a field numbering the records in file order (MLE-bench's `index`) is renumbered in both. The sample submission lists every position of each held-out
record as it lists the test records' (by their length field), in test.json's order. labels.csv holds the scored
positions only (those with target values); the harness scores those and leaves the others out, as grade.py
does with its `keep` column.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition
from swarm.evaluation.fresh_ids import ViewRows, fresh_view_ids
from swarm.evaluation.fresh_keys import rekeyed as with_fresh_key
from swarm.evaluation.holdout_record import SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.new_ids import held_out_ids
from swarm.evaluation.side_files import hide_side_files
from swarm.evaluation.split import check_split, choose_split, competition_split_hint, split_rows
from swarm.evaluation.table_io import write_public_csv
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror
from swarm.evaluation.view_tables import renamed_records, sample_rows
from swarm.formats.records import records_frame, write_records
from swarm.layouts.positions.records import (
    SEP,
    PositionRecords,
    position_ids,
    position_labels,
    position_records,
    positions_of,
)

FILTER_WORD = "filter"  # a 0/1 field of labelled records named so marks those a test set was drawn from


def build_position_holdout(request: SplitRequest, layout: PositionRecords) -> SplitParts:
    """build_holdout for a per-position records layout (see the module docstring)."""
    competition, spec, root, seed = request.competition, request.spec, request.root, request.seed
    frame = records_frame(layout.records)
    split = check_split(request.split)
    chosen, why, positions = _held_records(competition, layout, frame, split, request.fraction, seed)
    held_frame = frame.iloc[positions]
    held = [layout.records[i] for i in positions]
    rng = np.random.default_rng(seed + 1)
    original, ids, rekeyed = held_out_ids(
        frame, held_frame, layout.id_field, layout.test_ids, rng, always_new=False
    )
    dest = fresh_view(root)
    hidden = _write_view_files(request, layout, frame, held_frame, original, dest)
    n_kept = _write_kept_records(layout, positions, dest)
    order = rng.permutation(len(layout.test_records) + len(held))
    # Every test and held-out record under a fresh id, unless ids are kept (`swarm.evaluation.fresh_ids`).
    fresh = fresh_view_ids(_view_rows(request, layout, frame, (ids, original), hidden, dest, order), seed)
    renamed = fresh.renamed(layout.test_ids, ids) if fresh.fresh else None
    own_ids = ids
    if renamed is not None:
        layout = replace(layout, test_records=renamed_records(layout.test_records, layout.id_field, renamed))
        ids = fresh.held
    view_ids = _write_test(layout, held, ids, order, dest / layout.test.name)
    row_ids = _write_position_sample(request, layout, held, (own_ids, ids), renamed, view_ids, dest)
    labels = position_labels(held, ids, layout, spec.id_column)
    return SplitParts(
        labels.drop(columns=[spec.id_column]),
        pd.DataFrame(index=range(len(row_ids))),
        row_ids,
        (chosen, why),
        n_train=n_kept,
        classes={},
        table=(
            f"{layout.train.name} ({len(held)} records, a row per position <{layout.id_field}>_<position>, "
            f"{len(labels)} of them with targets and scored)"
        ),
        hidden=hidden,
        file_dirs=[],
        rekeyed=rekeyed,
        fresh=fresh,
        labelled_ids=labels[spec.id_column].tolist(),
    )


def _write_view_files(
    request: SplitRequest,
    layout: PositionRecords,
    frame: pd.DataFrame,
    held_frame: pd.DataFrame,
    original: list[str],
    dest: Path,
) -> list[str]:
    """The view's files: side files naming the held-out records by their ids hidden (which are returned), the
    rest linked (the records files are written by the split)."""
    competition, public = request.competition, request.competition.public_dir
    skip = {layout.train, layout.test, competition.sample_submission, *extracted_archives(public)}
    kept_ids = set(frame[layout.id_field]) - set(original)
    keyed = replace(request.spec, id_column=layout.id_field)  # side files name records by their ids
    hidden = hide_side_files(
        public, dest, frame, held_frame, keyed, set(layout.test_ids), None, skip, kept_ids
    )
    mirror(public, dest, skip)
    return hidden


def _write_kept_records(layout: PositionRecords, positions: np.ndarray, dest: Path) -> int:
    """The view's training records: all but the held-out ones, renumbered where the file numbers them. Returns
    how many."""
    dropped = set(positions.tolist())
    kept = [r for i, r in enumerate(layout.records) if i not in dropped]
    _write(renumbered(kept, numbering_field(layout.records)), dest / layout.train.name, layout.train)
    return len(kept)


def _view_rows(
    request: SplitRequest,
    layout: PositionRecords,
    frame: pd.DataFrame,
    held_ids: tuple[list[str], list[str]],
    hidden: list[str],
    dest: Path,
    order: np.ndarray,
) -> ViewRows:
    """What `fresh_view_ids` needs of the view built so far (`held_ids`: the held-out records' ids in the view and
    their own, empty where they keep theirs)."""
    competition = request.competition
    ids, original = held_ids
    own_tables = {
        dest / layout.train.name,
        dest / layout.test.name,
        dest / competition.sample_submission.name,
    }
    return ViewRows(
        competition,
        frame,
        records_frame(layout.test_records),
        layout.id_field,
        {layout.id_field},
        layout.test_ids,
        ids,
        [str(i).strip() for i in original] or ids,
        hidden,
        dest,
        None,
        own_tables,
        order,
    )


def _write_position_sample(
    request: SplitRequest,
    layout: PositionRecords,
    held: list[dict],
    ids: tuple[list[str], list[str]],
    renamed: dict[str, str] | None,
    record_order: list[str],
    dest: Path,
) -> list[str]:
    """The view's sample: a row per position of each held-out record (`ids`: their ids as built and in the view)
    beside the test rows, in the view's test records' order (`record_order`); where ids are fresh (`renamed`: each
    record's id as built -> its fresh id), the test rows renamed and view_ids.csv saved. Returns the held-out
    rows' ids in the view."""
    spec, sample = request.spec, request.sample
    own_ids, view_ids = ids
    counts = [positions_of(r, layout.length_field) for r in held]
    row_ids = [i for record_id, n in zip(view_ids, counts, strict=True) for i in position_ids(record_id, n)]
    own_sample = [str(i).strip() for i in sample[spec.id_column]]
    if renamed is not None:
        sample = sample.assign(**{spec.id_column: [with_fresh_key(i, renamed) for i in own_sample]})
        own_rows = [
            i for record_id, n in zip(own_ids, counts, strict=True) for i in position_ids(record_id, n)
        ]
        write_view_ids(
            request.root,
            {"test": sample[spec.id_column].tolist(), "held": row_ids},
            {"test": own_sample, "held": own_rows},
        )
    _write_sample(
        sample, spec.id_column, row_ids, record_order, dest / request.competition.sample_submission.name
    )
    return row_ids


def _held_records(
    competition: Competition,
    layout: PositionRecords,
    frame: pd.DataFrame,
    split: str,
    fraction: float,
    seed: int,
) -> tuple[str, str, np.ndarray]:
    """(split, why, sorted positions of the held-out records): a set split or competition.json's hint over
    the records' fields; else `fraction` of all records at random, drawn among those passing the data's
    filter where there is one (`filter_field`)."""
    hint = competition_split_hint(competition)
    if split != "auto" or hint:
        test = records_frame(layout.test_records)
        chosen, why = choose_split(split, hint, frame, test, False)
        strata = pd.Series("", index=frame.index)
        return chosen, why, split_rows(chosen, frame, strata, fraction, seed)[0]
    n = len(frame)
    want = min(n - 1, max(1, int(round(n * fraction))))
    field = filter_field(layout)
    why = f"whole records of {layout.train.name}, so that no sequence has positions on both sides"
    eligible = np.arange(n)
    if field is not None:
        passing = np.array([i for i, r in enumerate(layout.records) if r.get(field) == 1], dtype=int)
        if len(passing):
            eligible = passing
            why += f", among those whose {field} is 1 (the test records' lack it)"
    want = min(want, len(eligible))
    rng = np.random.default_rng(seed)
    return "random", why, np.sort(rng.choice(eligible, size=want, replace=False))


def filter_field(layout: PositionRecords) -> str | None:
    """The labelled records' 0/1 field named with `filter` that the test records lack (stanford-covid-vaccine's
    `SN_filter`: MLE-bench drew its test sequences among those passing it), or None."""
    test_fields = {k for r in layout.test_records[:1000] for k in r}
    for field in dict.fromkeys(k for r in layout.records[:1000] for k in r):
        if FILTER_WORD not in field.lower() or field in test_fields:
            continue
        if all(r.get(field) in (0, 1) for r in layout.records):  # True and False are 1 and 0
            return field
    return None


def numbering_field(records: list[dict]) -> str | None:
    """A field whose values number the records 0, 1, ... in file order (MLE-bench's `index`), or None."""
    if not records:
        return None
    for field in records[0]:
        values = [r.get(field) for r in records]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values) and values == list(
            range(len(values))
        ):
            return field
    return None


def renumbered(records: list[dict], field: str | None) -> list[dict]:
    """The records with `field` (the file's `numbering_field`, if any) set to 0, 1, ... again."""
    if field is None:
        return records
    return [{**r, field: k} if field in r else r for k, r in enumerate(records)]


def _write(records: list[dict], path: Path, like: Path) -> None:
    write_records(records, str(path), like=str(like))
    path.chmod(0o644)


def _write_test(
    layout: PositionRecords, held: list[dict], ids: list[str], order: np.ndarray, path: Path
) -> list[str]:
    """The view's test records: the test records and the held-out ones (their fields only, under `ids`) in
    `order`, renumbered where the test records number themselves; returns their ids in that order."""
    fields = list(dict.fromkeys(k for r in layout.test_records for k in r))
    moved = []
    for record, new in zip(held, ids, strict=True):
        own = record.get(layout.id_field)
        value = int(new) if isinstance(own, int) and new.isdigit() else new
        moved.append({k: value if k == layout.id_field else record.get(k) for k in fields})
    combined = [[*layout.test_records, *moved][i] for i in order]
    _write(renumbered(combined, numbering_field(layout.test_records)), path, layout.test)
    return [str(r[layout.id_field]) for r in combined]


def _write_sample(
    sample: pd.DataFrame, id_col: str, row_ids: list[str], record_order: list[str], path: Path
) -> None:
    """The sample with the held-out positions' rows (filler targets, `sample_rows`), record by record in the
    view's test order, each record's positions in order."""
    full = pd.concat([sample, sample_rows(sample, id_col, row_ids)], ignore_index=True)
    parts = full[id_col].astype(str).str.strip().str.rsplit(SEP, n=1)
    rank = {record_id: k for k, record_id in enumerate(record_order)}
    order = np.lexsort((parts.str[1].astype(int).to_numpy(), parts.str[0].map(rank).to_numpy()))
    write_public_csv(full.iloc[order], path)


def split_positions(request: SplitRequest, fields: dict) -> SplitParts:
    """`build_position_holdout` of the records the reader found, read whole and checked against the sample."""
    spec, sample = request.spec, request.sample
    targets = [c for c in sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    ids = [str(i).strip() for i in sample[spec.id_column]]
    layout = position_records(request.competition.public_dir, fields, targets, ids, request.max_train_mb)
    return build_position_holdout(request, layout)
