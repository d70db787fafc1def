"""The offline coder's reading of a competition's dir, in the package: task inference (`inference`,
`discovery`, `examples`, which solutions embed) given the registered layouts in the registry's order."""

from __future__ import annotations

from typing import Any

import pandas as pd

from swarm.layouts.registry import READ_BY_CODER
from swarm.offline_coder import discovery, examples, inference

# (name, find, read) of every registered layout, in the order both the harness and the coder look for them.
LAYOUT_READERS = tuple((layout.name, layout.find, layout.read) for layout in READ_BY_CODER)


def infer_task_from_dir(input_dir: str, max_rows: int = 50000, metric: str | None = None) -> dict[str, Any]:
    """The task dict of a competition's dir (see swarm/offline_coder/inference.py)."""
    return inference.infer_task_from_dir(input_dir, LAYOUT_READERS, max_rows, metric)


def find_data_files(input_dir: str) -> dict[str, Any]:
    """The files the coder reads in `input_dir`; FileNotFoundError naming what is missing."""
    return discovery.find_data_files(input_dir, LAYOUT_READERS)


def missing_tables(input_dir: str) -> list[str]:
    """What of the files the coder needs `input_dir` lacks."""
    return discovery.missing_tables(input_dir, LAYOUT_READERS)


def read_examples(
    input_dir: str, files: dict[str, Any], sample: pd.DataFrame, max_rows: int | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(train, test) frames of the files `find_data_files` found."""
    return examples.read_examples(input_dir, files, sample, LAYOUT_READERS, max_rows)
