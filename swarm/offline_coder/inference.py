"""Infer a competition's task from its files: id column, targets, task type, metric.

Only the standard library, pandas, numpy and the readers (plain dicts out): the offline coder calls it at
generation time (`swarm.offline_coder.task` gives it the registered layouts), and embeds this module's source, with
the readers', `metric_names`, `examples` and `discovery`, into a solution when it has no data to look at, so the
solution infers its task at run time with the same rules.

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

from swarm.formats.columns import all_numbers, column_kinds, renamed_source
from swarm.formats.csv_tables import read_csv_as_meant
from swarm.layouts.boxes.reader import box_labels
from swarm.layouts.keyed.reader import keyed_masks
from swarm.offline_coder.discovery import find_data_files, read_description
from swarm.offline_coder.examples import read_examples
from swarm.offline_coder.metric_names import (
    CLASSIFICATION_METRICS,
    LOWER_IS_BETTER,
    REGRESSION_METRICS,
    metric_from_description,
)

SHARE_THRESHOLD = 0.5  # a share target scored as classes is 1 from this share on (jigsaw's toxicity)
POSITIVE_WORDS = ("1", "yes", "true", "y", "t", "positive", "pos", "survived", "churn", "churned", "default")


def _whole_numbers(values: pd.Series) -> bool:
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
    if not pd.api.types.is_numeric_dtype(y) or y.nunique() <= 2 or _whole_numbers(y):
        return False
    arr = y.to_numpy(dtype=float)
    return bool(
        arr.min() >= 0 and arr.max() <= 1 and pd.to_numeric(sample_values, errors="coerce").notna().all()
    )


def _target_spec(name: str, y: pd.Series, sample_values: pd.Series, metric: str | None) -> dict:
    y = y.dropna()
    few_ints = _whole_numbers(y) and y.nunique() <= 10
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


def infer_task_from_dir(input_dir: str, layouts, max_rows: int = 50000, metric: str | None = None) -> dict:
    """The task dict for a directory holding a registered layout (`layouts`: the registry's (name, find, read), in
    order) or a labelled table, the sample submission and test.csv (or test rows named by the sample submission's
    ids), and description.md; `files` names the tables it read."""
    files = find_data_files(input_dir, layouts)
    sample = read_csv_as_meant(os.path.join(input_dir, files["sample"]), nrows=max_rows)
    train, test = read_examples(input_dir, files, sample, layouts, max_rows)
    description = read_description(input_dir)
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
    keyed = files.get("keyed")
    slices = keyed if keyed and keyed_masks(keyed, sample, train) else None  # a mask per (image, class) row
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
        "later_events"
    ):  # each id's next items, recommended from the log (swarm/layouts/later_events)
        target = files["later_events"]["target"]
        task["targets"] = [
            {**t, "task": "recommend", "output": "text", "positive": None, "columns": None}
            if (t.get("column") or t["name"]) == target
            else t
            for t in task["targets"]
        ]
        task["metric"], task["lower_is_better"] = "map_at_k", False
    task["files"] = files
    return task
