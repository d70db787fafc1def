"""Which metric a run optimises, and where that choice came from.

`resolve_metric` decides, highest precedence first: `--metric NAME` / `data.metric`, the competition's
competition.json (bundled or not), then description.md, read by the code stage's model through a forced
`choose_metric` call, or by `infer_metric_rules` when there is no model or its call fails. Nothing defaults:
when no source names a metric, `MetricUnknown` says how to name one. Metric names are the library's
(`swarm.competitions.metrics.METRICS`), read at call time.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, Field, create_model

from swarm.competitions import metrics as metric_lib
from swarm.competitions.competition import METADATA_FILE, Competition, scored_by
from swarm.competitions.errors import CompetitionError
from swarm.competitions.numeric_metrics import MASKED_METRICS
from swarm.competitions.scored_columns import scored_columns_named
from swarm.llm.base import CallContext, LLMClient, LLMError, Message, ToolSpec

SOURCE_OVERRIDE = "--metric / data.metric"
SOURCE_COMPETITION_JSON = "competition.json"
SOURCE_BUNDLED = "bundled competition"
SOURCE_MODEL = "description.md (model)"
SOURCE_RULES = "description.md (rules)"
SOURCES = (SOURCE_OVERRIDE, SOURCE_COMPETITION_JSON, SOURCE_BUNDLED, SOURCE_MODEL, SOURCE_RULES)
TOOL_NAME = "choose_metric"
# How much of description.md the model reads (when it is cut, its Evaluation section is kept).
DESCRIPTION_LIMIT = 12_000
_REASON_LIMIT = 300
_FIELDS = ("name", "lower_is_better", "source", "reason", "params")


class MetricUnknown(CompetitionError):
    """No source names the competition's metric; the message says how to name one."""


def library_names() -> list[str]:
    """The metric library's names, sorted (read now: the library may grow)."""
    return sorted(metric_lib.METRICS)


def _direction(lower_is_better: bool) -> str:
    return "lower is better" if lower_is_better else "higher is better"


def _one_line(text: str, limit: int = _REASON_LIMIT) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3].rstrip() + "..."


def _params_problem(name: str, params: Any) -> str | None:
    """What is wrong with `params` for the library metric `name` (its own parameter checks), or None."""
    if not isinstance(params, dict):
        return f"params must be an object, got {type(params).__name__}"
    if any(not isinstance(key, str) for key in params):
        return f"params keys must be strings, got {sorted(map(repr, params))}"
    try:
        metric_lib.METRICS[name].resolve_params(params)
    except (CompetitionError, KeyError, TypeError) as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class MetricChoice:
    """The metric a run optimises: a library `name`, its direction, where it came from and why."""

    name: str
    lower_is_better: bool
    source: str
    reason: str
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or self.name not in metric_lib.METRICS:
            raise ValueError(
                f"metric choice: unknown metric {self.name!r}; known metrics: {', '.join(library_names())}"
            )
        if not isinstance(self.lower_is_better, bool):
            raise ValueError(
                f"metric choice: lower_is_better must be true or false, got {self.lower_is_better!r}"
            )
        if self.source not in SOURCES:
            raise ValueError(f"metric choice: unknown source {self.source!r}; sources: {', '.join(SOURCES)}")
        if not isinstance(self.reason, str):
            raise ValueError(f"metric choice: reason must be a string, got {type(self.reason).__name__}")
        problem = _params_problem(self.name, self.params)
        if problem:
            raise ValueError(f"metric choice: {problem}")
        object.__setattr__(self, "reason", _one_line(self.reason))
        object.__setattr__(self, "params", dict(self.params))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (`from_dict` reads it back)."""
        return {
            "name": self.name,
            "lower_is_better": self.lower_is_better,
            "source": self.source,
            "reason": self.reason,
            "params": dict(self.params),
        }

    @classmethod
    def from_dict(cls, data: Any) -> MetricChoice:
        """The choice saved by `to_dict`; ValueError naming the problem for anything else."""
        if not isinstance(data, dict):
            raise ValueError(f"metric choice: expected an object, got {type(data).__name__}")
        missing = [key for key in _FIELDS[:4] if key not in data]
        if missing:
            raise ValueError(f"metric choice: missing {', '.join(missing)}")
        unknown = sorted(str(key) for key in data if key not in _FIELDS)
        if unknown:
            raise ValueError(f"metric choice: unknown field(s) {', '.join(unknown)}")
        return cls(
            name=data["name"],
            lower_is_better=data["lower_is_better"],
            source=data["source"],
            reason=data["reason"],
            params=data.get("params", {}),
        )

    def describe(self) -> str:
        """One line for the run's start: the metric, its direction, its source and how to override it."""
        params = ", ".join(f"{key}={value}" for key, value in sorted(self.params.items()))
        shown = f"{self.name} ({params})" if params else self.name
        return (
            f"metric: {shown} ({_direction(self.lower_is_better)}), from {self.source}: {self.reason}; "
            "override with --metric NAME"
        )


# -- rules ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleMatch:
    """What `infer_metric_rules` found: a library `name`, a `reason` quoting the words, metric `params`."""

    name: str
    reason: str
    params: dict[str, Any] = field(default_factory=dict)


# The offline coder's coarse metric (swarm/offline_coder/inference.py, self-contained: it keeps its own rules) nearest
# to each library metric, None where it has none; tests/competitions/test_metric_wording.py holds both rule
# sets to this over real descriptions.
COARSE_METRIC: dict[str, str | None] = {
    "accuracy": "accuracy",
    "balanced_accuracy": "accuracy",
    "auc": "auc",
    "logloss": "logloss",
    "multilabel_logloss": "logloss",
    "multiclass_logloss": "logloss",
    "f1": "f1",
    "f1_macro": "f1",
    "f1_micro": "f1",
    "f1_weighted": "f1",
    "qwk": None,
    "map_at_k": None,
    "rmse": "rmse",
    "mse": "rmse",
    "mcrmse": "rmse",
    "rmsle": "rmsle",
    "rmse_log": "rmsle",
    "mae": "mae",
    "r2": "r2",
    "spearman": None,
    "pearson": None,
    "smape": None,
    "multilabel_f1_micro": "f1",
    "word_jaccard": None,
    "kendall_tau": None,
    "mean_levenshtein": None,
    "token_error_rate": None,
    "point_in_box_f1": "f1",
    "kl_divergence": None,
    "log_mae": "mae",
    "mcc": None,
    "lwlrap": "auc",  # a ranking of each clip's classes: scores per class, as AUC wants
    "rle_dice": None,
    "rle_dice_global": None,
    "rle_iou": None,
    "rle_iou_map": None,
    "rle_fbeta": None,
    "masked_mae": "mae",
    "tpr_weighted_auc": "auc",
    "mean_angular_error": None,
    "trip_distance_error": None,
    "dice_hausdorff": None,
    "laplace_log_likelihood": None,
    "probabilistic_f1": "f1",
    "jigsaw_bias_auc": "auc",
    "answer_span_f1": "f1",
    "voc_box_map": None,
    "coco_box_map": None,
    "lyft_3d_map": None,
    "spine_weighted_logloss": "logloss",
}

_GAP = r"[\s-]+"
_RMSE = rf"(?:\brmse\b|root{_GAP}mean{_GAP}squared?{_GAP}error)"
_LOGLOSS = r"(?:\blog(?:arithmic)?[\s-]*loss|cross[\s-]*entropy)"
_F1 = r"(?:\bf1\b|\bf[\s-]?(?:1[\s-]?)?score\b|\bf[\s-]?measure\b)"
# Within one sentence, across line wraps but not blank lines.
_NEAR = r"(?:[^.\n]|\n(?![ \t]*\n)){0,150}?"
_NOT_SCORED = rf"\b(?:is|are){_GAP}not{_GAP}scored\b"


def _f1_average(word: str) -> str:
    return rf"\b{word}\b[^.\n]{{0,20}}?{_F1}|{_F1}[^.\n]{{0,20}}?\b{word}"


# Whole metric names. In a scope the earliest match wins, at one position the first rule in this order (the
# longer name first): "multi-class logarithmic loss" is neither RMSLE nor binary log loss. A rule named None
# is a metric the library lacks (Dice, Jaccard, PR-AUC, ...): finding it first gives no metric at all, rather
# than a library metric named later or elsewhere in the description.
_WHOLE: tuple[tuple[str | None, str], ...] = (
    ("mcrmse", rf"\bmcrmse\b|column[\s-]*wise{_GAP}{_RMSE}"),
    # rsna-2022-cervical-spine-fracture-detection's "weighted multi-label logarithmic loss", its any label
    # `patient_overall` named soon after; without it a weighted multi-label log loss is another one's
    (
        "spine_weighted_logloss",
        rf"\bweighted{_GAP}multi[\s-]*label{_GAP}{_LOGLOSS}(?=[\s\S]{{0,800}}?\bpatient_overall\b)",
    ),
    (
        "multilabel_logloss",
        rf"multi[\s-]*label{_GAP}{_LOGLOSS}|column[\s-]*wise{_GAP}(?:binary{_GAP})?{_LOGLOSS}",
    ),
    (
        "multiclass_logloss",
        rf"multi[\s-]*class{_GAP}(?:{_LOGLOSS}|loss\b)|categorical{_GAP}cross[\s-]*entropy",
    ),
    ("logloss", rf"{_LOGLOSS}|logistic{_GAP}loss"),
    ("rmsle", rf"\brmsle\b|root{_GAP}mean{_GAP}squared?{_GAP}log(?:arithmic)?{_GAP}error"),
    ("rmsle", rf"{_RMSE}{_NEAR}\blog\s*\(\s*(?:1\s*\+|[^()\n]{{1,30}}\+\s*1\s*\))|{_RMSE}{_NEAR}\blog1p\b"),
    ("rmse_log", rf"{_RMSE}{_NEAR}\blog(?:arithm(?:ic|s)?|s)?\b"),
    ("rmse", _RMSE),
    ("mse", rf"\bmse\b|mean{_GAP}squared?{_GAP}error"),
    ("smape", rf"\bsmape\b|symmetric{_GAP}mean{_GAP}absolute{_GAP}percentage{_GAP}error"),
    (None, rf"\bmape\b|mean{_GAP}absolute{_GAP}percentage{_GAP}error"),
    (
        "log_mae",
        rf"\blog{_GAP}(?:of{_GAP}(?:the{_GAP})?)?mean{_GAP}absolute{_GAP}error"
        r"|\blog\s*\(\s*mae\s*\)|\blog[\s-]*mae\b",
    ),
    # an MAE over part of the rows, the others said not to be scored in the same paragraph
    # (ventilator-pressure-prediction: "[...] during the inspiratory phase of each breath. The expiratory phase is
    # not scored"); `with_groups` then finds the mask column
    ("masked_mae", rf"(?:\bmae\b|mean{_GAP}absolute{_GAP}error)(?=[^\n]{{0,200}}?{_NOT_SCORED})"),
    ("mae", rf"\bmae\b|mean{_GAP}absolute{_GAP}error"),
    (
        "qwk",
        rf"\bqwk\b|quadratic(?:ally)?{_GAP}weighted{_GAP}(?:cohen'?s{_GAP})?kappa|cohen'?s{_GAP}kappa"
        rf"|weighted{_GAP}kappa",
    ),
    (
        "map_at_k",
        rf"mean{_GAP}average{_GAP}precision\s*(?:@|{_GAP}at{_GAP})\s*(?:\d+|k\b)|\bmap\s*@\s*(?:\d+|k\b)",
    ),
    # boxes' mAP at one IoU (siim-covid19-detection, vinbigdata: "the standard PASCAL VOC 2010 mean Average
    # Precision (mAP) at IoU > 0.5"); `_iou` reads the threshold
    ("voc_box_map", rf"\bpascal{_GAP}voc\b[^\n]{{0,80}}?mean{_GAP}average{_GAP}precision"),
    # 3-D boxes' mAP over IoU thresholds (3d-object-detection-for-autonomous-vehicles: "mean average precision at
    # different intersection over union (IoU) thresholds. The IoU of a set of predicted 3D bounding volumes")
    (
        "lyft_3d_map",
        rf"mean{_GAP}average{_GAP}precision{_NEAR}(?:intersection{_GAP}over{_GAP}union|\biou\b)"
        rf"(?=[\s\S]{{0,300}}?\b3d{_GAP}bounding{_GAP}(?:volumes?|box(?:es)?)\b)",
    ),
    # masks' IoU over thresholds (tgs-salt-identification-challenge), not the mAP of ranked lists or boxes
    (
        "rle_iou_map",
        rf"mean{_GAP}average{_GAP}precision{_NEAR}(?:intersection{_GAP}over{_GAP}union|\biou\b)"
        rf"{_NEAR}threshold",
    ),
    (
        "lwlrap",
        rf"\blwlrap\b|label[\s-]*weighted[\s\[*-]+label[\s-]*ranking{_GAP}average{_GAP}precision",
    ),
    # average precision, the area under the precision-recall curve: not ROC AUC, and not in the library
    (
        None,
        rf"area{_GAP}under{_GAP}(?:the{_GAP})?(?:precision{_GAP}recall|pr)\b|\bpr{_GAP}?auc\b"
        rf"|\bauc{_GAP}?pr\b|\bauprc?\b|(?:mean{_GAP})?average{_GAP}precision|\bap\s*@",
    ),
    # the ROC AUC weighted by bands of the true positive rate (alaska2-image-steganalysis: "the weighted AUC
    # [...] tpr_thresholds = [0.0, 0.4, 1.0]"), the bands said soon after; a "weighted AUC" alone is not it
    ("tpr_weighted_auc", rf"\bweighted{_GAP}auc\b(?=[\s\S]{{0,400}}?(?:\btpr|true{_GAP}positive{_GAP}rate))"),
    (
        "auc",
        rf"area{_GAP}under{_GAP}(?:the{_GAP})?(?:roc\b|receiver{_GAP}operating{_GAP}characteristic)"
        rf"|(?<!pr )(?<!pr-)(?<!recall )\b(?:roc[\s-]*)?auc\b",
    ),
    # the overall AUC with power means of per-identity bias AUCs (jigsaw-unintended-bias: "a newly developed
    # metric that combines several submetrics to balance overall performance with various aspects of unintended
    # bias", then "Overall AUC", "Bias AUCs", "BPSN")
    ("jigsaw_bias_auc", rf"\bunintended{_GAP}bias\b|\bbias{_GAP}aucs?\b|\bbpsn\b"),
    # the F1 of probabilities (rsna-breast-cancer-detection: "the probabilistic F1 score (pF1)")
    ("probabilistic_f1", rf"\bprobabilistic{_GAP}f[\s-]?1\b|\bpf[\s_-]?1\b"),
    # answers matched exactly as token spans or YES/NO (tensorflow2-question-answering: "micro F1 between the
    # predicted and expected answers. Predicted long and short answers must match exactly the token indices")
    ("answer_span_f1", rf"(?:\bmicro{_GAP})?{_F1}(?=[\s\S]{{0,400}}?\btoken{_GAP}indices\b)"),
    ("f1_macro", _f1_average("macro")),
    ("f1_micro", _f1_average("micro")),
    ("f1_weighted", _f1_average("weighted")),
    (None, r"\bf[\s-]?0?\.5\b|\bf[\s-]?2[\s-]*(?:score|measure)\b|\bf[\s-]?beta\b|\bfbeta\b|\bf_\{?\\beta"),
    # an F1 of centre points inside true boxes (kuzushiji-recognition), not of labels: said in the same paragraph
    (
        "point_in_box_f1",
        rf"{_F1}(?=[^\n]{{0,400}}?\bcent(?:er|re){_GAP}points?\b[^\n]{{0,200}}?\bbounding{_GAP}box)",
    ),
    ("f1", _F1),
    ("spearman", r"\bspearman"),
    ("pearson", r"\bpearson"),
    ("r2", rf"\br2\b|\br\s*\^\s*2|\br\u00b2|\br{_GAP}squared\b|coefficient{_GAP}of{_GAP}determination"),
    ("balanced_accuracy", rf"balanced{_GAP}accuracy"),
    # masks (run-length encoded: `_RLE` must be in the description, else no metric) and words
    ("rle_fbeta", r"(?:\bdice\b|s(?:\u00f8|o)rensen)[^\n]{0,200}?\bf[\s-]?0?\.5\b"),
    ("rle_dice_global", r"\bglobal[\s*_\[-]*dice\b"),
    # Dice blended with the 3-D Hausdorff distance (uw-madison-gi-tract-image-segmentation: "the mean Dice
    # coefficient and 3D Hausdorff distance")
    ("dice_hausdorff", rf"\bdice\b{_NEAR}hausdorff"),
    ("rle_dice", r"\bdice\b|s(?:\u00f8|o)rensen"),
    ("rle_iou", rf"intersection{_GAP}over{_GAP}union|\biou\b"),
    ("word_jaccard", rf"\bword[\s-]*(?:level|based){_GAP}jaccard"),
    (None, r"\bjaccard\b"),
    # Kendall tau of orders (AI4Code: "the Kendall tau correlation between predicted cell orders"), orders named
    # in the same paragraph: a Kendall tau of numbers is another metric, and so names none (below)
    (
        "kendall_tau",
        rf"kendall(?:'?s)?{_GAP}(?:tau|\u03c4|rank{_GAP}correlation)\b"
        rf"(?=[^\n]{{0,300}}?(?<!\bin )\border(?:s|ings?)?\b)",
    ),
    # edit distances: summed over rows and divided by the number of true labels (multi-modal-gesture-recognition
    # defines it after a "Levenshtein Distance" heading, so from the first "Levenshtein" on), or the mean over
    # rows (bms-molecular-translation, billion-word-imputation); any other (normalised, of words) names none
    (
        "token_error_rate",
        rf"levenshtein(?=[\s\S]*?\bsum{_GAP}of{_GAP}(?:the{_GAP})?levenshtein{_GAP}distances\b{_NEAR}"
        rf"\bdivided{_GAP}by{_GAP}the{_GAP}total{_GAP}number\b)",
    ),
    ("mean_levenshtein", rf"\b(?:mean|average){_GAP}\[?levenshtein{_GAP}distances?\b"),
    (None, rf"levenshtein|\bedit{_GAP}distance|\bbleu\b|\brouge\b|\b(?:word|character){_GAP}error{_GAP}rate"),
    ("kl_divergence", rf"kullback[\s-]*l(?:ei|ie)bler|\bkl{_GAP}divergence"),
    # osic-pulmonary-fibrosis-progression: "a modified version of the Laplace Log Likelihood"
    ("laplace_log_likelihood", rf"\blaplace{_GAP}log{_GAP}likelihood"),
    (None, rf"log{_GAP}likelihood|\bcrps\b|continuous{_GAP}ranked{_GAP}prob"),
    ("mcc", r"matthews|\bmcc\b"),
    (None, rf"hausdorff|kendall|\bgini\b|pinball|quantile{_GAP}loss"),
    # directions as (azimuth, zenith): `_refined` wants both words in the description (icecube)
    ("mean_angular_error", rf"\b(?:mean{_GAP})?angular{_GAP}(?:error|distance)"),
    # smartphone-decimeter-2022: "the mean of the 50th and 95th percentile distance errors"
    ("trip_distance_error", rf"\b50th{_GAP}and{_GAP}95th{_GAP}percentile{_GAP}distance{_GAP}errors?\b"),
    (None, r"percentile\b[^.\n]{0,30}?\berrors?\b"),
)
# Fragments, and words prose uses loosely ("the accuracy of a forecast"): read only when no whole name is.
_FRAGMENTS: tuple[tuple[str | None, str], ...] = (
    ("auc", rf"\broc\b|area{_GAP}under{_GAP}(?:the{_GAP})?curve"),
    # top-1 classification error is 1 - accuracy: the same ranking of submissions
    ("accuracy", rf"\baccuracy\b|percentage{_GAP}of\b[^.\n]{{0,40}}?\bcorrectly"),
    (
        "accuracy",
        rf"(?:top[\s-]*1{_GAP})?(?<![02-9][\s-])classification{_GAP}error|(?<!word )\berror{_GAP}rate\b",
    ),
)
# Metrics of run-length encoded masks: the rules name them only when the description speaks of run-length
# encoding.
_RLE_METRICS = frozenset({"rle_dice", "rle_dice_global", "rle_iou", "rle_iou_map", "rle_fbeta"})
_RLE = re.compile(r"run[\s-]*length|\brle\b|encoded[\s_-]*pixels", re.IGNORECASE)
# The library's angular error is between directions as azimuth and zenith: both words must be there.
_DIRECTION_WORDS = (re.compile(r"\bazimuth", re.IGNORECASE), re.compile(r"\bzenith", re.IGNORECASE))
# An F1 over label sets: space-separated lists of labels, or sample rows of several whole numbers ("id,0 1 2")
_LABEL_SETS = re.compile(
    rf"space{_GAP}(?:delimited|separated){_GAP}(?:list|labels|tags)|multi{_GAP}?label"
    r"|^[^,\n]+,[ \t]*\"?\d+(?:[ \t]+\d+)+\"?[ \t\\]*$",
    re.IGNORECASE | re.MULTILINE,
)
# The rule sets, compiled, in the order they are tried.
_COMPILED = tuple(
    tuple((name, re.compile(pattern, re.IGNORECASE)) for name, pattern in rules)
    for rules in (_WHOLE, _FRAGMENTS)
)
# A library name written as code or bold: `rmse_log`, **accuracy**.
_CODE_NAME = re.compile(r"(?:`|\*\*)([A-Za-z][\w@]*)(?:`|\*\*)")
_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.*)$", re.MULTILINE)
_PLAIN_EVALUATION = re.compile(
    r"^[ \t]*evaluation(?:[ \t]+metric)?[ \t]*:?[ \t]*$", re.IGNORECASE | re.MULTILINE
)
_K_HINTS = (
    re.compile(r"@\s*(\d+)"),
    re.compile(rf"{_GAP}at{_GAP}(\d+)", re.I),
    re.compile(r"\bk\s*=\s*(\d+)", re.I),
)
_K_NEARBY = (_K_HINTS[0], _K_HINTS[2])
_IOU_HINT = re.compile(r"\biou\s*(?:>=?|≥|of|=)\s*`?(0?\.\d+)", re.IGNORECASE)


def scored_by_choice(competition: Competition, choice: MetricChoice) -> Competition:
    """`competition` (loaded with `data.metric`, if set) scored by the run's chosen metric: as it is where the
    choice is its competition.json's or the bundled one's; else by the chosen name, with the choice's params
    beyond what the name carries (log_mae's group_column read from the description)."""
    if choice.source in (SOURCE_COMPETITION_JSON, SOURCE_BUNDLED):
        return competition
    competition = scored_by(competition, metric_argument(choice))
    spec = competition.metric
    if choice.params and spec is not None and spec.name == choice.name:
        competition = replace(competition, metric=replace(spec, params={**spec.params, **choice.params}))
    return competition


def metric_argument(choice: MetricChoice) -> str:
    """The metric as `load_competition` takes it: its name, with MAP@k's k (`map@5`)."""
    k = choice.params.get("k")
    return f"map@{k}" if k is not None and choice.name == "map_at_k" else choice.name


def evaluation_section(description: str) -> str | None:
    """The text of description.md's Evaluation section (heading to the next heading as high), or None."""
    headings = list(_HEADING.finditer(description))
    for i, heading in enumerate(headings):
        if re.search(r"\bevaluation\b|\bmetrics?\b|\bscoring\b", heading.group(2), re.IGNORECASE):
            level = len(heading.group(1))
            later = (h.start() for h in headings[i + 1 :] if len(h.group(1)) <= level)
            return description[heading.end() : next(later, len(description))]
    plain = _PLAIN_EVALUATION.search(description)
    return description[plain.end() : plain.end() + 3000] if plain else None


def _k_from(text: str, patterns: tuple[re.Pattern[str], ...]) -> int | None:
    """K of MAP@K as the first of `patterns` finds it (in 1..10000), or None."""
    for pattern in patterns:
        found = pattern.search(text)
        if found and 0 < int(found.group(1)) <= 10_000:
            return int(found.group(1))
    return None


def _map_k(matched: str, scope: str) -> dict[str, Any]:
    k = _k_from(matched, _K_HINTS)
    if k is None:  # "MAP@K" alone: look around it, but not for a loose "at 5"
        k = _k_from(scope, _K_NEARBY)
    return {"k": k} if k else {}


def _iou(scope: str) -> dict[str, Any]:
    """The IoU threshold a box mAP is said to be "at" ("at IoU > 0.4"), if the text gives one."""
    found = _IOU_HINT.search(scope)
    return {"iou": float(found.group(1))} if found else {}


def _earliest(
    rules: tuple[tuple[str | None, re.Pattern[str]], ...], scope: str
) -> tuple[str | None, str] | None:
    """(name, matched words) of the match starting first in `scope` (the first rule's at a tie), or None."""
    best: tuple[int, int, str | None, str] | None = None
    for order, (name, pattern) in enumerate(rules):
        found = pattern.search(scope)
        if found and (best is None or (found.start(), order) < best[:2]):
            best = (found.start(), order, name, found.group(0))
    return None if best is None else best[2:]


def _refined(name: str | None, scope: str, text: str) -> str | None:
    """`name` as the wording around it settles it: a mask metric only for run-length encoded masks (else
    none), the mean angular error only for directions as azimuth and zenith (else none), an F1 (binary or
    micro) over label sets the label-set micro F1."""
    if name in _RLE_METRICS and not _RLE.search(text):
        return None
    if name == "mean_angular_error" and not all(words.search(text) for words in _DIRECTION_WORDS):
        return None
    if name in ("f1", "f1_micro") and _LABEL_SETS.search(scope):
        return "multilabel_f1_micro"
    return name


def _match_in(scope: str, text: str = "") -> tuple[str | None, str, dict[str, Any]] | None:
    """(name, matched words, params) of the metric `scope` names, name None for one the library lacks.

    A library name written as code or bold comes first, then whole metric names, then fragments; `text` (the
    whole description, `scope` by default) settles a mask metric (see `_refined`).
    """
    for token in _CODE_NAME.finditer(scope):
        try:
            metric, params = metric_lib.resolve_metric(token.group(1))
        except CompetitionError:
            continue
        if metric.name == "map_at_k" and not params:
            params = _map_k(token.group(0), scope)
        return metric.name, token.group(0), params
    for rules in _COMPILED:
        found = _earliest(rules, scope)
        if found:
            name, words = found
            name = _refined(name, scope, text or scope)
            name = name if name in metric_lib.METRICS else None  # the library may have dropped it
            params = (
                _map_k(words, scope) if name == "map_at_k" else _iou(scope) if name == "voc_box_map" else {}
            )
            return name, words, params
    return None


def _find_metric(description: str) -> tuple[str | None, str, dict[str, Any]] | None:
    """(name or None, reason, params) from the Evaluation section, else the whole text; None if nothing named.

    The whole text is read only when the Evaluation section names no metric at all (known to the library
    or not): a section naming the Dice coefficient does not become the accuracy its overview mentions.
    """
    text = description or ""
    section = evaluation_section(text)
    scopes = [("description.md's Evaluation section", section)] if section and section.strip() else []
    for where, scope in [*scopes, ("description.md", text)]:
        found = _match_in(scope, text)
        if found:
            name, words, params = found
            said = "names" if words.startswith(("`", "*")) else "says"
            return name, f'{where} {said} "{_one_line(words, 120)}"', params
    return None


def infer_metric_rules(description: str) -> RuleMatch | None:
    """The library metric description.md names, by rules (Evaluation section first), or None.

    Returns a `RuleMatch` (name, a reason quoting the matched words, params such as {"k": 5} for map_at_k);
    None when no metric is named, or when the one named first is not in the library (Dice, PR-AUC, ...).
    """
    found = _find_metric(description)
    if found is None or found[0] is None:
        return None
    name, reason, params = found
    return RuleMatch(name, reason, params)


def lacking_metric(description: str) -> str | None:
    """Why the rules name no library metric when description.md names one the library lacks, else None."""
    found = _find_metric(description)
    if found is None or found[0] is not None:
        return None
    return f"{found[1]}, a metric the library lacks"


# -- the model ----------------------------------------------------------------------------------------------------

_SYSTEM_PROMPT = """\
You read the description of a Kaggle-style competition and name the metric its submissions are scored with.
Call choose_metric once:
- name: the metric from this library that computes that score (formulas below); prefer the Evaluation section;
- lower_is_better: that metric's direction;
- reason: one line quoting the words of the description that name the metric;
- k: only for map_at_k, the K of MAP@K.

Metric library:
"""


@lru_cache(maxsize=8)
def _tool_for(names: tuple[str, ...]) -> ToolSpec:
    schema: type[BaseModel] = create_model(
        "ChooseMetric",
        name=(Literal[names], Field(description="the library metric that scores the submissions")),  # type: ignore[valid-type]
        lower_is_better=(bool, Field(description="true when a lower score is better")),
        reason=(str, Field(description="one line quoting the words that name the metric")),
        k=(int | None, Field(default=None, ge=1, description="for map_at_k only: K of MAP@K")),
    )
    return ToolSpec(TOOL_NAME, "Name the metric the competition's submissions are scored with.", schema)


def metric_tool() -> ToolSpec:
    """The `choose_metric` tool; its `name` is an enum of the library's names as they are now."""
    return _tool_for(tuple(library_names()))


def _excerpt(description: str, limit: int = DESCRIPTION_LIMIT) -> str:
    if len(description) <= limit:
        return description
    section = (evaluation_section(description) or "")[: limit // 2]
    head = description[: limit - len(section)]
    return f"{head}\n\n[...]\n\n## Evaluation (excerpt)\n{section}" if section else head


def metric_messages(description: str) -> list[Message]:
    """The system prompt (with the library's formulas) and the description, trimmed to a sane length."""
    lines = [
        f"- {name}: {metric.formula} ({_direction(metric.lower_is_better)})"
        for name, metric in sorted(metric_lib.METRICS.items())
    ]
    return [
        Message("system", _SYSTEM_PROMPT + "\n".join(lines)),
        Message("user", f"The competition's description.md:\n\n{_excerpt(description or '')}"),
    ]


def infer_metric_with_model(
    client: LLMClient, description: str, ctx_run_id: str | None = None
) -> MetricChoice:
    """The metric the model names for `description` (a forced `choose_metric` call).

    Raises LLMError when the call fails and ValueError when the model names a metric outside the library; a
    direction that disagrees with the library's is replaced by the library's, and the reason says so.
    """
    ctx = CallContext(stage="code", kind="metric", run_id=ctx_run_id, hints={"description": description})
    args = client.call_tool(metric_messages(description), metric_tool(), ctx)
    name = args.get("name")
    if not isinstance(name, str) or name not in metric_lib.METRICS:
        raise ValueError(
            f"the model named metric {name!r}, which is not in the metric library ({', '.join(library_names())})"
        )
    library_lower = metric_lib.METRICS[name].lower_is_better
    reason = _one_line(args.get("reason") or "") or f"{client.provider} model {client.model} chose it"
    said = args.get("lower_is_better")
    if said is not library_lower:
        reason += (
            f" (the model said {_direction(bool(said)) if isinstance(said, bool) else repr(said)}, but {name} is "
            f"{_direction(library_lower)} in the metric library, which is used)"
        )
    params: dict[str, Any] = {}
    if name == "map_at_k":
        k = args.get("k")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            k = _k_from(description or "", _K_NEARBY)
        params = {"k": k} if k else {}
    # The offline coder answers with the rules (it is not a model): the source says which chose the metric.
    source = SOURCE_RULES if getattr(client, "provider", None) == "offline" else SOURCE_MODEL
    return MetricChoice(name, library_lower, source, reason, params)


# -- the groups of a grouped metric -------------------------------------------------------------------------------

# Words that say a score is computed per group of a column and then averaged: "calculated for each scalar
# coupling type, and then averaged across types" (champs-scalar-coupling); up to three words may stand between
# them and the column's name.
_PER_GROUP = (
    rf"\b(?:for{_GAP}(?:each|every)|per|across|over|within|grouped{_GAP}by)"
    rf"(?:{_GAP}(?:all|the|each|every))?(?:{_GAP}[a-z0-9]+){{0,3}}?{_GAP}"
)


def _csv_header(path: Path) -> list[str]:
    """The column names of a CSV, [] when it is missing or unreadable."""
    try:
        return [str(c) for c in pd.read_csv(path, nrows=0).columns]
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return []


def infer_group_column(competition: Competition) -> tuple[str, str] | None:
    """(column, the words that name it) when description.md says the score is computed per group of a column
    that `train.csv` and `test.csv` share (not one of the sample submission's): champs's "for each scalar
    coupling type" and its column `type`. Read in the Evaluation section (the whole text when there is none);
    None when no such column is named, or when several are (ambiguous)."""
    public = competition.public_dir
    train, test = _csv_header(public / "train.csv"), _csv_header(public / "test.csv")
    submitted = set(_csv_header(competition.sample_submission))
    description = competition.description or ""
    section = evaluation_section(description)
    scope = section if section and section.strip() else description
    found: dict[str, str] = {}
    for column in dict.fromkeys(c for c in train if c in test and c not in submitted):
        words = [re.escape(w) for w in re.split(r"[\s_-]+", column.strip()) if w]
        name = r"[`'\"*]*" + _GAP.join(words) + r"s?\b"  # the name, maybe quoted as code or bold
        match = re.search(_PER_GROUP + name, scope, re.IGNORECASE) if words else None
        if match:
            found[column] = match.group(0)
    return next(iter(found.items())) if len(found) == 1 else None


# How many of train.csv's rows show whether a column holds only 0 and 1 (a masked metric's mask).
MASK_SAMPLE_ROWS = 100_000


def _line_naming(column: str, text: str) -> str | None:
    """The first line of `text` that names `column` as a whole word (case as written), list marks and code
    quotes left out; None when no line does."""
    found = re.search(rf"^.*(?<![\w]){re.escape(column)}(?![\w]).*$", text, re.MULTILINE)
    return " ".join(found.group(0).replace("`", "").lstrip(" \t-*+>").split()) if found else None


def _zero_one(values: pd.Series) -> bool:
    """Whether a column's cells are the numbers 0 and 1, both present and nothing else."""
    numbers = pd.to_numeric(values.str.strip(), errors="coerce")
    return bool(numbers.notna().all() and set(numbers.unique()) == {0.0, 1.0})


def infer_mask_column(competition: Competition) -> tuple[str, str] | None:
    """(column, the description's line naming it) for a masked metric (`masked_mae`, which scores the rows
    whose mask is 0): the one column that `train.csv` and `test.csv` share (not one of the sample
    submission's), that holds only 0 and 1 in train.csv's first MASK_SAMPLE_ROWS rows, and that description.md
    names: ventilator-pressure-prediction's `u_out`, "the control input for the exploratory solenoid valve.
    Either 0 or 1.". None when there is no such column, or when there are several (ambiguous)."""
    public = competition.public_dir
    train, test = _csv_header(public / "train.csv"), _csv_header(public / "test.csv")
    submitted = set(_csv_header(competition.sample_submission))
    description = competition.description or ""
    named: dict[str, str] = {}
    for column in dict.fromkeys(c for c in train if c in test and c not in submitted):
        line = _line_naming(column, description)
        if line:
            named[column] = line
    if not named:
        return None
    try:
        rows = pd.read_csv(
            public / "train.csv",
            usecols=list(named),
            dtype=str,
            keep_default_na=False,
            nrows=MASK_SAMPLE_ROWS,
        )
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    found = {column: line for column, line in named.items() if _zero_one(rows[column])}
    return next(iter(found.items())) if len(found) == 1 else None


def with_scored_columns(choice: MetricChoice, competition: Competition) -> MetricChoice:
    """`choice` with `scored_columns` set where its metric takes them (`mcrmse`), none are set, and the
    description says only some of the sample's target columns are scored (`scored_columns_named`)."""
    if "scored_columns" not in metric_lib.METRICS[choice.name].params or choice.params.get("scored_columns"):
        return choice
    spec = competition.metric
    targets = (
        list(spec.target_columns) if spec is not None else _csv_header(competition.sample_submission)[1:]
    )
    found = scored_columns_named(competition.description or "", targets)
    if found is None:
        return choice
    columns, sentence = found
    reason = f'{choice.reason}; scored on {", ".join(columns)} only: "{_one_line(sentence, 160)}"'
    return replace(choice, reason=reason, params={**choice.params, "scored_columns": columns})


def with_groups(choice: MetricChoice, competition: Competition) -> MetricChoice:
    """`choice` with its grouped metric's `group_column` set from the description when it names none: for
    `log_mae` the column whose groups the score is averaged over (`infer_group_column`; without it all rows
    are one group, the log of the overall MAE), for a masked metric (`masked_mae`) its 0/1 mask column
    (`infer_mask_column`; without it every row is scored). Also the scored columns (`with_scored_columns`)."""
    choice = with_scored_columns(choice, competition)
    metric = metric_lib.METRICS[choice.name]
    # a metric whose groups its default names (spine_weighted_logloss: the row ids; jigsaw's identity columns)
    # keeps them
    named = ("group_column", "identity_columns", "row_columns")
    if not metric.grouped or any(choice.params.get(k) or metric.params.get(k) for k in named):
        return choice
    if choice.name in MASKED_METRICS:
        mask = infer_mask_column(competition)
        if mask is None:
            return choice
        column, line = mask
        sentence = re.search(rf"[^.\n]*{_NOT_SCORED}", competition.description or "", re.IGNORECASE)
        said = f' ("{_one_line(sentence.group(0), 80)}")' if sentence else ""
        reason = (
            f"{choice.reason}; scored where {column!r} is 0{said}, the 0/1 column train.csv and test.csv share "
            f'that description.md names ("{_one_line(line, 80)}")'
        )
        return replace(choice, reason=reason, params={**choice.params, "group_column": column})
    found = infer_group_column(competition)
    if found is None:
        return choice
    column, words = found
    reason = (
        f'{choice.reason}; grouped by {column!r}: description.md says "{_one_line(words, 80)}", and train.csv '
        "and test.csv have the column"
    )
    return replace(choice, reason=reason, params={**choice.params, "group_column": column})


# -- precedence ---------------------------------------------------------------------------------------------------


def _declared_metric(competition: Competition) -> dict[str, Any]:
    """The `metric` object of competition.json, or {} when it cannot be read."""
    try:
        data = json.loads((competition.root / METADATA_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    metric = data.get("metric") if isinstance(data, dict) else None
    return metric if isinstance(metric, dict) else {}


def _declared_params(declared: dict[str, Any], name: str) -> dict[str, Any] | None:
    """competition.json's parameters for `name` (`map@5`, `"k": 5`), or None when it names another metric."""
    try:
        metric, params = metric_lib.resolve_metric(str(declared.get("name")))
    except CompetitionError:
        return None
    if metric.name != name:
        return None
    return {**params, **{key: value for key, value in declared.items() if key in metric.params}}


def _from_competition_json(competition: Competition, bundled: bool) -> MetricChoice:
    spec = competition.metric
    assert spec is not None
    declared = _declared_metric(competition)
    found = _declared_params(declared, spec.name)
    params: dict[str, Any] = dict(getattr(spec, "params", None) or found or {})
    where = "the bundled competition's competition.json" if bundled else METADATA_FILE
    reason = f"{where} names {spec.name!r}"
    if found is not None and isinstance(declared.get("lower_is_better"), bool):
        reason += f" and declares {_direction(spec.lower_is_better)}"
    source = SOURCE_BUNDLED if bundled else SOURCE_COMPETITION_JSON
    return MetricChoice(spec.name, spec.lower_is_better, source, reason, params)


def resolve_metric(
    competition: Competition,
    *,
    override: str | None,
    client: LLMClient | None,
    bundled: bool,
    run_id: str | None = None,
) -> MetricChoice:
    """The run's metric: `override` > competition.json > description.md (model, else rules).

    An unknown `override` raises CompetitionError naming the known metrics; no source at all raises
    MetricUnknown. Nothing defaults to a direction silently.
    """
    if override is not None and override.strip():
        metric, params = metric_lib.resolve_metric(override)  # `map@5` sets k
        spec = competition.metric
        if spec is not None and spec.name == metric.name:  # competition.json's params of the same metric
            params = {**spec.params, **params}
        reason = f"named {override.strip()!r}"
        choice = MetricChoice(metric.name, metric.lower_is_better, SOURCE_OVERRIDE, reason, params)
        return with_groups(choice, competition)
    if competition.metric is not None:
        return _from_competition_json(competition, bundled)
    failure = ""
    if client is not None:
        try:
            chosen = infer_metric_with_model(client, competition.description, run_id)
        except (LLMError, ValueError) as exc:
            failure = f" (the model call failed: {_one_line(str(exc), 160)})"
        else:
            return with_groups(chosen, competition)
    found = infer_metric_rules(competition.description)
    if found is not None:
        lower = metric_lib.METRICS[found.name].lower_is_better
        choice = MetricChoice(found.name, lower, SOURCE_RULES, found.reason + failure, found.params)
        return with_groups(choice, competition)
    lacking = lacking_metric(competition.description)
    raise MetricUnknown(
        f"competition {competition.id!r}: no metric could be found in competition.json or description.md"
        f"{' (nor by the model)' if client is not None else ''}{f' ({lacking})' if lacking else ''}; "
        f"pass --metric NAME (one of: {', '.join(library_names())})"
    )
