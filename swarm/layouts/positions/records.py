"""Per-position arrays in records: stanford-covid-vaccine's layout, found and read for a harness split.

`train.json` holds a record per sequence whose list-valued fields are the sample submission's target columns
(`reactivity`, `deg_Mg_pH10`, ..., one value per scored position: the first `seq_scored`); `test.json` holds the
test sequences without them; the sample submission has a row per position of every test sequence, its id
(`id_seqpos`) `<record id>_<position>`, as many positions as the sequence is long (`seq_length`), scored or not.

`position_records` reads the layout `swarm.layouts.positions.reader` found (`PositionRecords`), or raises NoHoldout where it is broken
(target arrays that disagree in length with each other or with the record's count of scored positions);
`position_labels` expands records into the submission's rows. The split itself is in
`swarm.layouts.positions.split`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from swarm.evaluation.holdout_record import NoHoldout
from swarm.evaluation.labelled_data import MIN_LABELLED_ROWS, check_size
from swarm.formats.records import read_records

SEP = "_"  # between a record's id and a position in the sample's ids
_POSITION_ID = re.compile(r"^(.+)_(\d+)$")
COUNT_SHARE = 0.9  # an integer field equal to the target arrays' length in this share of records counts them


@dataclass
class PositionRecords:
    """A per-position records layout, as `position_records` read it."""

    train: Path  # the labelled records (train.json)
    test: Path  # the test records beside them (test.json)
    records: list[dict]  # the labelled records as they are
    test_records: list[dict]  # the test records as they are
    id_field: str  # the records' field whose value, `_` and a position make the sample's ids (`id`)
    targets: list[str]  # the sample's target columns: list-valued fields of the labelled records
    length_field: str  # the field giving how many positions the sample lists for a record (`seq_length`)
    test_ids: list[str]  # the test records' ids, in the file's order


def position_records(
    public: Path, fields: dict, targets: list[str], sample_ids: list[str], max_train_mb: float
) -> PositionRecords:
    """The records of the layout the reader found (`swarm.layouts.positions.reader.find_positions`'s fields), read
    whole and checked against the sample; NoHoldout, saying what is wrong, where they are too large, too few, or
    the sample and the records disagree."""
    train, test = public / fields["train"], public / fields["test"]
    check_size(train, max_train_mb)
    try:
        records, test_records = read_records(str(train)), read_records(str(test))
    except (ValueError, UnicodeDecodeError) as exc:
        raise NoHoldout(f"the records cannot be read: {exc}") from None
    if len(records) < MIN_LABELLED_ROWS:
        raise NoHoldout(f"{train.name} has only {len(records)} records")
    counts = _sample_counts(sample_ids)
    id_field = _id_field(test_records, set(counts), test.name)
    test_ids = [str(r[id_field]) for r in test_records]
    length_field = _length_field(test_records, test_ids, counts, test.name)
    for record in records:
        _check_arrays(record, id_field, targets, length_field, train.name)
    _check_counts(records, id_field, targets, length_field, train.name)
    return PositionRecords(train, test, records, test_records, id_field, targets, length_field, test_ids)


def _sample_counts(sample_ids: list[str]) -> dict[str, int]:
    """{record id: how many positions the sample lists for it}; NoHoldout where they are not 0, 1, ... n-1."""
    positions: dict[str, list[int]] = {}
    for sample_id in sample_ids:
        match = _POSITION_ID.match(sample_id)
        if match is None:
            raise NoHoldout(f"the sample's id {sample_id!r} is not <record id>_<position> like its others")
        positions.setdefault(match.group(1), []).append(int(match.group(2)))
    for record, found in positions.items():
        if sorted(found) != list(range(len(found))):
            raise NoHoldout(
                f"the sample lists positions {sorted(found)[:5]}... for {record!r}, not 0 to n-1 once each"
            )
    return {record: len(found) for record, found in positions.items()}


def _id_field(test_records: list[dict], wanted: set[str], name: str) -> str:
    """The test records' field whose values are exactly the record ids of the sample's ids."""
    fields = dict.fromkeys(k for r in test_records[:1000] for k in r)
    for field in fields:
        values = [r.get(field) for r in test_records]
        named = {str(v) for v in values if isinstance(v, str | int) and not isinstance(v, bool)}
        if len(named) == len(values) and named == wanted:
            return field
    raise NoHoldout(
        f"no field of {name} holds exactly the record ids of the sample's <id>_<position> ids, so the held-out "
        "records' rows could not be named like the test's"
    )


def _length_field(test_records: list[dict], ids: list[str], counts: dict[str, int], name: str) -> str:
    """The test records' field that gives how many positions the sample lists for each: a number equal to it
    (`seq_length`), else a text that long (`sequence`)."""
    fields = list(dict.fromkeys(k for r in test_records[:1000] for k in r))
    numbers = [f for f in fields if all(_length(r.get(f), number=True) is not None for r in test_records)]
    texts = [f for f in fields if all(_length(r.get(f), number=False) is not None for r in test_records)]
    for field, number in [*((f, True) for f in numbers), *((f, False) for f in texts)]:
        if all(_length(r[field], number) == counts[i] for r, i in zip(test_records, ids, strict=True)):
            return field
    raise NoHoldout(
        f"no field of {name} gives the number of positions the sample lists for each record (a length, or a "
        "text that long), so the held-out records' rows could not be listed like the test's"
    )


def _length(value: object, number: bool) -> int | None:
    """A whole number (`number`) or a text's length; None for anything else."""
    if number:
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    return len(value) if isinstance(value, str) else None


def positions_of(record: dict, length_field: str) -> int:
    """How many positions a record has (rows in the sample): its length field, a number or a text."""
    value = record.get(length_field)
    return len(value) if isinstance(value, str) else int(value)  # type: ignore[arg-type]


def _check_arrays(record: dict, id_field: str, targets: list[str], length_field: str, name: str) -> None:
    """NoHoldout where a record's target arrays are not lists of one length, at most its number of positions."""
    lengths = {t: len(v) if isinstance(v := record.get(t), list) else None for t in targets}
    rid = record.get(id_field)
    if any(n is None for n in lengths.values()) or len(set(lengths.values())) > 1:
        shown = ", ".join(f"{t} {n if n is not None else 'missing'}" for t, n in lengths.items())
        raise NoHoldout(
            f"record {rid!r} of {name} holds target arrays of different lengths ({shown}), so which of its "
            "positions are scored is unclear"
        )
    count = next(iter(lengths.values()))
    if record.get(length_field) is None or (count or 0) > positions_of(record, length_field):
        raise NoHoldout(
            f"record {rid!r} of {name} holds more target values than its {length_field} positions"
        )


def _check_counts(
    records: list[dict], id_field: str, targets: list[str], length_field: str, name: str
) -> None:
    """NoHoldout where a field counting the scored positions (`seq_scored`: a whole number equal to the
    arrays' length in nearly every record) disagrees with a record's arrays."""
    lengths = [len(r[targets[0]]) for r in records]
    fields = [f for f in records[0] if f != length_field and _length(records[0][f], number=True) is not None]
    for field in fields:
        agree = [r.get(field) == n for r, n in zip(records, lengths, strict=True)]
        if sum(agree) >= COUNT_SHARE * len(records) and not all(agree):
            bad = records[agree.index(False)]
            raise NoHoldout(
                f"record {bad.get(id_field)!r} of {name} holds {len(bad[targets[0]])} target values where its "
                f"{field} says {bad.get(field)}, so which of its positions are scored is unclear"
            )


def position_ids(record_id: str, count: int) -> list[str]:
    """The sample's ids of a record's first `count` positions: `<record id>_<position>`."""
    return [f"{record_id}{SEP}{k}" for k in range(count)]


def position_labels(
    records: list[dict], ids: list[str], layout: PositionRecords, id_column: str
) -> pd.DataFrame:
    """The records' scored positions (those with target values) as the submission's rows, under `ids` (the
    records' ids in the view): the id column and the targets as text."""
    rows: dict[str, list[str]] = {id_column: []}
    for target in layout.targets:
        rows[target] = []
    for record, record_id in zip(records, ids, strict=True):
        count = len(record[layout.targets[0]])
        rows[id_column].extend(position_ids(record_id, count))
        for target in layout.targets:
            rows[target].extend("" if v is None else str(v) for v in record[target])
    return pd.DataFrame(rows, dtype=str)
