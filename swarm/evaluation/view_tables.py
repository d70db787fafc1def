"""The test table and sample submission of the sandbox's view, with the held-out rows among the test rows.

The held-out rows join the test table under their new ids, with the test table's columns only (no target, no
field known only after the fact), and the sample submission lists their ids with filler targets; both are
shuffled in the same order, so the solution predicts held-out and test rows alike without telling them apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.evaluation.table_io import write_public_csv, write_public_table
from swarm.formats.records import write_records

Item = TypeVar("Item")


def write_test_csv(
    test: pd.DataFrame, appended: pd.DataFrame, order: np.ndarray, path: Path, like: Path | None = None
) -> None:
    """The test table with the held-out rows (`appended`, under their new ids) added in its columns only, in
    `order` where it has a row per sample row; in the form of `like`, the public test table (parquet or CSV)."""
    rows = appended[[c for c in test.columns if c in appended.columns]]
    combined = pd.concat([test, rows], ignore_index=True)[list(test.columns)]
    if len(combined) == len(order):
        combined = combined.iloc[order]
    write_public_table(combined, path, like or path)


def write_test_records(
    test: list, held: list, ids: list[str], id_col: str, order: np.ndarray, test_path: Path, dest: Path
) -> None:
    """The test records with the held-out ones among them, in the same order as the sample's rows: each held-out
    record under its new id and with the test records' fields only (no target, no field known only after the
    fact)."""
    keys = list(dict.fromkeys(k for record in test for k in record))
    rows = []
    for record, new in zip(held, ids, strict=True):
        renamed = {
            **record,
            id_col: int(new) if isinstance(record.get(id_col), int) and new.isdigit() else new,
        }
        rows.append({k: renamed.get(k) for k in keys})
    combined = test + rows
    if len(combined) == len(order):
        combined = [combined[i] for i in order]
    write_records(combined, str(dest / test_path.name), like=str(test_path))
    (dest / test_path.name).chmod(0o644)


def renamed_records(records: list, id_col: str, renamed: dict[str, str]) -> list:
    """The test records under their fresh ids (a number stays a number where the fresh id is one)."""
    out = []
    for record in records:
        old = record.get(id_col)
        new = renamed.get(str(old).strip()) if old is not None else None
        if new is not None:
            record = {**record, id_col: int(new) if isinstance(old, int) and new.isdigit() else new}
        out.append(record)
    return out


def write_sample(
    sample: pd.DataFrame,
    held: pd.DataFrame,
    ids: list[str],
    spec: MetricSpec,
    order: np.ndarray,
    path: Path,
    fillers: dict[str, list[str]] | None = None,
) -> None:
    """The sample submission with the held-out rows' ids added (`sample_rows`), in `order`; a column the sample
    copies from the test table (`passthrough_columns`) is copied from the held-out rows alike, and a column in
    `fillers` takes the held-out rows' values given there (their own items: swarm/evaluation/listed_items.py)."""
    extra = sample_rows(sample, spec.id_column, ids)
    for column, values in (fillers or {}).items():
        extra[column] = values
    for column in spec.passthrough_columns:  # copied from the held-out rows, as the sample copies test's
        if column in held.columns:
            extra[column] = held[column].to_numpy()
    rows = pd.concat([sample, extra], ignore_index=True).iloc[order]
    numbers = [str(k) for k in range(len(sample))]
    for column in (c for c in spec.passthrough_columns if c not in held.columns):
        if sample[column].str.strip().tolist() == numbers:  # the index to_csv wrote: the rows numbered again
            rows[column] = [str(k) for k in range(len(rows))]
            rows = rows.rename(columns={column: "" if column.startswith("Unnamed: ") else column})
    write_public_csv(rows, path)


def sample_rows(sample: pd.DataFrame, id_col: str, ids: list[str]) -> pd.DataFrame:
    """The sample submission's rows for `ids`: each with the first sample row's values as filler targets ("0"
    where the sample has no rows)."""
    filler = {c: sample[c].iloc[0] if len(sample) else "0" for c in sample.columns if c != id_col}
    return pd.DataFrame({id_col: ids, **{c: [v] * len(ids) for c, v in filler.items()}})


def write_sample_in_order(
    sample: pd.DataFrame, ids: list[str], order: list[str], id_column: str, path: Path
) -> None:
    """The sample submission with the held-out rows' ids (filler targets, `sample_rows`), its rows in `order`
    (the view's test table's ids). Test rows the sample does not list stay out of it, as in the competition's own
    sample (a streamed split had crashed on them with a KeyError)."""
    full = pd.concat([sample, sample_rows(sample, id_column, ids)], ignore_index=True)
    position = pd.Series(np.arange(len(full)), index=full[id_column].astype(str).str.strip().to_numpy())
    listed = [i for i in order if i in position.index]
    write_public_csv(full.iloc[position.loc[listed].to_numpy()], path)


def interleaved(items: Iterable[Item], inserted: Iterable[Item], slots: np.ndarray) -> Iterator[Item]:
    """`items` streamed with the `inserted` ones, taken in turn, each placed before the item numbered by its slot
    (`slots` sorted); those whose slot lies past the last item follow it. How the streamed splits (JSON lines, BSON)
    place held-out records among the test's."""
    extra = iter(inserted)
    placed = 0
    for number, item in enumerate(items):
        while placed < len(slots) and slots[placed] <= number:
            yield next(extra)
            placed += 1
        yield item
    for _ in range(placed, len(slots)):
        yield next(extra)


def block_order(groups: list[str], rng: np.random.Generator) -> np.ndarray:
    """Row positions with each group's rows together (in their own order), the groups in a seeded order: a scan's
    rows (uw-madison), a trip's (smartphone), a scene's samples (3d-object) stay together in the view's tables, as
    the test's are."""
    frame = pd.DataFrame({"group": groups, "position": np.arange(len(groups))})
    names = pd.unique(frame["group"])
    rank = dict(zip(rng.permutation(names), range(len(names)), strict=True))
    ranked = frame.assign(rank=frame["group"].map(rank)).sort_values(["rank", "position"], kind="stable")
    return ranked["position"].to_numpy()
