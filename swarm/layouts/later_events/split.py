"""The harness split of a log of events whose later events are the targets (`swarm.layouts.later_events.reader`):
h-and-m-personalized-fashion-recommendations.

There is no labelled table and no held-out row can be a new id: the sample asks about every customer, and the
answers are the purchases of the span after the log ends. So the split holds out the log's own last span, as
MLE-bench's `prepare.py` made the test: the sandbox's log ends a span earlier (the rows after the cut are left
out), every other file is linked as it is, the sample is the competition's own, and `labels.csv` holds each id's
items of the held-out span (the ids that have some, as grade.py scores only those). The held-out ids are test
ids: a submission's every row is a test row, and the rows of the held-out ids are scored as well (`Holdout.shifted`).
The span is the one the description names ("the 7-day period"), else DEFAULT_HORIZON_DAYS.
"""

from __future__ import annotations

import pandas as pd

from swarm.evaluation.fresh_ids import kept_ids
from swarm.evaluation.holdout_record import NoHoldout, SplitParts, SplitRequest
from swarm.evaluation.view_files import extracted_archives, fresh_view, mirror
from swarm.layouts.later_events.reader import (
    EVENT_CHUNK_ROWS,
    event_times,
    horizon_days,
    items_by_id,
    log_end,
)


def split_later_events(request: SplitRequest, fields: dict) -> SplitParts:
    """Hold out the log's last span and write the view (see the module docstring); NoHoldout saying why where
    the log has no dates, or the span leaves no rows to train on or none of the sample's ids to score."""
    competition, spec, root, sample = request.competition, request.spec, request.root, request.sample
    public, log_name = competition.public_dir, fields["log"]
    log = public / log_name
    days, words = horizon_days(competition.description)
    end = log_end(str(log), fields)
    if end is None:
        raise NoHoldout(
            f"{log_name}'s {fields['time']} column holds no dates, so its last span cannot be held out"
        )
    cut = end - pd.Timedelta(days=days)

    # The view's log: its rows up to the cut, as they are; the rows after it held out.
    dest = fresh_view(root)
    held_parts, kept = [], 0
    with open(dest / log_name, "w", encoding="utf-8", newline="") as out:
        for number, chunk in enumerate(
            pd.read_csv(log, dtype=str, keep_default_na=False, chunksize=EVENT_CHUNK_ROWS)
        ):
            later = (event_times(chunk[fields["time"]]) > cut).to_numpy()
            held_parts.append(chunk.loc[later, [fields["id"], fields["item"]]])
            chunk[~later].to_csv(out, header=number == 0, index=False)
            kept += int((~later).sum())
    held = pd.concat(held_parts, ignore_index=True)
    if not kept or held.empty:
        raise NoHoldout(
            f"holding out {log_name}'s last {days} days (after {cut.date()}) leaves no rows to hold out or none "
            "to train on"
        )
    labels = items_by_id(held, fields)
    asked = set(sample[spec.id_column].astype(str).str.strip())
    labels = labels[labels[fields["id"]].isin(asked)].reset_index(drop=True)
    if labels.empty:
        raise NoHoldout(f"no {spec.id_column} of {log_name}'s last {days} days is one the sample asks about")
    mirror(public, dest, {log, *extracted_archives(public)})
    said = f" ({words!r} in description.md)" if words else " (description.md names no span: the default)"
    ids = labels[spec.id_column].tolist()
    return SplitParts(
        labels=labels[[fields["target"]]],
        held=labels,
        ids=ids,
        split=(
            f"time:{fields['time']}",
            f"the answers are the {fields['item']}s of the {days} days after {log_name} ends{said}, so its last "
            f"{days} days (after {cut.date()}) are held out: {len(held)} rows",
        ),
        n_train=kept,
        classes={fields["target"]: None},
        table=f"{log_name} ({kept + len(held)} rows to {end.date()}, a row per {fields['item']})",
        hidden=[],
        file_dirs=[],
        shifted=True,
        fresh=kept_ids(
            f"the held-out rows are the test's own {spec.id_column}s a span earlier (every row of a submission is a "
            "test row)"
        ),
    )
