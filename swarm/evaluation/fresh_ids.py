"""Fresh ids for every row of the sandbox's test side, so that held-out rows look like test rows.

A held-out row that kept its training id (or got one after the largest) would give itself away: titanic's
train.csv has gaps exactly where its held-out rows were. So where a split can, every row the solution predicts,
test row and held-out row alike, gets a fresh id of the test ids' own format and range, drawn at random and
handed out in the view's (shuffled) row order; files named by ids are renamed alike (`fresh_files`: in the test
folder and any other test folder named by the ids, which gets the held-out rows' files from its training twin),
CSV side tables and JSON records keyed by them rewritten, and the test side's TFRecords written again with the
fresh ids inside (`tfrecord_split.rename_ids_in_tfrecords`); the harness keeps which fresh id is which row's
(`<run>/harness/view_ids.csv`) and maps the test rows back for delivery.

Ids are kept where they carry meaning, which a solution may use as an input: competition.json says
`"keep_ids": true`, the ids are dates, or they follow the order of a date column (rows numbered in time); and where
they cannot all be renamed: a side table is parquet or names them in another column, their format is not one
drawn here. Then the held-out rows keep theirs where they do not clash (`swarm.evaluation.new_ids`), and the run
says so before its first step.
"""

from __future__ import annotations

import math
import os
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition
from swarm.evaluation.fresh_files import (
    bring_held_files,
    find_test_files,
    other_test_folders,
    rename_test_files,
)
from swarm.evaluation.holdout_record import write_view_ids
from swarm.evaluation.new_ids import hex_after_prefix, random_hex, random_shaped, same_shape
from swarm.evaluation.side_files import on_test_side
from swarm.evaluation.split import competition_hint, date_column
from swarm.evaluation.table_io import read_csv_as_text, table_header, write_public_csv
from swarm.evaluation.tfrecord_split import rename_ids_in_tfrecords
from swarm.evaluation.view_files import HeldKeys
from swarm.formats.records import is_records_file, read_records, records_frame, write_records
from swarm.formats.tfrecords import TFRECORD_SUFFIXES

_NUMBERED = re.compile(r"^(.*?)(\d+)(\D*)$")
_SIGNED = re.compile(r"^-?[1-9]\d*$|^0$")
_HEX_ONLY = re.compile(r"^[0-9a-f]+$")
INT64_END = 2**63 - 1  # numbers are drawn below this (64-bit ids)
ORDERED_WITH_DATE = 0.9  # rank correlation of ids with a date column above which ids are numbered in time
MAX_RANGE = 5_000_000  # numbers listed one by one to draw from; a wider range is sampled instead
TRUE_WORDS = ("true", "1", "yes")
Taken = Callable[[np.ndarray], np.ndarray]  # which of some candidate numbers are taken (a mask)
MIN_TOKEN_HEX = 16  # hex ids at least this wide are tokens or hashes: any hex of that width is one
MAX_LETTER_NAME = 3  # letters-only test ids up to this long are names drawn afresh (longer: words)
HEX_ROOM = 4  # hex or shaped ids are drawn only where there are this many times as many as needed
TABLE_SUFFIXES = (".csv", ".parquet", ".json", ".jsonl")
MIN_NAMED = 2  # rows of the test side a side table's column must name to be keyed by them
MAX_SIDE_BYTES = (
    256 * 2**20
)  # side tables read whole to find the ids in them; a larger one is judged by its header


@dataclass(frozen=True)
class FreshIds:
    """The view's ids: `test` (each test row's fresh id, in the sample's order) and `held` (each held-out row's),
    or, where ids are kept, `kept` saying why."""

    test: list[str]
    held: list[str]
    kept: str = ""
    note: str = ""  # a caveat where ids are fresh (test files linked, not copied)
    files_renamed: bool = True  # whether the test side's files were copied under the fresh ids (False: the
    # files are not named by the ids, 3d-object's lidar sweeps: the harness copies the test folders anew)

    @property
    def fresh(self) -> bool:
        return not self.kept

    def renamed(self, test_ids: list[str], held_ids: list[str]) -> dict[str, str]:
        """Each row's id as the view was built with it -> its fresh id."""
        return dict(zip([*test_ids, *held_ids], [*self.test, *self.held], strict=True))


def kept_ids(reason: str) -> FreshIds:
    return FreshIds([], [], reason)


def keep_ids_reason(
    competition: Competition, train: pd.DataFrame, test: pd.DataFrame | None, id_col: str
) -> str | None:
    """Why the ids carry meaning and are kept, or None: competition.json's `keep_ids`, ids that are dates, ids
    that rise (or fall) with a date column of the labelled table."""
    hint = competition_hint(competition, "keep_ids")
    if hint is not None and hint.strip().lower() in TRUE_WORDS:
        return 'competition.json says "keep_ids": true'
    if id_col not in train.columns:
        return None
    ids = train[id_col].astype(str).str.strip()
    if ids.empty:
        return None
    if pd.to_numeric(ids.head(200), errors="coerce").isna().all():
        dates = pd.to_datetime(ids.head(200), errors="coerce", format="mixed")
        if dates.notna().mean() >= 0.95:
            return f"the {id_col}s are dates"
    found = date_column(train.drop(columns=[id_col]), None)
    numbers = None if found is None else _number_ranks(ids.tolist())
    if found is None or numbers is None:
        return None
    dates = pd.to_datetime(train[found[0]], errors="coerce", format="mixed")
    both = pd.DataFrame({"id": numbers, "date": dates}).dropna()
    if len(both) < 3 or both["date"].nunique() < 2:
        return None
    correlation = both["id"].corr(both["date"].rank(), method="spearman")
    if abs(correlation) < ORDERED_WITH_DATE:
        return None
    return f"the {id_col}s follow the order of {found[0]} (rank correlation {correlation:.2f}): rows numbered in time"


def draw_fresh_ids(
    order: np.ndarray, test_ids: list[str], taken: set[str], n_held: int, rng: np.random.Generator
) -> FreshIds:
    """Fresh ids for the test rows and the held-out rows (`order`: the view's row positions, test rows first,
    as the view's tables list them): drawn in the test ids' format and range, none of them in `taken` (the
    labelled ids), sorted, and handed out in the view's row order; kept where the test ids' format is not one
    they can be drawn in."""
    count = len(test_ids) + n_held
    drawn = _draw(count, test_ids, taken, rng)
    if drawn is None:
        example = test_ids[0] if test_ids else ""
        return kept_ids(f"the test ids' format ({example!r}) is not one the harness draws fresh ids in")
    return _handed_out(order, drawn, len(test_ids))


def draw_fresh_numbers(
    order: np.ndarray, test_ids: list[int], taken: np.ndarray, n_held: int, rng: np.random.Generator
) -> FreshIds:
    """`draw_fresh_ids` for ids that are integers written without padding (BSON `_id`s: cdiscount's 7 million
    products), the taken ids an int64 array: the ids `draw_fresh_ids` draws from the same ids as text (a signed
    number's range, or digits of one length kept within it), without a walk over millions of taken ids as text."""
    if not test_ids:
        return kept_ids("there are no test ids to draw fresh ones like")
    count = len(test_ids) + n_held
    lengths = {len(str(n)) for n in test_ids}
    length = lengths.pop() if len(lengths) == 1 and min(test_ids) >= 0 else 0
    drawn = draw_numbers(count, test_ids, taken_among(taken), rng, 10**length if length > 1 else None)
    return _handed_out(order, [str(n) for n in drawn.tolist()], len(test_ids))


def _handed_out(order: np.ndarray, drawn: list[str], n_test: int) -> FreshIds:
    """The drawn ids (sorted) handed out in the view's row order (`order`: each row's position, test rows first)."""
    at = [""] * len(drawn)
    for position, fresh in zip(order, drawn, strict=True):
        at[int(position)] = fresh
    return FreshIds(at[:n_test], at[n_test:])


def _draw(count: int, test_ids: list[str], taken: set[str], rng: np.random.Generator) -> list[str] | None:
    """`count` distinct ids like the test ids, in their order (numbers ascending), none in `taken`; None where
    their format is not numbered, hex after a prefix or of one shape (UUIDs)."""
    if not test_ids:
        return None
    if all(_SIGNED.match(i) for i in test_ids) and any(i.startswith("-") for i in test_ids):
        numbers = [int(i) for i in test_ids]  # tensorflow2-qa's example ids: signed 64-bit numbers
        signed = taken_among({int(t) for t in taken if _SIGNED.match(t)})
        return [str(n) for n in draw_numbers(count, numbers, signed, rng).tolist()]
    numbered = _numbered_format(test_ids)
    if numbered is not None:
        prefix, suffix, width = numbered
        numbers = [int(_NUMBERED.match(i).group(2)) for i in test_ids]  # type: ignore[union-attr]
        framed = [m for m in map(_NUMBERED.match, taken) if m and _same_frame(m, numbered)]
        taken_numbers = {int(m.group(2)) for m in framed}
        lengths = {len(_NUMBERED.match(i).group(2)) for i in test_ids}  # type: ignore[union-attr]
        # Numbers of one length (siim-isic's `ISIC_0076100`: 7 digits, zero-padded among the training ids) stay
        # within it where there is room, padded as those are.
        length = lengths.pop() if len(lengths) == 1 else None
        ceiling = 10**length if length is not None and length > 1 else None
        if ceiling is not None and any(len(m.group(2)) == length and m.group(2)[0] == "0" for m in framed):
            width = length
        drawn = draw_numbers(count, numbers, taken_among(taken_numbers), rng, ceiling)
        return [f"{prefix}{n:0{width}d}{suffix}" for n in drawn.tolist()]
    prefixed = hex_after_prefix(test_ids)
    if prefixed is not None and HEX_ROOM * count <= 16 ** prefixed[1]:  # room to draw them at random
        prefix, width = prefixed
        return sorted(random_hex(count, width, lambda text: f"{prefix}{text}", set(taken), rng))
    shape = same_shape(test_ids, min_variable=1)  # nfl's `58080_002723`: digits in their places
    if shape is not None:
        room = math.prod(len(p) for p in shape)
        # taken ids count against the room only where they are of the shape: counted one by one only where all
        # of them would not leave room (a large table's ids are many)
        if HEX_ROOM * (count + len(taken)) <= room or HEX_ROOM * (count + _fitting(taken, shape)) <= room:
            return sorted(random_shaped(count, shape, set(taken), rng))
    letters = _letter_names(test_ids)  # vesuvius' fragment `a` (its training fragments are `1`, `2`)
    if letters is not None and HEX_ROOM * (count + len(taken)) <= len(letters[0]) ** len(letters):
        return sorted(random_shaped(count, letters, set(taken), rng))
    widths = {len(i) for i in test_ids}
    if len(widths) == 1 and widths.pop() >= MIN_TOKEN_HEX and all(_HEX_ONLY.match(i) for i in test_ids):
        # tokens (3d-object's sample tokens) whose test ones happen to share digits: drawn over their whole width
        return sorted(random_hex(count, len(test_ids[0]), lambda text: text, set(taken), rng))
    return None


def _fitting(taken: set[str], shape: list[str]) -> int:
    """How many of `taken` are of `shape` (the others, 3d-object's tokens of other tables, take none of its room)."""
    return sum(len(t) == len(shape) and all(c in p for c, p in zip(t, shape, strict=True)) for t in taken)


def _letter_names(test_ids: list[str]) -> list[str] | None:
    """Where every test id is a short name of letters of one case and one length (vesuvius' one test fragment,
    `a`), the letters each position may take; None otherwise. A lone id shows no shape (`same_shape`), so this
    format is read from the letters alone."""
    lengths = {len(i) for i in test_ids}
    if len(lengths) != 1 or not 1 <= (length := lengths.pop()) <= MAX_LETTER_NAME:
        return None
    for alphabet in (string.ascii_lowercase, string.ascii_uppercase):
        if all(set(i) <= set(alphabet) for i in test_ids):
            return [alphabet] * length
    return None


def _numbered_format(test_ids: list[str]) -> tuple[str, str, int] | None:
    """(prefix, suffix, zero-padded width or 0) where every test id is one prefix, a number and one suffix."""
    parts = [_NUMBERED.match(i) for i in test_ids]
    if not all(parts) or len({(p.group(1), p.group(3)) for p in parts}) != 1:  # type: ignore[union-attr]
        return None
    digits = [p.group(2) for p in parts]  # type: ignore[union-attr]
    padded = len({len(d) for d in digits}) == 1 and any(d.startswith("0") and len(d) > 1 for d in digits)
    return parts[0].group(1), parts[0].group(3), len(digits[0]) if padded else 0  # type: ignore[union-attr]


def _same_frame(match: re.Match, numbered: tuple[str, str, int]) -> bool:
    return match.group(1) == numbered[0] and match.group(3) == numbered[1]


def _number_ranks(ids: list[str]) -> pd.Series | None:
    """The ranks of the ids' numbers where they are numbered in one format, else None: ranks, compared exactly,
    since the numbers may pass 64 bits (ranzcr's StudyInstanceUIDs end in 38 digits) and only their order counts."""
    if not ids or _numbered_format(ids) is None:
        return None
    numbers = [int(_NUMBERED.match(i).group(2)) for i in ids]  # type: ignore[union-attr]
    ranks = {number: rank for rank, number in enumerate(sorted(set(numbers)))}
    return pd.Series([ranks[n] for n in numbers], dtype="int64")


def taken_among(values: set[int] | np.ndarray) -> Taken:
    """The membership test `draw_numbers` takes, over `values` (a set of numbers, any size, or an int64 array where
    they are millions); candidates beyond 64 bits come as an object array of Python ints."""
    if isinstance(values, np.ndarray):
        listed, wide = values, set()
    else:
        listed = np.fromiter((v for v in values if _in_int64(v, v + 1)), np.int64)
        wide = {v for v in values if not _in_int64(v, v + 1)}

    def taken(candidates: np.ndarray) -> np.ndarray:
        if candidates.dtype != object:
            return np.isin(candidates, listed)
        small = set(listed.tolist()) if len(listed) < MAX_RANGE else None
        return np.array(
            [c in wide or (small is not None and c in small) for c in candidates.tolist()], dtype=bool
        )

    return taken


def _in_int64(low: int, end: int) -> bool:
    """Whether the numbers from `low` below `end` are all 64-bit integers."""
    return low >= -(2**63) and end <= 2**63


def _numbers_between(low: int, end: int) -> np.ndarray:
    """The numbers from `low` below `end`: int64 where they fit, else Python ints (UIDs' 38-digit tails)."""
    return np.arange(low, end, dtype=np.int64 if _in_int64(low, end) else object)


def _integers(rng: np.random.Generator, low: int, end: int, size: int) -> np.ndarray:
    """`size` numbers drawn at random from `low` below `end`, however wide the range: int64 where it fits."""
    if _in_int64(low, end):
        return rng.integers(low, end, size=size)
    span = end - low
    width = (
        span.bit_length() + 71
    ) // 8  # 64 bits beyond the span's, so that the modulo's bias is negligible
    return np.array(
        [low + int.from_bytes(rng.bytes(width), "little") % span for _ in range(size)], dtype=object
    )


def draw_numbers(
    count: int,
    numbers: list[int] | np.ndarray,
    taken: Taken,
    rng: np.random.Generator,
    ceiling: int | None = None,
    limit: int | None = INT64_END,
) -> np.ndarray:
    """`count` distinct numbers from the test numbers' smallest on, as dense as the test numbers lie where the
    range has room (titanic's 892-1309 for 418 test rows: 892-1505 for them and 196 held-out rows), below
    `ceiling` where that leaves room and always below `limit` (an id type's end; none binds numbers already past
    it, which are text: ranzcr's UIDs end in 38 digits), none of them `taken` (which of some candidates are:
    `taken_among`, or a test that streams a table's ids); ascending (int64, or Python ints beyond 64 bits).
    ValueError where there is no room below `limit`."""
    numbers = np.asarray(numbers)
    low, high = int(numbers.min()), int(numbers.max())
    limit = None if limit is not None and high >= limit else limit
    density = len(np.unique(numbers)) / (high - low + 1)
    end = _least(max(high + 1, low + math.ceil(count / density)), ceiling, limit)
    while True:
        if end - low <= MAX_RANGE:
            candidates = _numbers_between(low, end)
            candidates = candidates[~taken(candidates)]
            if len(candidates) >= count:
                return np.sort(rng.choice(candidates, size=count, replace=False))
        else:  # a wide range of sparse numbers: sampled, as room allows
            drawn = np.empty(0, dtype=np.int64 if _in_int64(low, end) else object)
            for _ in range(50):
                draws = _integers(rng, low, end, 2 * count)
                drawn = np.union1d(drawn, draws[~taken(draws)])
                if len(drawn) >= count:
                    return np.sort(rng.choice(drawn, size=count, replace=False))
        if limit is not None and end >= limit:
            raise ValueError(f"no room for {count} fresh numbers from {low} below {limit}")
        if ceiling is not None and end >= ceiling:  # no room below it: the numbers grow longer
            ceiling = None
        end = _least(low + 2 * (end - low), ceiling, limit)


def _least(end: int, *bounds: int | None) -> int:
    """`end`, or the least of the bounds given below it."""
    return min([end, *(b for b in bounds if b is not None)])


def side_columns(
    dest: Path, ids: set[str], id_names: set[str], own: set[Path], limit: int = 200
) -> dict[Path, list[str]] | str:
    """The view's side tables (CSV, JSON records; besides `own`, among the first `limit`) and their columns
    whose values name at least MIN_NAMED of `ids` (the rows of the test side): what fresh ids must follow; or why
    they cannot (a parquet or over-large table with a column named like the ids)."""
    found: dict[Path, list[str]] = {}
    tables = (p for p in sorted(dest.rglob("*")) if p.suffix.lower() in TABLE_SUFFIXES and p.is_file())
    for seen, path in enumerate(tables):
        if seen >= limit:
            break
        if path in own:
            continue
        name = path.relative_to(dest)
        if path.suffix.lower() == ".parquet" or path.stat().st_size > MAX_SIDE_BYTES:
            if set(table_header(path)) & id_names:
                return f"{name} names rows by {sorted(set(table_header(path)) & id_names)[0]} too"
            continue
        try:
            frame = (
                records_frame(read_records(str(path)))
                if is_records_file(str(path))
                else read_csv_as_text(path)
            )
        except (ValueError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError):
            continue  # no table: nothing in it names a row
        columns = [c for c in frame.columns if len(ids & set(frame[c].astype(str).str.strip())) >= MIN_NAMED]
        if columns:
            found[path] = columns
    return found


def rename_in_tables(paths: list[Path], id_names: set[str], renamed: dict[str, str]) -> None:
    """Rewrite each side table (CSV, or JSON records: contrails' `train_metadata.json`) with its id columns' test
    and held-out ids under their fresh ids (other values, training ids, stay); the view's copy is replaced, never
    the public file it linked."""
    for path in paths:
        if is_records_file(str(path)):
            records = [
                {
                    k: renamed.get(str(v).strip(), v) if k in id_names and isinstance(v, str) else v
                    for k, v in r.items()
                }
                for r in read_records(str(path))
            ]
            written = path.with_name(path.name + ".fresh")
            write_records(records, str(written), like=str(path))
            written.chmod(0o644)
            os.replace(written, path)  # a new file where a link to the public one was
            continue
        frame = read_csv_as_text(path)
        for column in id_names & set(frame.columns):
            values = frame[column].str.strip()
            frame[column] = values.map(renamed).fillna(frame[column])
        write_public_csv(frame, path)


@dataclass(frozen=True)
class ViewRows:
    """What `fresh_view_ids` needs of a split whose view is on disk but for its test table and sample: the
    competition, its labelled and test tables (as read), the id column and the tables' names for it, the test
    ids (the sample's order), the held-out rows' ids as built and their own, the side files the split hid, the view's root,
    its test folder (where ids name the test inputs) and own tables, and the view's row order."""

    competition: Competition
    train: pd.DataFrame
    test: pd.DataFrame | None
    id_col: str
    id_names: set[str]
    test_ids: list[str]
    held_ids: list[str]
    own_held_ids: list[str]
    hidden: list[str]
    dest: Path
    test_folder: Path | None
    own_tables: set[Path]
    order: np.ndarray


def fresh_view_ids(rows: ViewRows, seed: int) -> FreshIds:
    """The view's ids: fresh for every test and held-out row, their files in the test folder renamed alike
    (`swarm.evaluation.fresh_files`), or kept, saying why (the ids carry meaning, side files are keyed by them,
    their format or their files' filing is not one the harness renames)."""
    rng = np.random.default_rng(seed + 2)
    reason = keep_ids_reason(rows.competition, rows.train, rows.test, rows.id_col)
    sides = side_columns(rows.dest, {*rows.test_ids, *rows.held_ids}, rows.id_names, rows.own_tables)
    if reason is None and isinstance(sides, str):
        reason = sides
    found = sides if isinstance(sides, dict) else {}
    odd = [(p, c) for p, cols in found.items() for c in cols if c not in rows.id_names]
    if reason is None and odd:  # a column by another name holding ids (a token, a count): not renamed
        reason = f"{odd[0][0].relative_to(rows.dest)}'s {odd[0][1]} names the rows too"
    if reason is not None:
        return kept_ids(reason)
    taken = (
        set(rows.train[rows.id_col].astype(str).str.strip()) if rows.id_col in rows.train.columns else set()
    )
    fresh = draw_fresh_ids(rows.order, rows.test_ids, taken, len(rows.held_ids), rng)
    if not fresh.fresh:
        return fresh
    renamed, note = fresh.renamed(rows.test_ids, rows.held_ids), ""
    files = None
    if rows.test_folder is not None:
        files = find_test_files(rows.test_folder, {*rows.test_ids, *rows.held_ids})
        if isinstance(files, str):
            return kept_ids(files)
    # Other test folders named by the ids (siim-isic's DICOMs beside its JPEGs) get the held-out rows' files too.
    others = other_test_folders(rows.dest, rows.test_folder, set(rows.test_ids))
    held_own = dict(zip(rows.own_held_ids, rows.held_ids, strict=True))
    for folder in others:
        problem = bring_held_files(folder, rows.dest, rows.competition.public_dir, held_own)
        if problem is not None:
            return kept_ids(problem)
    other_files = [find_test_files(folder, {*rows.test_ids, *rows.held_ids}) for folder in others]
    unnamed = next((found for found in other_files if isinstance(found, str)), None)
    if unnamed is not None:
        return kept_ids(unnamed)
    # The test side's TFRecords (siim-isic's, cassava's: the split moved held-out records into them) follow too;
    # training TFRecords hold no test-side id (the split moved the held-out records out, or hid the files).
    test_records = [
        path
        for path in sorted(rows.dest.rglob("*"))
        if path.name.lower().endswith(TFRECORD_SUFFIXES) and path.is_file() and on_test_side(rows.dest, path)
    ]
    problem = rename_ids_in_tfrecords(test_records, renamed) if test_records else None
    if problem is not None:
        return kept_ids(problem)
    if files is not None:
        note = rename_test_files(files, renamed, set(rows.test_ids), rng)
    for other in other_files:
        also = rename_test_files(other, renamed, set(rows.test_ids), rng)  # type: ignore[arg-type]
        note = "; ".join(n for n in (note, also) if n)
    rename_in_tables(list(found), rows.id_names, renamed)  # side tables keyed by the ids follow them
    return FreshIds(fresh.test, fresh.held, note=note)


def tfrecords_in_view(dest: Path, hidden: list[str]) -> list[str]:
    """The TFRecord files of the view and those the split hid (relative names), which may hold ids inside their
    records (a composite-id split does not rewrite them)."""
    names = [*hidden, *(str(p.relative_to(dest)) for p in dest.rglob("*"))]
    return [name for name in names if name.lower().endswith(TFRECORD_SUFFIXES)]


def fresh_groups(
    test: pd.DataFrame, held: pd.DataFrame, column: str, taken: set[str], seed: int
) -> tuple[dict[str, str], dict[str, str]] | str:
    """Fresh values of `column` (the first key column of composite ids: a sentence of text normalization) for
    every test group and held-out group, in the test values' format and range and none in `taken`: (test value ->
    fresh, held-out value -> fresh), or why they are kept."""
    test_values = list(pd.unique(test[column].astype(str).str.strip()))
    held_values = list(pd.unique(held[column].astype(str).str.strip()))
    rng = np.random.default_rng(seed + 2)
    order = rng.permutation(len(test_values) + len(held_values))
    fresh = draw_fresh_ids(order, test_values, taken, len(held_values), rng)
    if not fresh.fresh:
        return fresh.kept
    return dict(zip(test_values, fresh.test, strict=True)), dict(zip(held_values, fresh.held, strict=True))


def fresh_sample_ids(
    rows: ViewRows, sample: pd.DataFrame, root: Path, seed: int
) -> tuple[FreshIds, pd.DataFrame]:
    """For a split whose view lists its rows in the sample only (no test table: the inputs are files named by
    the ids, vinbigdata's images, contrails' folders, alaska2's versions): the fresh ids (`fresh_view_ids`), the
    sample under them, and view_ids.csv saved; or the ids kept and the sample as it is."""
    fresh = fresh_view_ids(rows, seed)
    if not fresh.fresh:
        return fresh, sample
    write_view_ids(
        root, {"test": fresh.test, "held": fresh.held}, {"test": rows.test_ids, "held": rows.own_held_ids}
    )
    return fresh, sample.assign(**{rows.id_col: fresh.test})


def keyed_view(
    competition: Competition,
    train: pd.DataFrame,
    keys: HeldKeys,
    hidden: list[str],
    dest: Path,
    file_dirs: list[str],
    own: set[Path],
    order: np.ndarray,
) -> ViewRows:
    """The `ViewRows` of a split whose held-out examples' inputs are named by their keys (`HeldKeys`: vinbigdata's
    images, contrails' folders), its rows listed in the sample only."""
    own_held = [str(i).strip() for i in keys.original] or keys.new
    folder = test_folder_of(dest, file_dirs)
    return ViewRows(
        competition,
        train,
        None,
        keys.key,
        {keys.key},
        keys.test,
        keys.new,
        own_held,
        hidden,
        dest,
        folder,
        own,
        order,
    )


def test_folder_of(dest: Path, file_dirs: list[str]) -> Path | None:
    """The view's test folder among the folders a split's ids name files in (relative), if any."""
    found = [dest / d for d in file_dirs if "test" in d.lower() and (dest / d).is_dir()]
    return found[0] if found else None
