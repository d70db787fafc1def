"""Where a competition's labelled examples are, read for a harness split.

The labelled rows are `train.csv`'s, or, where the labels are kept apart from the inputs, a labels table's
(`train_labels.csv`, `labels.csv` beside image folders; JSON records read through `swarm.formats.records`), or, where
no table holds them, the training files themselves, labelled by their file or folder names
(`swarm.layouts.file_labels.reader`). `read_labelled_examples` finds them and the test table beside them and reads both, or
raises NoHoldout saying what was looked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from swarm.competitions.competition import Competition, MetricSpec, table_id_column
from swarm.evaluation.holdout_record import TEST, TRAIN, NoHoldout
from swarm.evaluation.labelled_data import MIN_LABELLED_ROWS, check_size
from swarm.evaluation.labels import wide_source
from swarm.evaluation.table_io import is_parquet, read_table, table_header
from swarm.formats.columns import main_labels_table
from swarm.formats.parquet_tables import PARQUET
from swarm.formats.probe import Probe
from swarm.formats.records import RECORD_SUFFIXES, is_records_file
from swarm.layouts.file_labels.reader import FILE_COLUMN, file_label_frame, labelled_files
from swarm.layouts.tables.labels_elsewhere import labels_elsewhere

LABEL_TABLE_WORDS = ("train", "label")


@dataclass
class LabelledExamples:
    """The labelled examples and the test table beside them, as `read_labelled_examples` found and read them."""

    path: Path  # the labelled table, or the folder of training files labelled by their names
    test_path: Path  # the test table beside it (it may not exist)
    layout: (
        dict | None
    )  # the file-labels layout (swarm.layouts.file_labels.reader) when files, not a table, hold the labels
    train: pd.DataFrame  # every labelled example as text
    records: list | None  # the labelled table's JSON records as they are, if it is records
    test: pd.DataFrame | None  # the test table as text, if there is one
    test_records: list | None  # its JSON records as they are, if it is records
    name: str  # how the labelled examples are named in the split's description
    id_name: (
        str  # the tables' name for the sample's id column (read under the sample's name in train and test)
    )


def read_labelled_examples(
    competition: Competition,
    spec: MetricSpec,
    targets: list[str],
    sample: pd.DataFrame,
    test_ids: list[str],
    max_train_mb: float,
    labels_table: str | None = None,
) -> LabelledExamples:
    """The labelled table (`labelled_table`; `labels_table` names it where several could be), else the training
    files labelled by their names, and the test table beside them, read; NoHoldout when there are none, the
    table is too large, or it has too few rows."""
    public = competition.public_dir
    layout = None
    id_name = table_id_column(public, spec.id_column)
    try:
        train_path = labelled_table(public, id_name, targets, competition.sample_submission, labels_table)
    except NoHoldout as no_table:
        layout = file_labels_layout(competition, spec.id_column, targets, sample)
        if layout is None:
            raise no_table from None
        train_path = public / layout["train"]
    test_path = find_test_table(public, train_path)
    records = None
    if layout is None:
        check_size(train_path, max_train_mb)
        train, records = read_table(train_path)
    else:
        train = file_label_frame(str(public), layout).astype(str)
        if spec.id_column != FILE_COLUMN:
            train.insert(0, spec.id_column, train[FILE_COLUMN])
    test, test_records = read_table(test_path) if test_path.is_file() else (None, None)
    name = train_path.name if layout is None else describe_layout(layout)
    if len(train) < MIN_LABELLED_ROWS:
        raise NoHoldout(f"{name} has only {len(train)} rows")
    if id_name != spec.id_column and records is None:  # the tables' `id` read as the sample's `Id`
        train = train.rename(columns={id_name: spec.id_column})
        test = None if test is None else test.rename(columns={id_name: spec.id_column})
        name += f" ({id_name} as {spec.id_column})"
    else:
        id_name = spec.id_column
    return LabelledExamples(train_path, test_path, layout, train, records, test, test_records, name, id_name)


def find_test_table(public: Path, train_path: Path) -> Path:
    """The test table beside a labelled one: test.json(l) beside train.json(l) records, the parquet table named
    as the labelled one with "test" for "train" (`test_meta.parquet` beside `train_meta.parquet`), else
    test.csv."""
    twin = public / train_path.name.lower().replace("train", "test")
    if is_parquet(train_path) and "train" in train_path.name.lower() and twin.is_file():
        return twin
    for suffix in RECORD_SUFFIXES if is_records_file(str(train_path)) else ():
        if (public / f"test{suffix}").is_file():
            return public / f"test{suffix}"
    return public / TEST


def labelled_table(
    public: Path, id_column: str, targets: list[str], sample: Path, chosen: str | None = None
) -> Path:
    """The public table of labelled examples: `train.csv` when it holds the submission's target columns, else
    the one other CSV (or parquet table, or JSON records) named like training data or labels (`train_labels.csv`, `labels.csv`)
    that holds the id column and every target column (or their classes, `_holds_labels`), else `train.csv` (its
    targets may be one column of class values, see `swarm.evaluation.labels.submission_labels`). Where several
    tables hold the labels, `chosen` (evaluation.labels_table) names it, else the one not named as weaker labels
    (freesound's train_curated.csv beside train_noisy.csv, `main_labels_table`). NoHoldout, naming what was
    looked for, when there is none, or several and none stands out."""
    train = public / TRAIN
    if chosen:
        path = public / chosen
        usable = (
            path.parent == public
            and path.is_file()
            and path != sample
            and not chosen.lower().startswith("test")
        )
        if not usable or not _holds_labels(path, id_column, targets):
            raise NoHoldout(
                f"evaluation.labels_table names {chosen!r}, which is no top-level table of {public.name}/ holding "
                f"the column(s) {', '.join([id_column, *targets][:6])} (or their classes)"
            )
        return path
    if train.is_file() and all(t in table_header(train) for t in targets):
        return train
    tables = [
        path
        for path in sorted(
            p for p in public.iterdir() if p.suffix.lower() in (".csv", PARQUET, *RECORD_SUFFIXES)
        )
        if path not in (train, sample)
        and not path.name.lower().startswith("test")
        and any(word in path.name.lower() for word in LABEL_TABLE_WORDS)
        and _holds_labels(path, id_column, targets)
    ]
    if len(tables) == 1:
        return tables[0]
    main = main_labels_table([t.name for t in tables])
    if main is not None:  # the others are named as weaker labels (train_noisy.csv): they stay whole
        return public / main
    if len(tables) > 1:
        raise NoHoldout(
            f"several tables hold the labels ({', '.join(t.name for t in tables)}), so which rows are labelled "
            "is ambiguous: name the one to hold rows out of with evaluation.labels_table (or competition.json's "
            "labels_table)"
        )
    if train.is_file():
        return train
    raise NoHoldout(
        f"there is no {TRAIN} of labelled rows in {public}, nor a labels table (train_labels.csv, labels.csv) "
        f"holding the column(s) {', '.join([id_column, *targets][:6])}{labels_elsewhere(public, id_column, targets, sample)}"
    )


def _holds_labels(path: Path, id_column: str, targets: list[str]) -> bool:
    """Whether a table holds the id column and every target column, or, for a submission with a column per
    class, one column of those classes (dog-breed-identification's `labels.csv`: `id,breed`)."""
    header = set(table_header(path))
    if id_column not in header:
        return False
    if set(targets) <= header:
        return True
    if len(targets) < 2:
        return False
    try:
        frame, _ = read_table(path)
    except NoHoldout:
        return False
    return wide_source(frame.drop(columns=[id_column]), targets) is not None


def file_labels_layout(
    competition: Competition, id_column: str, targets: list[str], sample: pd.DataFrame
) -> dict | None:
    """The layout of training files labelled by their names or folders (`swarm.layouts.file_labels.reader`'s
    `labelled_files`, as the offline coder finds it), or None."""
    public = competition.public_dir
    names = [path.name for path in public.iterdir()]
    return labelled_files(Probe(public, names, sample, id_column, targets, competition.description))


def describe_layout(layout: dict) -> str:
    """How the labelled examples were read, for the split's description."""
    if layout["kind"] == "variants":
        return (
            f"{', '.join(layout['folders'])} (versions of the same files, {layout['negative']} the originals)"
        )
    where = "file names" if layout["kind"] == "names" else "folder names"
    positive = f", {layout['positive']} = 1" if layout.get("positive") is not None else ""
    return f"{layout['train']}/ (labels in {where}{positive})"
