"""The ids the held-out rows get in the sandbox's view.

A held-out row joins the test rows, so its id must not collide with a test id (nor another training id), and it
should look like a test id, so that a solution cannot tell held-out rows from test rows by their ids. Rows keep
their own ids where those are unique and no test row has them; else they get new ids in the test ids' format.
Where ids join several columns (`swarm.layouts.composite.split`), the first key column is re-keyed the same way, one
new value per group.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd

from swarm.evaluation.holdout_record import NoHoldout

_NUMBERED = re.compile(r"^(.*?)(\d+)(\D*)$")
_HEX = "0123456789abcdef"


def held_out_ids(
    train: pd.DataFrame,
    held: pd.DataFrame,
    id_column: str,
    test_ids: list[str],
    rng: np.random.Generator,
    *,
    always_new: bool,
) -> tuple[list[str], list[str], bool]:
    """(the held-out rows' own ids, the ids they get in the view, whether those are new): new ids in the test
    ids' format where train has no id column, its held-out ids repeat or one is a test id, or `always_new` (the
    rows are files, whose paths are not ids)."""
    has_ids = id_column in train.columns
    original = [str(i).strip() for i in held[id_column]] if has_ids else []
    taken = set(test_ids) | ({str(i).strip() for i in train[id_column]} if has_ids else set())
    clash = not original or len(set(original)) < len(original) or bool(set(original) & set(test_ids))
    clash = clash or always_new
    ids = new_ids(len(held), test_ids, taken, rng) if clash else original
    return original, ids, clash


def check_apart_from_test(held_ids: Iterable[str], test_ids: set[str], id_column: str) -> None:
    """NoHoldout where held-out ids (kept as they are) are also test ids: their rows could not be told apart."""
    clash = set(held_ids) & test_ids
    if clash:
        raise NoHoldout(
            f"held-out {id_column}s are also test ids ({sorted(clash)[0]}, ...), so they cannot be told apart"
        )


def rekey_groups(
    held: pd.DataFrame, column: str, train: pd.DataFrame, test: pd.DataFrame, rng: np.random.Generator
) -> tuple[pd.DataFrame, bool]:
    """(the held-out rows, whether re-keyed): where their values of `column` (the first key column of composite
    ids) are also the test table's, each such value (a group) gets a new one in the test values' format that no
    train or test row has; else they keep their own."""
    old = held[column].astype(str).str.strip()
    test_values = test[column].astype(str).str.strip()
    if not set(old) & set(test_values):
        return held, False
    groups = list(pd.unique(old))
    taken = set(train[column].astype(str).str.strip()) | set(test_values)
    new = new_ids(len(groups), list(pd.unique(test_values)), taken, rng)
    return held.assign(**{column: old.map(dict(zip(groups, new, strict=True)))}), True


def new_ids(count: int, test_ids: list[str], taken: set[str], rng: np.random.Generator) -> list[str]:
    """`count` new ids in the format of `test_ids` that are not in `taken`."""
    if test_ids and all(i.isdigit() for i in test_ids):
        start = max(int(i) for i in taken if i.isdigit()) + 1 if any(i.isdigit() for i in taken) else 1
        return [str(start + k) for k in range(count)]
    parts = [_NUMBERED.match(i) for i in test_ids]
    if test_ids and all(parts) and len({(p.group(1), p.group(3)) for p in parts}) == 1:  # type: ignore[union-attr]
        prefix, suffix = parts[0].group(1), parts[0].group(3)  # type: ignore[union-attr]
        width = len(parts[0].group(2))  # type: ignore[union-attr]
        numbers = [int(m.group(2)) for m in (_NUMBERED.match(i) for i in taken) if m]
        start = max(numbers, default=0) + 1
        return [f"{prefix}{start + k:0{width}d}{suffix}" for k in range(count)]
    prefixed = hex_after_prefix(test_ids)
    if prefixed is not None:  # stanford-covid-vaccine's `id_` and 9 hex digits
        prefix, width = prefixed
        return random_hex(count, width, lambda text: f"{prefix}{text}", taken, rng)
    shaped = same_shape(test_ids)
    if shaped is not None:  # iwildcam-2020's UUIDs: each position drawn from what the test ids hold there
        return random_shaped(count, shaped, taken, rng)
    if test_ids and all(parts) and len({p.group(3) for p in parts}) == 1:  # type: ignore[union-attr]
        # Names that differ before their last number (a recording time, then `Test<n>`): a test id's beginning,
        # picked at random, with a last number no id has.
        suffix = parts[0].group(3)  # type: ignore[union-attr]
        numbers = [int(m.group(2)) for m in (_NUMBERED.match(i) for i in taken) if m]
        start = max(numbers, default=0) + 1
        picked = rng.choice(len(parts), size=count)
        return [f"{parts[j].group(1)}{start + k}{suffix}" for k, j in enumerate(picked)]  # type: ignore[union-attr]
    stem, suffix = os.path.splitext(test_ids[0]) if test_ids else ("", "")
    hexlike = bool(test_ids) and all(re.fullmatch(r"[0-9a-f]+", os.path.splitext(i)[0]) for i in test_ids)
    width = max(8, len(stem)) if hexlike else 12
    out: list[str] = []
    while len(out) < count:
        text = "".join(rng.choice(list("0123456789abcdef"), size=width))
        candidate = (text if hexlike else f"h{text[: width - 1]}") + suffix
        if candidate not in taken:
            taken.add(candidate)
            out.append(candidate)
    return out


_SHAPE_CLASSES = ("0123456789", "0123456789abcdef", "0123456789ABCDEF", "abcdefghijklmnopqrstuvwxyz")
MIN_SHAPED_IDS = 2  # fewer test ids show no shape
MIN_VARIABLE = 8  # positions that vary: fewer could not give new ids enough room


def same_shape(test_ids: list[str], min_variable: int = MIN_VARIABLE) -> list[str] | None:
    """Where the test ids are of one length and their punctuation stands where it does in all of them (UUIDs),
    the characters each position may take: the one character every id has there, else the smallest class of
    digits, hex digits or lower-case letters holding all of theirs; None otherwise (then the fallback format), or
    where fewer than `min_variable` positions vary."""
    if len(test_ids) < MIN_SHAPED_IDS or len({len(i) for i in test_ids}) != 1:
        return None
    shape = []
    for chars in (set(column) for column in zip(*test_ids, strict=True)):
        if len(chars) == 1:
            shape.append(chars.pop())
            continue
        fitting = next((c for c in _SHAPE_CLASSES if chars <= set(c)), None)
        if fitting is None:
            return None
        shape.append(fitting)
    return shape if sum(len(p) > 1 for p in shape) >= min_variable else None


def random_shaped(count: int, shape: list[str], taken: set[str], rng: np.random.Generator) -> list[str]:
    """`count` ids of `shape` (each position one of its characters) that are not in `taken`."""
    out: list[str] = []
    while len(out) < count:
        candidate = "".join(p if len(p) == 1 else p[rng.integers(len(p))] for p in shape)
        if candidate not in taken:
            taken.add(candidate)
            out.append(candidate)
    return out


def hex_after_prefix(test_ids: list[str]) -> tuple[str, int] | None:
    """(prefix, width) where every test id is one prefix (ending in a character that is no hex digit) and then
    `width` hex digits; None otherwise."""
    common = os.path.commonprefix(test_ids) if test_ids else ""
    cut = max((k for k, c in enumerate(common) if c not in _HEX), default=-1)
    prefix = common[: cut + 1]
    rests = {i[len(prefix) :] for i in test_ids}
    widths = {len(r) for r in rests}
    if not prefix or len(widths) != 1 or not all(re.fullmatch(r"[0-9a-f]+", r) for r in rests):
        return None
    return prefix, widths.pop()


def random_hex(
    count: int, width: int, named: Callable[[str], str], taken: set[str], rng: np.random.Generator
) -> list[str]:
    """`count` ids `named(<width random hex digits>)` that are not in `taken`."""
    out: list[str] = []
    while len(out) < count:
        candidate = named("".join(rng.choice(list(_HEX), size=width)))
        if candidate not in taken:
            taken.add(candidate)
            out.append(candidate)
    return out
