"""The harness split of rows keyed by the id and another column (swarm/layouts/keyed/split.py, issue 29):
uw-madison-gi-tract-image-segmentation's row per (slice, organ), each slice's image in its scan's folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from swarm.competitions import load_competition
from swarm.evaluation.harness import Harness
from swarm.evaluation.view_tables import block_order
from swarm.layouts.holdout import NoHoldout, build_holdout
from swarm.layouts.keyed.reader import id_folders, image_paths
from tests.layouts.keyed.miniatures import uw_madison_images


def built(tmp_path: Path, seed: int = 0):
    root = uw_madison_images(tmp_path / "uw")
    competition = load_competition(str(root), tmp_path / "cache")
    return (
        root / "prepared" / "public",
        competition,
        build_holdout(competition, tmp_path / "h", fraction=0.25, seed=seed),
    )


def test_whole_scans_move_to_the_test_side_without_their_masks(tmp_path: Path) -> None:
    public, _, holdout = built(tmp_path)
    view = holdout.public_dir
    train = pd.read_csv(public / "train.csv", dtype=str, keep_default_na=False)
    held = sorted(set(holdout.ids))
    scans = {i.split("_slice_")[0] for i in held}
    assert len(scans) >= 2 and len(held) == 4 * len(scans)  # whole scans, every slice of each
    assert len(holdout.ids) == 3 * len(held)  # a row per organ
    shown = pd.read_csv(view / "train.csv", dtype=str, keep_default_na=False)
    assert not set(shown["id"]) & set(held)
    assert len(shown) + len(holdout.ids) == len(train)
    test = pd.read_csv(view / "test.csv", dtype=str, keep_default_na=False)
    assert list(test.columns) == ["id", "class"]
    assert set(held) <= set(test["id"])
    for scan in scans:  # the scan's folder where the test's are, none of it left on the training side
        case = scan.split("_")[0]
        moved = sorted(p.name for p in (view / "test" / case / scan / "scans").iterdir())
        assert moved == sorted(p.name for p in (public / "train" / case / scan / "scans").iterdir())
        assert not (view / "train" / case / scan).exists()
    tables = sorted(view.rglob("*.csv"))
    assert {"train.csv", "test.csv", "sample_submission.csv"} <= {p.name for p in tables}
    for path in tables:  # a held-out row's cells in the view: its id, its class, the sample's filler
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        rows = frame[frame["id"].isin(held)].drop(columns=["id", "class"])
        assert set(rows.stack()) <= {"1 1 5 2"}, path.name


def test_labels_hold_each_slices_size_from_its_image_and_a_perfect_submission_scores_1(
    tmp_path: Path,
) -> None:
    root = uw_madison_images(tmp_path / "uw", size=20)
    public = root / "prepared" / "public"
    for path in public.rglob("*.png"):  # a slice 20 high and 24 wide, its name left as it was
        Image.fromarray(np.zeros((20, 24), dtype=np.uint16)).save(path)
    competition = load_competition(str(root), tmp_path / "cache")
    holdout = build_holdout(competition, tmp_path / "h", fraction=0.25)
    labels = pd.read_csv(holdout.labels_path, dtype=str, keep_default_na=False)
    assert list(labels.columns) == ["id", "predicted", "class", "image_height", "image_width"]
    assert set(labels["image_height"]) == {"20"} and set(labels["image_width"]) == {"24"}
    sample = pd.read_csv(holdout.public_dir / "sample_submission.csv", dtype=str, keep_default_na=False)
    perfect = sample.merge(
        labels[["id", "class", "predicted"]], on=["id", "class"], how="left", suffixes=("_", "")
    )
    perfect = perfect.assign(predicted=perfect["predicted"].fillna(perfect["predicted_"]))[
        list(sample.columns)
    ]
    perfect.to_csv(tmp_path / "perfect.csv", index=False)
    harness = Harness(holdout, competition.metric, competition.sample_submission)
    result = harness.evaluate(tmp_path / "perfect.csv", tmp_path / "test_part.csv")
    assert result.problem is None and result.score == 1.0
    blank = perfect.assign(predicted="")
    blank.to_csv(tmp_path / "blank.csv", index=False)
    assert harness.evaluate(tmp_path / "blank.csv", tmp_path / "test_part.csv").score == 0.0
    sent = pd.read_csv(tmp_path / "test_part.csv", dtype=str, keep_default_na=False)
    original = pd.read_csv(competition.sample_submission, dtype=str, keep_default_na=False)
    assert sorted(zip(sent["id"], sent["class"], strict=True)) == sorted(
        zip(original["id"], original["class"], strict=True)
    )


def test_each_scans_rows_stay_together_in_the_views_tables(tmp_path: Path) -> None:
    _, _, holdout = built(tmp_path)
    for name in ("test.csv", "sample_submission.csv"):
        ids = pd.read_csv(holdout.public_dir / name, dtype=str)["id"]
        scans = ids.str.split("_slice_").str[0]
        runs = scans[scans != scans.shift()]
        assert runs.is_unique, f"{name}: a scan's rows are split: {runs.tolist()}"


def test_a_missing_image_refuses_the_split_naming_the_row(tmp_path: Path) -> None:
    root = uw_madison_images(tmp_path / "uw")
    for path in (root / "prepared" / "public" / "train").rglob("slice_0002_*.png"):
        path.unlink()
    competition = load_competition(str(root), tmp_path / "cache")
    with pytest.raises(
        NoHoldout, match=r"the image of held-out row case\d+_day\d+_slice_0002 cannot be read"
    ):
        build_holdout(competition, tmp_path / "h", fraction=0.25)


def test_ids_name_their_folder_by_the_longest_name_that_begins_them(tmp_path: Path) -> None:
    for relative in ("case1/case1_day2/scans", "case1/case1_day20/scans", "twin/a/x", "twin/b/x"):
        (tmp_path / relative).mkdir(parents=True)
    (tmp_path / "case1/case1_day2/scans/slice_0003_9_9_1.5_1.5.png").write_bytes(b"")
    found = id_folders(
        str(tmp_path), ["case1_day2_slice_0003", "case1_day20_slice_0001", "x_1", "case9_day1"]
    )
    assert found == {
        "case1_day2_slice_0003": str(tmp_path / "case1/case1_day2"),
        "case1_day20_slice_0001": str(tmp_path / "case1/case1_day20"),
    }  # `x` names two folders, so neither; case9 none
    paths = image_paths(str(tmp_path), ["case1_day2_slice_0003", "case1_day2_slice_0004"])
    assert paths == {
        "case1_day2_slice_0003": str(tmp_path / "case1/case1_day2/scans/slice_0003_9_9_1.5_1.5.png")
    }


def test_block_order_keeps_groups_together_in_a_seeded_order() -> None:
    groups = ["a", "a", "b", "c", "c", "c", "b"]
    order = block_order(groups, np.random.default_rng(3))
    assert sorted(order) == list(range(len(groups)))
    seen = [groups[k] for k in order]
    assert [g for k, g in enumerate(seen) if k == 0 or g != seen[k - 1]] == sorted(
        set(groups), key=seen.index
    )
    assert [k for k in order if groups[k] == "b"] == [2, 6]  # a group's rows in their own order
    assert (order == block_order(groups, np.random.default_rng(3))).all()


def test_the_ensemble_reads_and_mixes_rows_keyed_by_the_id_and_a_column() -> None:
    """uw-madison's held-out and test predictions repeat each id (a row per organ): the ensemble aligns and mixes
    them on the joined key, and the blend keeps the submission's own columns."""
    from swarm.competitions import MetricSpec
    from swarm.evaluation.ensemble import blend_frames, build_library

    spec = MetricSpec(
        name="rmse", lower_is_better=True, id_column="id", target_columns=("y",), key_columns=("k",)
    )
    labels = pd.DataFrame({"id": ["a", "a", "b", "b"], "k": ["x", "z", "x", "z"], "y": ["1", "2", "3", "4"]})
    one = labels.assign(y=["1.5", "2", "3", "5"]).iloc[[3, 0, 2, 1]]  # another row order
    two = labels.assign(y=["1.5", "3", "3", "4"])
    library = build_library(spec, labels, {"one": one, "two": two}, max_members=5)
    assert library.node_ids == ["one", "two"] and not library.left_out
    assert [list(p[0]) for p in library.predictions] == [[1.5, 2.0, 3.0, 5.0], [1.5, 3.0, 3.0, 4.0]]
    blended = blend_frames(spec, {"one": one, "two": two}, {"one": 0.5, "two": 0.5})
    assert list(blended.columns) == ["id", "k", "y"]
    assert blended.astype(str).values.tolist() == [
        ["b", "z", "4.5"],
        ["a", "x", "1.5"],
        ["b", "x", "3.0"],
        ["a", "z", "2.5"],
    ]  # the heaviest (first) member's row order
