"""The harness's own validation split: labelled training rows the solution predicts without their labels.

Before the search, `build_holdout` finds the competition's layout (the first of `swarm.layouts.registry.LAYOUTS`
whose detector finds it, else the plain labelled table of `swarm.layouts.tables`), has the layout's split hold out
a seeded share of the labelled examples and build the public dir the sandbox sees (`<run>/harness/public/`), and
saves the split (`swarm.evaluation.saved_split`):

- the labelled examples without the held-out ones;
- the held-out examples among the test examples (their labels removed), in the test table and the sample
  submission, their files where the test files are;
- every other public file linked in as it is, side files that would give held-out labels away hidden;
- every test and held-out example under a fresh id (`swarm.evaluation.fresh_ids`), unless ids are kept.

The labels stay in `<run>/harness/labels.csv` (mode 0600, never mounted into a sandbox), written in the
submission's columns, so the grader's own `score_frame` scores the held-out part of every submission
(`swarm.evaluation.harness`).
"""

from __future__ import annotations

from pathlib import Path

from swarm.competitions.competition import Competition
from swarm.evaluation.holdout_record import Holdout, NoHoldout, SplitRequest, harness_root
from swarm.evaluation.saved_split import save_parts
from swarm.evaluation.split import check_split
from swarm.evaluation.table_io import read_csv_as_text
from swarm.formats.probe import Probe
from swarm.layouts.registry import find_layout
from swarm.layouts.tables.split import split_tables

__all__ = ["Holdout", "NoHoldout", "build_holdout", "check_split", "harness_root"]


def build_holdout(
    competition: Competition,
    root: Path,
    *,
    fraction: float,
    split: str = "auto",
    seed: int = 0,
    max_train_mb: float = 2048.0,
    labels_table: str | None = None,
    fold: int = 0,
) -> Holdout:
    """Build the split into `root` (public/, labels.csv, holdout.json); raises NoHoldout saying why not.
    `labels_table` (else competition.json's `labels_table`) names the labelled table where several hold labels;
    `fold` > 0 builds a further fold of the same split (`swarm.pipeline.folds`): a blocks split's next edge blocks,
    where the layout is a plain table, else the rows `seed` + `fold` draws (none for a time split)."""
    spec = competition.metric
    if spec is None:
        raise NoHoldout("the competition has no metric to score held-out rows with")
    if fraction <= 0:
        raise NoHoldout("evaluation.holdout_fraction is 0")
    sample = read_csv_as_text(competition.sample_submission)
    request = SplitRequest(competition, spec, root, sample, fraction, split, seed + fold, max_train_mb, fold)
    found = find_layout(harness_probe(request))
    if found is not None:
        layout, fields = found
        return save_parts(request, layout.split(request, fields))
    if spec.key_columns:
        joined = " and ".join((spec.id_column, *spec.key_columns))
        raise NoHoldout(
            f"the sample keys each row by {joined} together ({spec.id_column} repeats), and the harness splits such "
            "rows only where train.csv holds them with one target and each id begins with the name of its input "
            "folder, or where each example folder holds a labels table with the sample's columns"
        )
    return save_parts(request, split_tables(request, labels_table))


def harness_probe(request: SplitRequest) -> Probe:
    """The public dir as the layouts' detectors see it, with what the harness knows of it: the metric's id, key
    and target columns (the sample's others, but for the columns copied from the test rows), the sample's path,
    and how large a labelled table may be read whole."""
    competition, spec, sample = request.competition, request.spec, request.sample
    public = competition.public_dir
    targets = [c for c in sample.columns if c != spec.id_column and c not in spec.passthrough_columns]
    return Probe(
        public,
        [path.name for path in public.iterdir()],
        sample,
        spec.id_column,
        targets,
        competition.description,
        sample_path=str(competition.sample_submission),
        key_columns=list(spec.key_columns),
        max_train_mb=request.max_train_mb,
    )
