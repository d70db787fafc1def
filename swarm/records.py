"""Tables kept as JSON records: a `.json` file holding a list of objects, or `.jsonl`/`.ndjson` with one object a
line (random-acts-of-pizza's `train.json` and `test.json`).

`read_records(path)` gives the records as they are (for rewriting them in their own format) and
`records_frame(records)` a table of their scalar fields as text: booleans as 1/0 (a submission scores them as
numbers), missing values as empty cells, lists and objects as their JSON. `write_records(records, path, like)`
writes them back as `like` was written (a list, or a line each).

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
