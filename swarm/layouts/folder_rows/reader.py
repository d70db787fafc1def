"""Rows of a labels table in each example folder, keyed in the sample by the folder and another column:
smartphone-decimeter-2022 has `train/<drive>/<phone>/` with the inputs (`device_gnss.csv`, `device_imu.csv`) and
the labels (`ground_truth.csv`, a row per second: `UnixTimeMillis`, `LatitudeDegrees`, `LongitudeDegrees`, ...),
`test/<drive>/<phone>/` with the inputs only, and a sample of `tripId` (`<drive>-<phone>`), `UnixTimeMillis`,
`LatitudeDegrees`, `LongitudeDegrees`, many rows a trip.

`folder_rows_fields(data_dir, sample)` recognises the layout; `example_folders(...)` maps each example's id (its
folder's path below the test or training folder, the parts joined as the sample joins them) to its folder;
`labelled_rows(...)` reads the training examples' labels tables as rows of the sample's columns;
`with_inputs(...)` adds to each row the numbers of the example's input tables at the row's time (the row of each
input table nearest to it by the column that holds the key's values: `device_gnss.csv`'s `utcTimeMillis`).

Shared by the harness (swarm/layouts/folder_rows/split.py) and the offline coder; the solutions the offline
coder writes embed this module's source, so it uses only os, numpy and pandas.
"""

import os

import numpy as np
import pandas as pd

from swarm.formats.csv_tables import read_csv_as_meant

FOLDER_MATCH_SHARE = 0.9  # share of the sample's ids that must name example folders of the test folder
FOLDER_SEPARATORS = ("-", "_", "/")  # how an id joins the parts of its folder's path
FOLDER_MAX_DEPTH = 3  # example folders at most this deep below the test or training folder
FOLDER_PROBE = 20  # example folders whose files are compared to find the labels table and the inputs
FOLDER_MAX_EXAMPLES = 200  # training examples the offline coder reads at most
INPUT_COLUMNS = 40  # numeric columns taken from each input table at most


def _folders_at(root: str, depth: int) -> list:
    """The folders `depth` levels below `root`, each as the tuple of its path's parts."""
    found = []
    for current, dirs, _ in os.walk(root):
        parts = () if current == root else tuple(os.path.relpath(current, root).split(os.sep))
        if len(parts) == depth - 1:
            found += [(*parts, d) for d in sorted(dirs)]
            dirs[:] = []
    return sorted(found)


def _csv_files(folder: str) -> set:
    return {
        n
        for n in os.listdir(folder)
        if n.lower().endswith(".csv") and os.path.isfile(os.path.join(folder, n))
    }


def _key_columns(sample: pd.DataFrame) -> list:
    """The sample's columns after the id that complete it where it repeats (a trip's `UnixTimeMillis`); []
    where the id names each row once or no columns complete it."""
    ids = sample.iloc[:, 0].astype(str).str.strip()
    if ids.is_unique:
        return []
    for count in range(1, sample.shape[1] - 1):
        keys = list(sample.columns[1 : 1 + count])
        if not pd.concat([ids, sample[keys].astype(str)], axis=1).duplicated().any():
            return keys
    return []


def folder_rows_fields(data_dir: str, sample: pd.DataFrame) -> dict | None:
    """{"id", "keys", "targets", "test_dir", "train_dir", "depth", "sep", "labels", "inputs"} where the sample's ids
    repeat and the columns after them (`keys`) complete them, its ids name (their path's parts joined by `sep`) the
    example folders `depth` levels below a top-level folder with "test" in its name, the training twin ("train" for
    "test") has example folders as deep, most of which hold a CSV table (`labels`) that no test example holds and
    whose columns include every sample column but the id, and `inputs` are the CSV tables both sides' examples
    share. None otherwise."""
    keys = _key_columns(sample) if sample.shape[1] >= 3 else []
    if not keys:
        return None
    id_col = sample.columns[0]
    ids = set(sample[id_col].astype(str).str.strip())
    tops = {n.lower(): n for n in sorted(os.listdir(data_dir)) if os.path.isdir(os.path.join(data_dir, n))}
    for lower, test_dir in tops.items():
        train_dir = tops.get(lower.replace("test", "train"))
        if "test" not in lower or train_dir is None:
            continue
        for depth in range(1, FOLDER_MAX_DEPTH + 1):
            tests = _folders_at(os.path.join(data_dir, test_dir), depth)
            sep = next(
                (
                    s
                    for s in FOLDER_SEPARATORS
                    if len(ids & {s.join(p) for p in tests}) >= FOLDER_MATCH_SHARE * len(ids)
                ),
                None,
            )
            if sep is None:
                continue
            fields = {"id": id_col, "keys": keys, "targets": [c for c in sample.columns[1:] if c not in keys]}
            fields.update(test_dir=test_dir, train_dir=train_dir, depth=depth, sep=sep)
            files = _folder_example_files(data_dir, fields, tests, list(sample.columns[1:]))
            return {**fields, **files} if files else None
    return None


def _folder_example_files(data_dir: str, fields: dict, tests: list, columns: list) -> dict | None:
    """{"labels", "inputs"} of the example folders (see folder_rows_fields), or None."""
    trains = _folders_at(os.path.join(data_dir, fields["train_dir"]), fields["depth"])[:FOLDER_PROBE]
    if not trains:
        return None
    test_files = [_csv_files(os.path.join(data_dir, fields["test_dir"], *p)) for p in tests[:FOLDER_PROBE]]
    train_files = [_csv_files(os.path.join(data_dir, fields["train_dir"], *p)) for p in trains]
    inputs = sorted(set.intersection(*test_files, *train_files))
    counts = pd.Series([n for files in train_files for n in files if n not in set.union(*test_files)])
    for name in counts.value_counts().index:
        if counts.value_counts()[name] < FOLDER_MATCH_SHARE * len(trains):
            break
        holder = next(p for p, files in zip(trains, train_files, strict=True) if name in files)
        try:
            header = pd.read_csv(os.path.join(data_dir, fields["train_dir"], *holder, name), nrows=0).columns
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
            continue
        if set(columns) <= set(header):
            return {"labels": name, "inputs": inputs}
    return None


def example_folders(data_dir: str, fields: dict, side: str) -> dict:
    """id -> folder of each example below the `side` folder ("test_dir" or "train_dir"); a training example only
    where it holds the labels table."""
    root = os.path.join(data_dir, fields[side])
    found = {}
    for parts in _folders_at(root, fields["depth"]):
        folder = os.path.join(root, *parts)
        if side == "test_dir" or os.path.isfile(os.path.join(folder, fields["labels"])):
            found[fields["sep"].join(parts)] = folder
    return found


def labelled_rows(data_dir: str, fields: dict, examples=None) -> pd.DataFrame:
    """The training examples' labels tables (those of `examples` where given, else up to FOLDER_MAX_EXAMPLES) as
    rows of the sample's columns: the example's id, then its keys and targets."""
    folders = example_folders(data_dir, fields, "train_dir")
    chosen = list(folders)[:FOLDER_MAX_EXAMPLES] if examples is None else list(examples)
    columns = [*fields["keys"], *fields["targets"]]
    parts = []
    for example in chosen:
        table = read_csv_as_meant(os.path.join(folders[example], fields["labels"]), usecols=columns)[columns]
        parts.append(table.assign(**{fields["id"]: example})[[fields["id"], *columns]])
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=[fields["id"], *columns])


def _row_time_column(table: pd.DataFrame, times: np.ndarray) -> str | None:
    """The numeric column of `table` holding the most of `times` (then the one whose range covers most of them)."""
    best, best_score = None, (0, 0)
    for column in table.columns:
        values = pd.to_numeric(table[column], errors="coerce")
        if values.isna().all():
            continue
        low, high = values.min(), values.max()
        score = (int(np.isin(times, values.to_numpy()).sum()), int(((times >= low) & (times <= high)).sum()))
        if score > best_score:
            best, best_score = column, score
    return best if best_score[1] >= len(times) / 2 else None


def with_inputs(rows: pd.DataFrame, folders: dict, fields: dict) -> pd.DataFrame:
    """`rows` (the sample's id and keys, in any order) with, for each input table of each row's example, the
    numbers of its row nearest in time (by the column `_row_time_column` finds for the first key), prefixed with the
    table's name; the rows keep their order."""
    key, id_col = fields["keys"][0], fields["id"]
    rows = rows.reset_index(drop=True)
    parts = []
    for example, group in rows.groupby(rows[id_col].astype(str).str.strip(), sort=False):
        times = pd.to_numeric(group[key], errors="coerce").astype("float64")
        joined = group.assign(_time=times.to_numpy(), _row=group.index).sort_values("_time")
        for name in fields["inputs"]:
            path = os.path.join(folders.get(example, ""), name)
            if not os.path.isfile(path):
                continue
            table = pd.read_csv(path).select_dtypes("number")
            column = _row_time_column(table, times.dropna().to_numpy())
            if column is None:
                continue
            numbers = table.drop(columns=[column]).iloc[:, :INPUT_COLUMNS]
            prefix = os.path.splitext(name)[0] + "_"
            table = numbers.add_prefix(prefix).assign(_time=table[column].astype("float64"))
            table = (
                table.dropna(subset=["_time"]).groupby("_time", as_index=False).first().sort_values("_time")
            )
            joined = pd.merge_asof(joined, table, on="_time", direction="nearest")
        parts.append(joined)
    merged = pd.concat(parts, ignore_index=True).sort_values("_row")
    return merged.drop(columns=["_time", "_row"]).reset_index(drop=True)


def find_folder_rows(probe) -> dict | None:
    """The fields of a labels table in each example folder (see `folder_rows_fields`) where no labelled table is
    named, else None."""
    if probe.labelled_table:
        return None
    return folder_rows_fields(probe.data_dir, probe.sample)


def read_folder_rows_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): each example folder's labels rows; the sample's rows; both with the inputs at each row's
    time."""
    train = with_inputs(
        labelled_rows(data_dir, fields), example_folders(data_dir, fields, "train_dir"), fields
    )
    test = sample[[fields["id"], *fields["keys"]]]
    return train.head(max_rows), with_inputs(test, example_folders(data_dir, fields, "test_dir"), fields)
