"""The harness split of a visits table whose test gives each key's first visit: osic-pulmonary-fibrosis-progression.

`train.csv` has a row per (patient, visit week) with the measured target (`FVC`); `test.csv` each test patient's
first visit in the same columns; the sample a row per test patient and week over a range of weeks
(`Patient_Week` = `<Patient>_<Weeks>`), with the target and a column no table holds (`Confidence`, the model's
own uncertainty). The split holds out whole patients, as `prepare.py` draws its test: a held-out patient's first
visit joins `test.csv` (only patients whose first visit falls on a listed week are drawn, as every test
patient's does), the sample lists the patient at every week it lists for a test patient, and `labels.csv` holds the target at the weeks it was measured (blank at the others, as in `prepare.py`'s answers, whose blank
weeks the metric does not score) with the sample's own value in a column no table holds. The patient's folder of
inputs (`train/<Patient>/`) is linked where the test's are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.evaluation.fresh_keys import with_fresh_keys
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.labelled_data import read_labelled_table
from swarm.evaluation.new_ids import rekey_groups
from swarm.evaluation.split import check_split, choose_split, competition_split_hint, split_rows
from swarm.evaluation.table_io import read_csv_as_text, write_public_csv
from swarm.evaluation.view_files import HeldKeys, extracted_archives, fresh_view, link_held_inputs
from swarm.evaluation.view_tables import write_sample_in_order


@dataclass(frozen=True)
class FirstVisits:
    """The visits layout: the tables, the key and step columns the sample's ids join, the targets the visits
    measure and those no table holds, and the steps the sample lists for each test key."""

    train: Path
    test: Path
    key: str
    step: str
    measured: tuple[str, ...]
    free: tuple[str, ...]
    steps: tuple[str, ...]


def first_visits(public: Path, fields: dict) -> FirstVisits:
    """The visits layout the reader found (`swarm.layouts.visits.reader.find_visits`'s fields) with its tables'
    paths."""
    measured, free, steps = tuple(fields["measured"]), tuple(fields["free"]), tuple(fields["steps"])
    train, test = public / fields["train"], public / fields["test"]
    return FirstVisits(train, test, fields["key"], fields["step"], measured, free, steps)


def split_first_visits(request: SplitRequest, layout: FirstVisits) -> SplitParts:
    """Hold out whole keys and write the view (see the module docstring); NoHoldout saying why when no held-out
    visit falls on a step the sample lists, or a held-out key's inputs cannot be found."""
    sample = request.sample
    train = read_labelled_table(layout.train, request.max_train_mb)
    test = read_csv_as_text(layout.test)
    key, step, id_col = layout.key, layout.step, request.spec.id_column
    chosen, why, whole = _held_visits(request, layout, train, test)
    held, kept = train[whole], train[~whole]
    if kept.empty:
        raise NoHoldout(f"the split {chosen!r} leaves no visits to train on once whole {key}s are held out")
    rng = np.random.default_rng(request.seed + 1)
    moved, rekeyed = rekey_groups(held, key, train, test, rng)
    moved = moved.assign(**{key: moved[key].str.strip(), step: moved[step].str.strip()})
    new_keys = list(pd.unique(moved[key]))
    ids, labels = _grid(moved, layout, new_keys, sample)
    if not (labels[layout.measured[0]] != "").any():
        raise NoHoldout(
            f"no held-out {key}'s visit falls on a {step} the sample lists ({layout.steps[0]} to "
            f"{layout.steps[-1]}), so nothing held out could be scored"
        )
    dest = fresh_view(request.root)
    file_dirs, hidden = _link_held_inputs(request, layout, train, (held, kept), new_keys, test, dest)
    _write_view_tables(request, layout, kept, (test, moved), ids, rng, dest)
    return SplitParts(
        labels=labels,
        held=pd.DataFrame({id_col: ids}),
        ids=ids,
        split=(
            chosen,
            f"{why}; a held-out {key}'s first visit joins {layout.test.name} and the sample lists it at every "
            f"{step} it lists for a test {key}",
        ),
        n_train=len(kept),
        rekeyed=rekeyed,
        classes={},
        table=f"{layout.train.name} ({len(held)} visits of {len(new_keys)} {key}s, a row per {key} and {step})",
        hidden=hidden,
        file_dirs=file_dirs,
    )


def _held_visits(
    request: SplitRequest, layout: FirstVisits, train: pd.DataFrame, test: pd.DataFrame
) -> tuple[str, str, np.ndarray]:
    """(split, why, which visits are held out): keys drawn among those whose first visit falls on a listed step,
    as every test key's does (so they can stand for test keys), each with all its visits."""
    key, step = layout.key, layout.step
    chosen, why = choose_split(
        check_split(request.split), competition_split_hint(request.competition), train, test, False, key
    )
    keys = train[key].str.strip()
    first_steps = _first_rows(train, key, step)
    eligible = keys.isin(
        set(first_steps.loc[first_steps[step].str.strip().isin(layout.steps), key].str.strip())
    )
    drawable = train[eligible.to_numpy()]
    positions, _, _ = split_rows(chosen, drawable, drawable[key].str.strip(), request.fraction, request.seed)
    return chosen, why, keys.isin(set(drawable[key].str.strip().iloc[positions])).to_numpy()


def _link_held_inputs(
    request: SplitRequest,
    layout: FirstVisits,
    train: pd.DataFrame,
    visits: tuple[pd.DataFrame, pd.DataFrame],
    new_keys: list[str],
    test: pd.DataFrame,
    dest: Path,
) -> tuple[list[str], list[str]]:
    """The view's files: a held-out key's inputs where the test's are (under its key in the view: `new_keys`),
    side files named by it hidden, the rest linked (`link_held_inputs`; `visits`: the held-out and the kept
    ones). Returns the folders involved and the side files hidden."""
    competition, spec, public = request.competition, request.spec, request.competition.public_dir
    held, kept = visits
    key = layout.key
    skip = {layout.train, layout.test, competition.sample_submission, *extracted_archives(public)}
    original = list(pd.unique(held[key].str.strip()))
    named = held.assign(
        **{spec.id_column: held[key].str.strip()}
    )  # side files are named by the original keys
    test_keys = test[key].str.strip().tolist()
    held_keys = HeldKeys(key, named, original, new_keys, test_keys, set(kept[key].str.strip()))
    return link_held_inputs(public, dest, spec, train, held_keys, skip)


def _write_view_tables(
    request: SplitRequest,
    layout: FirstVisits,
    kept: pd.DataFrame,
    tables: tuple[pd.DataFrame, pd.DataFrame],
    ids: list[str],
    rng: np.random.Generator,
    dest: Path,
) -> None:
    """The view's tables: the visits of the kept keys; each held-out key's first visit among the test's
    (`tables`: the test table and the re-keyed held-out visits), sorted by key where the test is, else shuffled;
    the sample with each held-out key's rows (`ids`, a key's steps together), keys' blocks shuffled."""
    sample, id_col, key = request.sample, request.spec.id_column, layout.key
    test, moved = tables
    write_public_csv(kept, dest / layout.train.name)
    rows = _first_rows(moved, key, layout.step).reindex(columns=test.columns, fill_value="")
    combined = pd.concat([test, rows], ignore_index=True)
    in_key_order = test[key].str.strip().tolist() == sorted(test[key].str.strip().tolist())
    combined = combined.sort_values(key) if in_key_order else combined.iloc[rng.permutation(len(combined))]
    write_public_csv(combined, dest / layout.test.name)
    listed = sample[id_col].astype(str).str.strip()
    blocks = [list(group) for _, group in listed.groupby(listed.str.rsplit("_", n=1).str[0], sort=False)]
    n_steps = len(layout.steps)
    blocks += [ids[k * n_steps : (k + 1) * n_steps] for k in range(len(pd.unique(moved[key])))]
    order = [i for b in rng.permutation(len(blocks)) for i in blocks[b]]
    write_sample_in_order(sample, ids, order, id_col, dest / request.competition.sample_submission.name)


def _first_rows(table: pd.DataFrame, key: str, step: str) -> pd.DataFrame:
    """Each key's earliest row (the smallest step as a number; ties: the first), in the order keys first come."""
    ordered = table.assign(_step=pd.to_numeric(table[step], errors="coerce")).sort_values(
        "_step", kind="stable"
    )
    return ordered.groupby(table[key].str.strip(), sort=False).head(1).drop(columns="_step")


def _grid(
    moved: pd.DataFrame, layout: FirstVisits, new_keys: list[str], sample: pd.DataFrame
) -> tuple[list[str], pd.DataFrame]:
    """The held-out keys' ids at every listed step (key by key) and their labels: a measured target where a
    visit fell on the step (the first such visit), else blank; a free target the sample's first value."""
    measured = moved.drop_duplicates([layout.key, layout.step]).set_index([layout.key, layout.step])
    ids, values = [], {t: [] for t in (*layout.measured, *layout.free)}
    for key in new_keys:
        for step in layout.steps:
            ids.append(f"{key}_{step}")
            for target in layout.measured:
                found = (key, step) in measured.index
                values[target].append(str(measured.loc[(key, step), target]).strip() if found else "")
            for target in layout.free:
                values[target].append(str(sample[target].iloc[0]))
    return ids, pd.DataFrame(values)


def split_visits(request: SplitRequest, fields: dict) -> SplitParts:
    """`split_first_visits` of the visits the reader found, every test and held-out key under a fresh one (or
    kept, saying why)."""
    layout = first_visits(request.competition.public_dir, fields)
    return with_fresh_keys(
        request, split_first_visits(request, layout), layout.key, layout.train, layout.test
    )
