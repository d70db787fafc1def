"""The record of a built harness split (`Holdout`, saved as `<run>/harness/holdout.json`) and `NoHoldout`, the
reason none could be built.

They live apart from the builder (`swarm.layouts.holdout`) so that the harness, the run's setup and every
module that builds one part of the split can name them without importing the builder (and without import
cycles).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from swarm.atomic import PRIVATE, write_text_atomic
from swarm.competitions.competition import Competition, MetricSpec

if TYPE_CHECKING:
    from swarm.evaluation.fresh_ids import FreshIds

HARNESS_DIR = "harness"
VIEW_IDS = "view_ids.csv"  # each row's id in the view -> its own, where fresh ids are drawn
TRAIN, TEST = "train.csv", "test.csv"


class NoHoldout(Exception):
    """No harness split is possible for this competition; `str(exc)` says why in one sentence."""


@dataclass
class Holdout:
    """A built harness split, as saved in `<root>/holdout.json` (mode 0600)."""

    root: Path
    id_column: str
    target_columns: list[str]
    ids: list[str]  # held-out ids as the solution sees them
    split: str  # the split used, e.g. "stratified" or "time:datetime"
    split_reason: str
    fraction: float
    seed: int
    n_train: int  # rows left in the labelled table the sandbox sees
    rekeyed: bool = False
    file_dirs: list[str] = field(default_factory=list)  # folders whose files the ids key, if any
    # Every class label of each target column in the whole train.csv (label metrics accept any of them, also
    # one that no held-out row has).
    classes: dict[str, list[str] | None] = field(default_factory=dict)  # None: free text
    table: str = TRAIN  # the public table of labelled rows: train.csv, or a labels table (train_labels.csv)
    # Side files keyed by held-out ids, left out of the sandbox's view or rewritten without those rows.
    hidden_side_files: list[str] = field(default_factory=list)
    # The test table's columns whose values, joined with `_`, are the submission's ids (`composite_key`), if any.
    key_columns: list[str] = field(default_factory=list)
    # Whether the held-out ids are test ids at an earlier time (a log's last span held out: h-and-m): the view's
    # test is the competition's own, and every row of a submission is a test row, the held-out ids' scored too.
    shifted: bool = False
    # Whether every test and held-out row has a fresh id in the view (`swarm.evaluation.fresh_ids`; test_ids.csv
    # maps the test rows' back), and why ids are kept (or a caveat where fresh), said before the first step.
    fresh_ids: bool = False
    ids_note: str = ""
    # How the test rows stand to the training rows and the held-out rows to the kept ones, side by side
    # (`swarm.evaluation.split_relation`), said before the first step and kept in the report.
    relation: list[str] = field(default_factory=list)

    @property
    def public_dir(self) -> Path:
        return self.root / "public"

    @property
    def labels_path(self) -> Path:
        return self.root / "labels.csv"

    @property
    def view_ids_path(self) -> Path:
        """Where fresh ids are drawn: each row's id in the view, its own, and whether it is a test or held-out
        row (owner-only)."""
        return self.root / VIEW_IDS

    def own_ids(self, row: str) -> dict[str, str]:
        """Where fresh ids are drawn, the `row`s' ("test" or "held") ids in the view -> their own; else {}."""
        if not self.fresh_ids:
            return {}
        known = pd.read_csv(self.view_ids_path, dtype=str, keep_default_na=False)
        known = known[known["row"] == row]
        return dict(zip(known["view"], known["own"], strict=True))

    def describe_ids(self) -> str:
        """One line on the view's ids: fresh for every row, or kept and why."""
        if self.fresh_ids:
            caveat = f" ({self.ids_note})" if self.ids_note else ""
            return f"every test and held-out row has a fresh id ({self.id_column}) in the sandbox{caveat}"
        why = self.ids_note or (
            "this layout's split keeps them (held-out rows get new ids only where theirs could clash with a test id)"
        )
        return f"the test ids ({self.id_column}) are kept in the sandbox: {why}"

    def describe(self) -> str:
        """One line for the start of a run and the report."""
        if self.shifted:  # the span after the cut, not a share of rows
            return (
                f"the harness holds out the end of {self.table} (split {self.split}: {self.split_reason}); the "
                f"{len(self.ids)} {self.id_column}s it names are scored with the competition's metric"
            )
        joined = "_".join(f"<{c}>" for c in self.key_columns)
        ids = f" (ids {joined})" if joined else ""
        return (
            f"the harness holds out {len(self.ids)} labelled rows of {self.table}{ids} ({self.fraction:.0%}, "
            f"split {self.split}: {self.split_reason}); they are scored with the competition's metric"
        )

    def save(self) -> None:
        data = asdict(self)
        data["root"] = str(self.root)
        write_private(self.root / "holdout.json", json.dumps(data, indent=1))

    @classmethod
    def load(cls, root: Path) -> Holdout:
        data = json.loads((Path(root) / "holdout.json").read_text(encoding="utf-8"))
        data["root"] = Path(root)
        return cls(**data)


def harness_root(run_root: Path) -> Path:
    """Where a run keeps its harness split: `<run>/harness`."""
    return Path(run_root) / HARNESS_DIR


def write_view_ids(root: Path, view: dict[str, list[str]], own: dict[str, list[str]]) -> None:
    """Save which fresh id in the view is which row's (`Holdout.view_ids_path`, owner-only): `view` and `own`
    hold the ids of the "test" and the "held" rows, each in the same order."""
    rows = [(v, o, kind) for kind in ("test", "held") for v, o in zip(view[kind], own[kind], strict=True)]
    frame = pd.DataFrame(rows, columns=["view", "own", "row"])
    write_private(Path(root) / VIEW_IDS, frame.to_csv(index=False))


def write_private(path: Path, text: str) -> None:
    """Write atomically, readable by the owner only (the harness's secrets)."""
    write_text_atomic(path, text, mode=PRIVATE)


@dataclass(frozen=True)
class SplitRequest:
    """What a layout's own split module is given (`swarm.layouts.holdout.build_holdout` makes it once): the
    competition and its metric, the harness root to build in, the sample submission as text, and the split's
    settings."""

    competition: Competition
    spec: MetricSpec
    root: Path
    sample: pd.DataFrame
    fraction: float
    split: str
    seed: int
    max_train_mb: float = 2048.0
    # Which fold of the split (`swarm.pipeline.folds`): 0 the first; a further one draws with seed + fold, or takes
    # a blocks split's next edge blocks (`swarm.evaluation.split.later_folds`).
    fold: int = 0


@dataclass
class SplitParts:
    """What `swarm.layouts.holdout._save_split` saves of a split built by a layout's own module (its keyword
    arguments, beside the fraction and seed the builder passes): long by class, grouped rows, twin tables,
    versions in folders."""

    labels: pd.DataFrame  # each held-out row's target, in the submission's column
    held: pd.DataFrame  # the held-out rows as the test table has them
    ids: list[str]  # their ids in the view (`<key>_<class>`, `<patient>_<laterality>`)
    split: tuple[str, str]
    n_train: int
    classes: dict[str, list[str]]
    table: str
    hidden: list[str]
    file_dirs: list[str]
    rekeyed: bool = False  # whether the held-out rows got new ids
    key_columns: list[str] = field(default_factory=list)  # the test columns the ids join, if any
    positions: np.ndarray | None = None  # the rows of `labels` to save (None: all)
    shifted: bool = False  # whether the held-out ids are test ids at an earlier time (`Holdout.shifted`)
    fresh: FreshIds | None = None  # the view's fresh ids, or why ids are kept (None: the layout keeps them)
    fraction: float | None = None  # the share held out, where the split holds out another than the one asked
    labelled_ids: list[str] | None = None  # the ids of `labels`' rows, where only some of `ids` are scored
    relation: list[str] = field(
        default_factory=list
    )  # the test beside train, the held-out rows beside the kept
