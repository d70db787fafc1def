"""Tables kept as JSON records: a `.json` file holding a list of objects, or `.jsonl`/`.ndjson` with one object a
line (random-acts-of-pizza's `train.json` and `test.json`).

`read_records(path)` gives the records as they are (for rewriting them in their own format) and
`records_frame(records)` a table of their scalar fields as text: booleans as 1/0 (a submission scores them as
numbers), missing values as empty cells, lists and objects as their JSON. `write_records(records, path, like)`
writes them back as `like` was written (a list, or a line each).

Records may hold per-position arrays (stanford-covid-vaccine's `train.json`: a record per sequence, its targets one
value per position, the sample submission a row per position `<id>_<position>`): `position_fields` recognises
them and `position_rows` gives a row per position, which the offline coder models like any table.

Shared by the harness (which splits such tables) and the offline coder; the solutions the offline coder writes
embed this module's source, so it uses only os, json and pandas.
"""

import json
import os

import pandas as pd

RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson")


def is_records_file(path: str) -> bool:
    return str(path).lower().endswith(RECORD_SUFFIXES)


def read_records(path: str, limit=None) -> list:
    """The objects of a JSON records file (the first `limit` of a file with one a line, read no further);
    ValueError naming the file when it holds something else."""
    with open(path, encoding="utf-8") as handle:
        first = handle.read(4096).lstrip()
        handle.seek(0)
        if first.startswith("["):
            records = json.load(handle)
        else:
            records = []
            for line in handle:
                if limit is not None and len(records) >= limit:
                    break
                if line.strip():
                    records.append(json.loads(line))
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ValueError(f"{os.path.basename(path)} is not a list of JSON objects (one record per example)")
    return records[:limit] if limit is not None else records


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def records_frame(records: list) -> pd.DataFrame:
    """The records as a table of text, one column per field (in the order fields first appear)."""
    columns: dict = {}
    for record in records:
        for key in record:
            columns.setdefault(key, None)
    return pd.DataFrame({key: [_text(r.get(key)) for r in records] for key in columns}, dtype=str)


def records_table(path: str, max_rows=None) -> pd.DataFrame:
    """A records file as a table with numbers as numbers (what a model reads); booleans as 1/0."""
    frame = records_frame(read_records(path)[:max_rows])
    for column in frame.columns:
        numbers = pd.to_numeric(frame[column].replace("", None), errors="coerce")
        if numbers.notna().sum() == (frame[column] != "").sum():
            frame[column] = numbers
    return frame


def write_records(records: list, path: str, like: str) -> None:
    """Write `records` to `path` in the form of the file `like` (a JSON list, or one object a line)."""
    with open(like, encoding="utf-8") as handle:
        as_list = handle.read(4096).lstrip().startswith("[")
    with open(path, "w", encoding="utf-8") as handle:
        if as_list:
            json.dump(records, handle, indent=1)
        else:
            handle.writelines(json.dumps(r) + "\n" for r in records)


def _position_count(value):
    """A whole number as it is, a text as its length, else None: how a record says how many positions it has."""
    if isinstance(value, str):
        return len(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def position_fields(records: list, test_records: list, sample_ids: list, targets: list):
    """{"id_field", "length_field"} where `records` hold the sample's `targets` as arrays and the sample's ids are
    `<test record id>_<position>`, as many per test record as its length field says (a number such as
    `seq_length`, else a text that long); None otherwise."""
    if not records or not test_records or not all(isinstance(records[0].get(t), list) for t in targets):
        return None
    counts: dict = {}
    for sample_id in sample_ids:
        record, _, position = str(sample_id).rpartition("_")
        if not record or not position.isdigit():
            return None
        counts[record] = counts.get(record, 0) + 1
    fields = list(dict.fromkeys(k for r in test_records for k in r))
    wanted = set(counts) if len(counts) == len(test_records) else set()
    named = [f for f in fields if {str(r.get(f)) for r in test_records} == wanted]
    if not named:
        return None
    ids = [str(r.get(named[0])) for r in test_records]
    numbers_first = sorted(fields, key=lambda f: isinstance(test_records[0].get(f), str))
    for field in numbers_first:
        if all(_position_count(r.get(field)) == counts[i] for r, i in zip(test_records, ids, strict=True)):
            return {"id_field": named[0], "length_field": field}
    return None


def position_rows(
    records: list, id_field: str, length_field: str, id_col: str, labelled: bool
) -> pd.DataFrame:
    """A row per position of each record, named `<record id>_<position>` in `id_col`, with `position`, each number
    field, each text as long as the record as its character there and its neighbours' (`<field>_prev`,
    `<field>_next`), and each array's value there (missing past its end). Only the positions with values in
    every array when `labelled` (the scored ones), all of them otherwise."""
    columns: dict = {id_col: [], "position": []}
    rows = 0
    for record in records:
        size = full = _position_count(record.get(length_field)) or 0
        arrays = {k: v for k, v in record.items() if isinstance(v, list)}
        if labelled and arrays:
            size = min(full, *(len(v) for v in arrays.values()))
        texts = {k: v for k, v in record.items() if isinstance(v, str) and k != id_field and len(v) == full}
        numbers = {k: v for k, v in record.items() if isinstance(v, (int, float)) and k not in arrays}
        values: dict = {
            id_col: [f"{record.get(id_field)}_{k}" for k in range(size)],
            "position": list(range(size)),
        }
        for name, text in texts.items():
            values[name] = [text[k] for k in range(size)]
            values[name + "_prev"] = [text[k - 1] if k else "" for k in range(size)]
            values[name + "_next"] = [text[k + 1] if k + 1 < full else "" for k in range(size)]
        for name, value in numbers.items():
            values[name] = [value] * size
        for name, array in arrays.items():
            values[name] = [array[k] if k < len(array) else None for k in range(size)]
        for name, column in values.items():
            columns.setdefault(name, [None] * rows).extend(column)
        rows += size
        for column in columns.values():
            column.extend([None] * (rows - len(column)))
    return pd.DataFrame(columns)
