"""Parquet tables and inputs filed by a group column (icecube-neutrinos-in-deep-ice's layout, issue 29): the
labels in `train_meta.parquet`, the test events in `test_meta.parquet`, each batch's pulses in
`train/batch_<n>.parquet` or `test/batch_<n>.parquet`. The harness holds out whole batches, their rows join the
test table without the angles and their files move to `test/`; the view's parquet tables keep their column
types. With whole batches held out, read whole or over evaluation.max_train_mb, the table is streamed
(swarm/layouts/parquet_batches/split.py) and the test side's events and batches get fresh ids; another split (random)
reads it whole."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from swarm.competitions import load_competition
from swarm.evaluation.harness import Harness
from swarm.evaluation.table_io import read_parquet_as_text, write_public_table
from swarm.layouts.holdout import Holdout, NoHoldout, build_holdout
from swarm.layouts.parquet_batches import split as large_parquet
from tests.layouts.parquet_batches.miniatures import icecube

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
    """Each `row` ("held" or "test") id in the view -> its own: fresh ids in a batch split, kept in a random one."""
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
    assert len(in_view) == len(holdout.ids) and len(kept) > 0
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
    assert len(test) > 0
    for batch in set(test["batch_id"]):
        assert (view / "test" / f"batch_{batch}.parquet").is_file()
    kept = pd.read_parquet(view / "train_meta.parquet")
    assert len(kept) > 0
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


@pytest.mark.parametrize("options", [WHOLE, STREAMED], ids=["whole", "streamed"])
def test_a_sample_that_lists_only_some_test_events_splits(tmp_path: Path, options: dict) -> None:
    """A sample of one row beside test_meta.parquet's 16 events: the view's sample lists that event and the
    held-out ones, as the competition's lists its one (the streamed split had crashed with a KeyError ordering
    the view's sample by the test table's ids)."""
    root = icecube(tmp_path / "ice", n_batches=10, n_test=2, per_batch=8)
    sample_path = root / "prepared" / "public" / "sample_submission.csv"
    pd.read_csv(sample_path).head(1).to_csv(sample_path, index=False)
    holdout = build_holdout(
        load_competition(str(root), tmp_path / "cache"), tmp_path / "h", fraction=0.25, **options
    )
    sample = pd.read_csv(holdout.public_dir / "sample_submission.csv", dtype=str)
    assert len(sample) == 1 + len(holdout.ids) and set(holdout.ids) < set(sample["event_id"])


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
from swarm.layouts.holdout import Holdout, NoHoldout, build_holdout

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

    from tests.layouts.tables.text_miniatures import spooky

    spooky(tmp_path / "spooky")
    icecube(tmp_path / "icecube")
    repo = Path(__file__).resolve().parents[3]
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


# -- fresh ids in the streamed split (issue 30, point 2) ------------------------------------------------------------

PULSES = ["sensor_id", "time", "charge", "auxiliary"]


def _contents(folder: Path) -> dict[str, bytes]:
    """Each file under `folder` (relative name) -> its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("options", [WHOLE, STREAMED], ids=["whole", "streamed"])
def test_a_batch_split_gives_every_test_and_held_out_event_a_fresh_id_and_batch(
    tmp_path: Path, options: dict
) -> None:
    """Every event of the view's test side (the test's and the held-out ones) has an id that no event had, every
    batch a number no batch had on the training side, written alike in test_meta.parquet, the sample and the pulse
    files; the pulse files keep their rows, schema and compression, ids rising along them, so each event's
    `first_pulse_index`..`last_pulse_index` still names its own pulses; no public file is written through."""
    root = icecube(tmp_path / "ice", n_batches=10, n_test=2, per_batch=8)
    public = root / "prepared" / "public"
    before = _contents(public)
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.25, seed=3, **options)
    assert _contents(public) == before  # and no test file is linked into the view:
    assert all(p.stat().st_nlink == 1 for p in (public / "test").iterdir())
    assert holdout.fresh_ids and "has a fresh id (event_id)" in holdout.describe_ids()
    view = holdout.public_dir
    own_held, own_test = holdout.own_ids("held"), holdout.own_ids("test")
    assert set(own_held) == set(holdout.ids) and len(own_test) == len(
        pd.read_parquet(public / "test_meta.parquet")
    )
    source = pd.concat(
        [pd.read_parquet(public / "train_meta.parquet"), pd.read_parquet(public / "test_meta.parquet")]
    )
    source = source.set_index(source["event_id"].astype(str))
    test = pd.read_parquet(view / "test_meta.parquet")
    shown = test["event_id"].astype(str)
    assert set(shown) == set(own_held) | set(own_test)
    assert not set(shown) & set(source.index)  # no event of the view's test side has an id any event had
    own = shown.map({**own_held, **own_test})
    assert set(own[shown.isin(own_held)]) == set(own_held.values())
    # Batches: fresh numbers, none a training batch's (kept or held out), the files named by them.
    kept = pd.read_parquet(view / "train_meta.parquet")
    held_batches = set(source.loc[list(own_held.values()), "batch_id"])
    assert not set(test["batch_id"]) & (set(kept["batch_id"]) | held_batches)
    assert {p.name for p in (view / "test").iterdir()} == {
        f"batch_{b}.parquet" for b in set(test["batch_id"])
    }
    # Sorted as the competition's test table is: by batch, then by event id; the sample in the same order.
    assert test.equals(test.sort_values(["batch_id", "event_id"]))
    assert (
        test["event_id"].astype(str).tolist()
        == pd.read_csv(view / "sample_submission.csv", dtype=str)["event_id"].tolist()
    )
    # Each event keeps its batch-mates, its pulse positions and its pulses, under its fresh id.
    originals = source.loc[own.to_numpy()]
    assert test.groupby("batch_id")["event_id"].size().sort_values().tolist() == (
        originals.groupby("batch_id")["event_id"].size().sort_values().tolist()
    )
    own_batch = pd.Series(originals["batch_id"].to_numpy(), index=test.index)
    assert own_batch.groupby(test["batch_id"]).nunique().eq(1).all()  # a batch's events were one batch's
    assert np.array_equal(
        test[["first_pulse_index", "last_pulse_index"]].to_numpy(),
        originals[["first_pulse_index", "last_pulse_index"]].to_numpy(),
    )
    public_test_files = sorted((public / "test").iterdir())
    mtimes = {p.stat().st_mtime_ns for p in public_test_files}
    schema = pq.read_schema(public_test_files[0])
    assert len(test) > 0
    for batch, rows in test.groupby("batch_id"):
        path = view / "test" / f"batch_{batch}.parquet"
        assert path.stat().st_nlink == 1 and path.stat().st_mtime_ns in mtimes
        assert pq.read_schema(path).equals(schema, check_metadata=True)
        codec = pq.ParquetFile(path).metadata.row_group(0).column(0).compression
        assert codec == pq.ParquetFile(public_test_files[0]).metadata.row_group(0).column(0).compression
        pulses = pd.read_parquet(path)
        assert pulses.index.is_monotonic_increasing and set(pulses.index) == set(rows["event_id"])
        first_own = originals.loc[own[rows.index[0]]]
        folder = "test" if str(first_own.name) in set(own_test.values()) else "train"
        before_pulses = pd.read_parquet(public / folder / f"batch_{int(first_own['batch_id'])}.parquet")
        for _, event in rows.iterrows():
            span = pulses.iloc[event["first_pulse_index"] : event["last_pulse_index"] + 1]
            assert (span.index == event["event_id"]).all()
            mine = before_pulses.loc[[int(own[_])]]
            assert np.array_equal(span[PULSES].to_numpy(), mine[PULSES].to_numpy())
    assert not (view / "view_ids.csv").exists() and holdout.view_ids_path.stat().st_mode & 0o077 == 0


def test_the_harness_scores_fresh_ids_and_delivers_the_test_under_its_own(tmp_path: Path) -> None:
    root = icecube(tmp_path / "ice", n_batches=10, n_test=2, per_batch=8)
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.25, seed=3, **STREAMED)
    view = holdout.public_dir
    labels = pd.read_csv(holdout.labels_path, dtype=str).set_index("event_id")
    submission = pd.read_csv(view / "sample_submission.csv", dtype=str)
    held = submission["event_id"].isin(labels.index)
    submission.loc[held, ANGLES] = labels.loc[submission.loc[held, "event_id"], ANGLES].to_numpy()
    submission.to_csv(tmp_path / "submission.csv", index=False)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    result = harness.evaluate(tmp_path / "submission.csv", tmp_path / "test_part.csv")
    assert result.problem is None and result.score == pytest.approx(0.0, abs=1e-6)
    delivered = pd.read_csv(tmp_path / "test_part.csv", dtype=str)
    own_sample = pd.read_csv(competition.sample_submission, dtype=str)
    assert delivered["event_id"].tolist() == own_sample["event_id"].tolist()  # the test's own ids, in order


def _batch_guessers(holdout: Holdout) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """What a solution sees of each batch of the view's test side (its number, its smallest event id, that id's
    distance to the nearest training id, its first row's place in test_meta.parquet, its file's size, mtime and
    inode) and which batches are held out."""
    view = holdout.public_dir
    test = pd.read_parquet(view / "test_meta.parquet")
    train_ids = np.sort(pd.read_parquet(view / "train_meta.parquet")["event_id"].to_numpy())
    batches = test.groupby("batch_id", sort=False)
    first = batches["event_id"].min()
    at = np.clip(np.searchsorted(train_ids, first.to_numpy()), 1, len(train_ids) - 1)
    files = [os.stat(view / "test" / f"batch_{b}.parquet") for b in first.index]
    guessers = {
        "batch number": first.index.to_numpy(dtype=float),
        "smallest id": first.to_numpy(dtype=float),
        "nearest training id": np.minimum(
            np.abs(first.to_numpy() - train_ids[at - 1]), np.abs(first.to_numpy() - train_ids[at])
        ).astype(float),
        "row order": batches.head(1).index.to_numpy(dtype=float),
        "size": np.array([f.st_size for f in files], dtype=float),
        "mtime": np.array([f.st_mtime_ns for f in files], dtype=float),
        "inode": np.array([f.st_ino for f in files], dtype=float),
    }
    held_ids = set(holdout.ids)
    held = batches["event_id"].agg(lambda e: e.astype(str).isin(held_ids).all()).to_numpy()
    return guessers, held


def test_held_out_batches_cannot_be_told_from_test_batches(tmp_path: Path) -> None:
    """Guessers reading the view's numbers, ids, order and file stats find the held-out batches no better than
    chance, over twelve seeds (held-out batches come from train/, whose numbers and ids lie below the test's)."""
    from tests.evaluation.chance import auc

    root = icecube(tmp_path / "ice", n_batches=20, n_test=4, per_batch=8)
    competition = load_competition(str(root), tmp_path / "cache")
    scores: dict[str, list[float]] = {}
    for seed in range(12):
        holdout = build_holdout(competition, tmp_path / f"h{seed}", fraction=0.25, seed=seed, **STREAMED)
        guessers, held = _batch_guessers(holdout)
        assert 0 < held.sum() < len(held)
        for name, guess in guessers.items():
            scores.setdefault(name, []).append(auc(guess, held))
    means = {name: float(np.mean(values)) for name, values in scores.items()}
    assert all(abs(mean - 0.5) <= 0.2 for mean in means.values()), means


def test_a_streamed_split_keeps_the_ids_where_competition_json_says_so(tmp_path: Path) -> None:
    root = icecube(tmp_path / "ice", n_batches=10, n_test=2, per_batch=8)
    hints = json.loads((root / "competition.json").read_text())
    (root / "competition.json").write_text(json.dumps({**hints, "keep_ids": True}))
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "harness", fraction=0.25, seed=3, **STREAMED)
    assert not holdout.fresh_ids and 'competition.json says "keep_ids": true' in holdout.describe_ids()
    view, public = holdout.public_dir, root / "prepared" / "public"
    source = pd.read_parquet(public / "train_meta.parquet")
    held = source[source["event_id"].astype(str).isin(holdout.ids)]
    assert len(held) == len(holdout.ids) > 0
    for batch in set(held["batch_id"]):  # the held-out batches' files where the test's are, copied
        path = view / "test" / f"batch_{batch}.parquet"
        assert path.stat().st_nlink == 1 and not (view / "train" / path.name).exists()


@pytest.mark.parametrize("spread", [1, 10**9], ids=["dense", "sampled"])
def test_fresh_event_ids_avoid_every_own_and_labelled_id_or_say_there_is_no_room(
    tmp_path: Path, spread: int
) -> None:
    """The ids are drawn as `fresh_ids.draw_numbers` draws them, the labelled table's ids streamed for each
    look: dense ranges listed, wide ones sampled (duplicate draws among them); none where the id type has no
    room left."""
    labelled = tmp_path / "train_meta.parquet"
    pd.DataFrame({"event_id": np.arange(0, 4000, dtype=np.int64) * spread}).to_parquet(labelled)
    own = np.arange(4000, 4300, dtype=np.int64) * spread  # the test side's ids, the test's first 200
    drawn = large_parquet._draw_ids(labelled, "event_id", own, 200, 2**62, np.random.default_rng(1))
    assert drawn is not None and len(drawn) == len(set(drawn.tolist())) == 300
    assert np.all(np.diff(drawn) > 0) and drawn.min() >= own[:200].min()
    labelled_ids = set(pd.read_parquet(labelled)["event_id"].tolist())
    assert not set(drawn.tolist()) & (labelled_ids | set(own.tolist()))
    if spread == 1:  # every number from the test's smallest to the largest own id is own: no room below it
        end = int(own.max()) + 1
        assert large_parquet._draw_ids(labelled, "event_id", own, 200, end, np.random.default_rng(1)) is None
