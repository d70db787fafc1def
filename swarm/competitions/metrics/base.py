"""The metric library's shared ground: the `Metric` record and its parameters' checks, and the helpers every
family of metrics reads its cells with (class labels, numbers, probabilities, text cells, run-length encoded
masks) and blames a fault with.

Errors: a problem of the answers (one class for AUC, constant answers for R²) is a `CompetitionError`; a problem
of the predictions alone is an `InvalidPrediction` (a CompetitionError too), which grading reports as an invalid
submission. `fault` picks the one or the other.

The family modules import this module only; the library table (`swarm.competitions.metrics.library`) imports
them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from swarm.competitions.errors import CompetitionError

LOGLOSS_EPS = 1e-15  # log losses clip probabilities to [eps, 1 - eps]
EMPTY_MASKS = ("", "-")  # an empty mask: a blank cell, or "-" (google-research-identify-contrails)
SHOWN = 40  # characters of a cell quoted in an error message


class InvalidPrediction(CompetitionError):
    """The predictions (not the answers) cannot be scored by the metric; the message says why."""


@dataclass(frozen=True)
class Metric:
    """A scoring function plus what a valid prediction for it looks like.

    `numeric`: predictions are numbers; `probability`: in [0, 1]; `binary_truth`: answers are 0/1;
    `min_prediction`/`min_inclusive`: a lower bound on predictions; `labels`: predictions are class labels, each
    one of the competition's labels; `ranked`: each prediction is a space-separated ranked list of labels;
    `scope`: "column" (scored per target column, then averaged) or "table" (all target columns at once);
    `class_columns`: the target columns are classes, so answers may be one-hot in them or one label column;
    `params`: the metric's parameters with their defaults (e.g. `{"k": 5}`);
    `empty_ok`: an empty cell is a valid prediction (no labels, no words, an empty mask), not a missing one;
    `grouped`: the metric also takes each row's group (`score(..., groups=...)`), the values of the answers'
    column named by the parameter `group_column`; without them all rows are one group, unless `group_column`
    is set, which is then an error of the caller;
    `blank_fills`: prediction columns whose blank cells the grader fills, with the value;
    `perfect`: the prediction a perfect submission makes for an answer cell where it is not the answer itself
    (kuzushiji's box centres for its boxes), so the harness can check held-out labels are scorable.
    """

    name: str
    lower_is_better: bool
    fn: Callable[..., float]
    formula: str
    numeric: bool = True
    probability: bool = False
    binary_truth: bool = False
    min_prediction: float | None = None
    min_inclusive: bool = True
    labels: bool = False
    ranked: bool = False
    scope: Literal["column", "table"] = "column"
    class_columns: bool = False
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    aliases: tuple[str, ...] = ()
    empty_ok: bool = False
    grouped: bool = False
    perfect: Callable[[Any], str] | None = field(default=None, compare=False)
    # Prediction columns whose blank cells the grader fills rather than refuses, with the value (osic's
    # `Confidence`, filled with 0 by its grade.py, then floored at 70 like any other).
    blank_fills: dict[str, str] = field(default_factory=dict, hash=False)
    # The answer rows the grader scores, from the answers (text), the id column and the targets: a 0/1 array
    # (osic's rows with an FVC, each patient's three latest weeks); None: every row.
    scored_rows: Callable[[pd.DataFrame, str, tuple[str, ...]], np.ndarray] | None = field(
        default=None, compare=False
    )

    def resolve_params(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The defaults overridden by `given`; an unknown name or a bad value is a CompetitionError."""
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.params))
        if unknown:
            takes = ", ".join(sorted(self.params)) or "none"
            raise CompetitionError(
                f"metric {self.name!r} has no parameter(s) {', '.join(map(repr, unknown))} (it takes: {takes})"
            )
        for key, value in given.items():
            check, wanted = PARAM_CHECKS[key]
            if value != self.params[key] and not check(value):
                raise CompetitionError(
                    f"metric {self.name!r}: parameter {key!r} must be {wanted}, not {value!r}"
                )
        return {**self.params, **given}

    def score(self, y_true: Any, y_pred: Any, groups: Any = None, **params: Any) -> float:
        """The score of one column (scope "column") or of all target columns (scope "table").

        `groups`: for a grouped metric, each row's group (the answers' `group_column`), in the rows' order.
        """
        y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
        if len(y_true) != len(y_pred):
            raise CompetitionError(f"{self.name}: {len(y_pred)} predictions for {len(y_true)} answers")
        if len(y_true) == 0:
            raise CompetitionError(f"{self.name}: there is nothing to score (0 rows)")
        values = self.resolve_params(params)
        if self.grouped:
            values["groups"] = self._groups(groups, len(y_true), values)
        elif groups is not None:
            raise CompetitionError(f"{self.name} is not a grouped metric: it takes no groups")
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # sklearn/scipy warnings on degenerate input; we check those ourselves
            return float(self.fn(y_true, y_pred, **values))

    def _groups(self, groups: Any, rows: int, params: dict[str, Any]) -> np.ndarray | None:
        """`groups` checked against the rows; where none are passed, an error if the parameters name the
        answers' group column (`group_column`) or columns (`identity_columns`)."""
        if groups is None:
            single = params.get("group_column") or ""
            key = "identity_columns" if params.get("identity_columns") else "row_columns"
            several = list(params.get(key) or ())
            if single:
                raise CompetitionError(
                    f"{self.name}: no groups were passed, but group_column={single!r} names them: the caller "
                    f"must read the answers' column {single!r} and pass each scored row's value as `groups`"
                )
            if several:
                raise CompetitionError(
                    f"{self.name}: no groups were passed, but {key}={several!r} names them: the caller "
                    f"must read the answers' columns {', '.join(several)} and pass each scored row's values as "
                    "`groups`"
                )
            return None
        # a column of groups, or a row of several (jigsaw's identities)
        groups = np.asarray(groups, dtype=object)
        groups = groups.reshape(-1) if groups.ndim != 2 or groups.shape[1] == 1 else groups
        if len(groups) != rows:
            raise CompetitionError(f"{self.name}: {len(groups)} groups for {rows} rows")
        return groups


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _column_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _column_names(value: Any) -> bool:
    return (
        isinstance(value, list | tuple)
        and all(_column_name(v) for v in value)
        and len(set(value)) == len(value)
    )


def _positive_number(value: Any) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    )


def _open_fraction(value: Any) -> bool:
    return _positive_number(value) and value < 1


PARAM_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "k": (_positive_int, "a positive integer"),
    "label_column": (_column_name, "a column name"),
    "group_column": (_column_name, "a column name"),
    "identity_columns": (_column_names, "a list of distinct column names"),
    "height": (_positive_int, "a positive integer (0: unknown)"),
    "width": (_positive_int, "a positive integer (0: unknown)"),
    "beta": (_positive_number, "a positive number"),
    "iou": (_open_fraction, "a number between 0 and 1"),
    "scored_columns": (_column_names, "a list of distinct target column names (empty: all)"),
    "row_columns": (_column_names, "a list of distinct column names"),
}


# ---- class labels, numbers and faults ------------------------------------------------------------------------


def label_key(value: Any) -> str:
    """What a class label is compared by: a finite number in a canonical form (`1` == `1.0`), else its text."""
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return repr(number) if math.isfinite(number) else text


def label_keys(values: np.ndarray) -> np.ndarray:
    """`label_key` of every value: computed once per distinct text, so a column of few classes is fast."""
    codes, keys = label_codes(values)
    return keys[codes]


def label_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of `values` by `label_key` (in order of first appearance) and the key of each code;
    `label_key` runs once per distinct text."""
    texts = np.asarray(np.ravel(values), dtype=object)
    if (
        pd.api.types.infer_dtype(texts, skipna=False) != "string"
    ):  # numbers, booleans, NaN: as str() writes them
        texts = texts.astype(str)
    text_codes, texts_seen = pd.factorize(texts)
    key_codes, keys = pd.factorize(np.array([label_key(text) for text in texts_seen], dtype=object))
    return key_codes[text_codes], np.asarray(keys, dtype=object)


def floats(name: str, values: np.ndarray, *, answers: bool) -> np.ndarray:
    """`values` as finite floats; else an error blaming the answers or the predictions (`fault`)."""
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise fault(name, answers, "must be numeric") from exc
    if not np.isfinite(array).all():
        raise fault(name, answers, "must be finite numbers (found NaN or infinity)")
    return array


def fault(name: str, answers: bool, problem: str) -> CompetitionError:
    """An error blaming the answers (CompetitionError) or the predictions (InvalidPrediction)."""
    if answers:
        return CompetitionError(f"{name}: the answers {problem}")
    return InvalidPrediction(f"{name}: the predictions {problem}")


def binary_answers(name: str, y_true: np.ndarray) -> np.ndarray:
    """The answers as 0/1 integers (`1`, `1.0`, `"1"` alike); other labels are the answers' fault."""
    keys = set(label_keys(y_true).tolist())
    if not keys <= {"0.0", "1.0"}:
        raise CompetitionError(f"{name}: the answers must be 0/1 labels, found {sorted(keys)[:5]}")
    return (label_keys(y_true) == "1.0").astype(int)


def two_classes(name: str, labels: np.ndarray) -> None:
    """An error where the answers hold one class only, for which a ranking metric is undefined."""
    if len(np.unique(labels)) < 2:
        raise CompetitionError(f"{name}: the answers hold a single class, so {name} is undefined")


def probabilities(name: str, y_pred: np.ndarray) -> np.ndarray:
    """The predictions as floats, each a probability in [0, 1]; else an InvalidPrediction."""
    pred = floats(name, y_pred, answers=False)
    if (pred < 0).any() or (pred > 1).any():
        raise InvalidPrediction(f"{name}: predictions must be probabilities in [0, 1]")
    return pred


# ---- text cells ----------------------------------------------------------------------------------------------


def cell_text(value: Any) -> str:
    """A cell as text; None and NaN (an empty CSV cell read by pandas) are ""."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def shown(text: str) -> str:
    """`text` as an error message quotes it: cut to `SHOWN` characters."""
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def text_rows(y_true: Any, y_pred: Any) -> list[tuple[str, str]]:
    """(answer, prediction) of every row, as text."""
    return [
        (cell_text(truth), cell_text(pred))
        for truth, pred in zip(np.ravel(y_true), np.ravel(y_pred), strict=True)
    ]


# ---- masks as run-length encodings ---------------------------------------------------------------------------
# A cell is "start length start length ...": 1-indexed pixel numbers, whichever way the competition numbers
# its pixels (top to bottom then left to right in MLE-bench's rle_decode; vesuvius the other way): the metrics
# compare the sets of pixels, so they need no image size. As MLE-bench's rle_decode: the starts sorted, starts
# and lengths positive, runs not overlapping; a blank cell (or "-") is an empty mask. With the params `height`
# and `width` set, a run past the image's last pixel is invalid (MLE-bench's rle_decode silently cuts it off).


def rle_runs(name: str, cell: Any, *, answers: bool, pixels: int = 0) -> np.ndarray:
    """The runs of one cell as [first, end) pixel offsets (0-indexed), in order; (0, 2) for an empty mask."""
    text = cell_text(cell).strip()
    if text in EMPTY_MASKS:
        return np.zeros((0, 2), dtype=np.int64)
    quoted = shown(text)
    try:
        numbers = np.array([int(token) for token in text.split()], dtype=np.int64)
    except (ValueError, OverflowError):
        raise fault(
            name, answers, f"must be run-length encodings ('start length ...'), found {quoted!r}"
        ) from None
    if len(numbers) % 2:
        raise fault(
            name, answers, f"must hold pairs 'start length', found {len(numbers)} numbers in {quoted!r}"
        )
    starts, lengths = numbers[0::2], numbers[1::2]
    if (starts < 1).any() or (lengths < 1).any():
        raise fault(
            name, answers, f"must hold positive starts (1 is the first pixel) and lengths: {quoted!r}"
        )
    ends = starts - 1 + lengths
    if (np.diff(starts) < 0).any():
        raise fault(name, answers, f"must list runs by increasing start: {quoted!r}")
    if (starts[1:] - 1 < ends[:-1]).any():
        raise fault(name, answers, f"hold overlapping runs: {quoted!r}")
    if pixels and ends[-1] > pixels:
        raise fault(name, answers, f"hold a run past the image's last pixel {pixels}: {quoted!r}")
    return np.column_stack([starts - 1, ends])
