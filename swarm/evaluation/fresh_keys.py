"""Fresh keys for layouts whose ids begin with an example's key (`<key>_<part>`): rsna-2022's
`<StudyInstanceUID>_<class>`, rsna-breast's `<patient_id>_<laterality>`, osic's `<Patient>_<Weeks>`.

Their own split modules hold out whole examples (keys) and write the view; a held-out example keeps its own key
where no test example has it, which the labelled table's missing keys would give away. This pass, run on the view
those modules wrote, gives every example of the test side, test and held-out alike, a fresh key in the test keys'
format and range (`swarm.evaluation.fresh_ids.draw_fresh_ids`): the view's test table, its sample's ids (the key
before the part), the example's folder of inputs (`test_images/<key>/`, copied) and side tables keyed by the key
follow it, and the harness keeps which fresh id is which row's (`view_ids.csv`). Where no test table lists the test
side (a sample of `<image>_<class>` ids over a column of lists), the keys are those its ids begin with. Keys are
kept, saying why, where `swarm.evaluation.fresh_ids` keeps ids.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition, MetricSpec
from swarm.evaluation.fresh_files import find_test_files, rename_test_files
from swarm.evaluation.fresh_ids import (
    FreshIds,
    draw_fresh_ids,
    keep_ids_reason,
    kept_ids,
    rename_in_tables,
    side_columns,
    test_folder_of,
)
from swarm.evaluation.holdout_record import SplitParts, SplitRequest, write_view_ids
from swarm.evaluation.labelled_data import read_labelled_table
from swarm.evaluation.table_io import read_csv_as_text, write_public_csv


@dataclass(frozen=True)
class KeyedView:
    """A view whose ids begin with an example's key: the competition and its metric, the harness root, the key
    column, the test table's name, the labelled table and the sample submission (as read) and the names of the
    view's own tables; where there is no test table (`test_name` None), `key_of` gives the key a sample id begins
    with."""

    competition: Competition
    spec: MetricSpec
    root: Path
    key: str
    test_name: str | None
    train: pd.DataFrame
    sample: pd.DataFrame
    own_tables: tuple[str, ...]
    key_of: Callable[[str], str] | None = None


def fresh_keys(view: KeyedView, parts: SplitParts, seed: int) -> SplitParts:
    """`parts` with every example of the view's test side under a fresh key (see the module docstring), the
    view rewritten alike; or as they are, with why the keys are kept (`SplitParts.fresh`)."""
    dest, key, id_col = view.root / "public", view.key, view.spec.id_column
    test = _test_side(view, dest)
    own_test = _test_side(view, view.competition.public_dir)
    own_keys = set(own_test[key].str.strip())
    keys = list(pd.unique(test[key].str.strip()))
    test_keys, held_keys = [k for k in keys if k in own_keys], [k for k in keys if k not in own_keys]
    own = {dest / name for name in view.own_tables}
    sides = side_columns(dest, set(keys), {key}, own)
    reason = keep_ids_reason(view.competition, view.train, own_test, key)
    if reason is None and isinstance(sides, str):
        reason = sides
    found = sides if isinstance(sides, dict) else {}
    odd = [(path, column) for path, columns in found.items() for column in columns if column != key]
    if reason is None and odd:
        reason = f"{odd[0][0].relative_to(dest)}'s {odd[0][1]} names the examples too"
    folder = test_folder_of(dest, parts.file_dirs)
    files = find_test_files(folder, set(keys)) if reason is None and folder is not None else None
    if isinstance(files, str):
        reason = files
    rng = np.random.default_rng(seed + 2)
    if reason is None:
        taken = set(view.train[key].astype(str).str.strip()) if key in view.train.columns else set()
        order = rng.permutation(len(keys))
        drawn = draw_fresh_ids(order, test_keys, taken, len(held_keys), rng)
        reason = drawn.kept or None
    if reason is not None:
        return replace(parts, fresh=kept_ids(reason))

    renamed = drawn.renamed(test_keys, held_keys)
    note = rename_test_files(files, renamed, set(test_keys), rng) if files is not None else ""
    rename_in_tables(list(found), {key}, renamed)
    _rewrite_tables(dest, view, test, renamed)
    own_ids = [str(i).strip() for i in view.sample[id_col]]
    view_ids = [rekeyed(i, renamed) for i in own_ids]
    held_ids = [rekeyed(i, renamed) for i in parts.ids]
    write_view_ids(
        view.root, {"test": view_ids, "held": held_ids}, {"test": own_ids, "held": list(parts.ids)}
    )
    held = parts.held.copy()
    for column in (c for c in (id_col, key) if c in held.columns):
        held[column] = [rekeyed(str(i).strip(), renamed) for i in held[column]]
    return replace(parts, ids=held_ids, held=held, rekeyed=True, fresh=FreshIds([], [], note=note))


def _test_side(view: KeyedView, folder: Path) -> pd.DataFrame:
    """The test side's rows in `folder` (the public dir or the view), as text: the test table, else the sample's
    ids with the keys they begin with."""
    if view.test_name is not None:
        return read_csv_as_text(folder / view.test_name)
    if view.key_of is None:
        raise ValueError("a view without a test table needs the key each sample id begins with")
    ids = read_csv_as_text(folder / view.competition.sample_submission.name)[view.spec.id_column].str.strip()
    return pd.DataFrame({view.spec.id_column: ids, view.key: [view.key_of(i) for i in ids]})


def rekeyed(identifier: str, renamed: dict[str, str]) -> str:
    """`identifier` with the key it begins with (the whole id, or the longest part before a `_`) renamed."""
    if identifier in renamed:
        return renamed[identifier]
    for cut in sorted((k for k, char in enumerate(identifier) if char == "_"), reverse=True):
        if identifier[:cut] in renamed:
            return renamed[identifier[:cut]] + identifier[cut:]
    return identifier


def _rewrite_tables(dest: Path, view: KeyedView, test: pd.DataFrame, renamed: dict[str, str]) -> None:
    """The view's test table (its key column, and its id column where it has one), where there is one, and
    sample under the fresh keys; a test table in key order, or a sample in id order, stays so."""
    id_col, key = view.spec.id_column, view.key
    if view.test_name is not None:
        in_key_order = test[key].str.strip().tolist() == sorted(test[key].str.strip())
        test = test.assign(**{key: [renamed.get(k.strip(), k) for k in test[key]]})
        if id_col in test.columns:
            test[id_col] = [rekeyed(i.strip(), renamed) for i in test[id_col]]
        if in_key_order:
            test = test.sort_values(key, kind="stable")
        write_public_csv(test, dest / view.test_name)
    sample_path = dest / view.competition.sample_submission.name
    sample = read_csv_as_text(sample_path)
    in_id_order = sample[id_col].str.strip().tolist() == sorted(sample[id_col].str.strip())
    sample[id_col] = [rekeyed(i.strip(), renamed) for i in sample[id_col]]
    if in_id_order:  # rsna-breast's, sorted as MLE-bench's
        sample = sample.sort_values(id_col, kind="stable")
    write_public_csv(sample, sample_path)


def with_fresh_keys(
    request: SplitRequest,
    parts: SplitParts,
    key: str,
    train: Path,
    test: Path | None,
    key_of: Callable[[str], str] | None = None,
) -> SplitParts:
    """`parts` of a layout whose ids begin with an example's key, every test and held-out example under a fresh
    key (`swarm.evaluation.fresh_keys`), or kept saying why; `key_of` gives a sample id's key where there is no
    test table (`test` None)."""
    competition = request.competition
    labelled = read_labelled_table(train, request.max_train_mb)
    own = tuple(p.name for p in (train, test, competition.sample_submission) if p is not None)
    test_name = None if test is None else test.name
    view = KeyedView(
        competition, request.spec, request.root, key, test_name, labelled, request.sample, own, key_of
    )
    return fresh_keys(view, parts, request.seed)
