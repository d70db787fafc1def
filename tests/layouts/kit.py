"""What the layouts' miniatures share (tests/layouts/<layout>/miniatures.py, tests/layouts/tables/).

A miniature is a competition dir a test builds in its tmp dir: `prepared/public/`, `prepared/private/` and a
`competition.json`. The census's miniatures (tests/evaluation/census_miniatures.py) each copy what MLE-bench's
`mlebench/competitions/<id>/prepare.py` (openai/mle-bench at 783b15af) writes to `prepared/public/`: file and
folder names, column names and order, how ids look, archives and the sample submission's name and shape; the
data are a few seeded bytes a file and tens of rows. Each writes a `competition.json` naming the library
metric the census names, or a proxy where the census says it is missing. Others (the no-key runs' in
tests/faults/test_offline_layouts.py) are larger, with a signal a model can learn."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

WORDS = ("dark", "night", "house", "door", "old", "light", "heart", "sea", "cold", "friend", "love", "fear")


def dirs(root: Path, metric: str, description: str, params: dict | None = None) -> tuple[Path, Path]:
    """`prepared/public/` with `description.md`, `prepared/private/`, and `competition.json` naming `metric`."""
    public, private = root / "prepared" / "public", root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    (public / "description.md").write_text(description)
    spec: dict = {"name": metric, **({"params": params} if params else {})}
    (root / "competition.json").write_text(json.dumps({"metric": spec}))
    return public, private


def hexes(rng: np.random.Generator, count: int, width: int) -> list[str]:
    """`count` distinct lowercase hex ids of `width` digits."""
    ids: dict[str, None] = {}
    while len(ids) < count:
        ids["".join(rng.choice(list("0123456789abcdef"), width))] = None
    return list(ids)


def write_files(folder: Path, names: list[str], content: str = "") -> None:
    """A few bytes a file: `folder/<name>` for each name (folders made as needed)."""
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"{content}{folder.name}/{name}".encode())


def sentence(rng: np.random.Generator, length: int = 6) -> str:
    return " ".join(rng.choice(WORDS, length))


def rle(mask: np.ndarray) -> str:
    """A mask run-length encoded as MLE-bench's rle_encode: pixels numbered down each column, "-" if empty."""
    flat = mask.T.ravel()
    runs, start = [], None
    for k, value in enumerate([*flat, False]):
        if value and start is None:
            start = k
        elif not value and start is not None:
            runs.append(f"{start + 1} {k - start}")
            start = None
    return " ".join(runs) or "-"
