"""Reading a competition laid out the MLE-bench way.

    <root>/competition.json          optional: our metadata (id, metric, columns, leaderboard)
    <root>/leaderboard.csv           optional: a best-first leaderboard with a `score` column
    <root>/prepared/public/          description.md, sample_submission.csv, train/test files
    <root>/prepared/private/         the hidden answers (test.csv, answers.csv, gold_submission.csv, ...)

`load_competition_dir` accepts the root, the `prepared/` dir or `prepared/public/`, and also a public-only dir
(what MLE-bench mounts at /home/data: description.md and the public files, no `prepared/`, no answers), which
can be solved but not graded here. Given a cache dir, a public dir holding archives is read through its view
there, with the archives extracted (`archive_view.public_view`): `public_dir` is then the view.
"""

from __future__ import annotations

import functools
import json
import re
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from swarm.competitions.archive_view import public_view
from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics import Metric, resolve_metric
from swarm.formats.described_sample import described_test_table
from swarm.layouts.qa.reader import ANNOTATIONS, ANSWER_KINDS, first_record

METADATA_FILE = "competition.json"
LEADERBOARD_FILE = "leaderboard.csv"
# Names mlebench's preparers give the answers file, most common first.
ANSWER_FILE_NAMES = (
    "answers.csv",
    "test.csv",
    "gold_submission.csv",
    "test_answer.csv",
    "test_answers.csv",
    "solution.csv",
    "test_labels.csv",
)
SAMPLE_SUBMISSION_NAMES = ("sample_submission.csv", "sampleSubmission.csv", "sample_submission_null.csv")
# Words in the names competitions give their sample submission (kaggle_sample_submission.csv,
# randomPredictions.csv, sample_submission.csv.zip, ...), and the forms read as one table.
SAMPLE_NAME_WORDS = ("sample", "submission", "prediction")
TABLE_SUFFIXES = (".csv", ".csv.zip", ".csv.gz", ".zip")


@dataclass(frozen=True)
class MetricSpec:
    """How a competition is scored."""

    name: str
    lower_is_better: bool
    id_column: str
    target_columns: tuple[str, ...]
    # Declared class labels per target column (competition.json `labels`); empty: taken from the answers.
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Metric parameters (competition.json `metric.params`, or set by the name: `map@3` is k=3); empty: defaults.
    params: dict[str, Any] = field(default_factory=dict)
    # Sample columns copied from the test rows, not predicted or scored (detecting-insults' `Date`, `Comment`
    # beside the id): a submission may carry them.
    passthrough_columns: tuple[str, ...] = ()
    # Sample columns that with the id key each row, where the id repeats (uw-madison's `class` beside `id`,
    # smartphone-decimeter's `UnixTimeMillis` beside `tripId`): not predicted or scored, but matched row by row.
    key_columns: tuple[str, ...] = ()
    # Target columns whose answers are free text (over CLOSED_LABEL_SET distinct ones in the labelled table, as the
    # harness finds them): a prediction no answer has is wrong, not invalid, however few the scored rows hold.
    free_text: tuple[str, ...] = ()


@dataclass(frozen=True)
class Competition:
    """One competition on disk. `metric` is None when neither metadata nor the caller named it."""

    id: str
    root: Path
    public_dir: Path
    private_dir: Path
    description: str
    sample_submission: Path
    answers: Path | None
    metric: MetricSpec | None
    leaderboard: Path | None = None
    name: str | None = None
    # The public dir as the competition ships it, when `public_dir` is its view with the archives extracted.
    shipped_public_dir: Path | None = None

    @property
    def prepared_dir(self) -> Path:
        return (self.shipped_public_dir or self.public_dir).parent

    @property
    def public_only(self) -> bool:
        """True for a dir holding only the public files (no `prepared/`): nothing to grade with."""
        return (self.shipped_public_dir or self.public_dir) == self.root


def _find_root(path: Path) -> Path:
    path = path.expanduser().resolve()
    if not path.exists():
        raise CompetitionError(f"{path} does not exist")
    if not path.is_dir():
        raise CompetitionError(f"{path} is not a directory")
    if path.name == "public" and path.parent.name == "prepared":
        return path.parent.parent
    if path.name == "prepared" and (path / "public").is_dir():
        return path.parent
    if (path / "prepared").is_dir() or _is_public_only(path):
        return path
    raise CompetitionError(
        f"{path}/prepared is missing: expected an MLE-bench competition dir holding prepared/public and "
        "prepared/private (or the prepared/ dir itself), or a public-only dir holding description.md"
    )


def _is_public_only(path: Path) -> bool:
    """A dir laid out like MLE-bench's /home/data: description.md beside the data, no `prepared/`."""
    return not (path / "prepared").exists() and (path / "description.md").is_file()


def _first_existing(folder: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        if (folder / name).is_file():
            return folder / name
    return None


def _one_csv_archive(path: Path) -> bool:
    """A .zip holding exactly one CSV (what pandas reads as a table)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if not n.endswith("/")]
    except (OSError, zipfile.BadZipFile):
        return False
    return len(names) == 1 and names[0].lower().endswith(".csv")


def _is_table(path: Path) -> bool:
    name = path.name.lower()
    if not path.is_file() or not name.endswith(TABLE_SUFFIXES):
        return False
    return _one_csv_archive(path) if name.endswith(".zip") else True


def _test_items(public: Path) -> int | None:
    """How many items the test set has: rows of test.csv, else files in a test/ folder; None when unknown."""
    test_csv = public / "test.csv"
    if test_csv.is_file():
        with test_csv.open("rb") as handle:
            return max(0, sum(1 for _ in handle) - 1)
    folder = public / "test"
    if folder.is_dir():
        return sum(1 for entry in folder.rglob("*") if entry.is_file())
    return None


def _rows(path: Path) -> int:
    try:
        return len(pd.read_csv(path, usecols=[0], dtype=str))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError):
        return -1


def folder_listing(folder: Path, limit: int = 8) -> str:
    """What a dir holds, for error messages: 'a.csv, test/, train.csv and 3 more' (sorted; dirs end in /)."""
    names = sorted(entry.name + ("/" if entry.is_dir() else "") for entry in folder.iterdir())
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")
    return shown or "nothing"


def find_sample_submission(public: Path, description: str = "") -> Path:
    """The competition's sample submission, found by what it is: one of the usual names, else the one table
    (a CSV, or a CSV zipped alone) whose name speaks of a sample, submission or predictions; among several,
    the one with a row per test item; else a test table whose columns are those of the submission file that
    `description` shows (billion-word-imputation's test_v2.txt: "test.csv is a valid submission file itself").
    CompetitionError naming what the dir holds when there is none."""
    named = _first_existing(public, SAMPLE_SUBMISSION_NAMES)
    if named is not None:
        return named
    entries = sorted(public.iterdir())
    candidates = [
        entry
        for entry in entries
        if any(word in entry.name.lower() for word in SAMPLE_NAME_WORDS)
        and not entry.name.lower().startswith(("train", "test"))
        and _is_table(entry)
    ]
    names = {entry.name for entry in candidates}
    # In a view, a zipped sample sits beside its extracted CSV: the CSV stands for both.
    candidates = [entry for entry in candidates if not (entry.suffix == ".zip" and entry.stem in names)]
    if len(candidates) > 1:
        items = _test_items(public)
        matching = [c for c in candidates if items is not None and _rows(c) == items]
        candidates = matching if len(matching) == 1 else candidates
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise CompetitionError(
            f"{public} holds several tables that could be the sample submission "
            f"({', '.join(c.name for c in candidates)}) and none has exactly one row per test item; "
            "name it sample_submission.csv"
        )
    shown = described_test_table(str(public), description)
    if shown is not None:
        return public / shown
    archived = [
        e.name for e in entries if any(w in e.name.lower() for w in SAMPLE_NAME_WORDS) and e.is_file()
    ]
    found = f"; {', '.join(archived)} cannot be read as one CSV (extract it)" if archived else ""
    raise CompetitionError(
        f"{public / 'sample_submission.csv'} is missing, and no other table there (a CSV, or a zip of one CSV, "
        f"named like a sample, submission or predictions) can stand for it{found}; the dir holds "
        f"{folder_listing(public)}"
    )


def _read_metadata(root: Path) -> dict:
    path = root / METADATA_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CompetitionError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise CompetitionError(f"{path} must hold a JSON object")
    return data


def _find_answers(private: Path, meta: dict, sample: Path) -> Path | None:
    """The hidden answers: competition.json's `answers`, else the first of ANSWER_FILE_NAMES there (where several
    are, the first that has every column of the sample), else the private dir's only CSV."""
    if not private.is_dir():
        return None
    named = meta.get("answers")
    if named:
        path = private / named
        if not path.is_file():
            raise CompetitionError(f"{path} is missing (named by {METADATA_FILE})")
        return path
    # tensorflow2-QA's test.jsonl: every true answer, not gold_submission.csv's first
    annotated = _annotated_answers(private, sample)
    if annotated is not None:
        return annotated
    present = [private / name for name in ANSWER_FILE_NAMES if (private / name).is_file()]
    # Where several are there, the first holding every column of the sample: vinbigdata's answers.csv holds the
    # test's box rows, its gold_submission.csv the submission's `image_id`, `PredictionString`.
    wanted = set(_sample_columns(sample)) if len(present) > 1 else set()
    fitting = [path for path in present if wanted <= set(_header(path))]
    found = (fitting or present or [None])[0]
    if found is None:
        csvs = sorted(private.glob("*.csv"))
        found = csvs[0] if len(csvs) == 1 else None
    return found


def _annotated_answers(private: Path, sample: Path) -> Path | None:
    """A private `.jsonl` of records with `annotations` and the sample's id field, where the sample's ids are
    `<id>_long` and `<id>_short` (tensorflow2-question-answering's `test.jsonl`); else None."""
    columns = _sample_columns(sample)
    files = sorted(private.glob("*.jsonl"))
    if len(columns) != 2 or not files:
        return None
    try:
        ids = pd.read_csv(sample, usecols=[columns[0]], dtype=str, keep_default_na=False)[columns[0]]
    except (OSError, ValueError):
        return None
    if set(ids.str.strip().str.rsplit("_", n=1).str[-1]) != set(ANSWER_KINDS):
        return None
    for path in files:
        record = first_record(str(path))
        if record and ANNOTATIONS in record and columns[0] in record:
            return path
    return None


def _sample_columns(sample: Path) -> list[str]:
    try:
        return list(pd.read_csv(sample, nrows=0).columns)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise CompetitionError(f"{sample} is not a readable CSV: {exc}") from exc


def _header(path: Path) -> list[str]:
    """A CSV's column names; none where it cannot be read."""
    try:
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    except (OSError, ValueError, UnicodeDecodeError):
        return []


def _file_ids(folder: Path) -> set[str]:
    """The names and stems of the files in a test folder (an id may name its file with or without suffix)."""
    names = set()
    for entry in folder.rglob("*"):
        if entry.is_file():
            names.update((entry.name, entry.stem))
    return names


def _version(path: Path) -> int | None:
    """A file's or dir's modification time (ns), or None when it is not there."""
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def find_id_column(sample: Path, columns: list[str]) -> str:
    """The sample submission's id column, found by matching the test items: the first column whose values are
    exactly the ids of test.csv's column of that name, or the names of the files in a test/ folder; the first
    column when none matches (or there is nothing to match against). A first column that is a target (a date
    the submission predicts for, say) is then not taken for the id. Of several columns copied from test.csv, the
    first whose values are unique and never empty (detecting-insults: `Comment`, not `Date`). Read once per version of the files: a
    run loads its competition several times, and the sample and test tables can be large."""
    public = sample.parent
    versions = (_version(sample), _version(public / "test.csv"), _version(public / "test"))
    return _matching_id_column(sample, tuple(columns), versions)


@functools.lru_cache(maxsize=32)
def _matching_id_column(sample: Path, columns: tuple[str, ...], versions: tuple[int | None, ...]) -> str:
    """find_id_column's reading and matching (`versions` only keys the cache)."""
    public = sample.parent
    try:
        frame = pd.read_csv(sample, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return columns[0]
    test_csv, folder = public / "test.csv", public / "test"
    if test_csv.is_file():
        try:
            shared = [c for c in pd.read_csv(test_csv, nrows=0).columns if c in frame.columns]
            test = pd.read_csv(test_csv, dtype=str, keep_default_na=False, usecols=shared)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
            return columns[0]
        matching = [
            c for c in columns if c in test.columns and set(frame[c].str.strip()) == set(test[c].str.strip())
        ]
        # Of several (a date and a comment, both copied from the test rows), one that names each row once.
        unique = [
            c for c in matching if frame[c].str.strip().is_unique and (frame[c].str.strip() != "").all()
        ]
        if unique or matching:
            return (unique or matching)[0]
        renamed = _id_under_another_case(frame, columns, test_csv)
        if renamed:
            return renamed
    elif folder.is_dir():
        files = _file_ids(folder)
        for column in columns:
            values = set(frame[column].str.strip())
            if values and values <= files:
                return column
    return columns[0]


def _id_under_another_case(frame: pd.DataFrame, columns: tuple[str, ...], test_csv: Path) -> str | None:
    """The first sample column whose values are exactly those of a test.csv column named the same but for case
    (iwildcam-2019's sample `Id` for test.csv's `id`), unique and never empty; None when there is none."""
    header = {str(c).lower(): str(c) for c in pd.read_csv(test_csv, nrows=0).columns}
    pairs = {c: header[c.lower()] for c in columns if c.lower() in header and header[c.lower()] != c}
    if not pairs:
        return None
    test = pd.read_csv(test_csv, dtype=str, keep_default_na=False, usecols=list(set(pairs.values())))
    for column, test_column in pairs.items():
        values = frame[column].str.strip()
        if values.is_unique and (values != "").all() and set(values) == set(test[test_column].str.strip()):
            return column
    return None


def table_id_column(public: Path, id_column: str) -> str:
    """The name the competition's tables give the sample's id column: itself, or test.csv's column named the
    same but for case (iwildcam-2019's `id` for the sample's `Id`)."""
    test_csv = public / "test.csv"
    try:
        header = [str(c) for c in pd.read_csv(test_csv, nrows=0).columns] if test_csv.is_file() else []
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return id_column
    if id_column in header:
        return id_column
    return next((c for c in header if c.lower() == id_column.lower()), id_column)


def _metric_spec(meta: dict, metric: str | None, sample: Path) -> MetricSpec | None:
    columns = _sample_columns(sample)
    if len(columns) < 2:
        raise CompetitionError(f"{sample} must have an id column and at least one target column")
    meta_metric = meta.get("metric") or {}
    if isinstance(meta_metric, str):
        meta_metric = {"name": meta_metric}
    if not isinstance(meta_metric, dict):
        raise CompetitionError(f'{METADATA_FILE} `metric` must be an object: {{"name": ..., "params": ...}}')
    name = metric or meta_metric.get("name")
    if not name:
        return None
    known, params = resolve_metric(name)
    lower = meta_metric.get("lower_is_better") if not metric else None
    id_column = meta.get("id_column") or find_id_column(sample, columns)
    passthrough = (
        ()
        if meta.get("target_columns")
        else (
            *row_number_columns(sample, columns, id_column),
            *_passthrough_columns(sample, columns, id_column),
            *_image_size_columns(sample, columns, id_column, known),
        )
    )
    keys = () if meta.get("target_columns") else _key_columns(sample, columns, id_column, passthrough)
    targets = tuple(
        meta.get("target_columns") or [c for c in columns if c not in (id_column, *passthrough, *keys)]
    )
    missing = [c for c in (id_column, *targets) if c not in columns]
    if missing:
        raise CompetitionError(f"{sample} lacks column(s) {', '.join(missing)} named by {METADATA_FILE}")
    return MetricSpec(
        name=known.name,
        lower_is_better=known.lower_is_better if lower is None else bool(lower),
        id_column=id_column,
        target_columns=targets,
        labels=_declared_labels(meta, targets),
        params=_metric_params(meta_metric, metric, known, params),
        passthrough_columns=passthrough,
        key_columns=keys,
    )


def row_number_columns(sample: Path, columns: list[str], id_column: str) -> tuple[str, ...]:
    """The sample's columns with no name (pandas reads them as `Unnamed: <n>`) whose values are the rows'
    numbers 0, 1, ...: the index `to_csv(index=True)` wrote (iwildcam-2019's sample), copied, not predicted."""
    unnamed = [c for c in columns if c != id_column and re.fullmatch(r"Unnamed: \d+|", c)]
    if not unnamed or len(unnamed) >= len(columns) - 1:
        return ()
    try:
        frame = pd.read_csv(sample, dtype=str, keep_default_na=False, usecols=unnamed)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return ()
    numbers = [str(k) for k in range(len(frame))]
    return tuple(c for c in unnamed if frame[c].str.strip().tolist() == numbers)


def _passthrough_columns(sample: Path, columns: list[str], id_column: str) -> tuple[str, ...]:
    """The sample's columns besides the id whose values are test.csv's for the same ids: copied from the test
    rows, not predicted (detecting-insults' `Date`; not osic's `FVC`, which test.csv also has but with other
    values). None when test.csv lacks the id column or that would leave no target."""
    test_path = sample.parent / "test.csv"
    if not test_path.is_file():
        return ()
    try:
        header = set(pd.read_csv(test_path, nrows=0).columns)
        shared = [c for c in columns if c != id_column and c in header]
        if not shared or id_column not in header:
            return ()
        read = {"dtype": str, "keep_default_na": False, "usecols": [id_column, *shared]}
        rows, test = pd.read_csv(sample, **read), pd.read_csv(test_path, **read)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return ()
    if not test[id_column].is_unique or not rows[id_column].is_unique:
        return ()
    paired = rows.merge(test, on=id_column, how="inner", suffixes=("", " (test)"))
    if len(paired) != len(rows):
        return ()
    copied = tuple(c for c in shared if paired[c].str.strip().equals(paired[f"{c} (test)"].str.strip()))
    return copied if len(copied) < len(columns) - 1 else ()


def _key_columns(
    sample: Path, columns: list[str], id_column: str, passthrough: tuple[str, ...]
) -> tuple[str, ...]:
    """Where the sample repeats ids, the first other column that with the id names each row once (uw-madison's
    `class`: a row per (slice, organ); smartphone-decimeter's `UnixTimeMillis`: a row per (trip, second)); none
    where the ids are unique, or no single column completes them, or that would leave no target."""
    others = [c for c in columns if c != id_column and c not in passthrough]
    try:
        ids = pd.read_csv(sample, dtype=str, keep_default_na=False, usecols=[id_column])[id_column]
        if not ids.duplicated().any():  # the common case: read no further
            return ()
        frame = pd.read_csv(sample, dtype=str, keep_default_na=False, usecols=[id_column, *others[:-1]])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return ()
    for column in others[:-1]:  # the last column is left as a target
        if not frame.duplicated([id_column, column]).any():
            return (column,)
    return ()


def _image_size_columns(sample: Path, columns: list[str], id_column: str, metric: Metric) -> tuple[str, ...]:
    """For a metric of masks (its params name the image's `height` and `width`), the sample's columns so named
    (any case) whose values are whole numbers: each mask's size, given with the test rows, not predicted
    (contrails' `height`, `width` beside `encoded_pixels`). None where that would leave no target."""
    if not {"height", "width"} <= set(metric.params):
        return ()
    named = [c for c in columns if c != id_column and c.lower() in ("height", "width")]
    if not named or len(named) >= len(columns) - 1:
        return ()
    try:
        frame = pd.read_csv(sample, dtype=str, keep_default_na=False, usecols=named)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return ()
    return tuple(c for c in named if frame[c].str.strip().str.fullmatch(r"\d+").all())


def _metric_params(
    meta_metric: dict, metric: str | None, known: Metric, from_name: dict[str, Any]
) -> dict[str, Any]:
    """competition.json `metric.params` (kept when the caller's `metric` is the same metric) and the name's."""
    declared = meta_metric.get("params") or {}
    if not isinstance(declared, dict):
        raise CompetitionError(f'{METADATA_FILE} `metric.params` must be an object, e.g. {{"k": 3}}')
    if metric and not _names_metric(meta_metric.get("name"), known):
        declared = {}
    # The caller's name wins over the file's params; the file's params win over the file's name (`map@3`).
    params = {**declared, **from_name} if metric else {**from_name, **declared}
    try:
        known.resolve_params(params)
    except CompetitionError as exc:
        raise CompetitionError(f"{METADATA_FILE} `metric.params`: {exc}") from None
    return params


def _names_metric(name: object, known: Metric) -> bool:
    try:
        return bool(name) and resolve_metric(str(name))[0].name == known.name
    except CompetitionError:
        return False


def _declared_labels(meta: dict, targets: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """competition.json `labels`: {target column: [label, ...]}, labels kept as text."""
    declared = meta.get("labels") or {}
    if not isinstance(declared, dict):
        raise CompetitionError(f"{METADATA_FILE} `labels` must map target columns to lists of labels")
    labels = {}
    for column, values in declared.items():
        if column not in targets:
            raise CompetitionError(f"{METADATA_FILE} `labels` names {column!r}, which is not a target column")
        if not isinstance(values, list) or not values:
            raise CompetitionError(f"{METADATA_FILE} `labels.{column}` must be a non-empty list")
        labels[column] = tuple(str(v).strip() for v in values)
    return labels


def _leaderboard_path(root: Path, meta: dict) -> Path | None:
    bundled = meta.get("bundled_leaderboard")
    if bundled:
        path = Path(__file__).parent / "leaderboards" / f"{bundled}.csv"
        return path if path.is_file() else None
    named = meta.get("leaderboard")
    if named:
        path = (root / named).resolve()
        if not path.is_file():
            raise CompetitionError(f"{path} is missing (named by {METADATA_FILE})")
        return path
    path = root / LEADERBOARD_FILE
    return path if path.is_file() else None


def scored_by(competition: Competition, metric: str) -> Competition:
    """`competition` scored by the metric `metric` names (as `load_competition_dir`'s `metric` would make it),
    its spec read again from the same competition.json and sample, without reading the rest of the dir again."""
    meta = _read_metadata(competition.root)
    return replace(competition, metric=_metric_spec(meta, metric, competition.sample_submission))


def load_competition_dir(
    path: str | Path, metric: str | None = None, cache_dir: str | Path | None = None
) -> Competition:
    """Read the competition at `path`; `metric` overrides (or supplies) the metric name. With `cache_dir`, a
    public dir holding archives is read through its view there (built once, see `archive_view`)."""
    root = _find_root(Path(path))
    public_only = _is_public_only(root)
    shipped = root if public_only else root / "prepared" / "public"
    # A public-only dir has no answers; `private_dir` then names where they would be and never exists.
    private = root / "prepared" / "private"
    if not shipped.is_dir():
        raise CompetitionError(f"{shipped} is missing")
    public = public_view(shipped, cache_dir) if cache_dir is not None else shipped
    description_path = public / "description.md"
    if not description_path.is_file():
        raise CompetitionError(f"{description_path} is missing")
    description = description_path.read_text(encoding="utf-8")
    sample = find_sample_submission(public, description)
    meta = _read_metadata(root)
    return Competition(
        id=str(meta.get("id") or root.name),
        root=root,
        public_dir=public,
        private_dir=private,
        description=description,
        sample_submission=sample,
        answers=None if public_only else _find_answers(private, meta, sample),
        metric=_metric_spec(meta, metric, sample),
        leaderboard=_leaderboard_path(root, meta),
        name=meta.get("name"),
        shipped_public_dir=shipped if public != shipped else None,
    )
