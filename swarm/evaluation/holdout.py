"""The harness's own validation split: labelled training rows the solution predicts without their labels.

Before the search, `build_holdout` takes a seeded slice of the labelled rows and builds the public dir the
sandbox sees (`<run>/harness/public/`). The labelled rows are `train.csv`'s, or, where the labels are kept
apart from the inputs (`train_labels.csv` or `labels.csv` beside image folders), that table's (`labelled_table`):

- the labelled table (`train.csv`, `train_labels.csv`, ...) without the held-out rows;
- `test.csv` with the held-out rows appended (their target columns removed) and shuffled in;
- `sample_submission.csv` with their ids added in the same order;
- every other public file linked in as it is; when ids key files in a folder (images, audio), the held-out
  rows' files are linked where the test files are, under their (new) ids.

Held-out ids are re-keyed in the test ids' format when they could collide with a test id (or train has no id
column). Where the sample's ids join a few columns of the test table (text normalization's
`<sentence_id>_<token_id>`, `composite_key`), the labelled table is the one named with `train` holding the
targets, the split keeps each value of the first key column whole, and that column is the one re-keyed.

The labels stay in `<run>/harness/labels.csv` (mode 0600, never mounted into a sandbox), written in
the submission's columns (one-hot for a wide multi-class submission), so the grader's own `score_frame` scores
the held-out part of every submission (`swarm.evaluation.harness`).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.atomic import PRIVATE, PUBLIC, write_text_atomic
from swarm.competitions.archive_view import view_manifest
from swarm.competitions.competition import Competition, MetricSpec
from swarm.competitions.errors import CompetitionError
from swarm.competitions.grading import score_frame
from swarm.competitions.metrics import get_metric
from swarm.competitions.validation import CLOSED_LABEL_SET, InvalidSubmission, group_column
from swarm.file_labels import FILE_COLUMN, file_label_frame, find_file_labels
from swarm.records import RECORD_SUFFIXES, is_records_file, read_records, records_frame, write_records

HARNESS_DIR = "harness"
TRAIN, TEST = "train.csv", "test.csv"
SPLIT_KINDS = ("auto", "stratified", "random")
SPLIT_PREFIXES = ("group:", "time:")
FILE_MATCH_SHARE = 0.9  # share of ids that must name files in a folder for the ids to key files
MAX_CLASSES_FOR_STRATIFY = 200
DATE_SAMPLE = 200
# Words in the names of tables that hold the labels apart from the inputs (train_labels.csv, labels.csv).
LABEL_TABLE_WORDS = ("train", "label")
SIDE_TABLE_CHUNK_ROWS = 200_000  # side tables are read in chunks of this many rows to drop held-out rows
TFRECORD_SUFFIXES = (".tfrec", ".tfrecord", ".tfrecords")
WIDE_LABEL = "label"  # the column of class values read from file names when the submission is wide
MAX_KEY_COLUMNS = 3  # a composite id joins at most this many columns of the test table
KEY_SCAN_COLUMNS = 20  # ... among its first this many columns


class NoHoldout(Exception):
    """No harness split is possible for this competition; `str(exc)` says why in one sentence."""


def check_split(split: str) -> str:
    """`split` if it is a known split kind (`auto`, `stratified`, `random`, `group:<col>`, `time:<col>`)."""
    if split in SPLIT_KINDS or (split.startswith(SPLIT_PREFIXES) and split.split(":", 1)[1].strip()):
        return split
    raise ValueError(
        f"unknown split {split!r}: use auto, stratified, random, group:<column> or time:<column>"
    )


@dataclass
class Holdout:
    """A built harness split, as saved in `<root>/holdout.json` (mode 0600)."""

    root: Path
    id_column: str
    target_columns: list[str]
    ids: list[str]  # held-out ids as the solution sees them
    split: str  # the split used, e.g. "stratified" or "time:datetime"
    split_reason: str
    fraction: float
    seed: int
    n_train: int  # rows left in the labelled table the sandbox sees
    rekeyed: bool = False
    file_dirs: list[str] = field(default_factory=list)  # folders whose files the ids key, if any
    # Every class label of each target column in the whole train.csv (label metrics accept any of them, also
    # one that no held-out row has).
    classes: dict[str, list[str]] = field(default_factory=dict)
    table: str = TRAIN  # the public table of labelled rows: train.csv, or a labels table (train_labels.csv)
    # Side files keyed by held-out ids, left out of the sandbox's view or rewritten without those rows.
    hidden_side_files: list[str] = field(default_factory=list)
    # The test table's columns whose values, joined with `_`, are the submission's ids (`composite_key`), if any.
    key_columns: list[str] = field(default_factory=list)

    @property
    def public_dir(self) -> Path:
        return self.root / "public"

    @property
    def labels_path(self) -> Path:
        return self.root / "labels.csv"

    def describe(self) -> str:
        """One line for the start of a run and the report."""
        joined = "_".join(f"<{c}>" for c in self.key_columns)
        ids = f" (ids {joined})" if joined else ""
        return (
            f"the harness holds out {len(self.ids)} labelled rows of {self.table}{ids} ({self.fraction:.0%}, "
            f"split {self.split}: {self.split_reason}); they are scored with the competition's metric"
        )

    def save(self) -> None:
        data = asdict(self)
        data["root"] = str(self.root)
        _write_private(self.root / "holdout.json", json.dumps(data, indent=1))

    @classmethod
    def load(cls, root: Path) -> Holdout:
        data = json.loads((Path(root) / "holdout.json").read_text(encoding="utf-8"))
        data["root"] = Path(root)
        return cls(**data)


def harness_root(run_root: Path) -> Path:
    return Path(run_root) / HARNESS_DIR


def _write_private(path: Path, text: str) -> None:
    """Write atomically, readable by the owner only (the harness's secrets)."""
    write_text_atomic(path, text, mode=PRIVATE)


def _read_csv(path: Path) -> pd.DataFrame:
    """A CSV as strings, exactly as written (no NaN parsing), so rewritten files keep every value."""
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _to_csv(frame: pd.DataFrame, path: Path) -> None:
    """A public file the sandbox reads (any uid)."""
    write_text_atomic(path, frame.to_csv(index=False), mode=PUBLIC)


# -- which rows are labelled, and their labels in the submission's columns ------------------------------------


def _header(path: Path) -> list[str]:
    try:
        if is_records_file(str(path)):
            return [str(c) for c in records_frame(read_records(str(path), limit=1000)).columns]
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError):
        return []


def _read_table(path: Path) -> tuple[pd.DataFrame, list | None]:
    """A labelled or test table as text; JSON records (swarm.records) also as they are, to be written back in
    their own form."""
    if not is_records_file(str(path)):
        return _read_csv(path), None
    try:
        records = read_records(str(path))
    except (ValueError, UnicodeDecodeError) as exc:
        raise NoHoldout(f"{path.name} cannot be read as JSON records: {exc}") from None
    return records_frame(records), records


def _test_table(public: Path, train_path: Path) -> Path:
    """The test table beside a labelled one: test.json(l) beside train.json(l) records, else test.csv."""
    for suffix in RECORD_SUFFIXES if is_records_file(str(train_path)) else ():
        if (public / f"test{suffix}").is_file():
            return public / f"test{suffix}"
    return public / TEST


def labelled_table(public: Path, id_column: str, targets: list[str], sample: Path) -> Path:
    """The public table of labelled examples: `train.csv` when it holds the submission's target columns, else
    the one other CSV (or JSON records) named like training data or labels (`train_labels.csv`, `labels.csv`)
    that holds the id column and every target column (or their classes, `_holds_labels`), else `train.csv` (its targets may be one column of class values, see
    `_labels`). NoHoldout, naming what was looked for, when there is none."""
    train = public / TRAIN
    if train.is_file() and all(t in _header(train) for t in targets):
        return train
    tables = [
        path
        for path in sorted(p for p in public.iterdir() if p.suffix.lower() in (".csv", *RECORD_SUFFIXES))
        if path not in (train, sample)
        and not path.name.lower().startswith("test")
        and any(word in path.name.lower() for word in LABEL_TABLE_WORDS)
        and _holds_labels(path, id_column, targets)
    ]
    if len(tables) == 1:
        return tables[0]
    if len(tables) > 1:
        raise NoHoldout(
            f"several tables hold the labels ({', '.join(t.name for t in tables)}), so which rows are labelled "
            "is ambiguous"
        )
    if train.is_file():
        return train
    raise NoHoldout(
        f"there is no {TRAIN} of labelled rows in {public}, nor a labels table (train_labels.csv, labels.csv) "
        f"holding the column(s) {', '.join([id_column, *targets][:6])}"
    )


def _holds_labels(path: Path, id_column: str, targets: list[str]) -> bool:
    """Whether a table holds the id column and every target column, or, for a submission with a column per
    class, one column of those classes (dog-breed-identification's `labels.csv`: `id,breed`)."""
    header = set(_header(path))
    if id_column not in header:
        return False
    if set(targets) <= header:
        return True
    if len(targets) < 2:
        return False
    try:
        frame, _ = _read_table(path)
    except NoHoldout:
        return False
    return _wide_source(frame.drop(columns=[id_column]), targets) is not None


def _labels(train: pd.DataFrame, spec: MetricSpec, sample_columns: list[str]) -> pd.DataFrame:
    """The target columns of every train row in the submission's format (strings)."""
    targets = [c for c in sample_columns if c != spec.id_column and c not in spec.passthrough_columns]
    if all(c in train.columns for c in targets):
        return train[targets].astype(str)
    source = _wide_source(train, targets)
    if source is None:
        raise NoHoldout(
            f"the sample submission's target column(s) {', '.join(targets[:5])} are not in {TRAIN} "
            "(and no train column holds them as class values), so its rows cannot be scored"
        )
    values = train[source].astype(str).str.strip()
    return pd.DataFrame({c: (values == c).astype(int).astype(str) for c in targets}, index=train.index)


def _wide_source(train: pd.DataFrame, targets: list[str]) -> str | None:
    """The train column whose values are the submission's class columns (a wide multi-class submission)."""
    wanted = set(targets)
    for column in train.columns:
        values = set(train[column].astype(str).str.strip().unique())
        if len(values) >= 2 and values <= wanted:
            return column
    return None


def _is_classification(spec: MetricSpec, labels: pd.DataFrame, wide: bool) -> bool:
    metric = get_metric(spec.name)
    if wide or metric.labels or metric.probability or metric.binary_truth:
        return True
    first = labels.iloc[:, 0]
    return first.nunique() <= 20 and pd.to_numeric(first, errors="coerce").isna().any()


# -- the split ------------------------------------------------------------------------------------------------


def _date_column(train: pd.DataFrame, test: pd.DataFrame | None) -> tuple[str, bool] | None:
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


def choose_split(
    split: str, hint: str | None, train: pd.DataFrame, test: pd.DataFrame | None, classification: bool
) -> tuple[str, str]:
    """(split, why): an explicit setting wins, then competition.json's `split` hint, then `auto`'s rules."""
    if split != "auto":
        return split, "set by evaluation.split"
    if hint:
        return check_split(hint), "competition.json's split hint"
    dates = _date_column(train, test)
    if dates is not None and dates[1]:
        return f"time:{dates[0]}", f"test.csv lies after {TRAIN} in {dates[0]!r}"
    if classification:
        return "stratified", "a classification target"
    return "random", "a regression target"


def _n_held(n: int, fraction: float) -> int:
    return min(n - 1, max(1, int(round(n * fraction))))


def held_out_positions(
    split: str, train: pd.DataFrame, strata: pd.Series, fraction: float, seed: int
) -> np.ndarray:
    """Sorted row positions of the held-out rows."""
    n = len(train)
    rng = np.random.default_rng(seed)
    want = _n_held(n, fraction)
    if split == "random":
        return np.sort(rng.permutation(n)[:want])
    if split == "stratified":
        return _stratified(strata.to_numpy(), want, rng)
    kind, column = split.split(":", 1)
    if column not in train.columns:
        raise NoHoldout(f"the split {split!r} names column {column!r}, which {TRAIN} does not have")
    if kind == "time":
        times = pd.to_datetime(train[column], errors="coerce", format="mixed")
        if times.isna().all():
            raise NoHoldout(f"the split {split!r}: column {column!r} of {TRAIN} holds no dates")
        order = np.argsort(times.fillna(times.min()).to_numpy(), kind="stable")
        return np.sort(order[-want:])
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
    return np.flatnonzero(np.isin(groups, chosen))


def _stratified(classes: np.ndarray, want: int, rng: np.random.Generator) -> np.ndarray:
    """About `want` rows with each class in proportion (largest remainders), at random within a class."""
    values, counts = np.unique(classes, return_counts=True)
    if len(values) > MAX_CLASSES_FOR_STRATIFY:
        return np.sort(rng.permutation(len(classes))[:want])
    exact = counts * want / len(classes)
    take = np.floor(exact).astype(int)
    for i in np.argsort(-(exact - take), kind="stable")[: want - int(take.sum())]:
        take[i] += 1
    picked = [rng.permutation(np.flatnonzero(classes == v))[:k] for v, k in zip(values, take, strict=True)]
    return np.sort(np.concatenate(picked)) if picked else np.array([], dtype=int)


# -- ids ------------------------------------------------------------------------------------------------------

_NUMBERED = re.compile(r"^(.*?)(\d+)(\D*)$")


def new_ids(count: int, test_ids: list[str], taken: set[str], rng: np.random.Generator) -> list[str]:
    """`count` new ids in the format of `test_ids` that are not in `taken`."""
    if test_ids and all(i.isdigit() for i in test_ids):
        start = max(int(i) for i in taken if i.isdigit()) + 1 if any(i.isdigit() for i in taken) else 1
        return [str(start + k) for k in range(count)]
    parts = [_NUMBERED.match(i) for i in test_ids]
    if test_ids and all(parts) and len({(p.group(1), p.group(3)) for p in parts}) == 1:  # type: ignore[union-attr]
        prefix, suffix = parts[0].group(1), parts[0].group(3)  # type: ignore[union-attr]
        width = len(parts[0].group(2))  # type: ignore[union-attr]
        numbers = [int(m.group(2)) for m in (_NUMBERED.match(i) for i in taken) if m]
        start = max(numbers, default=0) + 1
        return [f"{prefix}{start + k:0{width}d}{suffix}" for k in range(count)]
    if test_ids and all(parts) and len({p.group(3) for p in parts}) == 1:  # type: ignore[union-attr]
        # Names that differ before their last number (a recording time, then `Test<n>`): a test id's beginning,
        # picked at random, with a last number no id has.
        suffix = parts[0].group(3)  # type: ignore[union-attr]
        numbers = [int(m.group(2)) for m in (_NUMBERED.match(i) for i in taken) if m]
        start = max(numbers, default=0) + 1
        picked = rng.choice(len(parts), size=count)
        return [f"{parts[j].group(1)}{start + k}{suffix}" for k, j in enumerate(picked)]  # type: ignore[union-attr]
    stem, suffix = os.path.splitext(test_ids[0]) if test_ids else ("", "")
    hexlike = bool(test_ids) and all(re.fullmatch(r"[0-9a-f]+", os.path.splitext(i)[0]) for i in test_ids)
    width = max(8, len(stem)) if hexlike else 12
    out: list[str] = []
    while len(out) < count:
        text = "".join(rng.choice(list("0123456789abcdef"), size=width))
        candidate = (text if hexlike else f"h{text[: width - 1]}") + suffix
        if candidate not in taken:
            taken.add(candidate)
            out.append(candidate)
    return out


# -- files keyed by ids -----------------------------------------------------------------------------------------


def _keyed_folder(
    public: Path, ids: list[str], prefer: tuple[str, ...] = ()
) -> tuple[Path, dict[str, Path]] | None:
    """The folder whose files are named by `ids` (by name or stem), with id -> file; None if none is. Among
    several (images beside masks named alike), the first whose path holds the first word of `prefer` that one
    holds."""
    if not ids:
        return None
    wanted = set(ids)
    matches = []
    for folder in sorted(p for p in public.rglob("*") if p.is_dir()):
        found: dict[str, Path] = {}
        for path in folder.iterdir():
            if path.is_file():
                for key in (path.name, path.stem):
                    if key in wanted:
                        found[key] = path
        if len(found) >= FILE_MATCH_SHARE * len(wanted):
            matches.append((folder, found))
    for word in (*prefer, ""):  # each preferred word in turn: the first folder whose path holds it
        for folder, found in matches:
            if word in str(folder.relative_to(public)).lower():
                return folder, found
    return None


def _link(source: Path, target: Path) -> None:
    """Hard-link `source` to `target` (a copy where links cannot be made)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _mirror(public: Path, dest: Path, skip: set[Path]) -> None:
    """Link every public file into `dest` but the ones in `skip` (rewritten or left out)."""
    for path in sorted(public.rglob("*")):
        if path in skip or not path.is_file():
            continue
        _link(path, dest / path.relative_to(public))


def _hide_side_files(
    public: Path,
    dest: Path,
    train: pd.DataFrame,
    held: pd.DataFrame,
    spec: MetricSpec,
    test_ids: set[str],
    test_dir: Path | None,
    skip: set[Path],
) -> list[str]:
    """Keep the held-out examples' labels out of the side files the sandbox sees: a file named by a held-out id
    (a mask, an annotation) is left out, and a table beside the labelled one that has a row per labelled
    example (keyed by the id column, or by columns that identify one row of the labelled table: champs's
    contributions by molecule and atom pair) is rewritten without the held-out examples' rows. Test files are
    never touched (where test and train ids collide, a file under a test* path named by a test id is the
    test's). Training TFRecords are left out whole (siim-isic's and cassava's hold every training image with its
    label, and they are not named by ids); other JSON side records are not read (yet). Adds what it handled to `skip`; returns the side files
    changed (relative)."""
    ids = set(held[spec.id_column].str.strip()) if spec.id_column in held.columns else set()
    changed = []
    for path in sorted(public.rglob("*")):
        if path in skip or not path.is_file() or (test_dir is not None and test_dir in path.parents):
            continue
        test_side = any(part.lower().startswith("test") for part in path.relative_to(public).parts)
        named = {path.name, path.stem} & ids and not (test_side and {path.name, path.stem} & test_ids)
        if named or (path.suffix.lower() in TFRECORD_SUFFIXES and not test_side):
            skip.add(path)
            changed.append(str(path.relative_to(public)))
        elif path.parent == public and path.suffix.lower() == ".csv":
            keys = _example_keys(_header(path), train, spec)
            kept = _without_held_rows(path, keys, held) if keys else None
            if kept is not None:
                _to_csv(kept, dest / path.name)
                skip.add(path)
                changed.append(path.name)
    return changed


def _example_keys(header: list[str], train: pd.DataFrame, spec: MetricSpec) -> list[str] | None:
    """The columns by which a side table's rows name labelled examples: the id column, else the columns it
    shares with the labelled table when together they identify one of its rows; None when neither."""
    if spec.id_column in header:
        return [spec.id_column]
    shared = [c for c in header if c in train.columns and c not in spec.target_columns]
    if shared and not train.duplicated(subset=shared).any():
        return shared
    return None


def _without_held_rows(path: Path, keys: list[str], held: pd.DataFrame) -> pd.DataFrame | None:
    """The table without the rows whose `keys` name a held-out example (read in chunks), or None when no row
    does (or it is not a readable CSV)."""
    wanted = pd.MultiIndex.from_frame(held[keys].apply(lambda column: column.str.strip()))
    parts, dropped = [], False
    try:
        for chunk in pd.read_csv(path, dtype=str, keep_default_na=False, chunksize=SIDE_TABLE_CHUNK_ROWS):
            names = pd.MultiIndex.from_frame(chunk[keys].apply(lambda column: column.str.strip()))
            drop = names.isin(wanted)
            dropped |= bool(drop.any())
            parts.append(chunk[~drop])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, KeyError):
        return None
    return pd.concat(parts, ignore_index=True) if dropped else None


# -- building -------------------------------------------------------------------------------------------------


def build_holdout(
    competition: Competition,
    root: Path,
    *,
    fraction: float,
    split: str = "auto",
    seed: int = 0,
    max_train_mb: float = 2048.0,
) -> Holdout:
    """Build the split into `root` (public/, labels.csv, holdout.json); raises NoHoldout saying why not."""
    spec = competition.metric
    if spec is None:
        raise NoHoldout("the competition has no metric to score held-out rows with")
    if fraction <= 0:
        raise NoHoldout("evaluation.holdout_fraction is 0")
    public = competition.public_dir
    sample = _read_csv(competition.sample_submission)
    targets = [c for c in sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    test_ids = [str(i).strip() for i in sample[spec.id_column]]
    key = composite_key(public, spec.id_column, targets, competition.sample_submission, test_ids)
    if key is not None:
        return _build_composite(
            competition,
            spec,
            root,
            key,
            sample,
            fraction=fraction,
            split=split,
            seed=seed,
            max_train_mb=max_train_mb,
        )
    layout = None
    try:
        train_path = labelled_table(public, spec.id_column, targets, competition.sample_submission)
    except NoHoldout as no_table:
        layout = _file_labels(competition, targets, sample, test_ids)
        if layout is None:
            raise no_table from None
        train_path = public / layout["train"]
    test_path = _test_table(public, train_path)
    records = test_records = None
    if layout is None:
        _check_size(train_path, max_train_mb)
        train, records = _read_table(train_path)
    else:
        train = file_label_frame(str(public), layout).astype(str)
        if spec.id_column != FILE_COLUMN:
            train.insert(0, spec.id_column, train[FILE_COLUMN])
    test, test_records = _read_table(test_path) if test_path.is_file() else (None, None)
    table_name = train_path.name if layout is None else _describe_layout(layout)
    if len(train) < 10:
        raise NoHoldout(f"{table_name} has only {len(train)} rows")
    labels = _labels(train, spec, list(sample.columns))
    wide = not all(c in train.columns for c in labels.columns)
    strata = labels.astype(str).agg("|".join, axis=1)
    classification = _is_classification(spec, labels, wide)
    chosen, why = choose_split(
        check_split(split), competition_split_hint(competition), train, test, classification
    )
    positions = held_out_positions(chosen, train, strata, fraction, seed)
    if len(positions) == 0 or len(positions) >= len(train):
        raise NoHoldout(f"the split {chosen!r} leaves no rows to hold out or none to train on")
    held, kept = train.iloc[positions], train.drop(train.index[positions])
    id_col = spec.id_column
    rng = np.random.default_rng(seed + 1)
    original = [str(i).strip() for i in held[id_col]] if id_col in train.columns else []
    taken = set(test_ids) | ({str(i).strip() for i in train[id_col]} if id_col in train.columns else set())
    clash = not original or len(set(original)) < len(original) or bool(set(original) & set(test_ids))
    clash = clash or layout is not None  # file paths are not ids: new ones in the test ids' format
    ids = new_ids(len(held), test_ids, taken, rng) if clash else original
    folders = _keyed_folders(public, test_ids, original) if layout is None else None
    inputs_elsewhere = set(train.columns) <= {id_col, *labels.columns}  # a labels table, not records
    if layout is None and train_path.name != TRAIN and folders is None and inputs_elsewhere:
        raise NoHoldout(
            f"the ids of {train_path.name} name no files in a folder beside the test files (are the inputs in an "
            "archive?), so a held-out example would have no input in the sandbox"
        )

    dest = _fresh_view(root)
    # The archives whose contents the competition's view extracted stay out: they hold the held-out examples'
    # files under their training names (train.zip's `cat.12.jpg`), and the extracted copies are split above.
    skip = {train_path, test_path, competition.sample_submission, *_extracted_archives(public)}
    if layout is None:
        file_dirs = _link_keyed_files(public, dest, folders, original, ids, skip)
        test_dir = folders[0][0] if folders else None
    else:
        file_dirs = _link_labelled_files(public, dest, layout, original, ids, skip)
        test_dir = public / layout["test"]
    hidden = _hide_side_files(public, dest, train, held, spec, set(test_ids), test_dir, skip)
    _mirror(public, dest, skip)

    if records is not None:
        write_records([records[i] for i in kept.index], str(dest / train_path.name), like=str(train_path))
    elif layout is None:
        _to_csv(kept, dest / train_path.name)
    order = rng.permutation(len(sample) + len(held))
    appended = held.assign(**{id_col: ids})
    if records is not None and test_records is not None:
        _write_test_records(
            test_records, [records[i] for i in positions], ids, id_col, order, test_path, dest
        )
    elif test is not None:
        rows = appended[[c for c in test.columns if c in appended.columns]]
        combined = pd.concat([test, rows], ignore_index=True)[list(test.columns)]
        if len(combined) == len(order):
            combined = combined.iloc[order]
        _to_csv(combined, dest / test_path.name)
    filler = {c: sample[c].iloc[0] if len(sample) else "0" for c in sample.columns if c != id_col}
    extra = pd.DataFrame({id_col: ids, **{c: [v] * len(ids) for c, v in filler.items()}})
    for column in spec.passthrough_columns:  # copied from the held-out rows, as the sample copies test's
        if column in held.columns:
            extra[column] = held[column].to_numpy()
    _to_csv(
        pd.concat([sample, extra], ignore_index=True).iloc[order], dest / competition.sample_submission.name
    )

    label_frame = pd.DataFrame({id_col: ids}).join(labels.iloc[positions].reset_index(drop=True))
    group = group_column(spec)  # a grouped metric's groups (champs: `type`), kept beside the labels
    if group in held.columns and group not in label_frame.columns:
        label_frame[group] = held[group].astype(str).to_numpy()
    _write_labels(root, label_frame, spec)
    holdout = Holdout(
        root=root,
        id_column=id_col,
        target_columns=[c for c in labels.columns],
        ids=ids,
        split=chosen,
        split_reason=why,
        fraction=fraction,
        seed=seed,
        n_train=len(kept),
        rekeyed=clash,
        file_dirs=file_dirs,
        classes=_closed_classes(labels, classification and not wide),
        table=table_name,
        hidden_side_files=hidden,
    )
    _seal(holdout)
    return holdout


def _check_size(path: Path, max_train_mb: float) -> None:
    """NoHoldout when the labelled table is over evaluation.max_train_mb (reading it would cost too much)."""
    size_mb = path.stat().st_size / 1e6
    if size_mb > max_train_mb:
        raise NoHoldout(f"{path.name} is {size_mb:.0f} MB, over evaluation.max_train_mb={max_train_mb:g}")


def _fresh_view(root: Path) -> Path:
    """An empty `<root>/public` for the sandbox's view (what an earlier build left there is removed)."""
    root.mkdir(parents=True, exist_ok=True)
    dest = root / "public"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir()
    return dest


def _write_labels(root: Path, label_frame: pd.DataFrame, spec: MetricSpec) -> None:
    """The held-out labels, once they are known to be scorable, in the harness's private labels.csv."""
    _check_scorable(label_frame, spec)
    _write_private(root / "labels.csv", label_frame.to_csv(index=False))


def _seal(holdout: Holdout) -> None:
    """Save the split and open the view to the sandbox (any uid may read public/, nothing else of the root)."""
    holdout.save()
    dest = holdout.public_dir
    for folder in [dest, *(p for p in dest.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    holdout.root.chmod(0o711)  # the sandbox may pass through to public/, never list or read the rest


def _closed_classes(labels: pd.DataFrame, classification: bool) -> dict[str, list[str]]:
    """Every class of each target column of the labelled table, where they are a closed set (a label metric then
    accepts any of them, also one no held-out row has); none for free-text targets (CLOSED_LABEL_SET)."""
    if not classification:
        return {}
    values = {c: sorted(labels[c].str.strip().unique()) for c in labels.columns}
    return {c: v for c, v in values.items() if len(v) <= CLOSED_LABEL_SET}


def _check_scorable(labels: pd.DataFrame, spec: MetricSpec) -> None:
    """NoHoldout when the metric is undefined on the held-out labels themselves (e.g. one class for AUC)."""
    named, group = {spec.id_column, *spec.target_columns}, group_column(spec)
    as_submission = labels[[c for c in labels.columns if c in named or c != group]]  # no group column
    try:
        score_frame(as_submission, labels, spec)
    except (CompetitionError, InvalidSubmission) as exc:
        raise NoHoldout(f"the held-out rows cannot be scored with {spec.name}: {exc}") from None


def competition_split_hint(competition: Competition) -> str | None:
    """competition.json's `split` hint, if any."""
    path = competition.root / "competition.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    hint = data.get("split") if isinstance(data, dict) else None
    return str(hint) if hint else None


def _keyed_folders(
    public: Path, test_ids: list[str], original: list[str]
) -> tuple[tuple[Path, dict[str, Path]], tuple[Path, dict[str, Path]]] | None:
    """The folders whose files the test ids and the held-out rows' ids name, or None when ids key no files."""
    if not original:
        return None
    test_folder = _keyed_folder(public, test_ids, ("test",))
    if test_folder is None:
        return None
    # The held-out examples' inputs: the test folder's twin (test -> train, test_images -> train_images).
    twin = str(test_folder[0].relative_to(public)).lower().replace("test", "train")
    train_folder = _keyed_folder(public, original, (twin, "train", "image"))
    if test_folder is None or train_folder is None:
        return None
    return test_folder, train_folder


def _link_keyed_files(
    public: Path,
    dest: Path,
    folders: tuple[tuple[Path, dict[str, Path]], tuple[Path, dict[str, Path]]] | None,
    original: list[str],
    ids: list[str],
    skip: set[Path],
) -> list[str]:
    """When ids key files (`folders`, from _keyed_folders), link the held-out rows' files where the test files
    are, under their new ids; the train folder keeps only the train rows' files. Returns the folders involved
    (relative)."""
    if folders is None:
        return []
    (test_dir, test_files), (train_dir, train_files) = folders
    any_test = next(iter(test_files.values()))
    by_name = any_test.name in test_files  # ids are file names (with extension), else stems
    for old, new in zip(original, ids, strict=True):
        source = train_files.get(old)
        if source is None:
            continue
        name = new if by_name else new + source.suffix
        _link(source, dest / test_dir.relative_to(public) / name)
        skip.add(source)  # linked where the test files are, never left under its train name
    return sorted({str(test_dir.relative_to(public)), str(train_dir.relative_to(public))})


def _extracted_archives(public: Path) -> list[Path]:
    """The archives of a competition's view (swarm.competitions.archive_view) that its files came from."""
    return [public / name for name in view_manifest(public)]


# -- examples labelled by their file or folder names -------------------------------------------------------------


def _file_labels(competition: Competition, targets: list[str], sample: pd.DataFrame, test_ids: list[str]):
    """The layout of training files labelled by their names or folders (swarm.file_labels), or None. A wide
    submission (a column per class) reads the labels as class values."""
    wide = len(targets) > 1
    layout = find_file_labels(
        str(competition.public_dir),
        test_ids,
        WIDE_LABEL if wide else targets[0],
        None if wide else sample[targets[0]].astype(str).tolist(),
        competition.description,
    )
    if layout is not None and wide and not set(layout["classes"]) <= set(targets):
        return None
    return layout


def _describe_layout(layout: dict) -> str:
    """How the labelled examples were read, for the split's description."""
    where = "file names" if layout["kind"] == "names" else "folder names"
    positive = f", {layout['positive']} = 1" if layout.get("positive") is not None else ""
    return f"{layout['train']}/ (labels in {where}{positive})"


def _link_labelled_files(
    public: Path, dest: Path, layout: dict, original: list[str], ids: list[str], skip: set[Path]
) -> list[str]:
    """Link each held-out training file where the test files are, named by its new id as they are; it is
    left out of the training folder."""
    test_dir = dest / layout["test"]
    for path, new in zip(original, ids, strict=True):
        source = public / path
        name = new if layout["test_match"] == "name" else new + source.suffix
        _link(source, test_dir / name)
        skip.add(source)
    return sorted({layout["test"], layout["train"]})


def _write_test_records(
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


# -- ids joined from columns of the test table ----------------------------------------------------------------


@dataclass
class CompositeKey:
    """Where the sample submission's ids join a few columns of the test table with `_` (text normalization's
    `<sentence_id>_<token_id>`): the tables and those columns, as `composite_key` found them."""

    train: Path  # the labelled table: named with `train`, holding the target and key columns
    test: Path  # the test table: named with `test`, the sample's ids joined from its `keys`
    keys: list[str]
    test_frame: pd.DataFrame  # the test table as text
    test_ids: list[str]  # each test row's joined id, in the table's order


def composite_key(
    public: Path, id_column: str, targets: list[str], sample: Path, sample_ids: list[str]
) -> CompositeKey | None:
    """The composite-id layout of a public dir, or None when its ids are not composite: the id column is in no
    test table (a top-level CSV named with `test`), whose key columns (`composing_columns`) give exactly the
    sample's ids, and in no labelled table (a top-level CSV named with `train` holding the targets and keys).
    NoHoldout when several tables could be the labelled one."""
    for test_path in _named_tables(public, "test", {sample}):
        if id_column in _header(test_path):
            return None  # the test table names its rows by the id itself
        candidates = _key_candidates(test_path, sample_ids, targets)
        if not candidates:
            continue
        test = _read_csv(test_path)
        keys = next((k for k in candidates if _composes(test, k, sample_ids)), None)
        if keys is None:
            continue
        train = _composite_train(public, id_column, [*targets, *keys], {sample, test_path})
        if train is None:
            return None
        return CompositeKey(train, test_path, keys, test, joined_ids(test, keys).tolist())
    return None


def _named_tables(public: Path, word: str, exclude: set[Path]) -> list[Path]:
    """The top-level CSVs whose names hold `word` (`<word>.csv` first), but those in `exclude`."""
    found = [
        path
        for path in sorted(public.glob("*.csv"))
        if word in path.name.lower() and path not in exclude and path.is_file()
    ]
    return sorted(found, key=lambda path: path.name.lower() != f"{word}.csv")


def _key_candidates(path: Path, ids: list[str], targets: list[str]) -> list[list[str]]:
    """Orders of 1-3 of the table's first columns (no target) whose first row's values, joined with `_`, are one
    of `ids`: the only ones worth checking on every row. Fewer columns first."""
    try:
        first = pd.read_csv(path, dtype=str, keep_default_na=False, nrows=1)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return []
    if first.empty:
        return []
    wanted = set(ids)
    columns = [c for c in first.columns[:KEY_SCAN_COLUMNS] if c not in targets]
    values = {c: str(first[c].iloc[0]).strip() for c in columns}
    return [
        list(keys)
        for size in range(1, MAX_KEY_COLUMNS + 1)
        for keys in itertools.permutations(columns, size)
        if "_".join(values[c] for c in keys) in wanted
    ]


def _composes(table: pd.DataFrame, keys: list[str], ids: list[str]) -> bool:
    """Whether `keys` joined give exactly `ids`, one row each (checked on all rows)."""
    if len(table) != len(ids) or len(set(ids)) != len(ids):
        return False
    joined = joined_ids(table, keys)
    return bool(joined.is_unique and joined.isin(set(ids)).all())


def joined_ids(frame: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Each row's id: its `keys` values as stripped text, joined with `_` in that order."""
    parts = [frame[c].astype(str).str.strip() for c in keys]
    out = parts[0]
    for part in parts[1:]:
        out = out + "_" + part
    return out


def _composite_train(public: Path, id_column: str, needed: list[str], exclude: set[Path]) -> Path | None:
    """The labelled table of a composite-id layout: the one top-level CSV named with `train` that holds every
    `needed` column (targets and keys) and not the id column (`train.csv` when it is one of several); None when
    none does."""
    tables = [
        path
        for path in _named_tables(public, "train", exclude)
        if "test" not in path.name.lower()
        and set(needed) <= set(header := _header(path))
        and id_column not in header
    ]
    if len(tables) > 1 and tables[0].name != TRAIN:
        raise NoHoldout(
            f"several tables hold the labels ({', '.join(t.name for t in tables)}), so which rows are labelled "
            "is ambiguous"
        )
    return tables[0] if tables else None


def _build_composite(
    competition: Competition,
    spec: MetricSpec,
    root: Path,
    key: CompositeKey,
    sample: pd.DataFrame,
    *,
    fraction: float,
    split: str,
    seed: int,
    max_train_mb: float,
) -> Holdout:
    """build_holdout for a composite-id layout: the held-out rows leave the labelled table and join the test
    table (its columns only, the first key column re-keyed where it could collide), whole groups of the first key
    column unless a split is set; the sample lists their joined ids; labels.csv holds those ids' targets."""
    _check_size(key.train, max_train_mb)
    train = _read_csv(key.train)
    if len(train) < 10:
        raise NoHoldout(f"{key.train.name} has only {len(train)} rows")
    labels = _labels(train, spec, list(sample.columns))
    classification = _is_classification(spec, labels, False)
    chosen, why = _composite_split(
        check_split(split), competition_split_hint(competition), key, train, classification
    )
    strata = labels.iloc[:, 0] if labels.shape[1] == 1 else labels.agg("|".join, axis=1)
    positions = held_out_positions(chosen, train, strata, fraction, seed)
    if len(positions) == 0 or len(positions) >= len(train):
        raise NoHoldout(f"the split {chosen!r} leaves no rows to hold out or none to train on")
    held, kept = train.iloc[positions], train.drop(train.index[positions])
    rng = np.random.default_rng(seed + 1)
    moved, rekeyed = _rekey_groups(held, key, train, rng)
    ids = joined_ids(moved, key.keys).tolist()
    if len(set(ids)) < len(ids) or set(ids) & set(key.test_ids):
        raise NoHoldout(
            f"the held-out rows' {', '.join(key.keys)} do not give one new id each, so their predictions could "
            "not be told apart"
        )

    public, dest = competition.public_dir, _fresh_view(root)
    skip = {key.train, key.test, competition.sample_submission, *_extracted_archives(public)}
    named = held.assign(**{spec.id_column: joined_ids(held, key.keys)})  # side files named by original ids
    hidden = _hide_side_files(public, dest, train, named, spec, set(key.test_ids), None, skip)
    _mirror(public, dest, skip)
    _to_csv(kept, dest / key.train.name)
    _write_composite_tests(
        key, moved, ids, sample, spec.id_column, rng, dest / competition.sample_submission.name
    )
    label_frame = pd.DataFrame({spec.id_column: ids}).join(labels.iloc[positions].reset_index(drop=True))
    _write_labels(root, label_frame, spec)
    holdout = Holdout(
        root=root,
        id_column=spec.id_column,
        target_columns=list(labels.columns),
        ids=ids,
        split=chosen,
        split_reason=why,
        fraction=fraction,
        seed=seed,
        n_train=len(kept),
        rekeyed=rekeyed,
        classes=_closed_classes(labels, classification),
        table=key.train.name,
        hidden_side_files=hidden,
        key_columns=key.keys,
    )
    _seal(holdout)
    return holdout


def _composite_split(
    split: str, hint: str | None, key: CompositeKey, train: pd.DataFrame, classification: bool
) -> tuple[str, str]:
    """(split, why): a set split or competition.json's hint wins; else, where the ids join several columns, the
    first one's groups (a sentence's tokens) move together, so that no example is half in train."""
    if split != "auto" or hint or len(key.keys) < 2:
        return choose_split(split, hint, train, key.test_frame, classification)
    column = key.keys[0]
    return (
        f"group:{column}",
        f"the ids join {', '.join(key.keys)}, so the rows of each {column} move together",
    )


def _rekey_groups(
    held: pd.DataFrame, key: CompositeKey, train: pd.DataFrame, rng: np.random.Generator
) -> tuple[pd.DataFrame, bool]:
    """(the held-out rows, whether re-keyed): where their values of the first key column are also the test
    table's, each such value (a group) gets a new one in the test values' format that no train or test row has;
    else they keep their own."""
    column = key.keys[0]
    old = held[column].astype(str).str.strip()
    test_values = key.test_frame[column].astype(str).str.strip()
    if not set(old) & set(test_values):
        return held, False
    groups = list(pd.unique(old))
    taken = set(train[column].astype(str).str.strip()) | set(test_values)
    new = new_ids(len(groups), list(pd.unique(test_values)), taken, rng)
    return held.assign(**{column: old.map(dict(zip(groups, new, strict=True)))}), True


def group_order(values: pd.Series, rng: np.random.Generator) -> np.ndarray:
    """Row positions that shuffle whole groups of equal `values` (keeping each group's rows in their order)."""
    codes, uniques = pd.factorize(values.astype(str).str.strip())
    rank = rng.permutation(len(uniques))
    return np.argsort(rank[codes], kind="stable")


def _write_composite_tests(
    key: CompositeKey,
    moved: pd.DataFrame,
    ids: list[str],
    sample: pd.DataFrame,
    id_col: str,
    rng: np.random.Generator,
    sample_path: Path,
) -> None:
    """The view's test table (the held-out rows appended with its columns only, whole groups of the first key
    column shuffled) and its sample submission listing the same ids in the same order (filler targets for the
    held-out rows, as in build_holdout)."""
    rows = moved.reindex(columns=key.test_frame.columns, fill_value="")
    combined = pd.concat([key.test_frame, rows], ignore_index=True)
    order = group_order(combined[key.keys[0]], rng)
    _to_csv(combined.iloc[order], sample_path.parent / key.test.name)
    filler = {c: sample[c].iloc[0] if len(sample) else "0" for c in sample.columns if c != id_col}
    extra = pd.DataFrame({id_col: ids, **{c: [v] * len(ids) for c, v in filler.items()}})
    full = pd.concat([sample, extra], ignore_index=True)
    position = pd.Series(np.arange(len(full)), index=full[id_col].astype(str).str.strip().to_numpy())
    in_order = np.asarray(key.test_ids + ids, dtype=object)[order]
    _to_csv(full.iloc[position.loc[in_order].to_numpy()], sample_path)
