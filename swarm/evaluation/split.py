"""Which labelled rows a harness split holds out: the split kinds, choosing one, and drawing the rows.

One principle: the held-out rows stand to the kept rows as the test rows stand to the whole training set
(`swarm.evaluation.split_relation` measures that relation; the run prints it for both). A split is `stratified`
(each class in proportion), `random`, `group:<col>` (whole groups of a column: keys the test has and train lacks),
`day:<col>` (whole calendar days at random: test rows on single days between the training days),
`blocks:<col>` (contiguous blocks of time at the edge of each run of training rows, as long as the test's distance
from its nearest training row asks: hourly rentals whose test is the later days of each month) or `time:<col>` (the
latest rows, a span as long as the test's horizon asks where the test's times are known) or `like-test` (the
training rows a classifier finds most like the test, where it tells the two apart by their features). An explicit setting
(evaluation.split) wins, then competition.json's `split` hint, then `auto`'s rules, which follow how the test rows
were drawn: a time split where the test rows all come after the training rows; whole groups of a key column
(store, user, patient) where the test's values of it are ones train.csv lacks; whole days, or blocks of them, where
the test rows fall on calendar days train.csv lacks; like-test where the test's features set it apart; else
stratified for a classification target and random for a regression one. Every draw is seeded, so a run's split can be rebuilt exactly.
A further fold of the same split (`evaluation.folds`, `swarm.pipeline.folds`) draws other rows with the next
seed, or, for a blocks split, the next block at an edge of each run of training days (`later_folds`); a time
split has none.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from swarm.competitions.competition import Competition
from swarm.evaluation.holdout_record import TRAIN, NoHoldout, SplitRequest
from swarm.evaluation.split_relation import (
    DAY,
    blocks,
    classifier_auc,
    enough_rows,
    epoch_seconds,
    nearest_distance,
    parse_times,
    seconds,
    test_likeness,
    time_step,
)

LIKE_TEST = "like-test"
SPLIT_KINDS = ("auto", "stratified", "random", LIKE_TEST)
SPLIT_PREFIXES = ("group:", "time:", "day:", "blocks:")
MAX_CLASSES_FOR_STRATIFY = 200
DATE_SAMPLE = 200
NEW_VALUES_SHARE = 0.9  # share of test rows whose day (or key value) train.csv lacks, for auto to split by it
MIN_GROUP_ROWS = 2.0  # rows a day (or key value) has in train.csv on average, for it to be a group
MAX_KEY_GROUPS = 0.5  # a key column's distinct values, at most this share of train.csv's rows
# How well a classifier must tell the test rows from train.csv's for auto to hold out like-test.
SHIFT_AUC = 0.8


def check_split(split: str) -> str:
    """`split` if it is a known split kind (`auto`, `stratified`, `random`, `group:<col>`, `day:<col>`,
    `blocks:<col>`, `time:<col>`)."""
    if split in SPLIT_KINDS or (split.startswith(SPLIT_PREFIXES) and split.split(":", 1)[1].strip()):
        return split
    raise ValueError(
        f"unknown split {split!r}: use auto, stratified, random, like-test, group:<column>, day:<column>, "
        "blocks:<column> or time:<column>"
    )


def competition_split_hint(competition: Competition) -> str | None:
    """competition.json's `split` hint, if any."""
    return competition_hint(competition, "split")


def competition_hint(competition: Competition, key: str) -> str | None:
    """competition.json's hint `key` (`split`, `labels_table`), if any."""
    path = competition.root / "competition.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    hint = data.get(key) if isinstance(data, dict) else None
    return str(hint) if hint else None


def choose_split(
    split: str,
    hint: str | None,
    train: pd.DataFrame,
    test: pd.DataFrame | None,
    classification: bool,
    id_column: str | None = None,
    file_group: str | None = None,
) -> tuple[str, str]:
    """(split, why): an explicit setting wins, then competition.json's `split` hint, then `auto`'s rules: whole
    groups of an id that several rows share (hms: windows of one EEG, whose file is their input), whole groups of
    `file_group`, a column whose values name the inputs' files (icecube's `batch_id`), time order when test lies
    after train, stratified for classes, else random."""
    if split != "auto":
        return split, "set by evaluation.split"
    if hint:
        return check_split(hint), "competition.json's split hint"
    if id_column in train.columns and train[id_column].duplicated().any():
        return f"group:{id_column}", f"rows share {id_column!r} values: each one's rows stay on one side"
    if file_group:
        return (
            f"group:{file_group}",
            f"{file_group!r} names the files of the inputs, each file's rows held out whole",
        )
    dates = date_column(train, test)
    if dates is not None and dates[1]:
        return f"time:{dates[0]}", f"test.csv lies after {TRAIN} in {dates[0]!r}"
    key = _new_key_column(train, test, id_column, skip=dates[0] if dates else None)
    if key is not None:
        return f"group:{key[0]}", key[1]
    if dates is not None and test is not None and dates[0] in test.columns:
        train_at, test_at = parse_times(train[dates[0]]), parse_times(test[dates[0]])
        days = _new_days(train_at, test_at)
        if days is not None:
            return _days_or_blocks(dates[0], train_at, test_at, days)
    shifted = _test_shift(train, test, id_column)
    if shifted is not None:
        return LIKE_TEST, shifted
    if classification:
        return "stratified", "a classification target"
    return "random", "a regression target"


def _test_shift(train: pd.DataFrame, test: pd.DataFrame | None, id_column: str | None) -> str | None:
    """Why to hold out the training rows most like the test, where a classifier tells the test rows from
    train.csv's by their features alone with AUC at least SHIFT_AUC (and both have rows enough); None otherwise."""
    if test is None or not enough_rows(train, test):
        return None
    auc = classifier_auc(test, train, (id_column,) if id_column else ())
    if auc is None or auc < SHIFT_AUC:
        return None
    return (
        f"a classifier tells test.csv's rows from {TRAIN}'s by their features with AUC {auc:.2f}: the "
        "training rows most like the test held out"
    )


def _new_key_column(
    train: pd.DataFrame, test: pd.DataFrame | None, id_column: str | None, skip: str | None
) -> tuple[str, str] | None:
    """(column, why) of the first text or whole-number column of both tables (not the id, not the date) that
    groups train.csv's rows (MIN_GROUP_ROWS a value on average, some values shared by several rows) and whose
    values in test.csv are, for NEW_VALUES_SHARE of its rows, ones train.csv lacks; None otherwise."""
    if test is None or test.empty:
        return None
    for column in (c for c in train.columns if c in test.columns and c not in (id_column, skip)):
        values = train[column].astype(str).str.strip()
        distinct = values.nunique()
        if distinct < 2 or distinct > MAX_KEY_GROUPS * len(values) or len(values) / distinct < MIN_GROUP_ROWS:
            continue
        numbers = pd.to_numeric(values, errors="coerce")
        if numbers.notna().all() and not (numbers == numbers.round()).all():
            continue  # measurements, not keys
        new = ~test[column].astype(str).str.strip().isin(set(values))
        if new.mean() >= NEW_VALUES_SHARE:
            return column, (
                f"{new.mean():.0%} of test.csv's rows have {column!r} values {TRAIN} lacks: whole {column} groups "
                "held out, as the test was drawn"
            )
    return None


def _new_days(train_times: pd.Series, test_times: pd.Series) -> str | None:
    """Why to hold out whole days, where NEW_VALUES_SHARE of the test rows fall on calendar days train.csv lacks
    and train.csv has several rows a day (hourly data); None otherwise (the times parsed: `parse_times`)."""
    train_days = train_times.dt.normalize()
    test_days = test_times.dt.normalize()
    if test_days.isna().all() or train_days.nunique() < 2:
        return None
    per_day = train_days.notna().sum() / train_days.nunique()
    new = ~test_days[test_days.notna()].isin(set(train_days.dropna()))
    if per_day < MIN_GROUP_ROWS or new.mean() < NEW_VALUES_SHARE:
        return None
    return f"{new.mean():.0%} of test.csv's rows fall on days {TRAIN} lacks, between its own ({per_day:.0f} rows a day)"


def _days_or_blocks(
    column: str, train_times: pd.Series, test_times: pd.Series, new_days: str
) -> tuple[str, str]:
    """Whole days at random where the test's days stand alone between training days (`day:`), else blocks of
    days at the edges of the training runs (`blocks:`), where the test's days come in runs of several."""
    found = blocks(seconds(test_times), seconds(train_times))
    lengths = [last - first for first, last in found]
    if not lengths or float(np.median(lengths)) < DAY:
        return f"day:{column}", f"{new_days}: whole days held out, as the test was drawn"
    days = np.ceil(float(np.median(lengths)) / DAY)
    return f"blocks:{column}", (
        f"{new_days}, in {len(lengths)} runs of about {days:.0f} days: a block of days held out at the edge of each "
        "run of training days, as far from the kept days as the test is from train"
    )


def date_column(train: pd.DataFrame, test: pd.DataFrame | None) -> tuple[str, bool] | None:
    """A column of dates in train (and test): (name, whether all of test lies after all of train)."""
    for column in train.columns:
        sample = train[column].head(DATE_SAMPLE)
        if pd.to_numeric(sample, errors="coerce").notna().mean() > 0.5:
            continue
        if pd.to_datetime(sample, errors="coerce", format="mixed").notna().mean() < 0.95:
            continue
        after = False
        if test is not None and column in test.columns:
            train_dates = pd.to_datetime(train[column], errors="coerce", format="mixed")
            test_dates = pd.to_datetime(test[column], errors="coerce", format="mixed")
            after = bool(test_dates.notna().any() and test_dates.min() >= train_dates.max())
        return column, after
    return None


def split_rows(
    split: str,
    train: pd.DataFrame,
    strata: pd.Series,
    fraction: float,
    seed: int,
    test: pd.DataFrame | None = None,
    skip: tuple[str, ...] = (),
    fold: int = 0,
) -> tuple[np.ndarray, pd.DataFrame, pd.DataFrame]:
    """(positions, held-out rows, kept rows) of `train` under `split` (`test`: the test rows, whose times a time
    split matches and whose likeness `like-test` follows, `skip` its columns no classifier reads: the id; `fold`:
    which further fold of a blocks split, `later_folds`, whose rows between the held-out block and its edge are
    kept by neither side); NoHoldout when the split leaves no rows to hold out or none to train on."""
    if fold and split.startswith(("time:", "blocks:")):  # seeds draw other rows for the other kinds
        positions, dropped = later_folds(split, train, fraction, fold, test)
    else:
        positions = held_out_positions(split, train, strata, fraction, seed, test, skip)
        dropped = np.zeros(len(train), dtype=bool)
    if len(positions) == 0 or len(positions) + int(dropped.sum()) >= len(train):
        raise NoHoldout(f"the split {split!r} leaves no rows to hold out or none to train on")
    dropped[positions] = True
    return positions, train.iloc[positions], train[~dropped]


def split_whole(
    request: SplitRequest, units: pd.DataFrame, column: str
) -> tuple[str, str, pd.DataFrame, pd.DataFrame]:
    """(split, why, held-out units, kept units) for a layout that holds out whole units (scans, studies, groups of
    samples: a row each of `units`, named by its `column`): the split asked for, else competition.json's hint,
    else `auto`'s rules over the units, a unit its own stratum; NoHoldout where it leaves none on either side."""
    hint = competition_split_hint(request.competition)
    chosen, why = choose_split(check_split(request.split), hint, units, None, False, column)
    _, held, kept = split_rows(chosen, units, units[column], request.fraction, request.seed)
    return chosen, why, held, kept


def described_split(chosen: str, why: str, how: str) -> tuple[str, str]:
    """A split of whole units as its record says it (`SplitParts.split`): the split and why it was chosen (unless
    at random, which needs no reason), then `how` the units moved."""
    return chosen, ("" if chosen == "random" else f"{why}; ") + how


def held_out_positions(
    split: str,
    train: pd.DataFrame,
    strata: pd.Series,
    fraction: float,
    seed: int,
    test: pd.DataFrame | None = None,
    skip: tuple[str, ...] = (),
) -> np.ndarray:
    """Sorted row positions of the held-out rows (`test`: the test rows, whose times a time split matches and
    whose likeness `like-test` follows; `skip`: columns no classifier reads)."""
    n = len(train)
    rng = np.random.default_rng(seed)
    want = _n_held(n, fraction)
    if split == "random":
        return np.sort(rng.permutation(n)[:want])
    if split == LIKE_TEST:
        return _most_test_like(train, test, skip, want, seed)
    if split == "stratified":
        return _stratified(strata.to_numpy(), want, rng)
    kind, column = split.split(":", 1)
    test_times = test[column] if test is not None and column in test.columns else None
    if column not in train.columns:
        raise NoHoldout(f"the split {split!r} names column {column!r}, which {TRAIN} does not have")
    if kind in ("time", "day", "blocks"):
        times = parse_times(train[column])
        if times.isna().all():
            raise NoHoldout(f"the split {split!r}: column {column!r} of {TRAIN} holds no dates")
    test_at = parse_times(test_times) if kind in ("time", "blocks") and test_times is not None else None
    if test_at is not None and test_at.notna().any():
        return np.flatnonzero(matched_blocks(times, test_at, fraction, kind == "blocks")[0])
    if kind == "blocks":
        raise NoHoldout(f"the split {split!r} needs the test rows' {column!r}, which the test table lacks")
    if kind == "time":
        order = np.argsort(times.fillna(times.min()).to_numpy(), kind="stable")
        return np.sort(order[-want:])
    if kind == "day":  # whole calendar days, drawn as groups
        groups = times.dt.strftime("%Y-%m-%d").fillna("no date").to_numpy()
    else:
        groups = train[column].astype(str).to_numpy()
    names = rng.permutation(pd.unique(groups))
    if len(names) < 2:
        raise NoHoldout(f"the split {split!r}: column {column!r} of {TRAIN} holds a single group")
    chosen: list[str] = []
    count = 0
    sizes = pd.Series(groups).value_counts()
    for name in names[:-1]:  # always leave one group to train on
        if count >= want:
            break
        chosen.append(name)
        count += int(sizes[name])
    # pandas' hash-based isin: numpy's isin on text compares against each chosen group in turn (hours at the
    # 9M token rows of text normalization).
    return np.flatnonzero(pd.Series(groups).isin(set(chosen)).to_numpy())


def later_folds(
    split: str, train: pd.DataFrame, fraction: float, fold: int, test: pd.DataFrame | None
) -> tuple[np.ndarray, np.ndarray]:
    """(held-out positions, dropped rows) of a further `fold` (1, 2, ...) of a blocks split: each run's next edge
    block (`matched_blocks`), the rows between it and its edge dropped, so that it adjoins no kept row on the
    test's side. A time split has none: its earlier spans would train on older and fewer rows than the test's, and
    measured so they made chicago's estimate worse (benchmarks/README.md)."""
    kind, column = split.split(":", 1)
    if kind == "time":
        raise NoHoldout(
            f"the split {split!r} holds out the latest span, and only it stands to the kept rows as the test does "
            "(an earlier one would train on older and fewer rows)"
        )
    if column not in train.columns:
        raise NoHoldout(f"the split {split!r} names column {column!r}, which {TRAIN} does not have")
    test_at = parse_times(test[column]) if test is not None and column in test.columns else None
    if test_at is None or test_at.isna().all():
        raise NoHoldout(f"the split {split!r} needs the test rows' {column!r}, which the test table lacks")
    held, dropped = matched_blocks(parse_times(train[column]), test_at, fraction, True, fold)
    return np.flatnonzero(held), dropped


def matched_blocks(
    train_times: pd.Series, test_times: pd.Series, fraction: float, whole_days: bool = False, fold: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(held, dropped): which training rows to hold out so that they stand to the kept rows as the test stands to
    train.csv: in each run of training times that no test time interrupts, the block at the edge the test adjoins
    (its end, or its start where no test row comes after it), as long as makes its rows' median distance from the
    kept rows the test's from train.csv (a block of length L at an edge lies one time step to L from the kept
    rows), bounded to between half and twice `fraction` of the run (at most half of it); `whole_days`: blocks of
    calendar days, their length rounded up to whole days. A further `fold` takes the next of each run's edge blocks
    (`_edge_blocks`); the rows between it and its edge are `dropped`, neither held out nor kept, so that it still
    adjoins no kept row on that side."""
    train_s = epoch_seconds(train_times)
    known, test_s = train_s[~np.isnan(train_s)], seconds(test_times)
    step = time_step(np.concatenate([known, test_s]))
    wanted = 2 * float(np.median(nearest_distance(test_s, known))) - step
    if whole_days:
        train_s, test_s = np.floor(train_s / DAY) * DAY, np.floor(test_s / DAY) * DAY
        known, step, wanted = train_s[~np.isnan(train_s)], DAY, float(np.ceil(wanted / DAY) * DAY)
    held = np.zeros(len(train_s), dtype=bool)
    dropped = np.zeros(len(train_s), dtype=bool)
    for first, last in blocks(known, test_s):
        run = last - first + step
        length = float(np.clip(wanted, 0.5 * fraction * run, min(2 * fraction, 0.5) * run))
        edges = _edge_blocks(first, last, run, length, (test_s > last).any(), (test_s < first).any())
        if fold < len(edges):
            start, end, gap = edges[fold]
            held |= (train_s >= start) & (train_s < end)
            dropped |= (train_s >= gap[0]) & (train_s < gap[1])
    return held, dropped


def _edge_blocks(
    first: float, last: float, run: float, length: float, test_after: bool, test_before: bool
) -> list[tuple[float, float, tuple[float, float]]]:
    """A run's (`first` to `last`, `run` long) blocks of `length` at the edges a test adjoins, in the order folds take them: (start, end, the span
    between the block and its edge, left out of training): the end's block (the start's where no test comes
    after), then the other edge's where a test comes before the run too, then each again one length inwards, as
    long as a block's length of the run is left to train on."""
    ends: list[bool] = [True] if test_after or not test_before else [False]
    if test_after and test_before:
        ends.append(False)
    found: list[tuple[float, float, tuple[float, float]]] = []
    for shift in range(max(1, int(run / max(length, 1e-9)))):
        if shift and (shift + 2) * length > run:  # a block's length left to train on
            break
        for at_end in ends:
            if at_end:
                end = np.nextafter(last, np.inf) - shift * length
                found.append((end - length, end, (end, np.nextafter(last, np.inf))))
            else:
                start = first + shift * length
                found.append((start, start + length, (first, start)))
    return found


def _most_test_like(
    train: pd.DataFrame, test: pd.DataFrame | None, skip: tuple[str, ...], want: int, seed: int
) -> np.ndarray:
    """The `want` training rows a classifier finds most like the test rows (ties in a seeded order)."""
    found = None if test is None else test_likeness(train, test, skip, seed)
    if found is None:
        raise NoHoldout(f"the split {LIKE_TEST!r} needs test rows with feature columns {TRAIN} shares")
    order = np.random.default_rng(seed).permutation(len(train))
    ranked = order[np.argsort(-found[1][order], kind="stable")]
    return np.sort(ranked[:want])


def _n_held(n: int, fraction: float) -> int:
    """How many of `n` rows to hold out: `fraction` of them, at least one, and one fewer than all."""
    return min(n - 1, max(1, int(round(n * fraction))))


def _stratified(classes: np.ndarray, want: int, rng: np.random.Generator) -> np.ndarray:
    """About `want` rows with each class in proportion (largest remainders), at random within a class."""
    values, counts = np.unique(classes, return_counts=True)
    if len(values) > MAX_CLASSES_FOR_STRATIFY:
        return np.sort(rng.permutation(len(classes))[:want])
    exact = counts * want / len(classes)
    take = np.floor(exact).astype(int)
    short, remainders = want - int(take.sum()), exact - take
    order = np.argsort(-remainders, kind="stable")
    if 0 < short < len(order) and remainders[order[short - 1]] == remainders[order[short]]:
        # Classes of equal remainder straddle the cut (many classes of one row each): which of them round up
        # is drawn, not the first ones in sorted order.
        shuffled = rng.permutation(len(values))
        order = shuffled[np.argsort(-remainders[shuffled], kind="stable")]
    for i in order[:short]:
        take[i] += 1
    picked = [rng.permutation(np.flatnonzero(classes == v))[:k] for v, k in zip(values, take, strict=True)]
    return np.sort(np.concatenate(picked)) if picked else np.array([], dtype=int)


def whole_examples(split: str, count: int, fraction: float, seed: int, what: str, unit: str) -> np.ndarray:
    """Sorted positions of the `count` examples to hold out whole and at random (`unit`: images, recordings),
    the only split of layouts whose examples are not table rows (`what`); NoHoldout, in one sentence, for
    another split or fewer than 2 examples."""
    if check_split(split) not in ("auto", "random"):
        raise NoHoldout(f"the split {split!r} does not apply to {what}: whole {unit} are held out at random")
    want = min(count - 1, max(1, round(count * fraction)))
    if want < 1:
        raise NoHoldout(f"{what}: fewer than 2 labelled {unit}")
    return np.sort(np.random.default_rng(seed).permutation(count)[:want])
