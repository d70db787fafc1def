"""A split saved: the held-out rows' private labels (`labels.csv`, with a grouped metric's groups beside them),
the split's record (`holdout.json`), and the harness dir sealed. Every layout's split ends here
(`swarm.layouts.holdout.build_holdout` saves what a layout's split returns)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.competition import MetricSpec
from swarm.competitions.validation import group_columns
from swarm.evaluation.fresh_files import copy_test_side
from swarm.evaluation.fresh_ids import FreshIds
from swarm.evaluation.holdout_record import Holdout, SplitParts, SplitRequest
from swarm.evaluation.labels import write_labels
from swarm.evaluation.view_files import seal


def save_parts(request: SplitRequest, parts: SplitParts) -> Holdout:
    """`save_split` for what a layout's split returned, with the request's fraction (or the share the split held
    out, where it says) and seed."""
    fields = {k: v for k, v in vars(parts).items() if k != "fraction"}
    fraction = request.fraction if parts.fraction is None else parts.fraction
    public = request.competition.public_dir
    return save_split(
        request.root, request.spec, **fields, public=public, fraction=fraction, seed=request.seed
    )


def ids_note(fresh: FreshIds | None) -> str:
    """What the run says of its ids before the first step (`Holdout.describe_ids`): why they are kept, or a caveat
    where fresh; "" where the layout's own split keeps them."""
    return "" if fresh is None else fresh.kept or fresh.note


def save_split(
    root: Path,
    spec: MetricSpec,
    labels: pd.DataFrame,
    held: pd.DataFrame,
    ids: list[str],
    *,
    positions: np.ndarray | None,
    split: tuple[str, str],
    fraction: float,
    seed: int,
    n_train: int,
    rekeyed: bool,
    classes: dict[str, list[str]],
    table: str,
    hidden: list[str],
    file_dirs: list[str] | None = None,
    key_columns: list[str] | None = None,
    shifted: bool = False,
    fresh: FreshIds | None = None,
    public: Path | None = None,
    labelled_ids: list[str] | None = None,
    relation: list[str] | None = None,
) -> Holdout:
    """Write the held-out rows' private labels (with a grouped metric's groups, champs's `type`, beside them)
    and the split's record, and seal the harness dir. Where the split placed files and fresh ids did not copy them
    (ids kept, or files not named by the ids), the view's test folders are copied anew (`copy_test_folders`;
    `public`: the competition's public dir). `labelled_ids`: the ids of `labels`' rows where only some of the
    held-out rows (`ids`) are scored."""
    saved = labels if positions is None else labels.iloc[positions]
    label_frame = pd.DataFrame({spec.id_column: labelled_ids or ids}).join(saved.reset_index(drop=True))
    # The key columns completing the id (uw-madison's class); log_mae's groups, masked_mae's mask, jigsaw's identities.
    for group in (*spec.key_columns, *group_columns(spec)):
        if group in held.columns and group not in label_frame.columns:
            label_frame[group] = held[group].astype(str).to_numpy()
    write_labels(root, label_frame, spec)
    note = ids_note(fresh)
    linked = fresh is None or not fresh.fresh or not fresh.files_renamed
    if linked and file_dirs and public is not None:  # held-out files were linked to the test side: copied
        copied = copy_test_folders(root / "public", public, seed)
        note = "; ".join(n for n in (note, copied) if n)
    holdout = Holdout(
        root=root,
        id_column=spec.id_column,
        target_columns=list(labels.columns),
        ids=ids,
        split=split[0],
        split_reason=split[1],
        fraction=fraction,
        seed=seed,
        n_train=n_train,
        rekeyed=rekeyed,
        file_dirs=file_dirs or [],
        classes=classes,
        table=table,
        hidden_side_files=hidden,
        key_columns=key_columns or [],
        shifted=shifted,
        fresh_ids=fresh is not None and fresh.fresh,
        ids_note=note,
        relation=relation or [],
    )
    seal(holdout)
    return holdout


def copy_test_folders(dest: Path, public: Path, seed: int) -> str:
    """Where a split moved held-out files to the test side and fresh ids did not copy them, every file of each
    top-level view folder named with "test" copied anew with a public test file's mtime
    (`fresh_files.copy_test_side`); a note where some stay linked."""
    rng = np.random.default_rng(seed + 4)
    notes = []
    for folder in sorted(p for p in dest.iterdir() if p.is_dir() and "test" in p.name.lower()):
        notes.append(copy_test_side(folder, public / folder.name, rng))
    return "; ".join(n for n in notes if n)
