"""Turn a task dict and a genome into solution code: a preamble plus the seven gene sections.

Every section only reads and writes the names listed in CONTRACT, so two solutions of the same competition
can swap sections freely. Each section records its choices in a `# offline-choice: {json}` comment.
"""

from __future__ import annotations

import inspect
import json
import pprint
from typing import Any

from swarm.formats import columns, described_sample, label_sets, parquet_tables, records
from swarm.layouts.boxes import reader as box_rows
from swarm.layouts.bson import reader as bson_records
from swarm.layouts.coco import reader as coco_records
from swarm.layouts.file_labels import reader as file_labels
from swarm.layouts.folder_rows import reader as folder_rows
from swarm.layouts.label_lines import reader as label_lines
from swarm.layouts.later_events import reader as later_events
from swarm.layouts.levels import reader as level_rows
from swarm.layouts.long_classes import reader as long_class_rows
from swarm.layouts.masks import reader as mask_folders
from swarm.layouts.pixels import reader as pixel_rows
from swarm.layouts.qa import reader as qa_records
from swarm.layouts.sentences import reader as sentence_lines
from swarm.layouts.visits import reader as visit_rows
from swarm.offline_coder import inference
from swarm.offline_coder.genome import Genome
from swarm.offline_coder.render_data import render_data
from swarm.offline_coder.sections import CHOICE_PREFIX, SplitCode
from swarm.protocol import GENE_SECTIONS, section_marker

CONTRACT = """\
# Written by the offline coder of swarm-ev2 (a built-in, rule-based coder; no language model was called).
# Section contract: each section reads/writes only these names, so sections of two solutions for the same
# competition can be swapped.
#   preamble        -> imports, HAS_LGBM, HAS_PIL, INPUT_DIR, WORK_DIR, SUB_DIR, ID_COL, TARGETS, METRIC,
#                      LOWER_IS_BETTER, COLUMN_KINDS (what each column is: numeric, text, datetime, file, ...)
#   DATA            -> train_df, test_df, sample_sub, X, X_test (numeric frames, same columns), Y (target frame),
#                      TIME_ORDER (train rows' times when test lies after train, else None)
#   MODEL           -> MODEL_FAMILY, build_model(task, seed) (reads OPT, REG, OBJECTIVE when called)
#   LOSS            -> OBJECTIVE, evaluate(target, y_true, pred, pos) -> the competition metric
#   OPTIMIZER       -> OPT {learning_rate, n_estimators}
#   REGULARIZATION  -> REG {max_depth, num_leaves, min_samples_leaf, l2, subsample, colsample}
#   INITIALIZATION  -> SEED (global RNGs seeded)
#   TRAINING_TRICKS -> validates, prints the SWARM_METRIC line, writes ./submission/submission.csv
"""

IMPORTS = """\
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one CPU unless the sandbox says how many this run has
N_JOBS = max(1, int(os.environ["OMP_NUM_THREADS"]))  # every thread pool sized to the CPUs given, no more

import json
import random
import re
import warnings

import numpy as np
import pandas as pd
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.impute import SimpleImputer
from sklearn.linear_model import HuberRegressor, LogisticRegression, Ridge
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    log_loss,
    mean_absolute_error,
    mean_squared_error,
    r2_score,
    roc_auc_score,
)
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

try:
    import lightgbm as lgb

    HAS_LGBM = True
except ImportError:
    HAS_LGBM = False

try:
    import PIL.Image  # noqa: F401

    HAS_PIL = True
except ImportError:
    HAS_PIL = False

warnings.filterwarnings("ignore")
INPUT_DIR, WORK_DIR, SUB_DIR = "./input", "./working", "./submission"
LGBM_DEVICE = {}  # LightGBM's device settings: empty trains on the CPU
"""
GPU_SETUP = """
# The run has a GPU: LightGBM trains on it when its build can open the device, else on the CPU.
def _lgbm_gpu_works():
    try:
        rows = np.random.default_rng(0).random((64, 2))
        lgb.train({"device_type": "gpu", "verbose": -1}, lgb.Dataset(rows, label=rows[:, 0]), num_boost_round=1)
        return True
    except Exception:
        return False


if HAS_LGBM and _lgbm_gpu_works():
    LGBM_DEVICE = {"device_type": "gpu"}
print("LightGBM device:", LGBM_DEVICE.get("device_type", "cpu"))
"""


def _body(module) -> str:
    """A module's source without its docstring."""
    return inspect.getsource(module).split('"""', 2)[2]


def _runtime_inference_source() -> str:
    return (
        "# Task inference at run time (the coder saw no data): kinds of columns, then the task."
        + _body(columns)
        + _body(file_labels)
        + _body(records)
        + _body(parquet_tables)
        + _body(long_class_rows)
        + _body(pixel_rows)
        + _body(label_lines)
        + _body(coco_records)
        + _body(label_sets)
        + _body(box_rows)
        + _body(sentence_lines)
        + _body(described_sample)
        + _body(visit_rows)
        + _body(mask_folders)
        + _body(folder_rows)
        + _body(level_rows)
        + _body(qa_records)
        + _body(bson_records)
        + _body(later_events)
        + _body(inference)
    )


def _file_labels_source() -> str:
    return "# Training files labelled by their names or folders: how to read them." + _body(file_labels)


DEFAULT_FILES = {"train": "train.csv", "test": "test.csv", "sample": "sample_submission.csv"}


def render_preamble(task: dict[str, Any] | None) -> str:
    """Imports and the task constants; without a task dict, code that infers the task at run time."""
    if task is None:
        spec = _runtime_inference_source() + "\n\n_TASK = infer_task_from_dir(INPUT_DIR)\n"
        constants = (
            'ID_COL = _TASK["id_col"]\nTARGETS = _TASK["targets"]\n'
            'METRIC = _TASK["metric"]\nLOWER_IS_BETTER = _TASK["lower_is_better"]\n'
            'COLUMN_KINDS = _TASK["columns"]\nDATA_FILES = _TASK["files"]\n'
        )
        return CONTRACT + IMPORTS + spec + constants
    targets = pprint.pformat(task["targets"], width=110, sort_dicts=False)
    kinds = pprint.pformat(task.get("columns") or {}, width=110, sort_dicts=False)
    files = task.get("files") or DEFAULT_FILES
    constants = (
        f"ID_COL = {task['id_col']!r}\nTARGETS = {targets}\n"
        f"METRIC = {task['metric']!r}\nLOWER_IS_BETTER = {bool(task['lower_is_better'])!r}\n"
        f"COLUMN_KINDS = {kinds}\nDATA_FILES = {files!r}  # the tables read: labelled, test (None: the "
        "sample's ids), sample\n"
    )
    gpu = GPU_SETUP if task.get("gpus") else ""
    reader = _file_labels_source() if files.get("train_files") else ""
    if any(str(files.get(key) or "").lower().endswith((".json", ".jsonl")) for key in ("train", "test")):
        reader += "# JSON records read as tables." + _body(records)
    if any(parquet_tables.is_parquet_name(files.get(key) or "") for key in ("train", "test")):
        reader += "# Parquet tables read as tables." + _body(parquet_tables)
    if files.get("long"):
        reader += "# A row per (example, class): the labelled table melted." + _body(long_class_rows)
    if files.get("pixels"):
        reader += "# Target images: a row per pixel." + _body(pixel_rows)
    if files.get("label_sets"):
        reader += "# Label sets in one column: a 0/1 column per class." + _body(label_sets)
    if files.get("visits"):
        reader += "# Visits: each beside its key's first." + _body(visit_rows)
    if files.get("sentences"):
        reader += "# Sentences a line." + _body(sentence_lines)
    if files.get("boxes") or files.get("levels") or any(t["task"] == "boxes" for t in task["targets"]):
        reader += "# Labelled boxes a row: a string of boxes per example." + _body(box_rows)
    if files.get("levels"):
        reader += "# Examples at two levels, each with rows in the sample." + _body(level_rows)
    if files.get("qa"):
        reader += "# Questions with annotated answers, a record a line." + _body(qa_records)
    if files.get("bson"):
        reader += "# Documents in BSON files." + _body(bson_records)
    if files.get("masks") or files.get("slices"):
        reader += "# Masks in a folder per example or per (image, class) row, run-length encoded." + _body(
            mask_folders
        )
    if files.get("folder_rows"):
        reader += "# A labels table in each example folder, its inputs at each row's time." + _body(
            folder_rows
        )
    if files.get("events"):
        reader += "# A log of events whose later ones are the targets." + _body(later_events)
    if files.get("lines"):
        reader += "# Label sets in text lines: a row per (example, class)." + _body(label_lines)
    if files.get("coco"):
        reader += (
            "# COCO-style JSON labels." + _body(coco_records) + f"FILE_COLUMN = {file_labels.FILE_COLUMN!r}\n"
        )
    return CONTRACT + IMPORTS + gpu + reader + constants


def _header(section: str, choice: dict[str, Any]) -> str:
    return f"{section_marker(section)}\n{CHOICE_PREFIX}{json.dumps(choice, sort_keys=True)}\n"


def _data(choice: dict[str, Any]) -> str:
    return render_data(choice)


_LGBM = """    if HAS_LGBM:
        params = dict(
            n_estimators=OPT["n_estimators"],
            learning_rate=OPT["learning_rate"],
            num_leaves=REG["num_leaves"],
            max_depth=REG["max_depth"],
            min_child_samples=REG["min_samples_leaf"],
            reg_lambda=REG["l2"],
            subsample=REG["subsample"],
            subsample_freq=1,
            colsample_bytree=REG["colsample"],
            random_state=seed,
            n_jobs=N_JOBS,
            verbose=-1,
            **LGBM_DEVICE,
        )
        if task == "regression":
            objective = {"huber": "huber", "l1": "regression_l1"}.get(OBJECTIVE, "regression")
            return lgb.LGBMRegressor(objective=objective, **params)
        return lgb.LGBMClassifier(class_weight="balanced" if OBJECTIVE == "balanced" else None, **params)
"""
_HGB = """    params = dict(
        max_iter=OPT["n_estimators"],
        learning_rate=OPT["learning_rate"],
        max_leaf_nodes=max(REG["num_leaves"], 2),
        max_depth=REG["max_depth"] if REG["max_depth"] > 0 else None,
        min_samples_leaf=REG["min_samples_leaf"],
        l2_regularization=REG["l2"],
        max_features=REG["colsample"],
        random_state=seed,
    )
    if task == "regression":
        loss = "absolute_error" if OBJECTIVE == "l1" else "squared_error"
        return HistGradientBoostingRegressor(loss=loss, **params)
    return HistGradientBoostingClassifier(class_weight="balanced" if OBJECTIVE == "balanced" else None, **params)
"""
_FOREST = """    params = dict(
        n_estimators=min(OPT["n_estimators"], 200),
        max_depth=2 * REG["max_depth"] if REG["max_depth"] > 0 else None,
        min_samples_leaf=max(1, REG["min_samples_leaf"] // 5),
        random_state=seed,
        n_jobs=N_JOBS,
    )
    if task == "regression":
        return make_pipeline(SimpleImputer(strategy="median"), {reg}(max_features=0.33, **params))
    balanced = "balanced" if OBJECTIVE == "balanced" else None
    return make_pipeline(
        SimpleImputer(strategy="median"), {clf}(max_features="sqrt", class_weight=balanced, **params)
    )
"""
_LINEAR = """    if task == "regression":
        if OBJECTIVE in ("huber", "l1"):
            model = HuberRegressor(alpha=max(REG["l2"], 1e-4), max_iter=1000)
        else:
            model = Ridge(alpha=1.0 + 10.0 * REG["l2"])
    else:
        balanced = "balanced" if OBJECTIVE == "balanced" else None
        model = LogisticRegression(C=1.0 / (1.0 + REG["l2"]), max_iter=2000, class_weight=balanced)
    return make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), model)
"""
_BLEND = (
    """    members = [("boosted", _boosted(task, seed)), ("linear", _linear(task, seed))]
    if task == "regression":
        return VotingRegressor(members)
    return VotingClassifier(members, voting="soft")


def _boosted(task, seed):
    \"\"\"The gradient-boosted member: LightGBM, or sklearn's HistGradientBoosting without it.\"\"\"
"""
    + _LGBM
    + _HGB
    + """

def _linear(task, seed):
    \"\"\"The scaled linear member.\"\"\"
"""
    + _LINEAR
)
_FAMILY_DOC = {
    "blend": "the average of gradient-boosted trees and a scaled linear model (soft voting)",
    "lgbm": "LightGBM gradient-boosted trees (sklearn's HistGradientBoosting when LightGBM is missing)",
    "hgb": "sklearn HistGradientBoosting trees",
    "rf": "a random forest",
    "extratrees": "extremely randomized trees",
    "linear": "a scaled linear model (logistic regression / ridge / huber)",
}


def _model(choice: dict[str, Any]) -> str:
    family = choice.get("family", "hgb")
    if family not in _FAMILY_DOC:
        raise ValueError(f"unknown model family {family!r}; expected one of {', '.join(_FAMILY_DOC)}")
    head = (
        f"MODEL_FAMILY = {family!r}\n\n\ndef build_model(task, seed):\n"
        f'    """A fresh estimator for `task` ("binary", "multiclass" or "regression"): {_FAMILY_DOC[family]}."""\n'
    )
    if family == "blend":
        imports = "from sklearn.ensemble import VotingClassifier, VotingRegressor\n\n"
        return imports + head + _BLEND
    if family == "lgbm":
        return head + _LGBM + _HGB
    if family == "hgb":
        return head + _HGB
    if family == "rf":
        return head + _FOREST.format(reg="RandomForestRegressor", clf="RandomForestClassifier")
    if family == "extratrees":
        return head + _FOREST.format(reg="ExtraTreesRegressor", clf="ExtraTreesClassifier")
    return head + _LINEAR


def _loss(choice: dict[str, Any]) -> str:
    objective = choice.get("objective", "l2")
    return f'''OBJECTIVE = {objective!r}  # training objective; the competition metric (METRIC) is fixed


def evaluate(target, y_true, pred, pos):
    """METRIC for one target: `pred` holds values (regression) or class probabilities (n_rows x n_classes)."""
    if target["task"] == "regression":
        if METRIC == "rmsle":
            diff = np.log1p(np.clip(pred, 0, None)) - np.log1p(np.clip(y_true, 0, None))
            return float(np.sqrt(np.mean(diff**2)))
        if METRIC == "mae":
            return float(mean_absolute_error(y_true, pred))
        if METRIC == "r2":
            return float(r2_score(y_true, pred))
        return float(np.sqrt(mean_squared_error(y_true, pred)))
    labels = pred.argmax(axis=1)
    if METRIC == "auc":
        if pred.shape[1] == 2:
            return float(roc_auc_score(y_true == pos, pred[:, pos]))
        return float(roc_auc_score(y_true, pred, multi_class="ovr", labels=list(range(pred.shape[1]))))
    if METRIC == "logloss":
        proba = np.clip(pred, 1e-15, 1.0)
        return float(log_loss(y_true, proba / proba.sum(axis=1, keepdims=True), labels=list(range(pred.shape[1]))))
    if METRIC == "f1":
        if pred.shape[1] == 2:
            return float(f1_score(y_true == pos, labels == pos))
        return float(f1_score(y_true, labels, average="macro"))
    return float(accuracy_score(y_true, labels))
'''


def _optimizer(choice: dict[str, Any]) -> str:
    return (
        f'OPT = {{"learning_rate": {float(choice["learning_rate"])!r}, '
        f'"n_estimators": {int(choice["n_estimators"])!r}}}  # boosting rounds / trees and step size\n'
    )


def _regularization(choice: dict[str, Any]) -> str:
    values = {key: choice[key] for key in ("max_depth", "num_leaves", "min_samples_leaf", "l2", "subsample",
                                            "colsample")}  # fmt: skip
    return f"REG = {values!r}  # preset {choice.get('preset', 'custom')!r}\n"


def _initialization(choice: dict[str, Any]) -> str:
    seed = int(choice.get("seed", 42))
    return f"""SEED = {seed}
random.seed(SEED)
np.random.seed(SEED)
os.environ["PYTHONHASHSEED"] = str(SEED)
"""


def _most_common_source() -> str:
    """The source of `inference.most_common_answers`, which a lookup (free-text) target's answers come from."""
    return inspect.getsource(inference.most_common_answers)


def _training_tricks(choice: dict[str, Any]) -> str:
    validation = choice.get("validation", "holdout")
    folds = int(choice.get("folds", 5))
    transform = choice.get("target_transform", "none")
    bag = int(choice.get("seed_bag", 1))
    return f'''VALIDATION = {validation!r}  # "holdout": 80/20 split then refit on all rows; "kfold": average fold models
# (when test lies after train, both are time-ordered: the latest rows validate, and the test model is refit)
N_FOLDS = {folds}
TARGET_TRANSFORM = {transform!r}  # "log1p" fits regression targets on log1p(y) and maps predictions back
SEED_BAG = {bag}  # models per fit, each with its own seed, averaged
SPLIT_SEED = 2024  # fixed, not SEED: every solution is validated on the same rows, so their scores compare
os.makedirs(WORK_DIR, exist_ok=True)
os.makedirs(SUB_DIR, exist_ok=True)


def fit_predict(task, n_classes, X_fit, y_fit, frames, log_target):
    """Fit SEED_BAG models and average their predictions (values or class probabilities) on each frame."""
    outputs = [0.0 for _ in frames]
    for bag in range(SEED_BAG):
        model = build_model(task, SEED + 1000 * bag)
        if task == "regression":
            fit_target = np.log1p(y_fit) if log_target else y_fit
            model.fit(X_fit, fit_target)
            for i, frame in enumerate(frames):
                # never predict outside the training range: linear models extrapolate wildly on outliers
                pred = np.clip(model.predict(frame), fit_target.min(), fit_target.max())
                outputs[i] = outputs[i] + (np.expm1(pred) if log_target else pred) / SEED_BAG
        else:
            model.fit(X_fit, y_fit)
            for i, frame in enumerate(frames):
                proba = np.zeros((len(frame), n_classes))
                proba[:, np.asarray(model.classes_, dtype=int)] = model.predict_proba(frame)
                outputs[i] = outputs[i] + proba / SEED_BAG
    return outputs


def make_splits(task, y, times=None):
    """Train/validation row indices: N_FOLDS folds, or one stratified 80/20 holdout; with `times` (test lies
    after train) validation rows always come after their training rows, as the test rows will."""
    rows = np.arange(len(y))
    if times is not None:
        ordered = rows[np.argsort(times, kind="stable")]
        if VALIDATION == "kfold":
            chunks = np.array_split(ordered, N_FOLDS + 1)
            return [(np.concatenate(chunks[: i + 1]), chunks[i + 1]) for i in range(N_FOLDS)]
        cut = int(round(0.8 * len(ordered)))
        return [(ordered[:cut], ordered[cut:])]
    stratify = task != "regression" and np.bincount(y).min() >= max(N_FOLDS, 2)
    if VALIDATION == "kfold":
        if stratify:
            return list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=SPLIT_SEED).split(rows, y))
        return list(KFold(N_FOLDS, shuffle=True, random_state=SPLIT_SEED).split(rows))
    train_rows, valid_rows = train_test_split(
        rows, test_size=0.2, random_state=SPLIT_SEED, stratify=y if stratify else None
    )
    return [(train_rows, valid_rows)]


test_ids = test_df[ID_COL] if ID_COL in test_df.columns else sample_sub[ID_COL]
submission = sample_sub[[ID_COL]].copy()


def by_sample_order(values):
    """Test predictions reordered to the sample submission's ids; where several test rows share an id (an image
    per row, a submission row per breast), the id's value is their mean, or their most common label."""
    if len(test_ids) == len(sample_sub) and (np.asarray(test_ids) == np.asarray(sample_sub[ID_COL])).all():
        return np.asarray(values)  # the test rows are the sample's, in its order (also where ids repeat)
    series = pd.Series(np.asarray(values), index=np.asarray(test_ids))
    if not series.index.is_unique and set(sample_sub[ID_COL]).issubset(series.index):
        grouped = series.groupby(level=0, sort=False)
        series = grouped.mean() if series.dtype.kind in "fiub" else grouped.agg(lambda s: s.mode().iloc[0])
    if series.index.is_unique and set(sample_sub[ID_COL]).issubset(series.index):
        return series.reindex(np.asarray(sample_sub[ID_COL])).to_numpy()
    return series.to_numpy()


{_most_common_source()}

def lookup_answers(target, keys_fit, answers_fit, keys):
    """Free text (a "lookup" target): each key's most common answer in the fitted rows; a key never seen
    answers itself where most answers repeat their key (`identity`), else the most common answer."""
    if target["source"] is None:
        return np.full(len(keys), answers_fit.mode().iloc[0], dtype=object)
    found = keys.map(most_common_answers(keys_fit, answers_fit))
    return found.fillna(keys if target["identity"] else answers_fit.mode().iloc[0]).to_numpy(dtype=object)


def box_predictions(boxes, X_known, X_test):
    """Boxes (a list of (class, corners) per row): per class, a binary classifier of whether a row has one gives
    each test row's confidence, at the class's mean box; (test rows' box strings, validation accuracy)."""
    labels = sorted({{label for groups in boxes for label, _ in groups}})
    columns, right = [], []
    for label in labels:
        y = np.array([int(any(got == label for got, _ in groups)) for groups in boxes])
        corners = np.mean([box for groups in boxes for got, box in groups if got == label], axis=0)
        if y.min() == y.max():  # every row has the class, or none: its share is the confidence
            confidence = np.full(len(X_test), float(y[0]))
        else:
            for train_rows, valid_rows in make_splits("binary", y):
                (valid_pred,) = fit_predict("binary", 2, X_known.iloc[train_rows], y[train_rows],
                                            [X_known.iloc[valid_rows]], False)
                right.append(float(np.mean((valid_pred[:, 1] >= 0.5) == y[valid_rows])))
            (test_pred,) = fit_predict("binary", 2, X_known, y, [X_test], False)
            confidence = test_pred[:, 1]
        box = " ".join(f"{{v:.1f}}" for v in corners)
        columns.append([f"{{label}} {{c:.4f}} {{box}}" for c in confidence])
    strings = [" ".join(row) for row in zip(*columns)] if columns else [""] * len(X_test)
    return strings, float(np.mean(right)) if right else 1.0


BIGRAM_SENTENCES = 200_000  # training sentences whose word pairs are counted (more would not fit in memory)
CANDIDATES = 8  # words tried at each gap of a sentence: the likeliest followers of the word before it


def edit_distance(a, b):
    """Levenshtein distance of two texts, character by character."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        last, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            last, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, last + (x != y))
    return row[-1]


def insert_words(sentences, shown):
    """A word was taken out of each shown sentence (never the first or last): put back, at the gap where it is
    likeliest, the word whose pairs with its neighbours are likeliest against the neighbours' own pair (word pairs
    counted in training sentences); a word goes in only where that gain passes a margin chosen on training
    sentences with a word taken out as the test's were. (sentences, share of validation sentences restored)."""
    rng = np.random.default_rng(SPLIT_SEED)
    usable = [s for s in sentences if len(s.split()) > 2]
    order = rng.permutation(len(usable))
    n_valid = min(1000, len(usable) // 5)
    valid = [usable[i] for i in order[:n_valid]]
    pairs, counts = {{}}, {{}}
    for sentence in (usable[i] for i in order[n_valid : n_valid + BIGRAM_SENTENCES]):
        words = sentence.split()
        for left, right in zip(words, words[1:]):
            pairs[(left, right)] = pairs.get((left, right), 0) + 1
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    followers = {{}}
    for (left, right), n in pairs.items():
        followers.setdefault(left, []).append((n, right))
    followers = {{w: [r for _, r in sorted(f, reverse=True)[:CANDIDATES]] for w, f in followers.items()}}
    smooth = 0.1 * max(1, len(counts))

    def log_p(left, right):
        return np.log((pairs.get((left, right), 0) + 0.1) / (counts.get(left, 0) + smooth))

    def best(sentence):
        words, found = sentence.split(), (-np.inf, 1, "")
        for gap in range(1, len(words)):
            left, right = words[gap - 1], words[gap]
            base = log_p(left, right)
            for word in followers.get(left, []):
                gain = log_p(left, word) + log_p(word, right) - base
                if gain > found[0]:
                    found = (gain, gap, word)
        return found

    def put_back(sentence, found, margin):
        gain, gap, word = found
        words = sentence.split()
        return " ".join(words[:gap] + [word] + words[gap:]) if word and gain > margin else sentence

    shown_valid = [remove_inner_word(s, rng) for s in valid]
    found_valid = [best(s) for s in shown_valid]
    margins = [np.inf, 0.0, 1.0, 2.0, 4.0, 8.0]  # inf: never insert
    distances = [
        np.mean([edit_distance(t, put_back(s, f, m)) for t, s, f in zip(valid, shown_valid, found_valid)])
        if valid else 0.0
        for m in margins
    ]
    margin = margins[int(np.argmin(distances))]
    print(f"word insertion: margin {{margin}}, validation edit distance {{min(distances):.3f}} "
          f"(left as shown: {{distances[0]:.3f}})")
    restored = float(np.mean([put_back(s, f, margin) == t for t, s, f in zip(valid, shown_valid, found_valid)]))
    return [put_back(s, best(s), margin) for s in shown], restored if valid else 0.0


scores = []
for target in TARGETS:
    name, task = target["name"], target["task"]
    if task == "insert_word":  # a word taken out of each test sentence (the sample is the test table)
        column = target.get("column") or name
        guessed, restored = insert_words(Y[name].astype(str).tolist(), sample_sub[column].astype(str).tolist())
        scores.append(restored)
        submission[column] = guessed
        continue
    if task == "mask" and DATA_FILES.get("slices"):  # a mask per (image, class) row: slice_mask_predictions
        strings, dice = slice_mask_predictions(INPUT_DIR, DATA_FILES["slices"], train_df, sample_sub,
                                               lambda: build_model("binary", SEED), SPLIT_SEED)
        scores.append(dice)
        submission[target.get("column") or name] = strings
        continue
    if task == "recommend":  # each id's next items: its own recent ones, then the most bought (recommended)
        _ev = DATA_FILES["events"]
        strings, found = recommended(INPUT_DIR, _ev, sample_sub[ID_COL].tolist(), _ev["days"])
        scores.append(found)
        submission[target.get("column") or name] = strings
        continue
    if task == "mask":  # a mask per example folder: a classifier of its pixels (mask_predictions)
        strings, dice = mask_predictions(INPUT_DIR, DATA_FILES["masks"], train_df[ID_COL].tolist(),
                                         sample_sub[ID_COL].tolist(), lambda: build_model("binary", SEED), SPLIT_SEED)
        scores.append(dice)
        submission[target.get("column") or name] = strings
        continue
    if task == "boxes":  # a string of boxes per example: a classifier per class, at the class's mean box
        boxes = Y[name].fillna("").astype(str).map(box_groups).tolist()
        strings, accuracy = box_predictions(boxes, X.reset_index(drop=True), X_test)
        scores.append(accuracy)
        submission[target.get("column") or name] = by_sample_order(np.asarray(strings, dtype=object))
        continue
    if task == "lookup":  # validated on a seeded fifth of the rows, then fitted on all of them
        known = Y[name].notna().to_numpy()
        answers = Y.loc[known, name].astype(str).reset_index(drop=True)
        source = target["source"] or name
        keys = train_df.loc[known, source].astype(str).reset_index(drop=True) if target["source"] else answers
        valid = np.random.default_rng(SPLIT_SEED).random(len(answers)) < 0.2
        guessed = lookup_answers(target, keys[~valid], answers[~valid], keys[valid])
        scores.append(float(np.mean(guessed == answers[valid].to_numpy())))
        column = target.get("column") or name
        if target["source"] is None:  # nothing names the answer: the sample's own values, a valid submission
            submission[column] = sample_sub[column].to_numpy()
            continue
        test_keys = test_df[source].astype(str)
        submission[column] = by_sample_order(lookup_answers(target, keys, answers, test_keys))
        continue
    known = Y[name].notna().to_numpy()
    X_known = X[known].reset_index(drop=True)
    if task == "regression":
        y = Y.loc[known, name].to_numpy(dtype=float)
        classes, n_classes = None, 0
    else:
        values = Y.loc[known, name]
        if target.get("threshold") is not None:  # shares of raters: the class is whether the share reaches it
            values = (values.astype(float) >= target["threshold"]).astype(int)
        y, classes = pd.factorize(values, sort=True)
        classes, n_classes = list(classes), len(classes)
    log_target = task == "regression" and TARGET_TRANSFORM == "log1p" and y.min() > -1
    times = globals().get("TIME_ORDER")
    times = None if times is None else np.asarray(times)[known]
    splits = make_splits(task, y, times)
    if times is not None:
        print(f"{{name}}: validation is time-ordered (the latest rows validate, as test lies after train)")
    oof = np.zeros(len(y)) if task == "regression" else np.zeros((len(y), n_classes))
    test_pred = 0.0
    for train_rows, valid_rows in splits:
        valid_pred, fold_test = fit_predict(
            task, n_classes, X_known.iloc[train_rows], y[train_rows], [X_known.iloc[valid_rows], X_test], log_target
        )
        oof[valid_rows] = valid_pred
        test_pred = test_pred + fold_test / len(splits)
    if VALIDATION != "kfold" or times is not None:  # time-ordered folds lack the latest rows: refit on all
        (test_pred,) = fit_predict(task, n_classes, X_known, y, [X_test], log_target)
    valid_rows = np.concatenate([rows for _, rows in splits])
    pos = classes.index(target["positive"]) if classes and target["positive"] in classes else max(n_classes - 1, 0)
    scores.append(evaluate(target, y[valid_rows], oof[valid_rows], pos))
    column = target.get("column") or name  # the submission's name for the target (chaii: answer_text's)
    if task == "regression":
        submission[column] = by_sample_order(test_pred)
    elif target["output"] == "proba_wide":
        for column, cls in target["columns"].items():
            submission[column] = by_sample_order(test_pred[:, classes.index(cls)] if cls in classes else np.zeros(len(X_test)))
    elif target["output"] == "proba" and n_classes == 2:
        submission[column] = by_sample_order(test_pred[:, pos])
    else:
        submission[column] = by_sample_order(np.asarray(classes, dtype=object)[test_pred.argmax(axis=1)])

value = float(np.mean(scores))
print(f"validation {{METRIC}} ({{VALIDATION}}, {{MODEL_FAMILY}}): {{value:.6f}}")
print("SWARM_METRIC " + json.dumps({{"name": METRIC, "value": value, "lower_is_better": bool(LOWER_IS_BETTER)}}))
for column in sample_sub.columns:  # columns the sample copies from the test rows (a date beside the id)
    if column not in submission.columns:
        submission[column] = sample_sub[column].to_numpy()
submission = submission[list(sample_sub.columns)]
submission.to_csv(os.path.join(SUB_DIR, "submission.csv"), index=False)
print(f"wrote {{len(submission)}} rows to submission/submission.csv")
'''


_RENDERERS = {
    "DATA": _data,
    "MODEL": _model,
    "LOSS": _loss,
    "OPTIMIZER": _optimizer,
    "REGULARIZATION": _regularization,
    "INITIALIZATION": _initialization,
    "TRAINING_TRICKS": _training_tricks,
}


def render_section(section: str, choice: dict[str, Any]) -> str:
    """One gene section: marker line, choice comment, code."""
    if section not in _RENDERERS:
        raise ValueError(f"unknown gene section {section!r}; expected one of {', '.join(GENE_SECTIONS)}")
    return _header(section, choice) + _RENDERERS[section](choice)


def render_solution(task: dict[str, Any] | None, genome: Genome) -> str:
    """The whole solution for `task` (None: infer at run time) with the sections chosen by `genome`."""
    missing = [s for s in GENE_SECTIONS if s not in genome]
    if missing:
        raise ValueError(f"genome lacks sections {missing}")
    split = SplitCode(render_preamble(task), {s: render_section(s, genome[s]) for s in GENE_SECTIONS})
    return split.join()
