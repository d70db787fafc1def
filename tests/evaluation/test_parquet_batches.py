"""Parquet tables and inputs filed by a group column (icecube-neutrinos-in-deep-ice's layout, issue 29): the
labels in `train_meta.parquet`, the test events in `test_meta.parquet`, each batch's pulses in
`train/batch_<n>.parquet` or `test/batch_<n>.parquet`. The harness holds out whole batches, their rows join the
test table without the angles and their files move to `test/`; the view's parquet tables keep their column
types. A table over evaluation.max_train_mb is streamed (swarm/evaluation/large_parquet.py), whole batches held
out alike."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarm.competitions import load_competition
from swarm.evaluation import large_parquet
from swarm.evaluation.holdout import Holdout, NoHoldout, build_holdout
from swarm.evaluation.table_io import read_parquet_as_text, write_public_table
from tests.evaluation.census_builders import icecube

ANGLES = ["azimuth", "zenith"]
WHOLE, STREAMED = {}, {"max_train_mb": 0.0001}  # read whole; over max_train_mb (a few batches of 7 rows)


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(large_parquet, "CHUNK_ROWS", 7)


def _split(tmp_path: Path, **options):
    root = icecube(tmp_path / "ice", n_batches=10, n_test=2, per_batch=8)
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.25, seed=3, **options)
    return root / "prepared" / "public", holdout


def own_ids(holdout: Holdout, row: str = "held") -> dict[str, str]:
    """Each `row` ("held" or "test") id in the view -> its own: fresh ids in a streamed split, kept where the
    table is read whole."""
    return holdout.own_ids(row) or {i: i for i in holdout.ids}


@pytest.mark.parametrize("options", [WHOLE, STREAMED], ids=["whole", "streamed"])
def test_whole_batches_are_held_out_with_their_pulse_files(tmp_path: Path, options: dict) -> None:
    public, holdout = _split(tmp_path, **options)
    view, own = holdout.public_dir, own_ids(holdout)
    source = pd.read_parquet(public / "train_meta.parquet")
    kept = pd.read_parquet(view / "train_meta.parquet")
    test = pd.read_parquet(view / "test_meta.parquet")
    held = source[source["event_id"].astype(str).isin(set(own.values()))]
    held_batches = set(held["batch_id"])
    assert len(held_batches) >= 2 and len(held) == len(holdout.ids) == len(own)
    assert not held_batches & set(kept["batch_id"])  # a batch is on one side only
    assert set(kept["event_id"]) | set(held["event_id"]) == set(source["event_id"])
    assert set(holdout.ids) <= set(test["event_id"].astype(str))
    assert not set(ANGLES) & set(test.columns)
    for batch in held_batches:
        assert not (view / "train" / f"batch_{batch}.parquet").exists()
    in_view = test.assign(own=test["event_id"].astype(str).map(own)).dropna(subset=["own"])
    for batch, rows in in_view.groupby("batch_id"):  # each held-out event's pulses in its batch's test file
        pulses = pd.read_parquet(view / "test" / f"batch_{batch}.parquet")
        assert set(rows["event_id"]) <= set(pulses.index)
    for batch in set(kept["batch_id"]):
        assert (view / "train" / f"batch_{batch}.parquet").is_file()
    labels = pd.read_csv(holdout.root / "labels.csv", dtype={"event_id": str})
    truth = held.set_index(held["event_id"].astype(str)).loc[labels["event_id"].map(own), ANGLES].to_numpy()
    assert np.array_equal(labels[ANGLES].to_numpy(), truth)  # the angles exactly, read back from text
    sample = pd.read_csv(view / "sample_submission.csv")
    assert set(holdout.ids) <= set(sample["event_id"].astype(str)) and len(sample) == len(test)
    if options:  # streamed: the sample in the test table's order, each held-out batch's rows together
        assert sample["event_id"].tolist() == test["event_id"].tolist()
        runs = test["batch_id"].ne(test["batch_id"].shift()).cumsum()
        assert test.groupby("batch_id")[runs.name].nunique().eq(1).all()


@pytest.mark.parametrize("options", [WHOLE, STREAMED], ids=["whole", "streamed"])
def test_the_views_parquet_tables_keep_their_column_types(tmp_path: Path, options: dict) -> None:
    public, holdout = _split(tmp_path, **options)
    for name in ("train_meta.parquet", "test_meta.parquet"):
        source, view = pd.read_parquet(public / name), pd.read_parquet(holdout.public_dir / name)
        assert dict(view.dtypes) == dict(source.dtypes), name


def test_a_batch_split_follows_a_set_split_but_moves_every_held_out_batch_file(tmp_path: Path) -> None:
    """With evaluation.split=random some batches have rows on both sides: their files stay in train/ and are
    also where the test files are, so every held-out event has its pulses there."""
    _, holdout = _split(tmp_path, split="random")
    view = holdout.public_dir
    test = pd.read_parquet(view / "test_meta.parquet")
    for batch in set(test["batch_id"]):
        assert (view / "test" / f"batch_{batch}.parquet").is_file()
    kept = pd.read_parquet(view / "train_meta.parquet")
    for batch in set(kept["batch_id"]):
        assert (view / "train" / f"batch_{batch}.parquet").is_file()


def test_a_streamed_table_is_refused_in_one_sentence_where_its_batches_name_no_files(tmp_path: Path) -> None:
    root = icecube(tmp_path / "ice", n_batches=10, n_test=2, per_batch=8)
    # a file of test/ that no test batch names: the batches do not name the test inputs, whatever they are
    (root / "prepared" / "public" / "test" / "batch_99.parquet").write_bytes(b"")
    competition = load_competition(str(root), tmp_path / "cache")
    with pytest.raises(NoHoldout) as refused:
        build_holdout(competition, tmp_path / "harness", fraction=0.25, **STREAMED)
    why = str(refused.value)
    assert "train_meta.parquet is" in why and "a parquet table whose inputs a group column names" in why
    assert "\n" not in why


def test_a_streamed_table_takes_no_split_but_whole_batches(tmp_path: Path) -> None:
    with pytest.raises(NoHoldout) as refused:
        _split(tmp_path, split="random", **STREAMED)
    assert "whole batch_ids held out" in str(refused.value) and "\n" not in str(refused.value)


def test_text_written_back_in_the_source_types_reads_back_equal(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "n": pd.array([1, None, 3], dtype="Int64"),
            "x": [0.1, float("nan"), 1e-300],
            "flag": pd.array([True, None, False], dtype="boolean"),
            "when": pd.to_datetime(["2020-01-01", None, "2021-06-30 12:00:00"], format="ISO8601"),
            "word": ["a", None, "c"],
        }
    )
    source = tmp_path / "source.parquet"
    frame.to_parquet(source, index=False)
    text = read_parquet_as_text(source)
    assert text.loc[1].tolist() == ["", "", "", "", ""]
    write_public_table(text.iloc[[2, 0, 1]], tmp_path / "out.parquet", source)
    back = pd.read_parquet(tmp_path / "out.parquet")
    pd.testing.assert_frame_equal(back, frame.iloc[[2, 0, 1]].reset_index(drop=True))


NO_PYARROW = """
import sys


class NoPyarrow:
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "pyarrow":
            raise ImportError("no pyarrow here")


sys.meta_path.insert(0, NoPyarrow())
from pathlib import Path
from swarm.competitions import load_competition
from swarm.evaluation.holdout import Holdout, NoHoldout, build_holdout

out = Path(sys.argv[1])
for name in ("spooky", "icecube"):  # built beforehand, with pyarrow
    competition = load_competition(str(out / name), out / "cache")
    try:
        print(name, build_holdout(competition, out / name / "harness", fraction=0.2).describe())
    except NoHoldout as exc:
        print(name, "refused:", exc)
"""


def test_without_pyarrow_only_parquet_tables_are_refused_and_in_one_sentence(tmp_path: Path) -> None:
    """A GPU machine's image may lack pyarrow: the harness imports it only for a parquet table."""
    import subprocess
    import sys

    from tests.evaluation.census_builders import spooky

    spooky(tmp_path / "spooky")
    icecube(tmp_path / "icecube")
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", NO_PYARROW, str(tmp_path)],
        cwd=repo,  # `-c` puts the working dir first on sys.path: this checkout's swarm
        capture_output=True,
        text=True,
        check=True,
    )
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["spooky"].startswith("the harness holds out"), done.stdout
    assert (
        lines["icecube"].startswith("refused:") and "needs pyarrow (pip install pyarrow)" in lines["icecube"]
    )


def test_a_streamed_table_whose_index_is_a_named_range_is_refused_in_one_sentence(tmp_path: Path) -> None:
    """pandas keeps a named RangeIndex as its name and range in the metadata, not as a column: a streamed copy
    of some rows would give the kept rows the wrong ids."""
    root = icecube(tmp_path / "ice", n_batches=10, n_test=2, per_batch=8)
    path = root / "prepared" / "public" / "train_meta.parquet"
    table = pd.read_parquet(path)
    table.index = pd.RangeIndex(len(table), name="row")
    table.to_parquet(path)
    competition = load_competition(str(root), tmp_path / "cache")
    with pytest.raises(NoHoldout) as refused:
        build_holdout(competition, tmp_path / "harness", fraction=0.25, **STREAMED)
    assert "keeps 'row' as a range index" in str(refused.value) and "\n" not in str(refused.value)
