"""The metric a competition's description names, in the offline coder's few names (accuracy, auc, logloss, f1;
rmse, rmsle, mae, r2), and their directions. Only the standard library: embedded in solutions that infer their
task at run time."""

import re

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
