"""What metric a competition's description.md names, read by rules (no model).

`infer_metric_rules` finds the library metric whose name (or a fragment of it, in a scored-by sentence) the
description's Evaluation section uses, with its parameters (MAP@k's k, an IoU threshold); `lacking_metric` says
when the words name a metric the library lacks. The run's choice (`swarm.evaluation.metric_choice`) falls back on
these rules when no model reads the description, and the offline coder answers a metric request with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from swarm.competitions import metrics as metric_lib
from swarm.competitions.errors import CompetitionError

REASON_LIMIT = 300


def one_line(text: str, limit: int = REASON_LIMIT) -> str:
    """`text` on one line, whitespace collapsed, cut to `limit` characters with an ellipsis."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3].rstrip() + "..."


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

GAP = r"[\s-]+"
_RMSE = rf"(?:\brmse\b|root{GAP}mean{GAP}squared?{GAP}error)"
_LOGLOSS = r"(?:\blog(?:arithmic)?[\s-]*loss|cross[\s-]*entropy)"
_F1 = r"(?:\bf1\b|\bf[\s-]?(?:1[\s-]?)?score\b|\bf[\s-]?measure\b)"
# Within one sentence, across line wraps but not blank lines.
_NEAR = r"(?:[^.\n]|\n(?![ \t]*\n)){0,150}?"
NOT_SCORED = rf"\b(?:is|are){GAP}not{GAP}scored\b"


def _f1_average(word: str) -> str:
    return rf"\b{word}\b[^.\n]{{0,20}}?{_F1}|{_F1}[^.\n]{{0,20}}?\b{word}"


# Whole metric names. In a scope the earliest match wins, at one position the first rule in this order (the
# longer name first): "multi-class logarithmic loss" is neither RMSLE nor binary log loss. A rule named None
# is a metric the library lacks (Dice, Jaccard, PR-AUC, ...): finding it first gives no metric at all, rather
# than a library metric named later or elsewhere in the description.
_WHOLE: tuple[tuple[str | None, str], ...] = (
    ("mcrmse", rf"\bmcrmse\b|column[\s-]*wise{GAP}{_RMSE}"),
    # rsna-2022-cervical-spine-fracture-detection's "weighted multi-label logarithmic loss", its any label
    # `patient_overall` named soon after; without it a weighted multi-label log loss is another one's
    (
        "spine_weighted_logloss",
        rf"\bweighted{GAP}multi[\s-]*label{GAP}{_LOGLOSS}(?=[\s\S]{{0,800}}?\bpatient_overall\b)",
    ),
    (
        "multilabel_logloss",
        rf"multi[\s-]*label{GAP}{_LOGLOSS}|column[\s-]*wise{GAP}(?:binary{GAP})?{_LOGLOSS}",
    ),
    (
        "multiclass_logloss",
        rf"multi[\s-]*class{GAP}(?:{_LOGLOSS}|loss\b)|categorical{GAP}cross[\s-]*entropy",
    ),
    ("logloss", rf"{_LOGLOSS}|logistic{GAP}loss"),
    ("rmsle", rf"\brmsle\b|root{GAP}mean{GAP}squared?{GAP}log(?:arithmic)?{GAP}error"),
    ("rmsle", rf"{_RMSE}{_NEAR}\blog\s*\(\s*(?:1\s*\+|[^()\n]{{1,30}}\+\s*1\s*\))|{_RMSE}{_NEAR}\blog1p\b"),
    ("rmse_log", rf"{_RMSE}{_NEAR}\blog(?:arithm(?:ic|s)?|s)?\b"),
    ("rmse", _RMSE),
    ("mse", rf"\bmse\b|mean{GAP}squared?{GAP}error"),
    ("smape", rf"\bsmape\b|symmetric{GAP}mean{GAP}absolute{GAP}percentage{GAP}error"),
    (None, rf"\bmape\b|mean{GAP}absolute{GAP}percentage{GAP}error"),
    (
        "log_mae",
        rf"\blog{GAP}(?:of{GAP}(?:the{GAP})?)?mean{GAP}absolute{GAP}error"
        r"|\blog\s*\(\s*mae\s*\)|\blog[\s-]*mae\b",
    ),
    # an MAE over part of the rows, the others said not to be scored in the same paragraph
    # (ventilator-pressure-prediction: "[...] during the inspiratory phase of each breath. The expiratory phase is
    # not scored"); `with_groups` then finds the mask column
    ("masked_mae", rf"(?:\bmae\b|mean{GAP}absolute{GAP}error)(?=[^\n]{{0,200}}?{NOT_SCORED})"),
    ("mae", rf"\bmae\b|mean{GAP}absolute{GAP}error"),
    (
        "qwk",
        rf"\bqwk\b|quadratic(?:ally)?{GAP}weighted{GAP}(?:cohen'?s{GAP})?kappa|cohen'?s{GAP}kappa"
        rf"|weighted{GAP}kappa",
    ),
    (
        "map_at_k",
        rf"mean{GAP}average{GAP}precision\s*(?:@|{GAP}at{GAP})\s*(?:\d+|k\b)|\bmap\s*@\s*(?:\d+|k\b)",
    ),
    # boxes' mAP at one IoU (siim-covid19-detection, vinbigdata: "the standard PASCAL VOC 2010 mean Average
    # Precision (mAP) at IoU > 0.5"); `_iou` reads the threshold
    ("voc_box_map", rf"\bpascal{GAP}voc\b[^\n]{{0,80}}?mean{GAP}average{GAP}precision"),
    # 3-D boxes' mAP over IoU thresholds (3d-object-detection-for-autonomous-vehicles: "mean average precision at
    # different intersection over union (IoU) thresholds. The IoU of a set of predicted 3D bounding volumes")
    (
        "lyft_3d_map",
        rf"mean{GAP}average{GAP}precision{_NEAR}(?:intersection{GAP}over{GAP}union|\biou\b)"
        rf"(?=[\s\S]{{0,300}}?\b3d{GAP}bounding{GAP}(?:volumes?|box(?:es)?)\b)",
    ),
    # masks' IoU over thresholds (tgs-salt-identification-challenge), not the mAP of ranked lists or boxes
    (
        "rle_iou_map",
        rf"mean{GAP}average{GAP}precision{_NEAR}(?:intersection{GAP}over{GAP}union|\biou\b)"
        rf"{_NEAR}threshold",
    ),
    (
        "lwlrap",
        rf"\blwlrap\b|label[\s-]*weighted[\s\[*-]+label[\s-]*ranking{GAP}average{GAP}precision",
    ),
    # average precision, the area under the precision-recall curve: not ROC AUC, and not in the library
    (
        None,
        rf"area{GAP}under{GAP}(?:the{GAP})?(?:precision{GAP}recall|pr)\b|\bpr{GAP}?auc\b"
        rf"|\bauc{GAP}?pr\b|\bauprc?\b|(?:mean{GAP})?average{GAP}precision|\bap\s*@",
    ),
    # the ROC AUC weighted by bands of the true positive rate (alaska2-image-steganalysis: "the weighted AUC
    # [...] tpr_thresholds = [0.0, 0.4, 1.0]"), the bands said soon after; a "weighted AUC" alone is not it
    ("tpr_weighted_auc", rf"\bweighted{GAP}auc\b(?=[\s\S]{{0,400}}?(?:\btpr|true{GAP}positive{GAP}rate))"),
    (
        "auc",
        rf"area{GAP}under{GAP}(?:the{GAP})?(?:roc\b|receiver{GAP}operating{GAP}characteristic)"
        rf"|(?<!pr )(?<!pr-)(?<!recall )\b(?:roc[\s-]*)?auc\b",
    ),
    # the overall AUC with power means of per-identity bias AUCs (jigsaw-unintended-bias: "a newly developed
    # metric that combines several submetrics to balance overall performance with various aspects of unintended
    # bias", then "Overall AUC", "Bias AUCs", "BPSN")
    ("jigsaw_bias_auc", rf"\bunintended{GAP}bias\b|\bbias{GAP}aucs?\b|\bbpsn\b"),
    # the F1 of probabilities (rsna-breast-cancer-detection: "the probabilistic F1 score (pF1)")
    ("probabilistic_f1", rf"\bprobabilistic{GAP}f[\s-]?1\b|\bpf[\s_-]?1\b"),
    # answers matched exactly as token spans or YES/NO (tensorflow2-question-answering: "micro F1 between the
    # predicted and expected answers. Predicted long and short answers must match exactly the token indices")
    ("answer_span_f1", rf"(?:\bmicro{GAP})?{_F1}(?=[\s\S]{{0,400}}?\btoken{GAP}indices\b)"),
    ("f1_macro", _f1_average("macro")),
    ("f1_micro", _f1_average("micro")),
    ("f1_weighted", _f1_average("weighted")),
    (None, r"\bf[\s-]?0?\.5\b|\bf[\s-]?2[\s-]*(?:score|measure)\b|\bf[\s-]?beta\b|\bfbeta\b|\bf_\{?\\beta"),
    # an F1 of centre points inside true boxes (kuzushiji-recognition), not of labels: said in the same paragraph
    (
        "point_in_box_f1",
        rf"{_F1}(?=[^\n]{{0,400}}?\bcent(?:er|re){GAP}points?\b[^\n]{{0,200}}?\bbounding{GAP}box)",
    ),
    ("f1", _F1),
    ("spearman", r"\bspearman"),
    ("pearson", r"\bpearson"),
    ("r2", rf"\br2\b|\br\s*\^\s*2|\br\u00b2|\br{GAP}squared\b|coefficient{GAP}of{GAP}determination"),
    ("balanced_accuracy", rf"balanced{GAP}accuracy"),
    # masks (run-length encoded: `_RLE` must be in the description, else no metric) and words
    ("rle_fbeta", r"(?:\bdice\b|s(?:\u00f8|o)rensen)[^\n]{0,200}?\bf[\s-]?0?\.5\b"),
    ("rle_dice_global", r"\bglobal[\s*_\[-]*dice\b"),
    # Dice blended with the 3-D Hausdorff distance (uw-madison-gi-tract-image-segmentation: "the mean Dice
    # coefficient and 3D Hausdorff distance")
    ("dice_hausdorff", rf"\bdice\b{_NEAR}hausdorff"),
    ("rle_dice", r"\bdice\b|s(?:\u00f8|o)rensen"),
    ("rle_iou", rf"intersection{GAP}over{GAP}union|\biou\b"),
    ("word_jaccard", rf"\bword[\s-]*(?:level|based){GAP}jaccard"),
    (None, r"\bjaccard\b"),
    # Kendall tau of orders (AI4Code: "the Kendall tau correlation between predicted cell orders"), orders named
    # in the same paragraph: a Kendall tau of numbers is another metric, and so names none (below)
    (
        "kendall_tau",
        rf"kendall(?:'?s)?{GAP}(?:tau|\u03c4|rank{GAP}correlation)\b"
        rf"(?=[^\n]{{0,300}}?(?<!\bin )\border(?:s|ings?)?\b)",
    ),
    # edit distances: summed over rows and divided by the number of true labels (multi-modal-gesture-recognition
    # defines it after a "Levenshtein Distance" heading, so from the first "Levenshtein" on), or the mean over
    # rows (bms-molecular-translation, billion-word-imputation); any other (normalised, of words) names none
    (
        "token_error_rate",
        rf"levenshtein(?=[\s\S]*?\bsum{GAP}of{GAP}(?:the{GAP})?levenshtein{GAP}distances\b{_NEAR}"
        rf"\bdivided{GAP}by{GAP}the{GAP}total{GAP}number\b)",
    ),
    ("mean_levenshtein", rf"\b(?:mean|average){GAP}\[?levenshtein{GAP}distances?\b"),
    (None, rf"levenshtein|\bedit{GAP}distance|\bbleu\b|\brouge\b|\b(?:word|character){GAP}error{GAP}rate"),
    ("kl_divergence", rf"kullback[\s-]*l(?:ei|ie)bler|\bkl{GAP}divergence"),
    # osic-pulmonary-fibrosis-progression: "a modified version of the Laplace Log Likelihood"
    ("laplace_log_likelihood", rf"\blaplace{GAP}log{GAP}likelihood"),
    (None, rf"log{GAP}likelihood|\bcrps\b|continuous{GAP}ranked{GAP}prob"),
    ("mcc", r"matthews|\bmcc\b"),
    (None, rf"hausdorff|kendall|\bgini\b|pinball|quantile{GAP}loss"),
    # directions as (azimuth, zenith): `_refined` wants both words in the description (icecube)
    ("mean_angular_error", rf"\b(?:mean{GAP})?angular{GAP}(?:error|distance)"),
    # smartphone-decimeter-2022: "the mean of the 50th and 95th percentile distance errors"
    ("trip_distance_error", rf"\b50th{GAP}and{GAP}95th{GAP}percentile{GAP}distance{GAP}errors?\b"),
    (None, r"percentile\b[^.\n]{0,30}?\berrors?\b"),
)
# Fragments, and words prose uses loosely ("the accuracy of a forecast"): read only when no whole name is.
_FRAGMENTS: tuple[tuple[str | None, str], ...] = (
    ("auc", rf"\broc\b|area{GAP}under{GAP}(?:the{GAP})?curve"),
    # top-1 classification error is 1 - accuracy: the same ranking of submissions
    ("accuracy", rf"\baccuracy\b|percentage{GAP}of\b[^.\n]{{0,40}}?\bcorrectly"),
    (
        "accuracy",
        rf"(?:top[\s-]*1{GAP})?(?<![02-9][\s-])classification{GAP}error|(?<!word )\berror{GAP}rate\b",
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
    rf"space{GAP}(?:delimited|separated){GAP}(?:list|labels|tags)|multi{GAP}?label"
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
    re.compile(rf"{GAP}at{GAP}(\d+)", re.I),
    re.compile(r"\bk\s*=\s*(\d+)", re.I),
)
K_NEARBY = (_K_HINTS[0], _K_HINTS[2])
_IOU_HINT = re.compile(r"\biou\s*(?:>=?|≥|of|=)\s*`?(0?\.\d+)", re.IGNORECASE)


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


def k_from(text: str, patterns: tuple[re.Pattern[str], ...]) -> int | None:
    """K of MAP@K as the first of `patterns` finds it (in 1..10000), or None."""
    for pattern in patterns:
        found = pattern.search(text)
        if found and 0 < int(found.group(1)) <= 10_000:
            return int(found.group(1))
    return None


def _map_k(matched: str, scope: str) -> dict[str, Any]:
    k = k_from(matched, _K_HINTS)
    if k is None:  # "MAP@K" alone: look around it, but not for a loose "at 5"
        k = k_from(scope, K_NEARBY)
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
            return name, f'{where} {said} "{one_line(words, 120)}"', params
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
