"""Turn a task dict and a genome into solution code: a preamble plus the seven gene sections.

Every section only reads and writes the names listed in CONTRACT, so two solutions of the same competition
can swap sections freely. Each section records its choices in a `# offline-choice: {json}` comment. The
sections' code, and the preamble's GPU setup, are template files in swarm/offline_coder/templates/ (how they are
filled: its __init__.py).
"""

from __future__ import annotations

import ast
import inspect
import json
import pprint
import re
from functools import cache
from importlib import resources
from types import ModuleType
from typing import Any

from swarm.formats import audio, csv_tables, id_parts, label_sets, parquet_tables, records
from swarm.layouts.boxes import reader as box_rows
from swarm.layouts.file_labels import reader as file_labels
from swarm.layouts.registry import READ_BY_CODER
from swarm.offline_coder import inference
from swarm.offline_coder.embed import embedded_source
from swarm.offline_coder.genome import Genome
from swarm.offline_coder.render_data import render_data
from swarm.offline_coder.sections import CHOICE_PREFIX, SplitCode
from swarm.protocol import GENE_SECTIONS, section_marker
from swarm.pyparse import parse_python

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
CPUS = max(1, int(os.environ["OMP_NUM_THREADS"]))  # every thread pool sized to the CPUs given, no more
N_JOBS = CPUS  # the threads of the next fit: fit_predict sets them from its rows
MANY_ROWS = 20000  # below, a fit runs on one thread: per-split thread barriers cost more than they save

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
from threadpoolctl import threadpool_limits

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
_PLACEHOLDER_RE = re.compile(r"\bCHOSEN_([A-Z_]+)\b")  # a value the genome chose
_INSERT_RE = re.compile(r"^[ \t]*# <insert: ([a-z_]+)>\n", re.MULTILINE)  # a block of code


@cache
def _template_source(name: str) -> str:
    """The source of template `name` (a file of swarm/offline_coder/templates/)."""
    return resources.files("swarm.offline_coder.templates").joinpath(name).read_text(encoding="utf-8")


def _template(name: str) -> str:
    """Template `name`'s text: what follows its docstring and the blank lines after it."""
    return _template_source(name).split('"""', 2)[2].lstrip("\n")


def _function_body(name: str, function: str) -> str:
    """The body of `function` (the lines under its `def`) in template `name`."""
    source = _template_source(name)
    for node in parse_python(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return "".join(source.splitlines(keepends=True)[node.lineno : node.end_lineno])
    raise ValueError(f"template {name} has no function {function!r}")


def _replaced(pattern: re.Pattern[str], text: str, values: dict[str, str]) -> str:
    """`text` with each match of `pattern` replaced by the value its group names; the names found and the
    values given must be the same, so that no marked place stays unfilled and no value goes unused."""
    found = set(pattern.findall(text))
    if found != set(values):
        raise ValueError(
            f"a template marks the places {sorted(found)}, the values given are for {sorted(values)}"
        )
    return pattern.sub(lambda match: values[match.group(1)], text)


def _fill(text: str, **values: str) -> str:
    """`text` with each `CHOSEN_<NAME>` replaced by the code values[NAME]."""
    return _replaced(_PLACEHOLDER_RE, text, values)


def _insert(text: str, **blocks: str) -> str:
    """`text` with each `# <insert: name>` line replaced by the lines blocks[name]."""
    return _replaced(_INSERT_RE, text, blocks)


GPU_SETUP = "\n" + _template("gpu_setup.py")


# The readers of what the coder found beside a labelled table (swarm/offline_coder/discovery.py), by DATA_FILES key.
TABLE_READERS: dict[str, ModuleType] = {
    "train_files": file_labels,
    "label_sets": label_sets,
    "id_parts": id_parts,
}


def _runtime_inference_source() -> str:
    """Task inference at run time (the coder saw no data): the readers, the coder's inference, the registered
    layouts' (name, find, read) in the registry's order, and the task."""
    readers = ", ".join(
        f"({layout.name!r}, {layout.find.__name__}, {layout.read.__name__})" for layout in READ_BY_CODER
    )
    return (
        "# Task inference at run time (the coder saw no data): kinds of columns, layouts, then the task."
        + embedded_source([inference, *(layout.reader for layout in READ_BY_CODER)])
        + f"\n\nLAYOUT_READERS = ({readers},)  # the registered layouts, in the order they are looked for\n"
    )


DEFAULT_FILES = {"train": "train.csv", "test": "test.csv", "sample": "sample_submission.csv"}


def _readers(task: dict[str, Any], files: dict[str, Any]) -> list[ModuleType]:
    """The reader modules a solution with a task dict pastes: the CSV reader its DATA section reads tables with
    (text keeps "NA" and "None"), the readers of the files the coder found, and the reader of sound clips where a
    column names them."""
    readers = [csv_tables, *(module for key, module in TABLE_READERS.items() if files.get(key))]
    if any(info.get("audio") for info in (task.get("columns") or {}).values()):
        readers.append(audio)
    tables = [str(files.get(key) or "").lower() for key in ("train", "test")]
    if any(name.endswith((".json", ".jsonl")) for name in tables):
        readers.append(records)
    if any(parquet_tables.is_parquet_name(name) for name in tables):
        readers.append(parquet_tables)
    if any(t["task"] == "boxes" for t in task["targets"]):
        readers.append(box_rows)
    return readers + [layout.reader for layout in READ_BY_CODER if files.get(layout.name)]


def render_preamble(task: dict[str, Any] | None) -> str:
    """Imports and the task constants; without a task dict, code that infers the task at run time."""
    if task is None:
        spec = _runtime_inference_source() + "\n_TASK = infer_task_from_dir(INPUT_DIR, LAYOUT_READERS)\n"
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
    readers = _readers(task, files)
    reader = embedded_source(readers).lstrip("\n") + "\n" if readers else ""
    return CONTRACT + IMPORTS + gpu + reader + constants


def _header(section: str, choice: dict[str, Any]) -> str:
    return f"{section_marker(section)}\n{CHOICE_PREFIX}{json.dumps(choice, sort_keys=True)}\n"


def _data(choice: dict[str, Any]) -> str:
    return render_data(choice)


_FAMILY_DOC = {
    "blend": "the average of gradient-boosted trees and a scaled linear model (soft voting)",
    "lgbm": "LightGBM gradient-boosted trees (sklearn's HistGradientBoosting when LightGBM is missing)",
    "hgb": "sklearn HistGradientBoosting trees",
    "rf": "a random forest",
    "extratrees": "extremely randomized trees",
    "linear": "a scaled linear model (logistic regression / ridge / huber)",
}


# The estimators.py functions whose bodies make each family's build_model (the blend has its own template).
_ESTIMATORS = {
    "lgbm": ("lgbm", "hgb"),  # sklearn's HistGradientBoosting where LightGBM is missing
    "hgb": ("hgb",),
    "rf": ("forest",),
    "extratrees": ("forest",),
    "linear": ("linear",),
}
_FOREST_CLASSES = {
    "rf": {"REGRESSOR": "RandomForestRegressor", "CLASSIFIER": "RandomForestClassifier"},
    "extratrees": {"REGRESSOR": "ExtraTreesRegressor", "CLASSIFIER": "ExtraTreesClassifier"},
}


def _estimator(*functions: str, **values: str) -> str:
    """The bodies of estimators.py's `functions`, one after the other, their CHOSEN_ names filled."""
    return _fill("".join(_function_body("estimators.py", function) for function in functions), **values)


def _model(choice: dict[str, Any]) -> str:
    family = choice.get("family", "hgb")
    if family not in _FAMILY_DOC:
        raise ValueError(f"unknown model family {family!r}; expected one of {', '.join(_FAMILY_DOC)}")
    head = {"FAMILY": repr(family), "FAMILY_DOC": _FAMILY_DOC[family]}
    if family == "blend":
        members = {"boosted": _estimator("lgbm", "hgb"), "linear": _estimator("linear")}
        return _insert(_fill(_template("model_blend.py"), **head), **members)
    estimator = _estimator(*_ESTIMATORS[family], **_FOREST_CLASSES.get(family, {}))
    return _insert(_fill(_template("model.py"), **head), estimator=estimator)


def _loss(choice: dict[str, Any]) -> str:
    return _fill(_template("loss.py"), OBJECTIVE=repr(choice.get("objective", "l2")))


def _optimizer(choice: dict[str, Any]) -> str:
    return _fill(
        _template("optimizer.py"),
        LEARNING_RATE=repr(float(choice["learning_rate"])),
        N_ESTIMATORS=repr(int(choice["n_estimators"])),
    )


def _regularization(choice: dict[str, Any]) -> str:
    values = {key: choice[key] for key in ("max_depth", "num_leaves", "min_samples_leaf", "l2", "subsample",
                                            "colsample")}  # fmt: skip
    return _fill(
        _template("regularization.py"), REG=repr(values), PRESET=repr(choice.get("preset", "custom"))
    )


def _initialization(choice: dict[str, Any]) -> str:
    return _fill(_template("initialization.py"), SEED=str(int(choice.get("seed", 42))))


def _training_tricks(choice: dict[str, Any]) -> str:
    """The section; a lookup (free-text) target's answers come from `inference.most_common_answers`, whose
    source the solution carries."""
    tricks = _fill(
        _template("training_tricks.py"),
        VALIDATION=repr(choice.get("validation", "holdout")),
        FOLDS=str(int(choice.get("folds", 5))),
        TARGET_TRANSFORM=repr(choice.get("target_transform", "none")),
        SEED_BAG=str(int(choice.get("seed_bag", 1))),
    )
    return _insert(tricks, most_common_answers=inspect.getsource(inference.most_common_answers))


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
