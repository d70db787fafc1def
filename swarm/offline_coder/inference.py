"""Infer a tabular competition's task from its files: id column, targets, task type, metric.

Self-contained on purpose (only pandas and numpy, plain dicts out): the offline coder calls it at generation
time, and embeds this module's source into a solution when it has no data to look at, so the solution can
infer its task at run time with the same rules.

The task dict: {"id_col": str, "metric": str, "lower_is_better": bool, "targets": [target, ...]}, where a target
is {"name": str, "task": "binary" | "multiclass" | "regression" | "lookup" | "boxes" | "insert_word" | "mask" |
"recommend",
"output": "label" | "proba" | "value" | "proba_wide" | "boxes" | "text" | "rle", "positive": value or None, "columns": {submission
column: class value} or None, "skewed": bool, "column": the submission's column where it names the target
otherwise, and for a lookup (free text) "source": the column whose values name the answer and "identity": an
unseen value answers itself}, and "columns" is {column: kind info} from swarm/formats/columns.py (its source is embedded
too). A "boxes" target is a string of boxes per example (swarm/layouts/boxes/reader.py); an "insert_word" target a sentence
with a word taken out, to put back (swarm/layouts/sentences/reader.py); a "mask" target a run-length encoded mask per
example folder, or per (image, class) row (swarm/layouts/masks/reader.py); a "recommend" target each id's next items of a
log of events (swarm/layouts/later_events/reader.py).
"""

import os
import re

import numpy as np
import pandas as pd

try:
    from swarm.formats.columns import all_numbers, column_kinds, main_labels_table, renamed_source
    from swarm.formats.described_sample import described_test_table
    from swarm.formats.label_sets import class_sets, holds_several, spread_label_sets, within_classes
    from swarm.formats.parquet_tables import is_parquet_name, parquet_columns, parquet_table
    from swarm.formats.records import (
        is_records_file,
        position_fields,
        position_rows,
        read_records,
        records_table,
    )
    from swarm.layouts.boxes.reader import box_labels, box_row_fields, box_strings
    from swarm.layouts.bson.reader import BSON_MAX_DOCUMENTS, bson_fields, bson_table
    from swarm.layouts.coco.reader import coco_examples, coco_fields, coco_test_files
    from swarm.layouts.file_labels.reader import (
        FILE_COLUMN,
        file_label_frame,
        find_file_labels,
        test_file_paths,
    )
    from swarm.layouts.folder_rows.reader import (
        example_folders,
        folder_rows_fields,
        labelled_rows,
        with_inputs,
    )
    from swarm.layouts.label_lines.reader import label_line_rows, label_lines_fields
    from swarm.layouts.later_events.reader import horizon_days, later_events_fields
    from swarm.layouts.levels.reader import LEVEL_COLUMN, id_levels, level_fields, level_rows
    from swarm.layouts.long_classes.reader import long_class_fields, long_class_rows
    from swarm.layouts.masks.reader import mask_examples, mask_fields, slice_fields
    from swarm.layouts.pixels.reader import PIXEL_TRAIN_ROWS, pixel_fields, pixel_rows, pixel_stems
    from swarm.layouts.qa.reader import QA_MAX_RECORDS, qa_fields, qa_rows
    from swarm.layouts.sentences.reader import read_sentences, sentence_lines_file
    from swarm.layouts.visits.reader import visit_fields, visit_frames
except ImportError:
    # embedded in a solution: the sources of swarm.formats.columns, file_labels, records, parquet_tables,
    # long_class_rows, pixel_rows, label_lines, coco_records, label_sets, box_rows, sentence_lines,
    # described_sample, visit_rows, mask_folders, folder_rows, level_rows, qa_records, bson_records and
    # later_events precede it
    column_kinds = globals()["column_kinds"]
    all_numbers, renamed_source = globals()["all_numbers"], globals()["renamed_source"]
    main_labels_table = globals()["main_labels_table"]
    FILE_COLUMN, file_label_frame = globals()["FILE_COLUMN"], globals()["file_label_frame"]
    find_file_labels, test_file_paths = globals()["find_file_labels"], globals()["test_file_paths"]
    is_records_file, records_table = globals()["is_records_file"], globals()["records_table"]
    is_parquet_name, parquet_columns = globals()["is_parquet_name"], globals()["parquet_columns"]
    parquet_table = globals()["parquet_table"]
    position_fields, position_rows = globals()["position_fields"], globals()["position_rows"]
    read_records = globals()["read_records"]
    long_class_fields, long_class_rows = globals()["long_class_fields"], globals()["long_class_rows"]
    PIXEL_TRAIN_ROWS, pixel_fields = globals()["PIXEL_TRAIN_ROWS"], globals()["pixel_fields"]
    pixel_rows, pixel_stems = globals()["pixel_rows"], globals()["pixel_stems"]
    label_line_rows, label_lines_fields = globals()["label_line_rows"], globals()["label_lines_fields"]
    coco_examples, coco_fields = globals()["coco_examples"], globals()["coco_fields"]
    coco_test_files = globals()["coco_test_files"]
    class_sets, holds_several = globals()["class_sets"], globals()["holds_several"]
    spread_label_sets, within_classes = globals()["spread_label_sets"], globals()["within_classes"]
    box_row_fields, box_strings = globals()["box_row_fields"], globals()["box_strings"]
    box_labels = globals()["box_labels"]
    read_sentences, sentence_lines_file = globals()["read_sentences"], globals()["sentence_lines_file"]
    described_test_table = globals()["described_test_table"]
    visit_fields, visit_frames = globals()["visit_fields"], globals()["visit_frames"]
    mask_examples, mask_fields = globals()["mask_examples"], globals()["mask_fields"]
    slice_fields = globals()["slice_fields"]
    example_folders, folder_rows_fields = globals()["example_folders"], globals()["folder_rows_fields"]
    labelled_rows, with_inputs = globals()["labelled_rows"], globals()["with_inputs"]
    horizon_days, later_events_fields = globals()["horizon_days"], globals()["later_events_fields"]
    LEVEL_COLUMN, id_levels = globals()["LEVEL_COLUMN"], globals()["id_levels"]
    level_fields, level_rows = globals()["level_fields"], globals()["level_rows"]
    QA_MAX_RECORDS, qa_fields, qa_rows = (
        globals()["QA_MAX_RECORDS"],
        globals()["qa_fields"],
        globals()["qa_rows"],
    )

CLASSIFICATION_METRICS = ("accuracy", "auc", "logloss", "f1")
REGRESSION_METRICS = ("rmse", "rmsle", "mae", "r2")
LOWER_IS_BETTER = {"accuracy": False, "auc": False, "logloss": True, "f1": False, "rmse": True,
                   "rmsle": True, "mae": True, "r2": False}  # fmt: skip
_RMSE = r"(?:\brmse\b|root[\s-]+mean[\s-]+squared?[\s-]+error)"
_LOGLOSS = r"(?:\blog(?:arithmic)?[\s-]*loss|cross[\s-]*entropy)"
_F1 = r"(?:\bf1\b|\bf[\s-]?(?:1[\s-]?)?score\b|\bf[\s-]?measure\b)"
# Whole metric names: in a scope the earliest match wins, at one position the first pattern in this order.
# Names the offline coder does not know map to the nearest it does (metric library names -> these: multi-class
# and multi-label log loss -> logloss, RMSE of logs and RMSLE -> rmsle, MCRMSE and MSE -> rmse, macro/micro/
# weighted F1 -> f1, balanced accuracy and top-1 classification error -> accuracy), or to None (QWK, MAP@K,
# SMAPE, Spearman, Pearson, and metrics no library here has: Dice, PR-AUC, ...), which ends the search.
METRIC_PATTERNS = (
    ("rmse", rf"\bmcrmse\b|column[\s-]*wise[\s-]+{_RMSE}"),
    ("logloss", rf"multi[\s-]*(?:class|label)[\s-]+(?:{_LOGLOSS}|loss\b)"
                rf"|column[\s-]*wise[\s-]+(?:binary[\s-]+)?{_LOGLOSS}"),
    ("logloss", rf"{_LOGLOSS}|logistic[\s-]+loss"),
    ("rmsle", r"\brmsle\b|root[\s-]+mean[\s-]+squared?[\s-]+log(?:arithmic)?[\s-]+error"),
    ("rmsle", rf"{_RMSE}(?:[^.\n]|\n(?![ \t]*\n)){{0,150}}?\blog(?:arithm(?:ic|s)?|s|1p)?\b"),
    ("rmse", rf"{_RMSE}|\bmse\b|mean[\s-]+squared?[\s-]+error"),
    (None, r"\bs?mape\b|(?:symmetric[\s-]+)?mean[\s-]+absolute[\s-]+percentage[\s-]+error"),
    ("mae", r"\bmae\b|mean[\s-]+absolute[\s-]+error"),
    (None, r"\bqwk\b|quadratic(?:ally)?[\s-]+weighted[\s-]+(?:cohen'?s[\s-]+)?kappa|cohen'?s[\s-]+kappa"
           r"|weighted[\s-]+kappa"),
    ("auc", r"\blwlrap\b|label[\s-]+weighted[^.\n]{0,5}label[\s-]+ranking"),  # ranks each clip's classes
    (None, r"area[\s-]+under[\s-]+(?:the[\s-]+)?(?:precision[\s-]+recall|pr)\b|\bpr[\s-]*auc\b"
           r"|\bauc[\s-]*pr\b|\bauprc?\b|average[\s-]+precision|\bmap\s*@|\bap\s*@"),
    ("auc", r"area[\s-]+under[\s-]+(?:the[\s-]+)?(?:roc\b|receiver[\s-]+operating[\s-]+characteristic)"
            r"|(?<!pr )(?<!pr-)(?<!recall )\b(?:roc[\s-]*)?auc\b"),
    (None, r"\bf[\s-]?0?\.5\b|\bf[\s-]?2[\s-]*(?:score|measure)\b|\bf[\s-]?beta\b|\bfbeta\b|\bf_\{?\\beta"),
    ("f1", _F1),
    (None, r"\bspearman|\bpearson"),
    ("r2", r"\br2\b|\br\s*\^\s*2|\br\u00b2|\br[\s-]+squared\b|coefficient[\s-]+of[\s-]+determination"),
    ("accuracy", r"balanced[\s-]+accuracy"),
    (None, r"\bdice\b|s(?:\u00f8|o)rensen|\bjaccard\b|intersection[\s-]+over[\s-]+union|\biou\b|levenshtein"
           r"|\bedit[\s-]+distance|\bbleu\b|\brouge\b|\b(?:word|character)[\s-]+error[\s-]+rate|kullback"
           r"|\bkl[\s-]+divergence|log[\s-]+likelihood|\bcrps\b|continuous[\s-]+ranked[\s-]+prob|matthews"
           r"|\bmcc\b|hausdorff|kendall|\bgini\b|pinball|quantile[\s-]+loss"
           r"|percentile\b[^.\n]{0,30}?\berrors?\b|angular[\s-]+(?:error|distance)"),
)  # fmt: skip
# Fragments and words that prose uses loosely: read only when no whole name is found.
METRIC_FRAGMENTS = (
    ("auc", r"\broc\b|area[\s-]+under[\s-]+(?:the[\s-]+)?curve"),
    ("accuracy", r"\baccuracy\b|percentage[\s-]+of\b[^.\n]{0,40}?\bcorrectly"),
    ("accuracy", r"(?:top[\s-]*1[\s-]+)?(?<![02-9][\s-])classification[\s-]+error"
                 r"|(?<!word )\berror[\s-]+rate\b"),
)  # fmt: skip
SHARE_THRESHOLD = 0.5  # a share target scored as classes is 1 from this share on (jigsaw's toxicity)
POSITIVE_WORDS = ("1", "yes", "true", "y", "t", "positive", "pos", "survived", "churn", "churned", "default")


def _evaluation_part(text: str) -> str | None:
    """The Evaluation section: its markdown heading up to the next heading as high (else from the word on)."""
    headings = list(re.finditer(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*)$", text, re.MULTILINE))
    for i, heading in enumerate(headings):
        if re.search(r"\bevaluation\b|\bmetrics?\b|\bscoring\b", heading.group(2), re.IGNORECASE):
            ends = [h.start() for h in headings[i + 1 :] if len(h.group(1)) <= len(heading.group(1))]
            return text[heading.end() : ends[0] if ends else len(text)]
    start = text.lower().find("evaluation")
    return text[start:] if start >= 0 else None


def _first_metric(patterns: tuple, scope: str) -> tuple | None:
    """(found, name) of the pattern matching first in `scope` (the earlier pattern at a tie), or None."""
    best = None
    for order, (name, pattern) in enumerate(patterns):
        found = re.search(pattern, scope, re.IGNORECASE)
        if found and (best is None or (found.start(), order) < best[0]):
            best = ((found.start(), order), name)
    return best


def metric_from_description(text: str) -> str | None:
    """The metric named by a competition description, preferring its evaluation part; None if none.

    None too when the name found first is one the offline coder does not know (QWK, Dice, ...).
    """
    text = text or ""
    part = _evaluation_part(text)
    for scope in [part, text] if part else [text]:
        for patterns in (METRIC_PATTERNS, METRIC_FRAGMENTS):
            best = _first_metric(patterns, scope)
            if best:
                return best[1]
    return None


def _is_integer_valued(values: pd.Series) -> bool:
    if not pd.api.types.is_numeric_dtype(values):
        return False
    arr = values.to_numpy(dtype=float)
    return bool(np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))


def _native(value):
    return value.item() if isinstance(value, np.generic) else value


def _positive_class(classes: list):
    for cls in classes:
        if str(cls).strip().lower() in POSITIVE_WORDS:
            return cls
    return classes[-1]


def _looks_like_probabilities(values: pd.Series, classes: list) -> bool:
    if not pd.api.types.is_numeric_dtype(values):
        return False
    arr = values.dropna().to_numpy(dtype=float)
    if arr.size == 0 or arr.min() < 0 or arr.max() > 1:
        return False
    class_set = {str(c) for c in classes}
    return not all(str(_native(v)) in class_set for v in values.dropna().unique())


def _wide_target(train: pd.DataFrame, columns: list[str]) -> str | None:
    """The train column whose class values are among the submission's columns (wide probability format; a class
    no training row has is a column of zeros), as the harness reads it (swarm/evaluation/labels.py)."""
    wanted = {str(c) for c in columns}
    for col in train.columns:
        values = train[col].dropna().unique()
        if 2 <= len(values) <= 1000 and {str(_native(v)) for v in values} <= wanted:
            return col
    return None


def _shares(y: pd.Series, sample_values: pd.Series) -> bool:
    """Whether a target scored as classes holds shares in [0, 1] rather than classes (jigsaw-unintended-bias's
    `target`, the share of raters who found a comment toxic): numbers, not all 0 or 1, over 2 distinct values, and
    the sample's values numbers too."""
    if not pd.api.types.is_numeric_dtype(y) or y.nunique() <= 2 or _is_integer_valued(y):
        return False
    arr = y.to_numpy(dtype=float)
    return bool(
        arr.min() >= 0 and arr.max() <= 1 and pd.to_numeric(sample_values, errors="coerce").notna().all()
    )


def _target_spec(name: str, y: pd.Series, sample_values: pd.Series, metric: str | None) -> dict:
    y = y.dropna()
    few_ints = _is_integer_valued(y) and y.nunique() <= 10
    if metric in REGRESSION_METRICS:
        classify = False
    elif metric in CLASSIFICATION_METRICS:
        classify = True
    else:
        classify = not pd.api.types.is_numeric_dtype(y) or few_ints
    if not classify:
        arr = y.to_numpy(dtype=float)
        skewed = bool(arr.min() >= 0 and pd.Series(arr).skew() > 1.0)
        return {"name": name, "task": "regression", "output": "value", "positive": None, "columns": None,
                "skewed": skewed}  # fmt: skip
    if _shares(y, sample_values) and metric in ("auc", "logloss"):  # shares of raters: 1 from half on
        return {"name": name, "task": "binary", "output": "proba", "positive": 1, "columns": None,
                "skewed": False, "threshold": SHARE_THRESHOLD}  # fmt: skip
    classes = sorted((_native(v) for v in y.unique()), key=lambda v: (str(type(v)), v))
    task = "binary" if len(classes) == 2 else "multiclass"
    proba = metric in ("auc", "logloss") or (
        metric is None and _looks_like_probabilities(sample_values, classes)
    )
    return {"name": name, "task": task, "output": "proba" if proba else "label",
            "positive": _positive_class(classes) if task == "binary" else None, "columns": None,
            "skewed": False}  # fmt: skip


# More distinct text answers than this make a target free text (text normalization's `after`): it is answered by
# looking each row's value up, not by a classifier over every answer.
OPEN_CLASSES = 200


def most_common_answers(keys: pd.Series, answers: pd.Series) -> pd.Series:
    """Each key's most common answer (ties: the first seen), as a Series indexed by key."""
    pairs = pd.DataFrame({"key": keys.to_numpy(), "answer": answers.to_numpy()})
    counted = pairs.value_counts(sort=True).reset_index()
    return counted.drop_duplicates("key").set_index("key")["answer"]


def _boxes(target: dict, train: pd.DataFrame, sample: pd.DataFrame) -> dict:
    """`target` as boxes where its labelled values and the sample's are box strings (`<class> <confidence>
    <x_min> <y_min> <x_max> <y_max>` groups; swarm/layouts/boxes/reader.py): a classifier per class gives each class's
    confidence, at the class's mean box. Other targets are returned as they are."""
    column = target.get("column") or target["name"]
    if column not in sample.columns or box_labels(sample[column]) is None:
        return target
    if box_labels(train[target["name"]]) is None:
        return target
    return {**target, "task": "boxes", "output": "boxes", "positive": None, "columns": None}


def _free_text(target: dict, train: pd.DataFrame, test: pd.DataFrame, skip: set) -> dict:
    """`target` as a lookup where its answers are free text (over OPEN_CLASSES distinct non-numeric values, or most
    rows an answer of their own: AI4Code's cell orders, chaii's answer spans): the
    text column of both tables whose values best name the answer (each value's most common answer, fitted on
    half the rows and checked on the other half), and whether a value never seen is best answered by itself
    (`identity`: most answers repeat their value, as text normalization's `after` repeats `before`) or by the
    most common answer. Other targets are returned as they are."""
    y = train[target["name"]]
    if target["task"] == "regression" or target["output"] != "label" or all_numbers(y):
        return target
    y = y.dropna().astype(str)
    distinct = y.nunique()
    if distinct <= OPEN_CLASSES and distinct <= max(20, len(y) // 2):  # few, or repeated: classes to learn
        return target
    checked = np.arange(len(y)) % 2 == 1
    best = (-1.0, None, False)
    for column in train.columns:
        if column in skip or column not in test.columns or pd.api.types.is_numeric_dtype(train[column]):
            continue
        keys = train.loc[y.index, column].astype(str)
        identity = bool((keys == y).mean() > 0.5)
        guessed = keys[checked].map(most_common_answers(keys[~checked], y[~checked]))
        fallback = keys[checked] if identity else y[~checked].mode().iloc[0]
        right = float((guessed.fillna(fallback) == y[checked]).mean())
        if right > best[0]:
            best = (right, column, identity)
    return {**target, "task": "lookup", "source": best[1], "identity": best[2], "positive": None}


def _renamed_target(
    train: pd.DataFrame, test: pd.DataFrame, sample: pd.DataFrame, sub_cols: list, metric: str | None
) -> tuple | None:
    """(train column, submission column) where the submission names its one missing target otherwise than the
    labelled table does (chaii's `PredictionString` is train's `answer_text`): of the train columns known only
    for labelled rows (in neither the test table nor the sample), swarm/formats/columns.py's renamed_source for the
    target's kind (numbers where the metric or the sample's values are numbers, text where the sample's are
    text), as the harness reads it (swarm/evaluation/labels.py `renamed_target`)."""
    missing = [c for c in sub_cols if c not in train.columns]
    if len(missing) != 1:
        return None
    candidates = [c for c in train.columns if c not in sample.columns and c not in test.columns]
    numeric = {c: all_numbers(train[c]) for c in candidates}
    shown = sample[missing[0]].dropna().astype(str).str.strip()
    shown = shown[shown != ""]
    numbers = True if metric in REGRESSION_METRICS or (len(shown) and all_numbers(shown)) else None
    source = renamed_source(candidates, numeric, False if numbers is None and len(shown) else numbers)
    return (source, missing[0]) if source is not None else None


def _default_metric(targets: list[dict]) -> str:
    first = targets[0]
    if first["task"] == "regression":
        return "rmse"
    if first["output"] in ("proba", "proba_wide"):
        return "auc" if first["task"] == "binary" else "logloss"
    return "accuracy"


def _copied_columns(sample: pd.DataFrame, test: pd.DataFrame, id_col: str) -> list:
    """The sample's columns (besides the id) that hold test.csv's values for the same ids: copied from the test
    rows, not predicted (none when that would leave nothing to predict)."""
    shared = [c for c in sample.columns if c != id_col and c in test.columns]
    if not shared or id_col not in test.columns:
        return []
    if test[id_col].is_unique:
        paired = (
            sample[[id_col, *shared]]
            .astype(str)
            .merge(test[[id_col, *shared]].astype(str), on=id_col, how="inner", suffixes=("", " (test)"))
        )
    elif (
        len(test) == len(sample) and test[id_col].astype(str).tolist() == sample[id_col].astype(str).tolist()
    ):
        # ids that repeat (a row per slice and organ), the rows in the same order: compared row by row
        paired = pd.concat(
            [sample[shared].astype(str), test[shared].astype(str).add_suffix(" (test)")], axis=1
        )
    else:
        return []
    if len(paired) != len(sample):
        return []
    copied = [c for c in shared if paired[c].str.strip().equals(paired[c + " (test)"].str.strip())]
    return copied if len(copied) < len(sample.columns) - 1 else []


def infer_task_from_frames(
    train: pd.DataFrame,
    test: pd.DataFrame,
    sample: pd.DataFrame,
    description: str = "",
    data_dir: str | None = None,
    metric: str | None = None,
) -> dict:
    """The task dict (see the module docstring) for a competition's frames and description; `data_dir`
    lets file-reference columns be recognised."""
    if sample.shape[1] < 2:
        raise ValueError("sample_submission.csv must have an id column and at least one target column")
    numbers = [str(k) for k in range(len(sample))]
    row_numbers = [  # the sample's index as to_csv(index=True) wrote it: copied, not predicted
        c
        for c in sample.columns
        if re.fullmatch(r"Unnamed: \d+", str(c)) and sample[c].astype(str).tolist() == numbers
    ]
    sample = sample.drop(columns=row_numbers) if sample.shape[1] - len(row_numbers) >= 2 else sample
    id_candidates = [c for c in sample.columns if c in test.columns]
    # Of several columns the sample copies from the test rows (a date and a comment), one naming each row once.
    unique = [c for c in id_candidates if sample[c].notna().all() and sample[c].is_unique]
    id_col = (unique or id_candidates or list(sample.columns))[0]
    copied = _copied_columns(sample, test, id_col)
    sub_cols = [c for c in sample.columns if c != id_col and c not in copied]
    metric = metric or metric_from_description(description)
    if all(c in train.columns for c in sub_cols):
        targets = [_target_spec(c, train[c], sample[c], metric) for c in sub_cols]
    elif _wide_target(train, sub_cols) is None and _renamed_target(train, test, sample, sub_cols, metric):
        source, column = _renamed_target(train, test, sample, sub_cols, metric)
        targets = [
            {**_target_spec(source, train[source], sample[column], metric), "column": column}
            if c == column
            else _target_spec(c, train[c], sample[c], metric)
            for c in sub_cols
        ]
    else:
        wide = _wide_target(train, sub_cols)
        if wide is None:
            missing = [c for c in sub_cols if c not in train.columns]
            raise ValueError(
                f"submission columns {missing} are neither train.csv columns nor its class labels, and no "
                "single column known only for labelled rows stands for them under another name"
            )
        by_name = {str(_native(v)): _native(v) for v in train[wide].dropna().unique()}
        columns = {c: by_name.get(str(c), str(c)) for c in sub_cols}
        targets = [{"name": wide, "task": "multiclass", "output": "proba_wide", "positive": None,
                    "columns": columns, "skewed": False}]  # fmt: skip
    targets = [_boxes(t, train, sample) for t in targets]
    targets = [_free_text(t, train, test, {id_col, *sub_cols, *copied}) for t in targets]
    task_kind = "regression" if targets[0]["task"] == "regression" else "classification"
    allowed = REGRESSION_METRICS if task_kind == "regression" else CLASSIFICATION_METRICS
    if metric not in allowed:
        metric = _default_metric(targets)
    return {
        "id_col": id_col,
        "metric": metric,
        "lower_is_better": LOWER_IS_BETTER[metric],
        "targets": targets,
        "columns": column_kinds(train, test, skip=tuple(t["name"] for t in targets), data_dir=data_dir),
    }


# The tables the coder reads, by name: the labelled table (train.csv, else a labels table kept apart from
# image folders), test.csv when there is one (else the sample submission's ids are the test rows), and the
# sample submission. The sample's names repeat swarm.competitions.competition's SAMPLE_SUBMISSION_NAMES: this
# module is also pasted into solutions, which run without the swarm package.
LABELLED_TABLES = (
    "train.csv",
    "train_labels.csv",
    "labels.csv",
    "training_labels.csv",
    "train.json",
    "train.jsonl",
)
TEST_TABLES = ("test.csv", "test.json", "test.jsonl")  # else a parquet labelled table's twin (test_twin)
SAMPLE_TABLES = ("sample_submission.csv", "sampleSubmission.csv", "sample_submission_null.csv")
SAMPLE_WORDS = ("sample", "submission")  # else the one CSV named so (en_sample_submission_2.csv)
# A composite id joins at most MAX_KEY_COLUMNS of the test table's first KEY_SCAN_COLUMNS columns.
MAX_KEY_COLUMNS, KEY_SCAN_COLUMNS = 3, 20


def _read_description(input_dir: str) -> str:
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


def file_labels_layout(input_dir: str, sample: pd.DataFrame) -> dict | None:
    """Training examples labelled by their file or folder names (swarm/layouts/file_labels/reader.py) for the sample
    submission's targets (`sample`, read as text), or None."""
    targets = list(sample.columns[1:])
    wide = len(targets) > 1
    layout = find_file_labels(
        input_dir,
        sample.iloc[:, 0].tolist(),
        "label" if wide else targets[0],
        None if wide else sample[targets[0]].tolist(),
        _read_description(input_dir),
    )
    if layout is not None and wide and not set(layout["classes"]) <= set(targets):
        return None
    return layout


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


def _named_csvs(input_dir: str, present: set, word: str) -> list:
    """The top-level CSVs whose names hold `word`, `<word>.csv` first."""
    found = sorted(n for n in present if n.lower().endswith(".csv") and word in n.lower())
    return sorted(found, key=lambda name: name.lower() != word + ".csv")


def joined_ids(frame: pd.DataFrame, keys: list) -> pd.Series:
    """Each row's id: its `keys` values as stripped text joined with "_" (`<sentence_id>_<token_id>`)."""
    parts = [frame[c].astype(str).str.strip() for c in keys]
    return parts[0].str.cat(parts[1:], sep="_") if len(parts) > 1 else parts[0]


def _orders(columns: list, size: int) -> list:
    """Every ordered choice of `size` distinct columns (permutations, without importing itertools)."""
    if size == 0:
        return [[]]
    return [[c, *rest] for c in columns for rest in _orders([o for o in columns if o != c], size - 1)]


def composing_keys(path: str, ids: pd.Series, skip: tuple = ()) -> list | None:
    """1-3 of the table's first columns (none in `skip`) whose values joined with "_" in that order are exactly
    `ids`, one row each, or None. The first row picks the orders worth checking on every row."""
    wanted = set(ids.astype(str).str.strip())
    try:
        first = pd.read_csv(path, dtype=str, keep_default_na=False, nrows=1)
    except (OSError, ValueError):
        return None
    if first.empty or len(wanted) != len(ids):
        return None
    columns = [c for c in first.columns[:KEY_SCAN_COLUMNS] if c not in skip]
    orders = [keys for size in range(1, MAX_KEY_COLUMNS + 1) for keys in _orders(columns, size)
              if "_".join(str(first[c].iloc[0]).strip() for c in keys) in wanted]  # fmt: skip
    if not orders:
        return None
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    for keys in orders if len(table) == len(ids) else []:
        joined = joined_ids(table, keys)
        if joined.is_unique and joined.isin(wanted).all():
            return keys
    return None


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
    a set joined with "," a row (swarm/formats/label_sets.py), or None. Only the first rows are read whole; a column
    they show to be classes is then read alone, so a large table (jigsaw's 1.8 million comments) is not read twice
    whole."""
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
    """The labelled table's column of label sets (several of the sample's class columns joined with ",", as
    freesound's `labels`; swarm/formats/label_sets.py), which the solution spreads into a 0/1 column per class; None where
    the table has the sample's targets or a class per row (the wide probability format reads that)."""
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
    return found[0] if found is not None and holds_several(found[1]) else None


def composite_tables(input_dir: str, sample_name: str, present: set, sample: pd.DataFrame) -> dict | None:
    """Where the sample's ids join columns of the test table (text normalization's `<sentence_id>_<token_id>`):
    {"train": a CSV named with "train" holding the targets and keys, "test": the CSV named with "test" whose
    keys give the sample's ids, "keys": those columns}; None when the id is a column of the test table, or no
    columns join into it (`sample`: the sample submission `sample_name`, read as text)."""
    id_col, targets = sample.columns[0], list(sample.columns[1:])
    for test in _named_csvs(input_dir, present, "test"):
        if test == sample_name:
            continue
        path = os.path.join(input_dir, test)
        if id_col in pd.read_csv(path, nrows=0).columns:
            return None
        keys = composing_keys(path, sample[id_col], skip=tuple(targets))
        if keys is None:
            continue
        for train in _named_csvs(input_dir, present, "train"):
            header = list(pd.read_csv(os.path.join(input_dir, train), nrows=0).columns)
            if "test" not in train.lower() and set(targets + keys) <= set(header) and id_col not in header:
                return {"train": train, "test": test, "keys": keys}
        return None
    return None


def _discover(input_dir: str) -> tuple:
    """(files, missing): what find_data_files returns, found once (the composite-id check reads the test table
    and the sample, which can be large), and what of it `input_dir` lacks."""
    present = set(os.listdir(input_dir)) if os.path.isdir(input_dir) else set()
    sample = sample_table(input_dir, present) or (
        described_test_table(input_dir, _read_description(input_dir)) if present else None
    )  # else a test table the description shows as a valid submission (billion-word-imputation's test_v2.txt)
    train = next((name for name in LABELLED_TABLES if name in present), None)
    text = _sample_as_text(input_dir, sample) if sample else None  # read once: it can be millions of rows
    several = several_files_layout(input_dir, present, text) if text is not None and not train else None
    if several:  # labelled examples in several files that no table rule reads (siim-covid, tensorflow2-QA)
        return {
            "train": None,
            "train_files": None,
            "test": None,
            "sample": sample,
            "keys": None,
            **several,
        }, []
    train = train or (labels_table(input_dir, sample, present, text) if text is not None else None)
    readable = text is not None
    composite = composite_tables(input_dir, sample, present, text) if readable and not train else None
    layout = file_labels_layout(input_dir, text) if readable and not train and not composite else None
    sentences = None  # sentences a line, a word taken out of each test sentence (billion-word-imputation)
    if readable and not (train or composite or layout):
        sentences = sentence_lines_file(sorted(present), sample, _read_description(input_dir))
    train = train or sentences
    found = train or composite or layout
    probed = None  # (key, fields) of the first layout beyond tables that the sample's ids fit
    beyond = (("pixels", pixel_fields), ("lines", label_lines_fields), ("coco", coco_fields))
    for key, finder in beyond if readable and not found else ():
        fields = finder(input_dir, text.iloc[:, 0].tolist(), list(text.columns[1:]))
        if fields:
            probed = (key, fields)
            break
    masks = mask_fields(input_dir, text) if readable and not (found or probed) else None
    if masks:  # a mask file in a folder per example, run-length encoded in the sample (contrails)
        probed = ("masks", masks)
    in_folders = folder_rows_fields(input_dir, text) if readable and not (found or probed) else None
    if in_folders:  # a labels table in each example folder, its rows keyed by a time (smartphone-decimeter)
        probed = ("folder_rows", in_folders)
    events = later_events_fields(input_dir, text) if readable and not (found or probed) else None
    if events:  # a log whose later events are the targets (h-and-m): the span they cover from the description
        probed = ("events", {**events, "days": horizon_days(_read_description(input_dir))[0]})
    missing = []
    if not (found or probed):
        missing.append(
            "train.csv (or train_labels.csv, labels.csv, train.json records, a train parquet table, training files labelled by their "
            "names or folders, target images, label sets in text lines, COCO-style JSON labels, training sentences "
            "a line where a word was taken out of each test sentence, a mask file in each example folder, a labels "
            "table in each example folder, or a log of events whose later ones the sample asks for)"
        )
    if not sample:
        missing.append("sample_submission.csv")
    if composite:
        return {**composite, "train_files": None, "sample": sample}, missing
    # target images (a row per pixel), label lines (a row per (example, class)), COCO labels, masks
    if probed:
        key, fields = probed
        beyond_tables = {"train": None, "train_files": None, "test": None, "sample": sample, "keys": None}
        return {**beyond_tables, key: fields}, missing
    files = {
        "train": train,
        "train_files": layout,
        "test": next((name for name in TEST_TABLES if name in present), None) or test_twin(train, present),
        "sample": sample,
        "keys": None,
    }
    if sentences:  # the sample is the test table: its rows are the test rows
        return {**files, "test": None, "sentences": True}, missing
    positions = position_layout(input_dir, files, text) if train and readable and files["test"] else None
    if positions:  # records of per-position arrays: modelled a row per position
        files["positions"] = positions
    probe = train and readable and files["test"] and not positions
    by_class = long_layout(input_dir, files, text) if probe else None
    if by_class:  # a row per (example, class) over the labelled table's class columns
        files["long"] = by_class
    sets = label_sets_layout(input_dir, files, text) if train and readable and not by_class else None
    if sets:  # label sets over the sample's class columns: spread into a 0/1 column per class
        files["label_sets"] = sets
    probe = train and readable and files["test"] and not (positions or by_class or sets)
    visits = visit_layout(input_dir, files, text) if probe else None
    if visits:  # a row per visit, each test key's first visit, the sample every step of each test key
        files["visits"] = visits
    boxes = box_layout(input_dir, files, text) if train and readable and not files["test"] else None
    if boxes:  # a row per labelled box: each example's boxes written as the sample's string
        files["boxes"] = boxes
    parts = id_parts_layout(input_dir, files, text) if train and readable and not files["test"] else None
    if parts:  # no test table: the sample's ids join labelled columns, which they give back
        files["id_parts"] = parts
    return files, missing


def several_files_layout(input_dir: str, present: set, sample: pd.DataFrame) -> dict | None:
    """{"levels": fields} where the examples are at two levels, each with rows in the sample (swarm/layouts/levels/reader.py),
    {"qa": fields} where they are questions with annotated answers a record a line (swarm/layouts/qa/reader.py),
    {"bson": fields} where they are BSON documents (swarm/layouts/bson/reader.py); else None (`sample` read as text)."""
    levels = level_fields(input_dir, sorted(present), sample)
    if levels:
        return {"levels": levels}
    answers = qa_fields(input_dir, sorted(present), sample)
    if answers:
        return {"qa": answers}
    found = bson_fields(
        input_dir, sorted(present), str(sample.columns[0]), [str(c) for c in sample.columns[1:]]
    )
    return {"bson": found} if found else None


MAX_ID_PARTS = 5
ID_PARTS_ROWS = 200  # the labelled table's first rows on which the columns must join into the ids


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


def id_part_columns(head: pd.DataFrame, id_col: str, targets: list) -> list | None:
    """2 to MAX_ID_PARTS columns of `head` (the labelled table's first rows, as text), neither the id nor a target,
    whose values joined with "_" are every row's id, and which splitting the id from the right gives back (so
    only the first may hold "_"); the first such sequence, fewer columns first. None where none does."""
    if id_col not in head.columns or head.empty:
        return None
    ids = head[id_col].str.strip()
    values = {c: head[c].str.strip() for c in head.columns if c != id_col and c not in targets}
    first = ids.iloc[0]

    def extend(chain, at):
        if at == len(first):
            return [chain] if len(chain) >= 2 else []
        if len(chain) == MAX_ID_PARTS:
            return []
        found = []
        for column, column_values in values.items():
            part, end = column_values.iloc[0], at + len(column_values.iloc[0])
            fits = part and first.startswith(part, at) and (end == len(first) or first[end] == "_")
            if fits and column not in chain:
                found += extend([*chain, column], end + 1 if end < len(first) else end)
        return found

    for chain in sorted(extend([], 0), key=len):
        # the id split from the right gives back each column: joined again, the parts are the id itself
        split = ids.str.rsplit("_", n=len(chain) - 1, expand=True)
        if split.shape[1] == len(chain) and all(
            split[k].equals(values[c].rename(k)) for k, c in enumerate(chain)
        ):
            return chain
    return None


def id_part_frame(ids: pd.Series, parts: list) -> pd.DataFrame:
    """The columns `parts` given back by each id (split with "_" from the right), as text."""
    split = ids.astype(str).str.strip().str.rsplit("_", n=len(parts) - 1, expand=True)
    return pd.DataFrame({c: split[k] for k, c in enumerate(parts)}, index=ids.index)


def long_layout(input_dir: str, files: dict, sample: pd.DataFrame) -> dict | None:
    """{"key", "class_column", "classes"} where the sample has a row per (example, class), `<key>_<class>`, over
    the labelled table's class columns (rsna-2022-cervical-spine-fracture-detection; swarm/layouts/long_classes/reader.py's
    long_class_fields; `sample` read as text); else None."""
    if is_records_file(files["train"]) or is_records_file(files["test"]):
        return None
    id_col, train_path, test_path = (
        str(sample.columns[0]),
        *(os.path.join(input_dir, files[k]) for k in ("train", "test")),
    )
    try:
        train_columns = [str(c) for c in pd.read_csv(train_path, nrows=0).columns]
        if id_col in train_columns or id_col not in pd.read_csv(test_path, nrows=0).columns:
            return None  # the cheap refusal, before the whole test table is read
        test = pd.read_csv(test_path, dtype=str, keep_default_na=False)
    except (OSError, ValueError):
        return None
    return long_class_fields(train_columns, test, id_col, list(sample.columns[1:]))


def visit_layout(input_dir: str, files: dict, sample: pd.DataFrame) -> dict | None:
    """The key and step columns where the labelled table has a row per visit, the test table each test key's
    first visit and the sample a row per test key and step (osic's `Patient_Week`; swarm/layouts/visits/reader.py's
    visit_fields; `sample` read as text); else None."""
    if is_records_file(files["train"]) or is_records_file(files["test"]):
        return None
    try:
        train_columns = table_columns(os.path.join(input_dir, files["train"]))
        test = read_table(os.path.join(input_dir, files["test"])).astype(str)
    except (OSError, ValueError):
        return None
    return visit_fields(
        train_columns, test, str(sample.columns[0]), list(sample.columns[1:]), sample.iloc[:, 0]
    )


BOX_HEAD_ROWS = 200  # the labelled table's first rows, on which a row per box is recognised


def box_layout(input_dir: str, files: dict, sample: pd.DataFrame) -> dict | None:
    """The labelled table's box columns where it has a row per box and the sample a string of boxes per example
    (vinbigdata's `train.csv`; swarm/layouts/boxes/reader.py's box_row_fields; `sample` read as text); else None."""
    if is_records_file(files["train"]) or is_parquet_name(files["train"]):
        return None
    try:
        head = pd.read_csv(os.path.join(input_dir, files["train"]), nrows=BOX_HEAD_ROWS, dtype=str,
                           keep_default_na=False)  # fmt: skip
    except (OSError, ValueError):
        return None
    return box_row_fields(
        head, str(sample.columns[0]), [str(c) for c in sample.columns[1:]], sample.iloc[:20, 1]
    )


def position_layout(input_dir: str, files: dict, sample: pd.DataFrame) -> dict | None:
    """{"id_field", "length_field"} where the labelled and test tables are records whose arrays are the sample's
    targets, one value per position, and the sample's ids `<record id>_<position>` (stanford-covid-vaccine's
    train.json; swarm/formats/records.py's position_fields; `sample` read as text); else None."""
    if not (is_records_file(files["train"]) and is_records_file(files["test"])):
        return None
    try:
        train = read_records(os.path.join(input_dir, files["train"]), limit=1)
        test = read_records(os.path.join(input_dir, files["test"]))
    except (OSError, ValueError):
        return None
    return position_fields(train, test, sample.iloc[:, 0].tolist(), list(sample.columns[1:]))


def missing_tables(input_dir: str) -> list[str]:
    """What of the tables the coder needs `input_dir` lacks: labelled examples (a labelled table, training files
    labelled by their names or folders, or a `*train*.csv` beside a `*test*.csv` whose columns join into the
    sample's ids) and the sample submission (test.csv may be absent: then the sample submission's ids are the
    test rows)."""
    return _discover(input_dir)[1]


def find_data_files(input_dir: str) -> dict:
    """{"train": name or None, "train_files": layout or None, "test": name or None, "sample": name, "keys": columns
    or None} of the tables in `input_dir` (train_files: training files labelled by their names, when there is no
    labelled table; keys: the test table's columns whose values joined with "_" are the sample's ids);
    FileNotFoundError naming what is missing."""
    files, missing = _discover(input_dir)
    if missing:
        raise FileNotFoundError(f"{input_dir} lacks {' and '.join(missing)}")
    return files


def read_table(path: str, max_rows: int | None = None) -> pd.DataFrame:
    """A CSV or parquet table, or JSON records as one (swarm/formats/records.py)."""
    if is_parquet_name(path):
        return parquet_table(path, max_rows)
    return records_table(path, max_rows) if is_records_file(path) else pd.read_csv(path, nrows=max_rows)


def table_columns(path: str) -> list:
    """A CSV's or parquet table's column names (a parquet's named index among them), read without its rows."""
    return parquet_columns(path) if is_parquet_name(path) else list(pd.read_csv(path, nrows=0).columns)


def test_twin(train: str | None, present: set) -> str | None:
    """The parquet test table named as the labelled one with "test" for "train" (`test_meta.parquet` beside
    `train_meta.parquet`), if present."""
    if not train or not is_parquet_name(train) or "train" not in train.lower():
        return None
    twin = train.lower().replace("train", "test")
    return next((name for name in sorted(present) if name.lower() == twin), None)


def read_examples(input_dir: str, files: dict, sample: pd.DataFrame, max_rows: int | None = None) -> tuple:
    """(train, test) frames: the labelled table and test.csv, or, for training files labelled by their names,
    their paths and labels, and the sample's ids with their test files' paths (FILE_COLUMN)."""
    if files.get("train_files"):
        layout = files["train_files"]
        train = file_label_frame(input_dir, layout)
        test = sample[[sample.columns[0]]].copy()
        test[FILE_COLUMN] = test_file_paths(input_dir, layout, test.iloc[:, 0])
        return train, test
    if files.get("positions"):  # a row per position of each record, named as the sample's rows
        fields, id_col = files["positions"], sample.columns[0]
        train, test = (
            position_rows(read_records(os.path.join(input_dir, files[key])), fields["id_field"],
                          fields["length_field"], id_col, labelled=key == "train").head(max_rows)
            for key in ("train", "test")
        )  # fmt: skip
        return train, test
    if files.get("coco"):  # the labelled images with their categories; the sample's ids with their files
        fields, id_col, target = files["coco"], sample.columns[0], sample.columns[1]
        train = coco_examples(input_dir, fields, id_col, target, FILE_COLUMN).head(max_rows)
        test = sample[[id_col]].copy()
        test[FILE_COLUMN] = test[id_col].astype(str).str.strip().map(coco_test_files(input_dir, fields))
        return train, test
    if files.get("lines"):  # a row per (example, class), named as the sample's rows
        fields, id_col, target = files["lines"], sample.columns[0], sample.columns[1]
        train = label_line_rows(input_dir, fields, id_col, target, labelled=True).head(max_rows)
        test = label_line_rows(input_dir, fields, id_col, target, labelled=False).head(max_rows)
        return train, test
    if files.get("bson"):  # a document per example: its scalars and the sizes of its other elements
        fields = files["bson"]
        train = bson_table(
            os.path.join(input_dir, fields["train"]), min(max_rows or BSON_MAX_DOCUMENTS, BSON_MAX_DOCUMENTS)
        )
        return train, bson_table(os.path.join(input_dir, fields["test"]), max_rows)
    if files.get("qa"):  # a row per (question, kind of answer) with its answers; the test's without
        id_col, fields = sample.columns[0], files["qa"]
        rows = min(max_rows or QA_MAX_RECORDS, QA_MAX_RECORDS)
        train = qa_rows(os.path.join(input_dir, fields["train"]), fields, rows)
        return train, qa_rows(os.path.join(input_dir, fields["test"]), fields, max_rows, labelled=False)
    if files.get("levels"):  # the rows of both levels with their strings; the sample's, with their levels
        id_col = sample.columns[0]
        train = level_rows(input_dir, files["levels"], id_col, sample.columns[1]).head(max_rows)
        return train, sample[[id_col]].assign(**{LEVEL_COLUMN: id_levels(sample[id_col])})
    if files.get(
        "folder_rows"
    ):  # each example folder's labels rows; the sample's rows; inputs at each row's time
        fields = files["folder_rows"]
        train = with_inputs(
            labelled_rows(input_dir, fields), example_folders(input_dir, fields, "train_dir"), fields
        )
        test = sample[[fields["id"], *fields["keys"]]]
        return train.head(max_rows), with_inputs(test, example_folders(input_dir, fields, "test_dir"), fields)
    if files.get("events"):  # the targets are later events of a log: the sample's rows stand for the examples
        return sample.copy(), sample[[sample.columns[0]]].copy()
    if files.get("masks"):  # the training example folders with their mask files; the sample's rows
        fields = files["masks"]
        train = mask_examples(input_dir, fields, sample.columns[0]).head(max_rows)
        return train, sample.drop(columns=[fields["target"]])
    if files.get("pixels"):  # a row per pixel of each image, named as the sample's rows
        fields, id_col = files["pixels"], sample.columns[0]
        train = pixel_rows(
            input_dir,
            fields["train_dir"],
            id_col,
            target_dir=fields["target_dir"],
            target=sample.columns[1],
            max_rows=min(max_rows or PIXEL_TRAIN_ROWS, PIXEL_TRAIN_ROWS),
        )
        test = pixel_rows(input_dir, fields["test_dir"], id_col, stems=pixel_stems(sample[id_col]),
                          max_rows=max_rows)  # fmt: skip
        return train, test
    if files.get("sentences"):  # a sentence a line, as the sample's target column
        train = read_sentences(os.path.join(input_dir, files["train"]), str(sample.columns[1]), max_rows)
    else:
        train = read_table(os.path.join(input_dir, files["train"]), max_rows)
    if files.get("long"):  # the wide labelled table melted into the test table's rows, a row per class
        train = long_class_rows(train, files["long"], sample.columns[0], sample.columns[1])
    if files.get("label_sets"):  # a 0/1 column per class of the sample, from a column of label sets
        train = spread_label_sets(train, files["label_sets"], list(sample.columns[1:]))
    if files.get("boxes"):  # each example's boxes as the sample's string, from a row per box
        train = box_strings(train, files["boxes"], sample.columns[0], sample.columns[1])
    if files["test"]:
        test = read_table(os.path.join(input_dir, files["test"]), max_rows)
    else:
        test = sample[[sample.columns[0]]].copy()  # the test rows are the sample submission's ids
    if files.get("visits"):  # each visit and each sample id beside its key's first visit
        train, test = visit_frames(train, test, files["visits"], sample.columns[0], sample.iloc[:, 0])
        train = train.assign(
            **{c: sample[c].iloc[0] for c in files["visits"]["free"]}
        )  # no table holds these
    if files.get("keys"):  # the sample's ids join these test columns: each row's id, to predict per id
        test[sample.columns[0]] = joined_ids(test, files["keys"])
    if files.get("id_parts") and not files["test"]:  # the ids give back the labelled columns they join
        parts = id_part_frame(test[sample.columns[0]], files["id_parts"])
        test = test.join(
            parts.astype({c: train[c].dtype for c in parts if pd.api.types.is_numeric_dtype(train[c])})
        )
    return same_id_name(train, test, sample)


def same_id_name(train: pd.DataFrame, test: pd.DataFrame, sample: pd.DataFrame) -> tuple:
    """(train, test) with a column named as a sample column but for case renamed to it, where the test table
    lacks every sample column (iwildcam-2019's `id` for the sample's `Id`)."""
    if any(c in test.columns for c in sample.columns):
        return train, test
    lower = {str(c).lower(): c for c in sample.columns}
    renamed = {c: lower[str(c).lower()] for c in test.columns if str(c).lower() in lower}
    return train.rename(columns=renamed), test.rename(columns=renamed)


def infer_task_from_dir(input_dir: str, max_rows: int = 50000, metric: str | None = None) -> dict:
    """The task dict for a directory holding a labelled table, the sample submission and test.csv (or test rows
    named by the sample submission's ids), and description.md; `files` names the tables it read."""
    files = find_data_files(input_dir)
    sample = pd.read_csv(os.path.join(input_dir, files["sample"]), nrows=max_rows)
    train, test = read_examples(input_dir, files, sample, max_rows)
    description = _read_description(input_dir)
    task = infer_task_from_frames(train, test, sample, description, data_dir=input_dir, metric=metric)
    if files.get("sentences"):  # a word taken out of each test sentence: put back, not looked up
        task["targets"] = [{**t, "task": "insert_word", "output": "text"} for t in task["targets"]]
    if files.get("visits"):  # a target no table holds (osic's Confidence): the sample's own values
        free = set(files["visits"]["free"])
        task["targets"] = [
            {**t, "task": "lookup", "output": "label", "source": None, "identity": False}
            if t["name"] in free
            else t
            for t in task["targets"]
        ]
    slices = slice_fields(input_dir, sample, train) if not files.get("masks") else None
    if slices:  # an image per id in a folder the id begins with, a mask per (image, class) row (uw-madison)
        files = {**files, "slices": slices}
    if (
        files.get("masks") or slices
    ):  # a mask per example, drawn from its images or arrays, not from table columns
        target = (files.get("masks") or slices)["target"]
        task["targets"] = [
            {**t, "task": "mask", "output": "rle", "positive": None, "columns": None}
            if (t.get("column") or t["name"]) == target
            else t
            for t in task["targets"]
        ]
        if all(t["task"] == "mask" for t in task["targets"]):  # the validation printed is a global Dice
            task["metric"], task["lower_is_better"] = "dice", False
    if files.get(
        "events"
    ):  # each id's next items, recommended from the log (swarm/layouts/later_events/reader.py)
        target = files["events"]["target"]
        task["targets"] = [
            {**t, "task": "recommend", "output": "text", "positive": None, "columns": None}
            if (t.get("column") or t["name"]) == target
            else t
            for t in task["targets"]
        ]
        task["metric"], task["lower_is_better"] = "map_at_k", False
    task["files"] = files
    return task
