"""A log of events (purchases) whose later events are the targets: h-and-m-personalized-fashion-recommendations
has `transactions_train.csv` (`t_dat`, `customer_id`, `article_id`, `price`, `sales_channel_id`: a row per
purchase, sorted by day) and a sample of every `customer_id` with `prediction`, 12 article ids; the answers are
each customer's purchases in the 7 days after the log ends ("the 7-day period immediately after the training
data ends", its description says), and customers who bought nothing then are not scored.

`later_events_fields(data_dir, sample)` recognises the layout; `horizon_days(description)` reads the span the
answers cover; `log_end(...)` and `read_events(...)` read the log in chunks (Kaggle's has 31 million rows);
`items_by_id(...)` joins each id's items as the sample writes them; `recommended(...)` is the offline coder's
model: each id's own items of the last spans (latest first), then the items most bought in the last span,
validated by MAP@k on the log's own last span.

Shared by the harness (swarm/layouts/later_events/split.py) and the offline coder; the solutions the offline
coder writes embed this module's source, so it uses only os, re, numpy and pandas.
"""

import os
import re

import numpy as np
import pandas as pd

EVENT_PROBE_ROWS = 1_000  # rows of the sample and of a log read to recognise the layout
EVENT_CHUNK_ROWS = 1_000_000  # rows of the log read at a time
EVENT_MATCH_SHARE = 0.9  # share of a column's first values that must look like the sample's items
EVENT_HISTORY_SPANS = 4  # spans (horizons) of the log's end the offline model reads
DEFAULT_HORIZON_DAYS = 7
_DATE = re.compile(r"^\s*\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}")
_HORIZON = re.compile(
    r"\b(\d{1,3})[- ]days?[- ](?:period|window|horizon)\b|\bnext\s+(\d{1,3})\s+days\b", re.IGNORECASE
)


def _bare(token) -> str:
    """An item as text without leading zeros (the sample's `0706016001` is the log's `706016001`)."""
    return str(token).strip().lstrip("0")


def _event_time_column(head: pd.DataFrame, skip: set):
    """The first column of `head` (text) whose values are dates for the most part, or None."""
    for column in head.columns:
        values = head[column].astype(str)
        dated = len(values) and values.str.match(_DATE).mean() >= EVENT_MATCH_SHARE
        if column not in skip and dated and event_times(values).notna().mean() >= EVENT_MATCH_SHARE:
            return column
    return None


def _item_column(head: pd.DataFrame, tokens: list, skip: set):
    """The column of `head` (text) whose values look most like the sample's items (the same kind of characters,
    lengths within theirs once leading zeros are dropped), of those with the most distinct values; or None."""
    bare = [_bare(t) for t in tokens]
    shortest, longest = min(map(len, bare)), max(map(len, bare))
    digits = all(b.isdigit() for b in bare)
    found, most = None, 0
    for column in head.columns:
        if column in skip:
            continue
        values = head[column].astype(str).map(_bare)
        kind = values.str.isdigit() if digits else values.str.isalnum()
        fits = kind & values.str.len().between(max(1, shortest), longest)
        if len(values) and fits.mean() >= EVENT_MATCH_SHARE and values.nunique() > most:
            found, most = column, values.nunique()
    return found


def later_events_fields(data_dir: str, sample: pd.DataFrame) -> dict | None:
    """{"log", "id", "item", "time", "target", "k"} where the sample (read as text) has the id and one target
    whose cells list several items (`k` at most), and a top-level CSV table with "train" in its name has the id
    column, a column of dates (`time`) and a column of items like the sample's (`item`). None otherwise."""
    if sample.shape[1] != 2:
        return None
    id_col, target = sample.columns
    cells = sample[target].dropna().astype(str).head(EVENT_PROBE_ROWS)
    tokens = [t for cell in cells for t in cell.split()]
    if not len(cells) or len(tokens) < 2 * len(cells):
        return None
    for name in sorted(os.listdir(data_dir)):
        path = os.path.join(data_dir, name)
        if not (name.lower().endswith(".csv") and "train" in name.lower() and os.path.isfile(path)):
            continue
        try:
            head = pd.read_csv(path, dtype=str, keep_default_na=False, nrows=EVENT_PROBE_ROWS)
        except (OSError, ValueError, pd.errors.ParserError, UnicodeDecodeError):
            continue
        if id_col not in head.columns or head.empty:
            continue
        time = _event_time_column(head, {id_col})
        item = _item_column(head, tokens, {id_col, time})
        if time is not None and item is not None:
            k = max(len(cell.split()) for cell in cells)
            return {"log": name, "id": id_col, "item": item, "time": time, "target": target, "k": k}
    return None


def horizon_days(description: str) -> tuple:
    """(days the answers span, the words that say so): "7-day period", "next 7 days"; (DEFAULT_HORIZON_DAYS,
    "") where the description says nothing of the kind."""
    found = _HORIZON.search(description or "")
    if found is None:
        return DEFAULT_HORIZON_DAYS, ""
    return int(found.group(1) or found.group(2)), found.group(0)


def event_times(values: pd.Series) -> pd.Series:
    """Text dates as timestamps, each distinct text parsed once (a log has few days and many rows)."""
    unique = pd.unique(values)
    parsed = pd.to_datetime(pd.Series(unique), errors="coerce", format="mixed")
    return values.map(dict(zip(unique, parsed, strict=True)))


def _chunks(path: str, columns: list):
    return pd.read_csv(path, dtype=str, keep_default_na=False, usecols=columns, chunksize=EVENT_CHUNK_ROWS)


def log_end(path: str, fields: dict):
    """The log's last time (a timestamp), or None where no row has one."""
    last = None
    for chunk in _chunks(path, [fields["time"]]):
        latest = event_times(chunk[fields["time"]]).max()
        if pd.notna(latest) and (last is None or latest > last):
            last = latest
    return last


def read_events(path: str, fields: dict, since=None, until=None) -> pd.DataFrame:
    """The log's id, item and time (text) of the rows after `since` and at or before `until` (timestamps; None:
    no bound), with their parsed time as `when`, in the log's order."""
    parts = []
    for chunk in _chunks(path, [fields["id"], fields["item"], fields["time"]]):
        when = event_times(chunk[fields["time"]])
        keep = when.notna()
        if since is not None:
            keep &= when > since
        if until is not None:
            keep &= when <= until
        parts.append(chunk[keep].assign(when=when[keep]))
    columns = [fields["id"], fields["item"], fields["time"], "when"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


def items_by_id(events: pd.DataFrame, fields: dict) -> pd.DataFrame:
    """Each id's items, space-separated in the log's order (as MLE-bench's prepare.py writes the answers), as
    the sample's two columns."""
    ids = events[fields["id"]].astype(str).str.strip()
    joined = events[fields["item"]].astype(str).str.strip().groupby(ids, sort=False).agg(" ".join)
    return pd.DataFrame({fields["id"]: joined.index, fields["target"]: joined.to_numpy()})


def map_at_k(truths: list, predictions: list, k: int) -> float:
    """Mean over rows of Kaggle's average precision at k (hits among the first k, over min(|truth|, k))."""
    scores = []
    for truth, predicted in zip(truths, predictions, strict=True):
        actual, ranked = set(truth), list(predicted)[:k]
        hits, total = 0, 0.0
        for i, item in enumerate(ranked):
            if item in actual and item not in ranked[:i]:
                hits += 1
                total += hits / (i + 1)
        scores.append(total / max(1, min(len(actual), k)))
    return float(np.mean(scores)) if scores else float("nan")


def _recommend(history: pd.DataFrame, fields: dict, ids, k: int, recent_since) -> list:
    """Per id (in order) a list of k items: its own items of `history`, latest first, then the items most
    bought after `recent_since`."""
    id_col, item = fields["id"], fields["item"]
    latest = history.sort_values("when", kind="stable").iloc[::-1]
    own = latest.drop_duplicates([id_col, item]).groupby(id_col, sort=False)[item].agg(list).to_dict()
    recent = history.loc[history["when"] > recent_since, item]
    popular = (recent if len(recent) else history[item]).value_counts().index[:k].tolist()
    rows = []
    for key in ids:
        mine = own.get(key, [])[:k]
        rows.append(mine + [p for p in popular if p not in mine][: k - len(mine)])
    return rows


def recommended(data_dir: str, fields: dict, ids: list, days: int) -> tuple:
    """(each id's k items as the sample's space-separated string, the validation's MAP@k): the model of
    `_recommend` over the log's last EVENT_HISTORY_SPANS spans of `days`, validated by predicting the log's own
    last span from the spans before it."""
    path = os.path.join(data_dir, fields["log"])
    end, k = log_end(path, fields), int(fields["k"])
    ids = [str(i).strip() for i in ids]
    if end is None:
        return [""] * len(ids), float("nan")
    span = pd.Timedelta(days=days)
    events = read_events(path, fields, since=end - span * (EVENT_HISTORY_SPANS + 1))
    events[fields["id"]] = events[fields["id"]].astype(str).str.strip()
    cut = end - span
    later = items_by_id(events[events["when"] > cut], fields)
    earlier = events[(events["when"] <= cut) & (events["when"] > cut - span * EVENT_HISTORY_SPANS)]
    score = float("nan")
    if len(later) and len(earlier):
        guessed = _recommend(earlier, fields, later[fields["id"]], k, cut - span)
        score = map_at_k([t.split() for t in later[fields["target"]]], guessed, k)
    history = events[events["when"] > end - span * EVENT_HISTORY_SPANS]
    return [" ".join(row) for row in _recommend(history, fields, ids, k, cut)], score


def find_later_events(probe) -> dict | None:
    """The fields of a log whose later events are the targets (see `later_events_fields`), with the span they
    cover as the description gives it (`days`), where no labelled table is named; else None."""
    if probe.labelled_table:
        return None
    found = later_events_fields(probe.data_dir, probe.sample)
    return {**found, "days": horizon_days(probe.description)[0]} if found else None


def read_later_events_examples(data_dir: str, fields: dict, sample: pd.DataFrame, max_rows=None) -> tuple:
    """(train, test): the sample's rows stand for the examples; the targets are recommended from the log."""
    return sample.copy(), sample[[sample.columns[0]]].copy()
