"""Which files of a competition's dir hold what the offline coder reads: the first registered layout its
detectors find (given as `layouts`, in the registry's order), else the labelled table, the test table and the
sample submission, with what the tables' columns say of the layout (composite ids, a row per position, per class,
per visit, per box, label sets, ids that join columns). Only the standard library, pandas and the readers:
embedded in solutions that infer their task at run time."""

import os

import pandas as pd

from swarm.formats.columns import main_labels_table
from swarm.formats.described_sample import described_test_table
from swarm.formats.id_parts import ID_PARTS_ROWS, id_part_columns
from swarm.formats.label_sets import class_sets, holds_several, within_classes
from swarm.formats.parquet_tables import is_parquet_name
from swarm.formats.probe import LABELLED_TABLES, Probe
from swarm.formats.records import is_records_file
from swarm.layouts.file_labels.reader import labelled_files
from swarm.offline_coder.examples import table_columns

# The tables the coder reads, by name: the labelled table (swarm.formats.probe's LABELLED_TABLES, else a labels
# table kept apart from image folders), test.csv when there is one (else the sample submission's ids are the test
# rows), and the sample submission. The sample's names repeat swarm.competitions.competition's
# SAMPLE_SUBMISSION_NAMES: this module is also pasted into solutions, which run without the swarm package.
TEST_TABLES = ("test.csv", "test.json", "test.jsonl")  # else a parquet labelled table's twin (test_twin)
SAMPLE_TABLES = ("sample_submission.csv", "sampleSubmission.csv", "sample_submission_null.csv")
SAMPLE_WORDS = ("sample", "submission")  # else the one CSV named so (en_sample_submission_2.csv)


def read_description(input_dir: str) -> str:
    for name in ("description.md", "description.txt"):
        path = os.path.join(input_dir, name)
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as handle:
                return handle.read()
    return ""


def _sample_as_text(input_dir: str, sample_name: str):
    """The sample submission as text, or None when it cannot be read or has no target column."""
    try:
        sample = pd.read_csv(os.path.join(input_dir, sample_name), dtype=str, keep_default_na=False)
    except (OSError, ValueError):
        return None
    return sample if sample.shape[1] >= 2 else None


def sample_table(input_dir: str, present: set) -> str | None:
    """The sample submission's name: one of SAMPLE_TABLES, else the one CSV whose name speaks of a sample or
    submission (not a train or test table), else None."""
    named = [name for name in SAMPLE_TABLES if name in present]
    if named:
        return named[0]
    found = [
        name
        for name in sorted(present)
        if name.lower().endswith(".csv")
        and any(word in name.lower() for word in SAMPLE_WORDS)
        and not name.lower().startswith(("train", "test"))
        and os.path.isfile(os.path.join(input_dir, name))
    ]
    return found[0] if len(found) == 1 else None


def labels_table(input_dir: str, sample_name: str, present: set, sample: pd.DataFrame) -> str | None:
    """The one top-level CSV or parquet table named with "train" or "label" (not a test table or the sample, `sample_name`, read
    as text in `sample`) that holds the sample's id column and every target (AI4Code's train_orders.csv), as the
    harness finds a labels table (None when several do); else one holding the id column and a column of the
    sample's class columns (`class_column`), of several the one not named as weaker labels (`main_labels_table`),
    else the first by name; None when there is none."""
    wanted = set(sample.columns)
    found, by_classes = [], []
    for name in sorted(present):
        lower = name.lower()
        if (
            name == sample_name
            or not (lower.endswith(".csv") or is_parquet_name(lower))
            or lower.startswith("test")
        ):
            continue
        if "train" in lower or "label" in lower:
            try:
                header = set(table_columns(os.path.join(input_dir, name)))
            except (OSError, ValueError, ImportError):
                continue
            if wanted <= header:
                found.append(name)
            elif sample.columns[0] in header and sample.shape[1] > 2 and lower.endswith(".csv"):
                by_classes.append(name)
    if found:
        return found[0] if len(found) == 1 else None
    classes = list(sample.columns[1:])
    holding = [n for n in by_classes if class_column(os.path.join(input_dir, n), sample.columns[0], classes)]
    # of several, the one not named as weaker labels (train_curated.csv beside train_noisy.csv), else the first
    return main_labels_table(holding) or (holding[0] if holding else None)


LABEL_SCAN_ROWS = 10_000  # a table's first rows, read to find a column of classes before it is read whole


def class_column(path: str, id_col: str, classes: list) -> tuple | None:
    """(name, values as text) of a CSV's first column (not the id) whose values are the sample's classes, one or
    a set joined with "," or blanks a row (swarm/formats/label_sets.py), or None. Only the first rows are read
    whole; a column they show to be classes is then read alone, so a large table (jigsaw's 1.8 million comments)
    is not read twice whole."""
    try:
        head = pd.read_csv(path, dtype=str, keep_default_na=False, nrows=LABEL_SCAN_ROWS)
        for column in (c for c in head.columns if c != id_col and within_classes(head[c], classes)):
            values = pd.read_csv(path, dtype=str, keep_default_na=False, usecols=[column])[column]
            if class_sets(values, classes) is not None:
                return column, values
    except (OSError, ValueError):
        return None
    return None


def label_sets_layout(input_dir: str, files: dict, sample: pd.DataFrame) -> str | None:
    """The labelled table's column of label sets (several of the sample's class columns joined with "," or blanks,
    as freesound's `labels`; swarm/formats/label_sets.py), which the solution spreads into a 0/1 column per class;
    None where the table has the sample's targets or a class per row (the wide probability format reads that)."""
    targets = [str(c) for c in sample.columns[1:]]
    if not files["train"] or is_records_file(files["train"]) or len(targets) < 2:
        return None
    path = os.path.join(input_dir, files["train"])
    try:
        if set(targets) <= {str(c) for c in pd.read_csv(path, nrows=0).columns}:
            return None
    except (OSError, ValueError):
        return None
    found = class_column(path, str(sample.columns[0]), targets)
    return found[0] if found is not None and holds_several(found[1], targets) else None


def _probe(input_dir: str, present: set, sample: str, text: pd.DataFrame) -> Probe:
    """The dir as the layouts' detectors see it: the sample (`sample`, read as `text`) has its id first."""
    description, sample_path = read_description(input_dir), os.path.join(input_dir, sample)
    targets = list(text.columns[1:])
    return Probe(input_dir, present, text, text.columns[0], targets, description, sample_path=sample_path)


def _discover(input_dir: str, layouts) -> tuple:
    """(files, missing): what find_data_files returns, found once (the composite-id check reads the test table
    and the sample, which can be large), and what of it `input_dir` lacks."""
    present = set(os.listdir(input_dir)) if os.path.isdir(input_dir) else set()
    sample = sample_table(input_dir, present) or (
        described_test_table(input_dir, read_description(input_dir)) if present else None
    )  # else a test table the description shows as a valid submission (billion-word-imputation's test_v2.txt)
    text = _sample_as_text(input_dir, sample) if sample else None  # read once: it can be millions of rows
    missing = [] if sample else ["sample_submission.csv"]
    probe = _probe(input_dir, present, sample, text) if text is not None else None
    for name, find, _ in layouts if probe is not None else ():  # the first registered layout found, by name
        fields = find(probe)
        if fields:
            return {"train": None, "train_files": None, "test": None, "sample": sample, name: fields}, missing
    train = next((name for name in LABELLED_TABLES if name in present), None)
    train = train or (labels_table(input_dir, sample, present, text) if text is not None else None)
    readable = text is not None
    layout = labelled_files(probe) if probe is not None and not train else None
    if not (train or layout):
        missing.insert(
            0,
            "train.csv (or train_labels.csv, labels.csv, train.json records, a train parquet table, training files "
            "labelled by their names or folders, target images, label sets in text lines, COCO-style JSON labels, "
            "training sentences a line where a word was taken out of each test sentence, a mask file in each example "
            "folder, a labels table in each example folder, or a log of events whose later ones the sample asks for)",
        )
    files = {
        "train": train,
        "train_files": layout,
        "test": next((name for name in TEST_TABLES if name in present), None) or test_twin(train, present),
        "sample": sample,
    }
    return _table_layouts(input_dir, files, text) if train and readable else files, missing


def _table_layouts(input_dir: str, files: dict, sample: pd.DataFrame) -> dict:
    """`files` with what the labelled table's columns say of the layout: a row per position of records, per
    (example, class), label sets, a row per visit, per box, or ids that join labelled columns (`sample` read as
    text)."""
    sets = label_sets_layout(input_dir, files, sample)
    if sets:  # label sets over the sample's class columns: spread into a 0/1 column per class
        files["label_sets"] = sets
    parts = id_parts_layout(input_dir, files, sample) if not files["test"] else None
    if parts:  # no test table: the sample's ids join labelled columns, which they give back
        files["id_parts"] = parts
    return files


def id_parts_layout(input_dir: str, files: dict, sample: pd.DataFrame) -> list | None:
    """The labelled table's columns whose values joined with "_" are each row's id, in order, where there is no
    test table (nfl-player-contact-detection: `contact_id` = `<game_play>_<step>_<p1>_<p2>`, the test's contacts
    listed by the sample alone); see `id_part_columns`. None otherwise."""
    if is_records_file(files["train"]):
        return None
    try:
        head = pd.read_csv(os.path.join(input_dir, files["train"]), nrows=ID_PARTS_ROWS, dtype=str,
                           keep_default_na=False)  # fmt: skip
    except (OSError, ValueError):
        return None
    return id_part_columns(head, str(sample.columns[0]), [str(c) for c in sample.columns[1:]])


def missing_tables(input_dir: str, layouts) -> list[str]:
    """What of the tables the coder needs `input_dir` lacks: labelled examples (a labelled table, training files
    labelled by their names or folders, or a `*train*.csv` beside a `*test*.csv` whose columns join into the
    sample's ids) and the sample submission (test.csv may be absent: then the sample submission's ids are the
    test rows)."""
    return _discover(input_dir, layouts)[1]


def find_data_files(input_dir: str, layouts) -> dict:
    """{"train": name or None, "train_files": layout or None, "test": name or None, "sample": name} of the tables in
    `input_dir`, or, where a registered layout (`layouts`, the registry's (name, find, read) in order) is found, its
    fields under its name beside "sample" (train_files: training files labelled by their names, when there is no
    labelled table); FileNotFoundError naming what is missing."""
    files, missing = _discover(input_dir, layouts)
    if missing:
        raise FileNotFoundError(f"{input_dir} lacks {' and '.join(missing)}")
    return files


def test_twin(train: str | None, present: set) -> str | None:
    """The parquet test table named as the labelled one with "test" for "train" (`test_meta.parquet` beside
    `train_meta.parquet`), if present."""
    if not train or not is_parquet_name(train) or "train" not in train.lower():
        return None
    twin = train.lower().replace("train", "test")
    return next((name for name in sorted(present) if name.lower() == twin), None)
