"""Ids that join columns of the test table: text-normalization-challenge's sample lists `<sentence_id>_<token_id>`,
which names no column of `en_test_2.csv` but joins its `sentence_id` and `token_id` with `_`; the labelled table
(`en_train.csv`) holds the same key columns and the targets.

`find_composite(probe)` finds the layout for the harness (swarm/layouts/composite/split.py) and the offline coder
alike, and `read_composite_examples` reads it as the coder's solutions do: both tables, the test rows named by
their joined ids. The solutions embed this module's source, so it uses only the standard library and pandas.
"""

import os

import pandas as pd

from swarm.formats.csv_tables import csv_header, read_csv_as_meant

MAX_KEY_COLUMNS = 3  # a composite id joins at most this many columns of the test table
KEY_SCAN_COLUMNS = 20  # ... among its first this many columns


def joined_ids(frame: pd.DataFrame, keys: list) -> pd.Series:
    """Each row's id: its `keys` values as stripped text joined with "_" (`<sentence_id>_<token_id>`)."""
    parts = [frame[c].astype(str).str.strip() for c in keys]
    return parts[0].str.cat(parts[1:], sep="_") if len(parts) > 1 else parts[0]


def named_csvs(names: list, word: str, skip: tuple = ()) -> list:
    """The top-level CSVs among `names` whose names hold `word` (but those in `skip`), `<word>.csv` first."""
    found = sorted(n for n in names if n.lower().endswith(".csv") and word in n.lower() and n not in skip)
    return sorted(found, key=lambda name: name.lower() != word + ".csv")


def _orders(columns: list, size: int) -> list:
    """Every ordered choice of `size` distinct columns (permutations, without importing itertools)."""
    if size == 0:
        return [[]]
    return [[c, *rest] for c in columns for rest in _orders([o for o in columns if o != c], size - 1)]


def composing_keys(path: str, ids: list, skip: tuple = ()) -> list | None:
    """1-3 of the table's first columns (none in `skip`) whose values joined with "_" in that order are exactly
    `ids` (stripped text), one row each, or None. The first row picks the orders worth checking on every row."""
    wanted = set(ids)
    try:
        first = pd.read_csv(path, dtype=str, keep_default_na=False, nrows=1)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError):
        return None
    if first.empty or len(wanted) != len(ids):
        return None
    columns = [c for c in first.columns[:KEY_SCAN_COLUMNS] if c not in skip]
    orders = [keys for size in range(1, MAX_KEY_COLUMNS + 1) for keys in _orders(columns, size)
              if "_".join(str(first[c].iloc[0]).strip() for c in keys) in wanted]  # fmt: skip
    if not orders:
        return None
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    for keys in orders if len(table) == len(ids) else []:
        joined = joined_ids(table, keys)
        if joined.is_unique and joined.isin(wanted).all():
            return keys
    return None


def composite_labelled_tables(data_dir: str, names: list, id_column: str, needed: list, skip: tuple) -> list:
    """The top-level CSVs named with "train" (not "test"; none in `skip`) that hold every `needed` column (targets
    and keys) and not the id column, `train.csv` first."""
    return [
        name
        for name in named_csvs(names, "train", skip)
        if "test" not in name.lower()
        and set(needed) <= set(header := csv_header(os.path.join(data_dir, name)))
        and id_column not in header
    ]


def find_composite(probe) -> dict | None:
    """{"train", "test", "keys"} where the sample's ids join `keys` columns of a test table (a top-level CSV named
    with "test", not the sample) and the first labelled table (`composite_labelled_tables`) holds the targets and
    the keys; None where the id is a column of the test table, or no columns join into the ids."""
    sample_name = os.path.basename(probe.sample_path or "")
    for test in named_csvs(probe.names, "test", (sample_name,)):
        path = os.path.join(probe.data_dir, test)
        if probe.id_column in csv_header(path):
            return None  # the test table names its rows by the id itself
        keys = composing_keys(path, probe.ids, skip=tuple(probe.targets))
        if keys is None:
            continue
        skip = (sample_name, test)
        tables = composite_labelled_tables(
            probe.data_dir, probe.names, probe.id_column, [*probe.targets, *keys], skip
        )
        return {"train": tables[0], "test": test, "keys": keys} if tables else None
    return None


def read_composite_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the labelled table; the test table, each row named by its joined id in the sample's id
    column."""
    train = read_csv_as_meant(os.path.join(data_dir, fields["train"]), nrows=max_rows)
    test = read_csv_as_meant(os.path.join(data_dir, fields["test"]), nrows=max_rows)
    test[sample.columns[0]] = joined_ids(test, fields["keys"])
    return train, test
